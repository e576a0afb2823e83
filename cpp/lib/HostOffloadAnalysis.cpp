//===- HostOffloadAnalysis.cpp - trace tensors moved to host --------------===//
//
// A forward worklist over (value, tuple index path) nodes. Every node is
// created once, and a path is clamped to the tuple elements of its value's
// type; a node is propagated again only when the starts or argument origins
// that reach it grow, which their caps bound, so the walk is linear in the
// size of the module. Nothing recurses on the depth of the program.
//
// XLA flattens the call graph (one clone of a callee per call site) before it
// traces, so a callee's result is host only at the call sites that pass host
// memory in. Each node therefore remembers through which arguments of its
// function the host memory came ("origins"), or that it is host whatever the
// caller passes ("global": a start inside the function, or too many origins);
// a callee's return then flows only to the call sites whose matching operand
// is host.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/HostOffloadAnalysis.h"

#include "LargeArrayAllocator.h"
#include "hostoffload/EntryFunction.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <iterator>
#include <map>
#include <tuple>

using namespace mlir;

namespace hostoffload {

namespace {

/// How many starts a value remembers; more are summarized as "more starts".
constexpr unsigned kMaxStartsPerNode = 4;
/// How many argument origins a value remembers; with more, it counts as host
/// for every caller, which can only add findings, never lose one.
constexpr unsigned kMaxOriginsPerNode = 8;
/// How many slices a value made of slices remembers; see Facts.
constexpr unsigned kMaxSlicesPerNode = 4;
/// Tuple index paths longer than this cannot come from a well-typed program.
constexpr size_t kMaxTupleDepth = 64;
/// A path note shows this many steps at each end of a longer path.
constexpr size_t kPathStepsAtEachEnd = 6;
/// Implicit host compute lists this many ops besides the first per start.
constexpr size_t kHostComputeOpsShown = 4;

constexpr llvm::StringLiteral kMemoryKindAttr = "mhlo.memory_kind";
constexpr llvm::StringLiteral kFrontendAttrs = "mhlo.frontend_attributes";
constexpr llvm::StringLiteral kPlacementAttr = "_xla_buffer_placement";
constexpr llvm::StringLiteral kPinnedHost = "pinned_host";
constexpr llvm::StringLiteral kUnpinnedHost = "unpinned_host";
constexpr llvm::StringLiteral kDevice = "device";

/// The op names the analysis dispatches on, interned once per run so that
/// classifying an op is a pointer comparison.
struct OpNames {
  explicit OpNames(MLIRContext *context)
      : customCall(get(context, "stablehlo.custom_call")),
        tuple(get(context, "stablehlo.tuple")),
        getTupleElement(get(context, "stablehlo.get_tuple_element")),
        optimizationBarrier(get(context, "stablehlo.optimization_barrier")),
        whileOp(get(context, "stablehlo.while")),
        ifOp(get(context, "stablehlo.if")),
        caseOp(get(context, "stablehlo.case")),
        regionReturn(get(context, "stablehlo.return")),
        dynamicSlice(get(context, "stablehlo.dynamic_slice")),
        slice(get(context, "stablehlo.slice")),
        dynamicUpdateSlice(get(context, "stablehlo.dynamic_update_slice")),
        reshape(get(context, "stablehlo.reshape")),
        broadcastInDim(get(context, "stablehlo.broadcast_in_dim")),
        transpose(get(context, "stablehlo.transpose")),
        scatter(get(context, "stablehlo.scatter")),
        constant(get(context, "stablehlo.constant")),
        convert(get(context, "stablehlo.convert")),
        shardingConstraint(get(context, "sdy.sharding_constraint")),
        call(get(context, "func.call")),
        funcReturn(get(context, "func.return")),
        frontendAttrs(get(context, kFrontendAttrs)) {}

  static StringAttr get(MLIRContext *context, llvm::StringRef name) {
    return StringAttr::get(context, name);
  }

  StringAttr customCall, tuple, getTupleElement, optimizationBarrier, whileOp,
      ifOp, caseOp, regionReturn, dynamicSlice, slice, dynamicUpdateSlice,
      reshape, broadcastInDim, transpose, scatter, constant, convert,
      shardingConstraint, call, funcReturn;
  /// Not an op: the attribute read on every call site, looked up by
  /// pointer.
  StringAttr frontendAttrs;
};

/// What a `stablehlo.custom_call` does to host memory.
enum class CustomCallKind {
  MoveToHost,
  MoveToDevice,
  /// An annotation that neither moves to nor from host (vmem, ...).
  OtherPlacement,
  /// A sharding wrapper XLA has removed by the time it traces.
  Sharding,
  /// An annotation XLA cannot process (wrong operand count).
  MalformedAnnotation,
  Other,
};

struct CustomCallInfo {
  CustomCallKind kind = CustomCallKind::Other;
  /// The target name, e.g. "annotate_device_placement".
  llvm::StringRef target;
  /// The placement of an annotate_device_placement; empty otherwise.
  llvm::StringRef placement;
  /// True when the placement is missing, not a string, or not a known one.
  bool unknownPlacement = false;
};

StringAttr getStringAttr(Operation *op, llvm::StringRef name) {
  return llvm::dyn_cast_or_null<StringAttr>(op->getAttr(name));
}

CustomCallInfo classifyCustomCall(Operation *op) {
  CustomCallInfo info;
  StringAttr target = getStringAttr(op, "call_target_name");
  if (!target)
    return info;
  info.target = target.getValue();
  bool isAnnotation = false;
  if (info.target == "annotate_device_placement") {
    isAnnotation = true;
    auto frontendAttrs = op->getAttrOfType<DictionaryAttr>(kFrontendAttrs);
    StringAttr placement = frontendAttrs
                               ? llvm::dyn_cast_or_null<StringAttr>(
                                     frontendAttrs.get(kPlacementAttr))
                               : StringAttr();
    info.placement = placement ? placement.getValue() : llvm::StringRef();
    if (info.placement == kPinnedHost || info.placement == kUnpinnedHost) {
      info.kind = CustomCallKind::MoveToHost;
    } else if (info.placement == kDevice) {
      info.kind = CustomCallKind::MoveToDevice;
    } else {
      info.kind = CustomCallKind::OtherPlacement;
      info.unknownPlacement =
          info.placement != "vmem" && info.placement != "pinned_device";
    }
  } else if (info.target == "MoveToHost") {
    isAnnotation = true;
    info.kind = CustomCallKind::MoveToHost;
  } else if (info.target == "MoveToDevice") {
    isAnnotation = true;
    info.kind = CustomCallKind::MoveToDevice;
  } else if (info.target == "Sharding" ||
             info.target == "xla.sdy.FuncResultSharding" ||
             info.target == "SPMDFullToShardShape" ||
             info.target == "SPMDShardToFullShape") {
    info.kind = CustomCallKind::Sharding;
  }
  if (isAnnotation && (op->getNumOperands() != 1 || op->getNumResults() != 1))
    info.kind = CustomCallKind::MalformedAnnotation;
  return info;
}

/// Reads the integer after `key` in the text of an opaque attribute such as
/// `#stablehlo.output_operand_alias<output_tuple_indices = [1], ...>`; the
/// StableHLO dialect is not registered, so its attributes stay opaque.
std::optional<int64_t> readOpaqueInteger(llvm::StringRef text,
                                         llvm::StringRef key) {
  size_t position = text.find(key);
  if (position == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = text.drop_front(position + key.size()).ltrim();
  int64_t value;
  if (rest.consumeInteger(10, value))
    return std::nullopt;
  return value;
}

/// Returns the result of `op` that aliases operand `operandNumber` through
/// `output_operand_aliases`, if any.
std::optional<unsigned> findAliasedResult(Operation *op,
                                          unsigned operandNumber) {
  auto aliases =
      llvm::dyn_cast_or_null<ArrayAttr>(op->getAttr("output_operand_aliases"));
  if (!aliases)
    return std::nullopt;
  for (Attribute alias : aliases) {
    auto opaque = llvm::dyn_cast<OpaqueAttr>(alias);
    if (!opaque)
      continue;
    llvm::StringRef text = opaque.getAttrData();
    std::optional<int64_t> operandIndex =
        readOpaqueInteger(text, "operand_index =");
    if (!operandIndex || *operandIndex != operandNumber)
      continue;
    int64_t resultIndex =
        readOpaqueInteger(text, "output_tuple_indices = [").value_or(0);
    if (resultIndex < 0 || resultIndex >= op->getNumResults())
      return std::nullopt;
    return static_cast<unsigned>(resultIndex);
  }
  return std::nullopt;
}

/// Returns the index of a `get_tuple_element`. StableHLO is not registered, so
/// nothing checks that it is an i32: an integer of any type and signedness is
/// read, and one that does not fit in 64 bits selects no element.
std::optional<int64_t> getTupleIndex(Operation *op) {
  auto index = llvm::dyn_cast_or_null<IntegerAttr>(op->getAttr("index"));
  if (!index)
    return std::nullopt;
  return llvm::APSInt(index.getValue(), index.getType().isUnsignedInteger())
      .tryExtValue();
}

/// A memory kind as declared on an entry argument or result.
struct DeclaredMemoryKind {
  /// The spelling; empty when nothing is declared.
  std::string kind;
  /// The attribute that declares it: `mhlo.memory_kind`, or the key of the
  /// module's memory spaces.
  llvm::StringRef source;
  /// The declaration is there but is not a string.
  bool malformed = false;
  /// Declared by an XLA memory-space number in the module's attributes, as
  /// in modules converted from HLO; `space` is that number.
  bool fromModuleSpaces = false;
  llvm::StringRef space;

  /// Where it was declared, e.g. "out_memory_spaces of the module".
  std::string describeSource() const {
    return fromModuleSpaces ? (source + " of the module").str() : source.str();
  }

  /// E.g. `mhlo.memory_kind = "device"`.
  std::string describe() const {
    if (fromModuleSpaces)
      return ("memory space " + space + " (\"" + kind + "\") in " +
              describeSource())
          .str();
    return (source + " = \"" + kind + "\"").str();
  }
};

/// Maps XLA's memory-space numbers in modules converted from HLO to kinds.
std::string memorySpaceToKind(llvm::StringRef space) {
  space = space.trim();
  if (space == "0")
    return kDevice.str();
  if (space == "5")
    return kPinnedHost.str();
  if (space == "6")
    return kUnpinnedHost.str();
  return ("memory space " + space).str();
}

/// Entry `index` of a function's `arg_attrs` or `res_attrs` (`perValueAttrs`,
/// may be null). Read from the array directly: the FunctionOpInterface
/// accessor costs an interface lookup per call, and every output reads it.
DictionaryAttr getAttrDict(ArrayAttr perValueAttrs, unsigned index) {
  return perValueAttrs && index < perValueAttrs.size()
             ? llvm::dyn_cast<DictionaryAttr>(perValueAttrs[index])
             : DictionaryAttr();
}

/// The memory kinds declared on `count` arguments or results, given their
/// attribute dictionaries (`perValueAttrs`, may be null), by `mhlo.memory_kind`
/// or else by the module's `moduleSpacesKey` (a string literal).
std::vector<DeclaredMemoryKind>
readMemoryKinds(ArrayAttr perValueAttrs, unsigned count, ModuleOp module,
                llvm::StringLiteral moduleSpacesKey) {
  std::vector<DeclaredMemoryKind> kinds(count);
  llvm::SmallVector<llvm::StringRef> moduleSpaces;
  if (auto frontendAttrs =
          module->getAttrOfType<DictionaryAttr>(kFrontendAttrs))
    if (auto spaces = llvm::dyn_cast_or_null<StringAttr>(
            frontendAttrs.get(moduleSpacesKey)))
      spaces.getValue().split(moduleSpaces, ';');
  StringAttr memoryKindName =
      StringAttr::get(module.getContext(), kMemoryKindAttr);
  for (unsigned index = 0; index < count; ++index) {
    DeclaredMemoryKind &declared = kinds[index];
    DictionaryAttr attrs = getAttrDict(perValueAttrs, index);
    if (Attribute kind = attrs ? attrs.get(memoryKindName) : Attribute()) {
      declared.source = kMemoryKindAttr;
      if (auto kindString = llvm::dyn_cast<StringAttr>(kind))
        declared.kind = kindString.getValue().str();
      else
        declared.malformed = true;
      continue;
    }
    if (index >= moduleSpaces.size())
      continue;
    declared.kind = memorySpaceToKind(moduleSpaces[index]);
    declared.source = moduleSpacesKey;
    declared.fromModuleSpaces = true;
    declared.space = moduleSpaces[index].trim();
  }
  return kinds;
}

bool isKnownMemoryKind(llvm::StringRef kind) {
  return kind == kDevice || kind == kPinnedHost || kind == kUnpinnedHost;
}

std::string quoted(llvm::StringRef text) { return ("\"" + text + "\"").str(); }

/// Where a node's host memory comes from: the starts that reach it and the
/// arguments of its function it came through. Sets keep the first items to
/// arrive, up to a cap, so that each grows a bounded number of times.
///
/// A slice of host memory is special: XLA reads it into device memory unless
/// its result is computed on somewhere, so a value derived from a slice only
/// through data movement is host memory only if that slice turns out to be
/// computed on. Such a value lists the slice in `slices` and is not
/// `unconditional`.
struct Facts {
  llvm::SmallVector<unsigned, 2> starts;
  bool moreStarts = false;
  /// Arguments of the enclosing function through which host memory came.
  llvm::SmallVector<unsigned, 2> origins;
  /// Host whatever the callers of the enclosing function pass in.
  bool global = false;
  /// Host memory whether or not any slice is computed on.
  bool unconditional = true;
  /// Slices (ids of the Tracer) whose result this value is made of.
  llvm::SmallVector<unsigned, 1> slices;
};

/// Interned Facts. Almost every value of a module shares one of a few fact
/// sets, so a node stores an id and merging two nodes is a cached lookup.
class FactTable {
public:
  const Facts &get(unsigned id) const { return facts[id]; }

  /// The facts of a start: host at every call site.
  unsigned forStart(unsigned startIndex) {
    Facts start;
    start.starts.push_back(startIndex);
    start.global = true;
    return intern(std::move(start));
  }

  /// The facts of `into` with those of `from` added.
  unsigned merge(unsigned into, unsigned from) {
    if (into == from)
      return into;
    return cached(mergeCache, {into, from}, [&] {
      Facts merged = facts[into];
      const Facts &added = facts[from];
      addCapped(merged.starts, merged.moreStarts, added.starts,
                added.moreStarts, kMaxStartsPerNode);
      addCapped(merged.origins, merged.global, added.origins, added.global,
                kMaxOriginsPerNode);
      merged.unconditional |= added.unconditional;
      addSlices(merged, added.slices);
      return merged;
    });
  }

  /// The starts of `from`, entering a callee through its argument
  /// `argument`.
  unsigned intoCallee(unsigned from, unsigned argument) {
    return cached(calleeCache, {from, argument}, [&] {
      Facts entering;
      entering.starts = facts[from].starts;
      entering.moreStarts = facts[from].moreStarts;
      entering.origins.push_back(argument);
      return entering;
    });
  }

  /// A callee's return value with facts `callee`, seen at a call site whose
  /// operand has facts `caller`: host memory that came through the argument
  /// is there exactly when the operand is.
  unsigned outOfCallee(unsigned callee, unsigned caller) {
    return cached(returnCache, {callee, caller}, [&] {
      Facts returned = facts[caller];
      const Facts &inside = facts[callee];
      if (!inside.unconditional) {
        returned.unconditional = false;
        returned.slices.clear();
      }
      addSlices(returned, inside.slices);
      return returned;
    });
  }

  /// The result of slice `slice` of a value with facts `from`.
  unsigned throughSlice(unsigned from, unsigned slice) {
    return cached(sliceCache, {from, slice}, [&] {
      Facts sliced = facts[from];
      sliced.unconditional = false;
      sliced.slices.assign({slice});
      return sliced;
    });
  }

  /// The result of host compute on a value with facts `from`: the compute
  /// makes every slice the value is made of host compute too.
  unsigned throughHostCompute(unsigned from) {
    const Facts &operand = facts[from];
    if (operand.unconditional && operand.slices.empty())
      return from;
    return cached(computeCache, {from, 0}, [&] {
      Facts computed = facts[from];
      computed.unconditional = true;
      computed.slices.clear();
      return computed;
    });
  }

private:
  using Cache = llvm::DenseMap<std::pair<unsigned, unsigned>, unsigned>;

  template <typename MakeFacts>
  unsigned cached(Cache &cache, std::pair<unsigned, unsigned> key,
                  MakeFacts makeFacts) {
    auto it = cache.find(key);
    if (it != cache.end())
      return it->second;
    unsigned id = intern(makeFacts());
    cache[key] = id;
    return id;
  }

  static void addCapped(llvm::SmallVectorImpl<unsigned> &into, bool &overflow,
                        llvm::ArrayRef<unsigned> items, bool itemsOverflow,
                        unsigned cap) {
    for (unsigned item : items) {
      if (llvm::is_contained(into, item))
        continue;
      if (into.size() < cap)
        into.push_back(item);
      else
        overflow = true;
    }
    overflow |= itemsOverflow;
  }

  /// Past the cap a value counts as host memory outright, which can only
  /// add findings, never lose one.
  static void addSlices(Facts &into, llvm::ArrayRef<unsigned> slices) {
    bool overflow = false;
    addCapped(into.slices, overflow, slices, false, kMaxSlicesPerNode);
    if (overflow) {
      into.unconditional = true;
      into.slices.clear();
    }
  }

  unsigned intern(Facts value) {
    std::vector<unsigned> key;
    key.push_back(value.starts.size());
    llvm::append_range(key, value.starts);
    key.push_back(value.moreStarts);
    key.push_back(value.origins.size());
    llvm::append_range(key, value.origins);
    key.push_back(value.global);
    key.push_back(value.unconditional);
    llvm::append_range(key, value.slices);
    auto [it, inserted] = ids.try_emplace(std::move(key), facts.size());
    if (inserted)
      facts.push_back(std::move(value));
    return it->second;
  }

  std::vector<Facts> facts;
  std::map<std::vector<unsigned>, unsigned> ids;
  Cache mergeCache, calleeCache, returnCache, sliceCache, computeCache;
};

/// How a node was reached from its parent.
enum class StepKind : uint8_t {
  Start,
  Through,
  HostCompute,
  IntoCallee,
  OutOfCallee
};

/// A (value, tuple index path) in host memory. A million-op module can have
/// a million nodes: the fields are ordered to fit 32 bytes.
struct Node {
  Node(Value value, unsigned pathId) : value(value), pathId(pathId) {}

  Value value;
  Operation *via = nullptr;
  unsigned pathId;
  /// The node this one was first reached from; -1 for a start.
  int parent = -1;
  /// An id in the FactTable.
  unsigned facts = 0;
  StepKind step = StepKind::Start;
  /// The value is the first result of an op reported as implicit host
  /// compute (W1201).
  bool reportedHostCompute = false;
};
static_assert(sizeof(Node) <= 32, "a million nodes must stay small");

/// The first node of each traced value: an open-addressing table of node
/// ids, whose keys are the values of the nodes themselves. A bucket holds a
/// node id and the value's hash, 8 bytes where a DenseMap entry takes 16,
/// which halves the memory the walk's lookups range over (16 MB for a million
/// values); the hash is the value's address alone, so values made one after
/// another sit in neighbouring buckets and filling the table walks memory in
/// order.
class FirstNodeTable {
public:
  explicit FirstNodeTable(const LargeVector<Node> &nodes) : nodes(nodes) {}

  /// The first node of `value`, if it has one.
  std::optional<unsigned> find(Value value) const {
    if (buckets.empty())
      return std::nullopt;
    const Bucket &bucket = buckets[probe(value, hashOf(value))];
    if (bucket.node == kEmpty)
      return std::nullopt;
    return bucket.node;
  }

  /// Returns the first node of `value`, which becomes `newNode` if it has
  /// none; `inserted` tells which.
  unsigned insert(Value value, unsigned newNode, bool &inserted) {
    // At most half full, so that linear probes stay short.
    if (2 * (size + 1) > buckets.size())
      grow();
    uint32_t hash = hashOf(value);
    Bucket &bucket = buckets[probe(value, hash)];
    inserted = bucket.node == kEmpty;
    if (inserted) {
      bucket = {newNode, hash};
      ++size;
    }
    return bucket.node;
  }

private:
  struct Bucket {
    unsigned node;
    uint32_t hash;
  };
  static constexpr unsigned kEmpty = ~0u;

  static uint32_t hashOf(Value value) {
    return static_cast<uint32_t>(
        reinterpret_cast<uintptr_t>(value.getAsOpaquePointer()) >> 4);
  }

  size_t mask() const { return buckets.size() - 1; }

  /// The bucket of `value` (whose hash is `hash`), or the empty one where it
  /// would go; without a `value`, the first empty bucket for `hash`.
  size_t probe(std::optional<Value> value, uint32_t hash) const {
    for (size_t index = hash & mask();; index = (index + 1) & mask()) {
      const Bucket &bucket = buckets[index];
      if (bucket.node == kEmpty ||
          (value && bucket.hash == hash && nodes[bucket.node].value == *value))
        return index;
    }
  }

  void grow() {
    LargeVector<Bucket> old = std::move(buckets);
    buckets.assign(std::max<size_t>(64, 2 * old.size()), {kEmpty, 0});
    for (const Bucket &moved : old) {
      if (moved.node == kEmpty)
        continue;
      buckets[probe(std::nullopt, moved.hash)] = moved;
    }
  }

  const LargeVector<Node> &nodes;
  LargeVector<Bucket> buckets;
  size_t size = 0;
};

/// Where a node is on its way from a start: how findings show that way.
struct PathPosition {
  /// The number of the node's step on the way (from 1); 0 until computed.
  unsigned steps = 0;
  /// The last node of the first kPathStepsAtEachEnd steps.
  unsigned head = 0;
  /// The start.
  unsigned root = 0;
};

/// The first ops computing on host memory from one start, and how many do.
struct HostComputeOps {
  llvm::SmallVector<Operation *, kHostComputeOpsShown + 1> shown;
  size_t count = 0;
};

class Tracer {
public:
  Tracer(ModuleOp module, func::FuncOp entry, const HostOffloadOptions &options,
         HostOffloadReport &report)
      : module(module), entry(entry), options(options), report(report),
        names(module.getContext()), symbolTable(module),
        outputNodes(entry.getNumResults(), -1) {
    paths.emplace_back();
    pathIds[llvm::ArrayRef<int64_t>()] = 0;
  }

  void run() {
    llvm::SmallVector<Operation *> customCalls = collectOps();
    // Room for every value of the module at one index path: the vectors
    // never copy themselves as they grow, and pages no node reaches stay
    // untouched, so unused room costs no memory.
    nodes.reserve(valueCount);
    queue.reserve(valueCount);
    flowCalls.reserve(callSiteCount);
    collectEntrySignature();
    for (Operation *op : customCalls)
      collectCustomCall(op);
    while (queueHead < queue.size())
      propagate(queue[queueHead++]);
    markSlicesComputedInCallees();
    reportOutputs();
    reportHostCompute();
    report.findings.insert(report.findings.end(),
                           std::make_move_iterator(warnings.begin()),
                           std::make_move_iterator(warnings.end()));
  }

private:
  //===--------------------------------------------------------------------===//
  // Collection: starts, callers and the findings that need no tracing.
  //===--------------------------------------------------------------------===//

  void warn(FindingCode code, Location loc, const llvm::Twine &message) {
    Finding finding{
        code, Severity::Warning, loc,
        (getFindingCodeName(code, options.strict) + ": " + message).str()};
    warnings.push_back(std::move(finding));
  }

  std::string describeArgument(unsigned index) {
    BlockArgument argument = entry.getArgument(index);
    if (auto nameLoc = llvm::dyn_cast<NameLoc>(argument.getLoc()))
      return "argument '" + nameLoc.getName().str() + "'";
    return "argument #" + std::to_string(index);
  }

  /// JAX names arguments with a location that has no file; point notes about
  /// them at their first use in the Python source instead, else at the
  /// function.
  Location argumentLoc(unsigned index) {
    BlockArgument argument = entry.getArgument(index);
    if (findFileLocation(argument.getLoc()))
      return argument.getLoc();
    std::optional<Location> firstUse;
    std::pair<unsigned, unsigned> firstPosition;
    for (Operation *user : argument.getUsers()) {
      std::optional<FileLineColRange> file = findFileLocation(user->getLoc());
      if (!file)
        continue;
      std::pair<unsigned, unsigned> position{file->getStartLine(),
                                             file->getStartColumn()};
      if (!firstUse || position < firstPosition) {
        firstUse = user->getLoc();
        firstPosition = position;
      }
    }
    if (firstUse)
      return *firstUse;
    if (findFileLocation(entry.getLoc()))
      return entry.getLoc();
    return argument.getLoc();
  }

  /// E.g. "result 2 of @main".
  std::string describeSignatureValue(llvm::StringRef valueKind,
                                     unsigned index) {
    return (valueKind + " " + llvm::Twine(index) + " of @" + entry.getSymName())
        .str();
  }

  /// `getLoc` is called only for a warning: finding an argument's first use
  /// walks all its uses.
  void checkDeclaredKind(const DeclaredMemoryKind &declared,
                         llvm::StringRef valueKind, unsigned index,
                         llvm::function_ref<Location()> getLoc) {
    if (!declared.malformed &&
        (declared.kind.empty() || isKnownMemoryKind(declared.kind)))
      return;
    std::string what = describeSignatureValue(valueKind, index);
    Location loc = getLoc();
    if (declared.malformed) {
      warn(FindingCode::UnknownMemoryKind, loc,
           llvm::Twine(kMemoryKindAttr) + " on " + what +
               " is not a string; XLA knows \"device\", \"pinned_host\" and "
               "\"unpinned_host\"");
      return;
    }
    warn(FindingCode::UnknownMemoryKind, loc,
         "unknown memory kind " + quoted(declared.kind) + " on " + what +
             " (from " + declared.describeSource() +
             "); XLA knows \"device\", \"pinned_host\" and "
             "\"unpinned_host\"");
  }

  void collectEntrySignature() {
    argumentKinds =
        readMemoryKinds(entry.getArgAttrsAttr(), entry.getNumArguments(),
                        module, "arg_memory_spaces");
    resultKinds =
        readMemoryKinds(entry.getResAttrsAttr(), entry.getNumResults(), module,
                        "out_memory_spaces");
    for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
      const DeclaredMemoryKind &declared = argumentKinds[i];
      checkDeclaredKind(declared, "argument", i,
                        [&] { return argumentLoc(i); });
      if (declared.kind == kUnpinnedHost) {
        warn(FindingCode::UnpinnedHostArgument, argumentLoc(i),
             describeArgument(i) +
                 " is declared \"unpinned_host\"; XLA does not trace it as "
                 "host memory, and XLA:TPU fails later with an internal "
                 "shape mismatch");
        continue;
      }
      if (declared.kind != kPinnedHost)
        continue;
      unsigned startIndex = report.starts.size();
      report.starts.push_back(
          {TraceStart::Kind::Argument, i, describeArgument(i),
           describeArgument(i) + " is declared " + declared.describe(),
           argumentLoc(i)});
      addStart(entry.getArgument(i), startIndex);
    }
    for (unsigned i = 0, e = entry.getNumResults(); i < e; ++i) {
      const DeclaredMemoryKind &declared = resultKinds[i];
      checkDeclaredKind(declared, "result", i, [&] { return entry.getLoc(); });
      if (declared.kind != kPinnedHost)
        continue;
      DictionaryAttr attrs = getAttrDict(entry.getResAttrsAttr(), i);
      auto layoutMode = attrs ? llvm::dyn_cast_or_null<StringAttr>(
                                    attrs.get("mhlo.layout_mode"))
                              : StringAttr();
      if (layoutMode && layoutMode.getValue() == "auto")
        warn(FindingCode::AutoLayoutOnHostOutput, entry.getLoc(),
             describeSignatureValue("result", i) +
                 " is declared \"pinned_host\" with mhlo.layout_mode = "
                 "\"auto\"; older XLA releases drop the host memory space "
                 "of automatic layouts and fail with E1200");
    }
  }

  /// A call marked compute_on("device_host").
  bool isHostComputeCall(Operation *call) const {
    auto frontendAttrs = llvm::dyn_cast_or_null<DictionaryAttr>(
        call->getDiscardableAttr(names.frontendAttrs));
    if (!frontendAttrs)
      return false;
    auto computeType = llvm::dyn_cast_or_null<StringAttr>(
        frontendAttrs.get("_xla_compute_type"));
    return computeType && computeType.getValue() == "host";
  }

  /// Records the callers of every function, counts the values of the module
  /// and returns the custom calls in program order. Host compute calls
  /// (compute_on("device_host")) consume host memory: they are no callers for
  /// the walk.
  llvm::SmallVector<Operation *> collectOps() {
    llvm::SmallVector<Operation *> customCalls;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      valueCount += op->getNumResults();
      for (Region &region : op->getRegions())
        for (Block &block : region)
          valueCount += block.getNumArguments();
      StringAttr name = op->getName().getIdentifier();
      if (name == names.call) {
        if (FlatSymbolRefAttr callee = getCallee(op);
            callee && !isHostComputeCall(op)) {
          callers[callee.getAttr()].push_back(op);
          ++callSiteCount;
        }
        return;
      }
      if (name == names.customCall)
        customCalls.push_back(op);
    });
    return customCalls;
  }

  void collectCustomCall(Operation *op) {
    CustomCallInfo info = classifyCustomCall(op);
    if (info.kind == CustomCallKind::MalformedAnnotation) {
      warn(FindingCode::MalformedAnnotation, op->getLoc(),
           "'" + info.target +
               "' takes exactly one operand and one result, "
               "this one has " +
               llvm::Twine(op->getNumOperands()) + " and " +
               llvm::Twine(op->getNumResults()) +
               "; XLA fails on it with an internal error, and it is not "
               "traced");
      return;
    }
    if (info.unknownPlacement) {
      warn(FindingCode::UnknownMemoryKind, op->getLoc(),
           (info.placement.empty()
                ? llvm::Twine("'annotate_device_placement' has no string ") +
                      kPlacementAttr + " in " + kFrontendAttrs
                : llvm::Twine("unknown ") + kPlacementAttr + " " +
                      quoted(info.placement)) +
               "; XLA knows \"pinned_host\", \"unpinned_host\", \"device\", "
               "\"vmem\" and \"pinned_device\"");
      return;
    }
    if (info.kind != CustomCallKind::MoveToHost)
      return;
    Value moved = op->getResult(0);
    if (moved.use_empty())
      warn(FindingCode::UnusedMoveToHost, op->getLoc(),
           "the result of this move to host is never used, so the offload "
           "does nothing");
    std::string name =
        info.placement.empty()
            ? ("'" + info.target + "'").str()
            : ("'" + info.target + "' to " + info.placement).str();
    std::string reason =
        info.placement.empty()
            ? ("custom call '" + info.target + "' moves the tensor to host")
                  .str()
            : ("custom call '" + info.target + "' with " + kPlacementAttr +
               " = " + quoted(info.placement) + " moves the tensor to host")
                  .str();
    unsigned startIndex = report.starts.size();
    report.starts.push_back({TraceStart::Kind::Annotation, 0, std::move(name),
                             std::move(reason), op->getLoc()});
    addStart(moved, startIndex);
  }

  //===--------------------------------------------------------------------===//
  // The worklist.
  //===--------------------------------------------------------------------===//

  unsigned internPath(llvm::ArrayRef<int64_t> path) {
    auto it = pathIds.find(path);
    if (it != pathIds.end())
      return it->second;
    int64_t *storage = pathAllocator.Allocate<int64_t>(path.size());
    llvm::copy(path, storage);
    llvm::ArrayRef<int64_t> stored(storage, path.size());
    unsigned id = paths.size();
    paths.push_back(stored);
    pathIds[stored] = id;
    return id;
  }

  /// Returns the node of (value, pathId), creating it if needed; `created`
  /// tells which.
  unsigned getOrCreateNode(Value value, unsigned pathId, bool &created) {
    bool inserted;
    unsigned id = firstNodeOfValue.insert(value, nodes.size(), inserted);
    created = true;
    if (inserted) {
      nodes.emplace_back(value, pathId);
      return id;
    }
    // Other tuple index paths of the same value hang off its first node.
    while (true) {
      if (nodes[id].pathId == pathId) {
        created = false;
        return id;
      }
      std::optional<unsigned> next = nextPathNode(id);
      if (!next)
        break;
      id = *next;
    }
    unsigned newId = nodes.size();
    nextPathNodes[id] = newId;
    nodes.emplace_back(value, pathId);
    return newId;
  }

  /// The node of `value` at its first traced index path, if any.
  std::optional<unsigned> firstNodeOf(Value value) const {
    return firstNodeOfValue.find(value);
  }

  /// The node of the same value at the next tuple index path, if any.
  std::optional<unsigned> nextPathNode(unsigned id) const {
    auto it = nextPathNodes.find(id);
    if (it == nextPathNodes.end())
      return std::nullopt;
    return it->second;
  }

  void addStart(Value value, unsigned startIndex) {
    bool created;
    unsigned id = getOrCreateNode(value, /*pathId=*/0, created);
    addFacts(id, factTable.forStart(startIndex), created);
  }

  /// Adds `facts` to node `id`; queues the node when that changes anything.
  void addFacts(unsigned id, unsigned facts, bool created) {
    Node &node = nodes[id];
    unsigned merged = created ? facts : factTable.merge(node.facts, facts);
    if (!created && merged == node.facts)
      return;
    node.facts = merged;
    // A value without uses has nothing to pass on; most results of host
    // compute on a widely used host tensor are such values.
    if (!node.value.use_empty())
      queue.push_back(id);
  }

  const Facts &factsOf(const Node &node) const {
    return factTable.get(node.facts);
  }

  /// Returns the longest prefix of `path` that indexes into `type`. An element
  /// the type does not have (an unverified op claims another type) is taken as
  /// the whole tuple above it, which can only add findings; and a value then
  /// has at most as many paths as its type has elements, even where recursion
  /// through a tuple op would nest them deeper every round.
  static llvm::ArrayRef<int64_t> clampPath(Type type,
                                           llvm::ArrayRef<int64_t> path) {
    size_t length = 0;
    for (int64_t index : path) {
      auto tuple = llvm::dyn_cast<TupleType>(type);
      if (!tuple || index < 0 || index >= static_cast<int64_t>(tuple.size()))
        break;
      type = tuple.getType(index);
      ++length;
    }
    return path.take_front(length);
  }

  /// Marks (value, pathId) as host, reached from node `from` through `via`,
  /// with the facts `facts` (those of `from` unless given).
  unsigned reach(Value value, unsigned pathId, unsigned from, Operation *via,
                 StepKind step, std::optional<unsigned> facts = std::nullopt) {
    if (pathId != 0) {
      llvm::ArrayRef<int64_t> path = paths[pathId];
      llvm::ArrayRef<int64_t> valid = clampPath(value.getType(), path);
      if (valid.size() != path.size())
        pathId = internPath(valid);
    }
    bool created;
    unsigned id = getOrCreateNode(value, pathId, created);
    Node &node = nodes[id];
    if (created) {
      node.parent = static_cast<int>(from);
      node.via = via;
      node.step = step;
    }
    addFacts(id, facts.value_or(nodes[from].facts), created);
    return id;
  }

  std::optional<unsigned>
  reachResult(Operation *op, unsigned resultNumber, unsigned pathId,
              unsigned from, StepKind step = StepKind::Through,
              std::optional<unsigned> facts = std::nullopt) {
    if (resultNumber >= op->getNumResults())
      return std::nullopt;
    return reach(op->getResult(resultNumber), pathId, from, op, step, facts);
  }

  void reachBlockArgument(Operation *op, unsigned regionNumber,
                          unsigned argNumber, unsigned pathId, unsigned from) {
    if (regionNumber >= op->getNumRegions())
      return;
    Region &region = op->getRegion(regionNumber);
    if (region.empty() || argNumber >= region.front().getNumArguments())
      return;
    reach(region.front().getArgument(argNumber), pathId, from, op,
          StepKind::Through);
  }

  /// Loop-carried value `index` of a while loop: the result, and the
  /// argument of the condition (region 0) and of the body (region 1).
  void reachLoopCarried(Operation *whileOp, unsigned index, unsigned pathId,
                        unsigned from) {
    reachResult(whileOp, index, pathId, from);
    reachBlockArgument(whileOp, 0, index, pathId, from);
    reachBlockArgument(whileOp, 1, index, pathId, from);
  }

  void propagate(unsigned id) {
    // Use lists run backwards from the last use; visiting uses in program
    // order makes paths and "first" ops the ones a reader meets first.
    llvm::SmallVector<OpOperand *, 4> uses;
    for (OpOperand &use : nodes[id].value.getUses())
      uses.push_back(&use);
    for (OpOperand *use : llvm::reverse(uses))
      propagateThroughUse(id, use->getOwner(), use->getOperandNumber());
  }

  void propagateThroughUse(unsigned id, Operation *user, unsigned operand) {
    unsigned pathId = nodes[id].pathId;
    StringAttr name = user->getName().getIdentifier();
    if (name == names.tuple) {
      llvm::SmallVector<int64_t> path{static_cast<int64_t>(operand)};
      llvm::append_range(path, paths[pathId]);
      if (path.size() <= kMaxTupleDepth)
        reachResult(user, 0, internPath(path), id);
      return;
    }
    if (name == names.getTupleElement) {
      std::optional<int64_t> index = getTupleIndex(user);
      llvm::ArrayRef<int64_t> path = paths[pathId];
      if (!index)
        return;
      if (path.empty())
        reachResult(user, 0, 0, id);
      else if (path.front() == *index)
        reachResult(user, 0, internPath(path.drop_front()), id);
      return;
    }
    if (name == names.optimizationBarrier) {
      reachResult(user, operand, pathId, id);
      return;
    }
    if (name == names.whileOp) {
      reachLoopCarried(user, operand, pathId, id);
      return;
    }
    if (name == names.regionReturn) {
      propagateThroughRegionReturn(id, user, operand);
      return;
    }
    if (name == names.call) {
      propagateIntoCallee(id, user, operand);
      return;
    }
    if (name == names.funcReturn) {
      propagateOutOfFunction(id, user, operand);
      return;
    }
    if (name == names.customCall) {
      propagateThroughCustomCall(id, user, operand);
      return;
    }
    // XLA reads a slice of host memory into device memory unless something
    // computes on the slice's result (measured on XLA:TPU:
    // docs/differential.md); whether anything does is known once the walk is
    // over, so the result is traced as host memory on that condition.
    if (name == names.slice || (name == names.dynamicSlice && operand == 0)) {
      // XLA folds a slice of a slice into one slice of the host tensor, which
      // leaves the outer slice alone (measured: slice_of_slice_computed).
      if (!isMadeOfSlicesOnly(id))
        noteComputedOn(id, user);
      reachResult(user, 0, 0, id, StepKind::Through,
                  factTable.throughSlice(nodes[id].facts, getSliceId(user)));
      return;
    }
    if (name == names.shardingConstraint) {
      reachResult(user, 0, pathId, id);
      return;
    }
    // Writing into a host buffer is how XLA streams to host (remat offload
    // under scan): the buffer stays in host memory without host compute.
    if (name == names.dynamicUpdateSlice) {
      noteComputedOn(id, user);
      reachResult(user, 0, 0, id, StepKind::Through,
                  factTable.throughHostCompute(nodes[id].facts));
      return;
    }
    // A reshape only changes how the same bytes are viewed.
    if (isLayoutOnly(user)) {
      reachResult(user, 0, 0, id);
      return;
    }
    // XLA's simplifier turns a scatter of a slice into a constant at
    // constant indices into a select on the sliced tensor itself: the
    // slice keeps no compute use (measured: slice_written_into_ones).
    if (isMadeOfSlicesOnly(id) && isScatterIntoConstant(user, operand)) {
      propagateThroughHostCompute(id, user, /*usesSlices=*/false);
      return;
    }
    if (isMadeOfSlicesOnly(id) && isDataMovementAfterSlice(user)) {
      std::optional<unsigned> result = reachResult(user, 0, 0, id);
      // The hoisted convert is host compute on the sliced tensor.
      if (name == names.convert)
        recordHostCompute(user, id, result);
      return;
    }
    propagateThroughHostCompute(id, user);
  }

  /// A value made by `stablehlo.constant`, directly or broadcast.
  bool isConstant(Value value) const {
    Operation *op = value.getDefiningOp();
    if (op && op->getName().getIdentifier() == names.broadcastInDim &&
        op->getNumOperands() == 1)
      op = op->getOperand(0).getDefiningOp();
    return op && op->getName().getIdentifier() == names.constant;
  }

  /// Operand `operand` of `op` is the updates of a one-input scatter into a
  /// constant at constant indices.
  bool isScatterIntoConstant(Operation *op, unsigned operand) const {
    return op->getName().getIdentifier() == names.scatter &&
           op->getNumOperands() == 3 && operand == 2 &&
           isConstant(op->getOperand(0)) && isConstant(op->getOperand(1));
  }

  bool isMadeOfSlicesOnly(unsigned id) const {
    const Facts &facts = factsOf(nodes[id]);
    return !facts.unconditional && !facts.slices.empty();
  }

  /// On the result of a slice, XLA:TPU also moves data without computing
  /// through a transpose (a copy once layouts are assigned) and a narrowing
  /// convert (its ConvertMover hoists it above the slice, where it computes
  /// on the whole host tensor).
  bool isDataMovementAfterSlice(Operation *op) const {
    StringAttr name = op->getName().getIdentifier();
    if (name == names.transpose)
      return true;
    if (name != names.convert || op->getNumOperands() != 1 ||
        op->getNumResults() != 1)
      return false;
    Type from = getElementTypeOrSelf(op->getOperand(0).getType());
    Type to = getElementTypeOrSelf(op->getResult(0).getType());
    return from.isIntOrFloat() && to.isIntOrFloat() &&
           to.getIntOrFloatBitWidth() < from.getIntOrFloatBitWidth();
  }

  /// A reshape, or a broadcast that only adds dimensions of size one: XLA
  /// sees a bitcast, which moves no data, and legalizes offloading through it.
  bool isLayoutOnly(Operation *op) const {
    StringAttr name = op->getName().getIdentifier();
    if (name == names.reshape)
      return true;
    if (name != names.broadcastInDim || op->getNumOperands() != 1 ||
        op->getNumResults() != 1)
      return false;
    auto operandType = llvm::dyn_cast<ShapedType>(op->getOperand(0).getType());
    auto resultType = llvm::dyn_cast<ShapedType>(op->getResult(0).getType());
    return operandType && resultType && operandType.hasStaticShape() &&
           resultType.hasStaticShape() &&
           operandType.getNumElements() == resultType.getNumElements();
  }

  void propagateThroughRegionReturn(unsigned id, Operation *terminator,
                                    unsigned operand) {
    // The terminator of a function or module body gives no op a value.
    Operation *parent = terminator->getParentOp();
    if (!parent || parent->hasTrait<OpTrait::IsIsolatedFromAbove>())
      return;
    unsigned pathId = nodes[id].pathId;
    StringAttr parentName = parent->getName().getIdentifier();
    if (parentName == names.whileOp) {
      // Region 0 is the condition, whose yield is the loop predicate.
      if (terminator->getParentRegion()->getRegionNumber() != 1)
        return;
      reachLoopCarried(parent, operand, pathId, id);
      return;
    }
    if (parentName == names.ifOp || parentName == names.caseOp) {
      reachResult(parent, operand, pathId, id);
      return;
    }
    // The body of a reduce, sort, scatter, ...: the op computes on host data.
    propagateThroughHostCompute(id, parent);
  }

  static FlatSymbolRefAttr getCallee(Operation *call) {
    auto callOp = llvm::dyn_cast<func::CallOp>(call);
    return callOp ? callOp.getCalleeAttr() : FlatSymbolRefAttr();
  }

  void propagateIntoCallee(unsigned id, Operation *call, unsigned operand) {
    if (isHostComputeCall(call))
      return;
    FlatSymbolRefAttr callee = getCallee(call);
    if (!callee)
      return;
    // Call sites in a row mostly call one function (a scan body, a layer).
    if (callee.getAttr() != lastCallee) {
      lastCallee = callee.getAttr();
      auto function = symbolTable.lookup<func::FuncOp>(lastCallee);
      lastCalleeBody =
          function && !function.isExternal() ? &function.front() : nullptr;
    }
    if (!lastCalleeBody || operand >= lastCalleeBody->getNumArguments())
      return;
    unsigned flow = enterCallee(id, call, operand);
    recordCall(flow, call);
    // Returns already known to carry this argument now flow to this call.
    for (auto [result, returnNode] : argumentFlows[flow].returns)
      returnToCall(call, result, returnNode, id);
  }

  /// Host memory of node `returnNode`, returned as result `result` of a
  /// callee, comes back from `call`, which passed it in from node
  /// `callerNode`.
  void returnToCall(Operation *call, unsigned result, unsigned returnNode,
                    unsigned callerNode) {
    reachResult(call, result, nodes[returnNode].pathId, returnNode,
                StepKind::OutOfCallee,
                factTable.outOfCallee(nodes[returnNode].facts,
                                      nodes[callerNode].facts));
  }

  /// Host memory of node `id` enters argument `operand` of the last callee;
  /// returns the argument's flow.
  ///
  /// Merging facts is a function of the two facts: once entering from a node
  /// with some facts and path left the argument's node as it was, entering
  /// it again the same way changes nothing while that node stays so, which
  /// saves call sites in a row the lookups.
  unsigned enterCallee(unsigned id, Operation *call, unsigned operand) {
    const Node &caller = nodes[id];
    bool sameArgument =
        lastEntry.body == lastCalleeBody && lastEntry.argument == operand;
    bool sameEntry = sameArgument && lastEntry.pathId == caller.pathId &&
                     lastEntry.callerFacts == caller.facts &&
                     nodes[lastEntry.node].facts == lastEntry.nodeFacts;
    if (sameEntry && lastEntry.changesNothing)
      return lastEntry.flow;
    CalleeEntry entry{lastCalleeBody, operand, caller.pathId, caller.facts};
    entry.flow = sameArgument
                     ? lastEntry.flow
                     : getArgumentFlow(lastCalleeBody->getParentOp(), operand);
    entry.node = reach(lastCalleeBody->getArgument(operand), caller.pathId, id,
                       call, StepKind::IntoCallee,
                       factTable.intoCallee(caller.facts, operand));
    entry.nodeFacts = nodes[entry.node].facts;
    entry.changesNothing = sameEntry && entry.nodeFacts == lastEntry.nodeFacts;
    lastEntry = entry;
    return entry.flow;
  }

  /// Host memory entered argument flow `flow` from `call`.
  void recordCall(unsigned flow, Operation *call) {
    int entry = static_cast<int>(flowCalls.size());
    flowCalls.push_back({call, -1});
    int &last = argumentFlows[flow].lastCall;
    if (last < 0)
      argumentFlows[flow].firstCall = entry;
    else
      flowCalls[last].second = entry;
    last = entry;
  }

  unsigned getArgumentFlow(Operation *function, unsigned argument) {
    auto [it, inserted] =
        argumentFlowIds.try_emplace({function, argument}, argumentFlows.size());
    if (inserted)
      argumentFlows.emplace_back();
    return it->second;
  }

  void propagateOutOfFunction(unsigned id, Operation *terminator,
                              unsigned operand) {
    auto function = terminator->getParentOfType<func::FuncOp>();
    if (!function)
      return;
    if (function == entry && operand < outputNodes.size() &&
        outputNodes[operand] < 0)
      outputNodes[operand] = static_cast<int>(id);
    // Copies: reaching call results below grows the node and fact tables.
    unsigned pathId = nodes[id].pathId;
    Facts facts = factsOf(nodes[id]);
    // A node passes here again only when its facts grow, a bounded number of
    // times, so the returns need no search for repeats (which would be
    // quadratic in the results of a callee).
    //
    // Host memory that came through an argument returns only to the call
    // sites it entered from; the others, whose operands are yet to be
    // walked, take the return when they enter. Visiting only these leaves
    // alone the thousands of call sites of a shared callee that host memory
    // never reaches. Host memory made inside the function returns to every
    // call site.
    for (unsigned origin : facts.origins) {
      unsigned flow = getArgumentFlow(function, origin);
      argumentFlows[flow].returns.emplace_back(operand, id);
      if (facts.global)
        continue;
      for (int entry = argumentFlows[flow].firstCall; entry >= 0;
           entry = flowCalls[entry].second) {
        Operation *call = flowCalls[entry].first;
        if (std::optional<unsigned> callerNode =
                firstNodeOf(call->getOperand(origin)))
          returnToCall(call, operand, id, *callerNode);
      }
    }
    if (!facts.global)
      return;
    auto it = callers.find(function.getSymNameAttr());
    if (it == callers.end())
      return;
    for (Operation *call : it->second)
      reachResult(call, operand, pathId, id, StepKind::OutOfCallee);
  }

  void propagateThroughCustomCall(unsigned id, Operation *op,
                                  unsigned operand) {
    CustomCallInfo info = classifyCustomCall(op);
    switch (info.kind) {
    case CustomCallKind::MoveToDevice:
    case CustomCallKind::MalformedAnnotation:
      return;
    case CustomCallKind::MoveToHost:
    case CustomCallKind::OtherPlacement:
    case CustomCallKind::Sharding:
      reachResult(op, 0, nodes[id].pathId, id);
      return;
    case CustomCallKind::Other:
      break;
    }
    if (std::optional<unsigned> aliased = findAliasedResult(op, operand)) {
      reachResult(op, *aliased, 0, id);
      return;
    }
    propagateThroughHostCompute(id, op);
  }

  /// `op` computes on node `id` in host memory. Unless XLA rewrites the op
  /// to compute on the sliced tensor instead (`usesSlices` false), that makes
  /// every slice the node is made of host compute too.
  void propagateThroughHostCompute(unsigned id, Operation *op,
                                   bool usesSlices = true) {
    if (usesSlices)
      noteComputedOn(id, op);
    unsigned facts = factTable.throughHostCompute(nodes[id].facts);
    std::optional<unsigned> firstResult;
    for (unsigned i = 0, e = op->getNumResults(); i < e; ++i) {
      unsigned result =
          reach(op->getResult(i), 0, id, op, StepKind::HostCompute, facts);
      if (i == 0)
        firstResult = result;
    }
    recordHostCompute(op, id, firstResult);
  }

  /// Records `op` for W1201 the first time host memory that no host compute
  /// made (node `id`) enters it; `firstResult` is the node of its result 0.
  void recordHostCompute(Operation *op, unsigned id,
                         std::optional<unsigned> firstResult) {
    if (nodes[id].step == StepKind::HostCompute)
      return;
    if (firstResult) {
      if (nodes[*firstResult].reportedHostCompute)
        return;
      nodes[*firstResult].reportedHostCompute = true;
    } else if (!resultlessHostComputeOps.insert(op).second) {
      return;
    }
    HostComputeOps &group =
        hostComputeByStart[factsOf(nodes[id]).starts.front()];
    if (group.shown.size() <= kHostComputeOpsShown)
      group.shown.push_back(op);
    ++group.count;
  }

  //===--------------------------------------------------------------------===//
  // Slices: which ones XLA turns into host compute.
  //===--------------------------------------------------------------------===//

  unsigned getSliceId(Operation *slice) {
    auto [it, inserted] = sliceIds.try_emplace(slice, sliceOps.size());
    if (inserted)
      sliceOps.push_back(slice);
    return it->second;
  }

  /// Records that `op`, which is not data movement, uses node `id`: every
  /// slice the node is made of becomes host compute, and so do the slices
  /// of the callers' operands it came through (resolved after the walk, when
  /// every call site is known).
  void noteComputedOn(unsigned id, Operation *op) {
    const Facts &facts = factsOf(nodes[id]);
    for (unsigned slice : facts.slices)
      computedSlices.try_emplace(slice, op);
    if (!facts.origins.empty())
      computedOnInCallees.push_back({id, op});
  }

  void markSlicesComputedInCallees() {
    // Without a slice there is nothing to mark, and a module with thousands
    // of call sites would pay for walking them again.
    if (sliceOps.empty())
      return;
    llvm::DenseMap<Block *, func::FuncOp> functionOfBlock;
    llvm::DenseSet<std::pair<Operation *, unsigned>> markedArguments;
    for (size_t i = 0; i < computedOnInCallees.size(); ++i) {
      auto [id, use] = computedOnInCallees[i];
      Block *block = nodes[id].value.getParentBlock();
      auto [known, inserted] = functionOfBlock.try_emplace(block);
      if (inserted)
        known->second = block->getParent()->getParentOfType<func::FuncOp>();
      func::FuncOp function = known->second;
      if (!function)
        continue;
      auto it = callers.find(function.getSymNameAttr());
      if (it == callers.end())
        continue;
      for (unsigned origin : factsOf(nodes[id]).origins) {
        if (!markedArguments.insert({function.getOperation(), origin}).second)
          continue;
        for (Operation *call : it->second) {
          if (origin >= call->getNumOperands())
            continue;
          for (std::optional<unsigned> node =
                   firstNodeOf(call->getOperand(origin));
               node; node = nextPathNode(*node))
            noteComputedOn(*node, use);
        }
      }
    }
  }

  /// Whether the node is host memory once the walk is over: not made only of
  /// slices XLA reads into device memory.
  bool isHost(unsigned id) const {
    const Facts &facts = factsOf(nodes[id]);
    return facts.unconditional ||
           llvm::any_of(facts.slices, [&](unsigned slice) {
             return computedSlices.count(slice);
           });
  }

  /// The first node of `value` that is host memory, if any.
  std::optional<unsigned> findHostNode(Value value) const {
    for (std::optional<unsigned> node = firstNodeOf(value); node;
         node = nextPathNode(*node))
      if (isHost(*node))
        return *node;
    return std::nullopt;
  }

  //===--------------------------------------------------------------------===//
  // Findings.
  //===--------------------------------------------------------------------===//

  std::string describeStep(const Node &node) {
    switch (node.step) {
    case StepKind::Start:
      return report.starts[factsOf(node).starts.front()].name;
    case StepKind::IntoCallee:
      if (FlatSymbolRefAttr callee = getCallee(node.via))
        return ("call @" + callee.getValue()).str();
      return "func.call";
    case StepKind::OutOfCallee:
      if (FlatSymbolRefAttr callee = getCallee(node.via))
        return ("return from @" + callee.getValue()).str();
      return "func.return";
    case StepKind::Through:
    case StepKind::HostCompute:
      if (node.via->getName().getIdentifier() == names.customCall)
        if (StringAttr target = getStringAttr(node.via, "call_target_name"))
          return ("stablehlo.custom_call @" + target.getValue()).str();
      return node.via->getName().getStringRef().str();
    }
    llvm_unreachable("unknown step kind");
  }

  /// Places node `id` and every node before it on their way from a start.
  /// Computed once per node for all findings: the ways to many outputs share
  /// their beginnings, and walking each from its start would be quadratic.
  const PathPosition &getPathPosition(unsigned id) {
    if (pathPositions.empty())
      pathPositions.resize(nodes.size());
    llvm::SmallVector<unsigned> unplaced;
    for (int current = static_cast<int>(id);
         current >= 0 && pathPositions[current].steps == 0;
         current = nodes[current].parent)
      unplaced.push_back(static_cast<unsigned>(current));
    for (unsigned nodeId : llvm::reverse(unplaced)) {
      const Node &node = nodes[nodeId];
      PathPosition &position = pathPositions[nodeId];
      if (node.parent < 0) {
        position = {1, nodeId, nodeId};
        continue;
      }
      const PathPosition &parent = pathPositions[node.parent];
      // A while loop reached through its operand and its yield is one step.
      bool newStep = node.via != nodes[node.parent].via;
      position.steps = parent.steps + (newStep ? 1 : 0);
      position.head =
          position.steps <= kPathStepsAtEachEnd ? nodeId : parent.head;
      position.root = parent.root;
    }
    return pathPositions[id];
  }

  /// Steps `firstStep` and after of the way to node `id` (numbered from 1,
  /// as in PathPosition::steps); each step is told by its first node.
  void appendSteps(unsigned id, unsigned firstStep,
                   llvm::SmallVectorImpl<PathStep> &steps) {
    llvm::SmallVector<unsigned> firstNodes;
    unsigned step = 0;
    for (int current = static_cast<int>(id);
         current >= 0 && pathPositions[current].steps >= firstStep;
         current = nodes[current].parent) {
      if (pathPositions[current].steps != step) {
        step = pathPositions[current].steps;
        firstNodes.push_back(static_cast<unsigned>(current));
      } else {
        firstNodes.back() = static_cast<unsigned>(current);
      }
    }
    for (unsigned nodeId : llvm::reverse(firstNodes)) {
      const Node &node = nodes[nodeId];
      if (node.step == StepKind::Start) {
        const TraceStart &start = report.starts[factsOf(node).starts.front()];
        steps.push_back({start.name, start.loc});
        continue;
      }
      steps.push_back({describeStep(node), node.via->getLoc()});
    }
  }

  /// The way from a start to node `id`, whole when it has at most
  /// 2 * kPathStepsAtEachEnd steps, else its first and last
  /// kPathStepsAtEachEnd steps; and how many steps are left out.
  std::pair<llvm::SmallVector<PathStep>, size_t> buildPath(unsigned id) {
    unsigned total = getPathPosition(id).steps;
    llvm::SmallVector<PathStep> steps;
    if (total <= 2 * kPathStepsAtEachEnd) {
      appendSteps(id, 1, steps);
      return {std::move(steps), 0};
    }
    appendSteps(pathPositions[id].head, 1, steps);
    appendSteps(id, total - kPathStepsAtEachEnd + 1, steps);
    return {std::move(steps), total - 2 * kPathStepsAtEachEnd};
  }

  static std::string formatPath(llvm::ArrayRef<PathStep> steps, size_t omitted,
                                llvm::StringRef end) {
    std::string text;
    llvm::raw_string_ostream os(text);
    for (auto [index, step] : llvm::enumerate(steps)) {
      if (omitted && index == kPathStepsAtEachEnd)
        os << "(" << omitted
           << (omitted == 1 ? " more step) -> " : " more steps) -> ");
      os << step.what << " -> ";
    }
    os << end;
    return text;
  }

  /// Where the returned value is made; the return itself when that place has
  /// no file (JAX names arguments without a file).
  static Location returnedValueLoc(Value value, Operation *terminator) {
    Operation *definingOp = value.getDefiningOp();
    Location loc = definingOp ? definingOp->getLoc() : value.getLoc();
    if (!findFileLocation(loc) && findFileLocation(terminator->getLoc()))
      return terminator->getLoc();
    return loc;
  }

  /// XLA turns a lone output that is directly a move to host of a device
  /// value into a copy to host instead of failing.
  bool isRootSpecialCase(Operation *terminator, unsigned operand) {
    if (entry.getNumResults() != 1 || operand != 0)
      return false;
    Operation *definingOp = terminator->getOperand(0).getDefiningOp();
    if (!definingOp ||
        definingOp->getName().getIdentifier() != names.customCall ||
        classifyCustomCall(definingOp).kind != CustomCallKind::MoveToHost)
      return false;
    return definingOp->getResult(0).hasOneUse() &&
           !findHostNode(definingOp->getOperand(0));
  }

  void reportOutputs() {
    // Findings are large, and std::vector copies them when it grows (their
    // move may throw): count them first, the warnings that follow too.
    llvm::SmallVector<std::pair<unsigned, unsigned>> hostOutputs;
    for (unsigned output = 0, e = outputNodes.size(); output < e; ++output) {
      if (outputNodes[output] < 0 || resultKinds[output].kind == kPinnedHost)
        continue;
      if (std::optional<unsigned> hostNode =
              findHostNode(nodes[outputNodes[output]].value))
        hostOutputs.emplace_back(output, *hostNode);
    }
    report.findings.reserve(report.findings.size() + hostOutputs.size() +
                            hostComputeByStart.size() + warnings.size() + 1);
    std::string functionName = ("@" + entry.getSymName()).str();
    for (auto [output, hostNode] : hostOutputs) {
      const DeclaredMemoryKind &declared = resultKinds[output];
      const Node &node = nodes[hostNode];
      Operation *terminator =
          *llvm::find_if(node.value.getUsers(), [&](Operation *user) {
            return user->getName().getIdentifier() == names.funcReturn &&
                   user->getParentOp() == entry.getOperation();
          });
      Location loc = returnedValueLoc(node.value, terminator);
      if (isRootSpecialCase(terminator, output)) {
        warn(FindingCode::RootMovedToHost, loc,
             "output 0 is directly a move to host of a device tensor; XLA "
             "turns it into a copy to host memory without an error, so the "
             "output lands in host memory although it is declared " +
                 (declared.kind.empty() ? std::string("in device memory")
                                        : quoted(declared.kind)));
        continue;
      }
      report.findings.push_back(
          buildMismatch(node, hostNode, output, declared, loc, functionName));
    }
  }

  /// Why a slice the output is made of stays in host memory: XLA would read
  /// a slice returned as it is into device memory.
  std::optional<FindingNote> explainComputedSlice(const Node &node) const {
    const Facts &facts = factsOf(node);
    if (facts.unconditional)
      return std::nullopt;
    for (unsigned slice : facts.slices) {
      auto computed = computedSlices.find(slice);
      if (computed == computedSlices.end())
        continue;
      Operation *sliceOp = sliceOps[slice];
      Operation *use = computed->second;
      return FindingNote{
          sliceOp->getLoc(),
          ("'" + sliceOp->getName().getStringRef() +
           "' of host memory stays in host memory: its result is also used "
           "by '" +
           use->getName().getStringRef() +
           "', so XLA runs the slice as host compute instead of reading it "
           "into device memory")
              .str()};
    }
    return std::nullopt;
  }

  Finding buildMismatch(const Node &node, unsigned id, unsigned output,
                        const DeclaredMemoryKind &declared, Location loc,
                        llvm::StringRef functionName) {
    Finding finding{FindingCode::OutputNotInHostMemory, Severity::Error, loc,
                    ""};
    finding.outputIndex = output;
    llvm::append_range(finding.tupleIndex, paths[node.pathId]);
    if (DictionaryAttr attrs = getAttrDict(entry.getResAttrsAttr(), output))
      if (auto info =
              llvm::dyn_cast_or_null<StringAttr>(attrs.get("jax.result_info")))
        finding.resultInfo = info.getValue().str();
    finding.declaredMemoryKind = declared.kind;
    finding.declaredInModuleSpaces = declared.fromModuleSpaces;
    llvm::append_range(finding.startIndices, factsOf(node).starts);
    llvm::sort(finding.startIndices);
    finding.moreStarts = factsOf(node).moreStarts;
    std::tie(finding.path, finding.omittedPathSteps) = buildPath(id);

    std::string outputName = "output " + std::to_string(output);
    if (!finding.tupleIndex.empty())
      outputName += " at tuple index {" +
                    llvm::join(llvm::map_range(finding.tupleIndex,
                                               [](int64_t index) {
                                                 return std::to_string(index);
                                               }),
                               ", ") +
                    "}";
    std::string outputWithInfo =
        finding.resultInfo.empty()
            ? outputName
            : outputName + " (" + quoted(finding.resultInfo) + ")";
    // The start the shown path begins at.
    const TraceStart &firstStart =
        report.starts[factsOf(nodes[pathPositions[id].root]).starts.front()];
    std::string declaration =
        declared.kind.empty()
            ? "has no mhlo.memory_kind, so it is in device memory"
            : "is declared " + declared.describe();
    finding.message =
        "E1200: Tensor which is moved to host (starting from " +
        firstStart.name +
        ") is returned from the entry computation but the layout for this "
        "output is not set to host memory; " +
        outputWithInfo + " " + declaration;

    for (unsigned startIndex : finding.startIndices) {
      const TraceStart &start = report.starts[startIndex];
      llvm::StringRef lead = start.kind == TraceStart::Kind::Argument
                                 ? "in host memory from the start: "
                                 : "moved to host here: ";
      finding.notes.push_back({start.loc, (lead + start.reason).str()});
    }
    if (finding.moreStarts)
      finding.notes.push_back(
          {loc, "more tensors moved to host than shown reach this output"});
    finding.notes.push_back(
        {loc, "path: " + formatPath(finding.path, finding.omittedPathSteps,
                                    outputName)});
    if (std::optional<FindingNote> note = explainComputedSlice(node))
      finding.notes.push_back(std::move(*note));
    if (declared.kind == kUnpinnedHost)
      finding.notes.push_back(
          {loc, "XLA puts \"unpinned_host\" outputs in memory space 6, not in "
                "host memory space 5, so they do not count as host memory"});

    // Modules converted from HLO declare memory spaces and move with
    // MoveToDevice; the fixes speak their language.
    std::string jaxOutput =
        finding.resultInfo.empty() ? outputName : quoted(finding.resultInfo);
    Fix deviceFix{Fix::Strategy::Device,
                  (declared.fromModuleSpaces
                       ? std::string("move it back with custom call "
                                     "'MoveToDevice' on operand ")
                       : std::string("move it back with "
                                     "'annotate_device_placement' "
                                     "(_xla_buffer_placement = \"device\") on "
                                     "operand ")) +
                      std::to_string(output) + " of func.return",
                  "jax.device_put(x, jax.memory.Space.Device) on " + jaxOutput +
                      " before returning it"};
    // XLA does not implement a memory kind on a tuple-typed output, so only
    // moving the elements back helps there.
    if (llvm::isa<TupleType>(entry.getResultTypes()[output])) {
      finding.notes.push_back(
          {loc, "output " + std::to_string(output) +
                    " is a tuple, and XLA does not implement a memory kind "
                    "on a tuple-typed output: it cannot be kept in host "
                    "memory"});
    } else {
      Fix hostFix{
          Fix::Strategy::Host,
          declared.fromModuleSpaces
              ? "set memory space 5 for output " + std::to_string(output) +
                    " in " + declared.describeSource()
              : "set mhlo.memory_kind = \"pinned_host\" on result " +
                    std::to_string(output) + " of " + functionName.str(),
          "out_shardings=...with_memory_kind(\"pinned_host\") for " +
              jaxOutput};
      finding.notes.push_back(
          {loc, "fix (keep it in host memory): " + hostFix.moduleChange +
                    "; in JAX: " + hostFix.jaxChange});
      finding.fixes.push_back(std::move(hostFix));
    }
    finding.notes.push_back({loc, "fix (bring it back to device memory): " +
                                      deviceFix.moduleChange +
                                      "; in JAX: " + deviceFix.jaxChange});
    finding.fixes.push_back(std::move(deviceFix));
    return finding;
  }

  /// One finding per start: a host tensor feeding a thousand device ops is
  /// one problem to fix, and a thousand diagnostics would bury it.
  void reportHostCompute() {
    FindingCode code = FindingCode::ImplicitHostCompute;
    for (auto &[startIndex, ops] : hostComputeByStart) {
      const TraceStart &start = report.starts[startIndex];
      Operation *first = ops.shown.front();
      std::string message =
          (getFindingCodeName(code, options.strict) + ": '" +
           first->getName().getStringRef() +
           "' computes on a tensor in host memory (moved to host starting "
           "from " +
           start.name +
           "); XLA runs it as host compute and keeps its results in host "
           "memory")
              .str();
      Finding finding{code,
                      options.strict ? Severity::Error : Severity::Warning,
                      first->getLoc(), std::move(message)};
      for (Operation *op : llvm::ArrayRef(ops.shown).drop_front())
        finding.notes.push_back(
            {op->getLoc(), ("'" + op->getName().getStringRef() +
                            "' computes on host memory from the same start")
                               .str()});
      if (ops.count > ops.shown.size())
        finding.notes.push_back(
            {first->getLoc(),
             "and " + std::to_string(ops.count - ops.shown.size()) +
                 " more ops compute on host memory from " + start.name});
      if (options.strict)
        report.findings.push_back(std::move(finding));
      else
        warnings.push_back(std::move(finding));
    }
  }

  ModuleOp module;
  func::FuncOp entry;
  const HostOffloadOptions &options;
  HostOffloadReport &report;
  OpNames names;
  SymbolTable symbolTable;
  FactTable factTable;

  /// The call sites of each function, host compute calls aside.
  llvm::DenseMap<StringAttr, llvm::SmallVector<Operation *, 1>> callers;
  /// The callee the walk entered last, and its body (null if it has none).
  StringAttr lastCallee;
  Block *lastCalleeBody = nullptr;
  /// The last time host memory entered a callee's argument.
  struct CalleeEntry {
    Block *body = nullptr;
    unsigned argument = 0;
    unsigned pathId = 0;
    unsigned callerFacts = 0;
    /// The argument's node, and its facts right after.
    unsigned node = 0;
    unsigned nodeFacts = 0;
    /// Entering left the node's facts as they were.
    bool changesNothing = false;
    /// The argument's flow.
    unsigned flow = 0;
  } lastEntry;
  LargeVector<Node> nodes;
  /// Results and block arguments in the module: room reserved for nodes.
  size_t valueCount = 0;
  /// The first node of each value, and the next node of the same value for
  /// each node of a value traced at several tuple index paths.
  FirstNodeTable firstNodeOfValue{nodes};
  llvm::DenseMap<unsigned, unsigned> nextPathNodes;
  LargeVector<unsigned> queue;
  size_t queueHead = 0;

  llvm::BumpPtrAllocator pathAllocator;
  std::vector<llvm::ArrayRef<int64_t>> paths;
  llvm::DenseMap<llvm::ArrayRef<int64_t>, unsigned> pathIds;

  /// What flows through one argument of one function.
  struct ArgumentFlow {
    /// The (result number, node) pairs of the function's returns that carry
    /// host memory coming through the argument.
    llvm::SmallVector<std::pair<unsigned, unsigned>, 1> returns;
    /// The first and last of the argument's `flowCalls`; -1 if none.
    int firstCall = -1;
    int lastCall = -1;
  };
  std::vector<ArgumentFlow> argumentFlows;
  /// The call sites host memory entered an argument from, once for each time
  /// the facts of the operand grew, linked per argument: (call, next entry of
  /// the same argument or -1). One array for all, where thousands of
  /// arguments entered from one call site each would take an allocation
  /// each.
  LargeVector<std::pair<Operation *, int>> flowCalls;
  /// Call sites in the module, host compute calls aside: room reserved for
  /// `flowCalls`, which holds each at least once when every call site is
  /// reached.
  size_t callSiteCount = 0;
  /// By (function, argument number).
  llvm::DenseMap<std::pair<Operation *, unsigned>, unsigned> argumentFlowIds;
  /// The first node reaching each output of the entry function; -1 if none.
  std::vector<int> outputNodes;
  /// Ops without results reported as implicit host compute (the others are
  /// marked on the node of their first result).
  llvm::DenseSet<Operation *> resultlessHostComputeOps;
  /// The ops reported as implicit host compute, by the start whose host
  /// memory they compute on.
  llvm::MapVector<unsigned, HostComputeOps> hostComputeByStart;

  /// The slices reached, by id.
  llvm::DenseMap<Operation *, unsigned> sliceIds;
  std::vector<Operation *> sliceOps;
  /// Slices XLA turns into host compute, with the first op computing on
  /// their result.
  llvm::DenseMap<unsigned, Operation *> computedSlices;
  /// Nodes inside a function that host memory reached through its arguments
  /// and that are computed on, with the op that does it.
  std::vector<std::pair<unsigned, Operation *>> computedOnInCallees;
  std::vector<Finding> warnings;
  /// By node, for the nodes on the way to a finding.
  std::vector<PathPosition> pathPositions;
  /// The memory kinds declared on the entry's arguments and results.
  std::vector<DeclaredMemoryKind> argumentKinds, resultKinds;
};

} // namespace

llvm::StringRef getFindingCodeName(FindingCode code, bool strict) {
  switch (code) {
  case FindingCode::OutputNotInHostMemory:
    return "E1200";
  case FindingCode::ImplicitHostCompute:
    return strict ? "E1201" : "W1201";
  case FindingCode::RootMovedToHost:
    return "W1202";
  case FindingCode::UnusedMoveToHost:
    return "W1203";
  case FindingCode::UnknownMemoryKind:
    return "W1204";
  case FindingCode::MalformedAnnotation:
    return "W1205";
  case FindingCode::UnpinnedHostArgument:
    return "W1206";
  case FindingCode::AutoLayoutOnHostOutput:
    return "W1207";
  }
  llvm_unreachable("unknown finding code");
}

bool HostOffloadReport::hasErrors() const {
  return llvm::any_of(findings, [](const Finding &finding) {
    return finding.severity == Severity::Error;
  });
}

FailureOr<HostOffloadReport>
analyzeHostOffload(ModuleOp module, const HostOffloadOptions &options) {
  FailureOr<func::FuncOp> entry = findEntryFunction(module, options.entry);
  if (failed(entry))
    return failure();
  HostOffloadReport report;
  report.entry = *entry;
  Tracer(module, *entry, options, report).run();
  return report;
}

void emitFindings(const HostOffloadReport &report) {
  for (const Finding &finding : report.findings) {
    InFlightDiagnostic diagnostic = finding.severity == Severity::Error
                                        ? emitError(finding.loc)
                                        : emitWarning(finding.loc);
    diagnostic << toValidUTF8(finding.message);
    for (const FindingNote &note : finding.notes)
      diagnostic.attachNote(note.loc) << toValidUTF8(note.message);
  }
}

std::optional<FileLineColRange> findFileLocation(Location loc) {
  llvm::SmallVector<Location> pending{loc};
  while (!pending.empty()) {
    Location current = pending.pop_back_val();
    if (auto file = llvm::dyn_cast<FileLineColRange>(current))
      return file;
    if (auto name = llvm::dyn_cast<NameLoc>(current)) {
      pending.push_back(name.getChildLoc());
    } else if (auto callSite = llvm::dyn_cast<CallSiteLoc>(current)) {
      // The callee is the innermost frame; the caller is looked at only when
      // the callee has no file.
      pending.push_back(callSite.getCaller());
      pending.push_back(callSite.getCallee());
    } else if (auto fused = llvm::dyn_cast<FusedLoc>(current)) {
      for (Location part : llvm::reverse(fused.getLocations()))
        pending.push_back(part);
    } else if (auto opaque = llvm::dyn_cast<OpaqueLoc>(current)) {
      pending.push_back(opaque.getFallbackLocation());
    }
  }
  return std::nullopt;
}

std::string toValidUTF8(llvm::StringRef text) {
  return llvm::json::isUTF8(text) ? text.str() : llvm::json::fixUTF8(text);
}

} // namespace hostoffload
