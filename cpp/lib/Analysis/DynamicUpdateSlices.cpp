//===- DynamicUpdateSlices.cpp - XLA's rules for writes into buffers ------===//
//
// XLA source: HostOffloader::HandleDynamicUpdateSlices and
// CreateAllocateBufferForDynamicUpdateSlice (xla/hlo/transforms/
// host_offloader.cc), GetPredecessors and IsValidDuringPureMemoryOffload
// (xla/service/host_offload_utils.cc), as XLA:TPU's libtpu runs them
// (docs/semantics.md, section 11): before XLA commit 29c0ee7460 (XLA release
// 2026-06) the walk up stops at a copy, since then it goes on through it.
//
//===----------------------------------------------------------------------===//

#include "DynamicUpdateSlices.h"

#include "MemoryKinds.h"
#include "Warnings.h"

#include "hostoffload/Names.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace mlir;

namespace hostoffload {

namespace {

/// `name` in single quotes, as JAX argument names are written in messages.
std::string quotedName(const std::string &name) { return "'" + name + "'"; }

bool isOp(Operation *op, llvm::StringRef name) {
  return op && op->getName().getStringRef() == name;
}

/// A value the trace up from a write reaches, at a tuple index path, and the
/// op it was reached from.
struct UpStep {
  Value value;
  llvm::SmallVector<int64_t, 2> path;
  Operation *user;
  int previous;
};

/// Where the trace up from a write ends: at an entry argument XLA does not
/// find in host memory (`step` reached it), or nowhere XLA objects to.
struct UpTrace {
  std::vector<UpStep> steps;
  std::optional<unsigned> failingStep;
};

class DynamicUpdateSliceRules {
public:
  DynamicUpdateSliceRules(ModuleOp module, func::FuncOp entry,
                          const HostOffloadOptions &options, const Walk &walk,
                          const OpRules &rules, HostOffloadReport &report)
      : module(module), entry(entry), options(options), walk(walk),
        rules(rules), report(report),
        argumentKinds(readMemoryKinds(entry.getArgAttrsAttr(),
                                      entry.getNumArguments(), module,
                                      names::kArgMemorySpaces)),
        walksThroughCopies(options.xlaRelease >= XlaRelease::July2026) {}

  void run();

private:
  Operation *annotationBehind(Value value) const;
  bool isHostForXla(Value value) const;
  UpTrace traceUp(Operation *write);
  std::string xlaParameterName(unsigned index);
  void reportParameter(Operation *write, const UpTrace &trace);
  void reportHostCompute(Operation *write);
  void reportGpuWriteIntoDevice(Operation *write);

  ModuleOp module;
  func::FuncOp entry;
  const HostOffloadOptions &options;
  const Walk &walk;
  const OpRules &rules;
  HostOffloadReport &report;
  std::vector<DeclaredMemoryKind> argumentKinds;
  /// XLA's walk up from a write goes on through a copy since commit
  /// 29c0ee7460 ("Change broadcast+copy with AllocateBuffer for host
  /// offload"), and stops there before.
  bool walksThroughCopies;
  /// The HOE102 finding of each (argument, shape index), by report index.
  std::map<std::pair<unsigned, std::vector<int64_t>>, size_t> parameterFindings;
};

/// The move to host XLA finds behind `value` when it looks for the start of
/// an offload (GetStartingInstructions: through bitcasts, reshapes that are
/// bitcasts, and copies); null if there is none.
Operation *DynamicUpdateSliceRules::annotationBehind(Value value) const {
  for (Operation *op = value.getDefiningOp(); op;
       op = op->getNumOperands() == 1 ? op->getOperand(0).getDefiningOp()
                                      : nullptr) {
    if (rules.isCustomCall(op)) {
      CustomCallKind kind = rules.classifyCustomCall(op).kind;
      if (kind == CustomCallKind::MoveToHost)
        return op;
      if (kind != CustomCallKind::Sharding)
        return nullptr;
      continue;
    }
    if (rules.isCopy(op))
      continue;
    if (rules.classifyUse(op, 0).kind != UseKind::Bitcast)
      return nullptr;
  }
  return nullptr;
}

/// Whether XLA has put `value` in host memory by the time it looks at the
/// writes: a move to host it starts an offload from is gone by then, and
/// what it moved is where it was.
bool DynamicUpdateSliceRules::isHostForXla(Value value) const {
  if (Operation *annotation = annotationBehind(value))
    return walk.findHostNode(annotation->getOperand(0)).has_value();
  return walk.findHostNode(value).has_value();
}

/// The last op of the first block of region `number` of `op`: its yield; null
/// where the unverified module has no such region, block or op (found by
/// tools/fuzz).
static Operation *getYield(Operation *op, unsigned number) {
  if (number >= op->getNumRegions())
    return nullptr;
  Region &region = op->getRegion(number);
  if (region.empty() || region.front().empty())
    return nullptr;
  return &region.front().back();
}

/// XLA's walk up from a write into a buffer (the write's operand 0), breadth
/// first, as CreateAllocateBufferForDynamicUpdateSlice takes it: through
/// writes, tuples, loops, calls, ops that only move data and, from XLA
/// release 2026-07, copies, to where the buffer is made. A broadcast (XLA
/// allocates it in host memory) ends one way; an entry argument in host memory,
/// or an op that is none of these, ends them all without an error; an entry
/// argument in device memory is the error.
UpTrace DynamicUpdateSliceRules::traceUp(Operation *write) {
  UpTrace trace;
  std::vector<UpStep> &steps = trace.steps;
  // Each value is traced up once at each path: in a region MLIR does not
  // check for dominance (an unregistered op's), a value can be its own
  // operand (found by tools/fuzz).
  std::set<std::pair<const void *, llvm::SmallVector<int64_t, 2>>> taken;
  auto push = [&](Value value, llvm::ArrayRef<int64_t> path, Operation *user,
                  int from) {
    if (!taken
             .emplace(value.getAsOpaquePointer(),
                      llvm::SmallVector<int64_t, 2>(path))
             .second)
      return;
    steps.push_back({value, llvm::SmallVector<int64_t, 2>(path), user, from});
  };
  push(write->getOperand(0), {}, write, -1);
  for (unsigned current = 0; current < steps.size(); ++current) {
    // Copied: `push` may move the steps.
    Value value = steps[current].value;
    llvm::SmallVector<int64_t, 2> path = steps[current].path;
    Operation *user = steps[current].user;
    if (auto argument = llvm::dyn_cast<BlockArgument>(value)) {
      Operation *owner = argument.getOwner()->getParentOp();
      unsigned number = argument.getArgNumber();
      if (owner == entry.getOperation()) {
        if (argumentKinds[number].kind != names::kPinnedHost)
          trace.failingStep = current;
        return trace;
      }
      if (rules.passesOperandsToBody(owner)) {
        if (number < owner->getNumOperands())
          push(owner->getOperand(number), path, owner, current);
        continue;
      }
      if (auto function = llvm::dyn_cast<func::FuncOp>(owner)) {
        for (const CallSites::Entry &site :
             walk.getCallSites().of(function.getSymNameAttr()))
          if (number < site.call->getNumOperands())
            push(site.call->getOperand(number), path, site.call, current);
        continue;
      }
      return trace;
    }
    Operation *op = value.getDefiningOp();
    unsigned result = llvm::cast<OpResult>(value).getResultNumber();
    // The module is unverified StableHLO: an op may lack the operand its
    // rule follows (found by tools/fuzz).
    switch (rules.classifyDefinition(op)) {
    case DefKind::Operand0:
      if (op->getNumOperands() == 0)
        return trace;
      push(op->getOperand(0), path, op, current);
      break;
    case DefKind::AllocatedBuffer:
      break;
    case DefKind::OutOfTuple: {
      std::optional<int64_t> index = getTupleIndex(op);
      if (op->getNumOperands() == 0 || !index)
        return trace;
      llvm::SmallVector<int64_t, 2> outer{*index};
      llvm::append_range(outer, path);
      // A path deeper than the tuple's type names no element of it: tuple
      // reads in a cycle would make it longer without end.
      if (PathTable::clampToType(op->getOperand(0).getType(), outer).size() !=
          outer.size())
        return trace;
      push(op->getOperand(0), outer, op, current);
      break;
    }
    case DefKind::IntoTuple:
      if (path.empty() || path.front() < 0 ||
          path.front() >= static_cast<int64_t>(op->getNumOperands()))
        return trace;
      push(op->getOperand(path.front()), llvm::ArrayRef(path).drop_front(), op,
           current);
      break;
    case DefKind::BodyYield: {
      // A loop's body is its second region; the others have one.
      Operation *yield = getYield(op, isOp(op, names::kWhileOp) ? 1 : 0);
      if (!yield || result >= yield->getNumOperands())
        return trace;
      push(yield->getOperand(result), path, op, current);
      break;
    }
    case DefKind::SameNumberedOperand:
      if (result >= op->getNumOperands())
        return trace;
      push(op->getOperand(result), path, op, current);
      break;
    case DefKind::CallResult: {
      FlatSymbolRefAttr callee = getCallee(op);
      func::FuncOp function =
          callee ? walk.lookupFunction(callee.getAttr()) : nullptr;
      if (!function)
        return trace;
      for (Block &block : function.getFunctionBody())
        if (!block.empty() && rules.isFuncReturn(&block.back()) &&
            result < block.back().getNumOperands())
          push(block.back().getOperand(result), path, op, current);
      break;
    }
    case DefKind::CustomCall: {
      // A move to host that starts an offload at anything but a write gets
      // a copy to host in front of what it feeds (InsertCopyBetween); one
      // that feeds a write directly is removed.
      bool becomesCopy =
          rules.classifyCustomCall(op).kind == CustomCallKind::MoveToHost &&
          !isOp(user, names::kDynamicUpdateSliceOp);
      if (op->getNumOperands() != 1 || (becomesCopy && !walksThroughCopies))
        return trace;
      push(op->getOperand(0), path, op, current);
      break;
    }
    case DefKind::Copy:
      if (!walksThroughCopies || op->getNumOperands() != 1)
        return trace;
      push(op->getOperand(0), path, op, current);
      break;
    case DefKind::End:
      return trace;
    }
  }
  return trace;
}

std::string DynamicUpdateSliceRules::xlaParameterName(unsigned index) {
  std::string hloName = getHloArgumentName(
      module->getAttrOfType<DictionaryAttr>(names::kHloEntryAttr), index);
  if (!hloName.empty())
    return hloName;
  if (std::optional<llvm::StringRef> name =
          findLocationName(entry.getArgument(index).getLoc()))
    return name->str();
  return "argument #" + std::to_string(index);
}

void DynamicUpdateSliceRules::reportParameter(Operation *write,
                                              const UpTrace &trace) {
  const UpStep &failing = trace.steps[*trace.failingStep];
  unsigned index = llvm::cast<BlockArgument>(failing.value).getArgNumber();
  std::vector<int64_t> path(failing.path.begin(), failing.path.end());
  auto [known, inserted] =
      parameterFindings.try_emplace({index, path}, report.findings.size());
  if (!inserted) {
    report.findings[known->second].notes.push_back(
        {write->getLoc(), ("'" + write->getName().getStringRef() +
                           "' writes host memory into the same buffer")
                              .str()});
    return;
  }
  const DeclaredMemoryKind &declared = argumentKinds[index];
  std::string shapeIndex = "{";
  shapeIndex += llvm::join(
      llvm::map_range(path, [](int64_t i) { return std::to_string(i); }), ",");
  shapeIndex += "}";
  std::string argument = describeArgument(entry.getArgument(index));
  std::string declaration =
      declared.kind.empty()
          ? "has no mhlo.memory_kind, so it is in device memory"
          : "is declared " + declared.describe();
  FindingCode code = FindingCode::ParameterNotInHostMemory;
  Finding finding{code, getFindingCodeInfo(code, options.strict).severity,
                  write->getLoc(), ""};
  finding.argumentIndex = index;
  finding.message =
      (getFindingCodeInfo(code, options.strict).name +
       ": Entry computation parameter \"" + xlaParameterName(index) +
       "\" (shape index " + shapeIndex + ") is not in host memory space; " +
       argument + " " + declaration + ", and '" +
       write->getName().getStringRef() +
       "' writes a tensor moved to host into it: XLA keeps the buffer of "
       "such a write in host memory back to where the buffer is made")
          .str();
  for (auto [number, what] :
       {std::pair<unsigned, llvm::StringRef>{0, "buffer"}, {1, "update"}})
    if (Operation *annotation = annotationBehind(write->getOperand(number)))
      finding.notes.push_back(
          {annotation->getLoc(), ("moved to host here: the " + what +
                                  " (operand " + llvm::Twine(number) + ")")
                                     .str()});
  std::string steps = argument;
  for (int step = *trace.failingStep; step >= 0;
       step = trace.steps[step].previous)
    steps += " -> " + describeOp(trace.steps[step].user);
  finding.notes.push_back({write->getLoc(), "path: " + steps});
  std::optional<llvm::StringRef> name =
      findLocationName(entry.getArgument(index).getLoc());
  std::string jaxArgument =
      name ? quotedName(name->str()) : "argument #" + std::to_string(index);
  std::string moduleChange =
      declared.fromModuleSpaces
          ? "set memory space 5 for argument " + std::to_string(index) +
                " in " + declared.describeSource()
          : "set mhlo.memory_kind = \"pinned_host\" on argument " +
                std::to_string(index) + " of @" + entry.getSymName().str();
  finding.notes.push_back(
      {write->getLoc(),
       "fix (declare the buffer in host memory): " + moduleChange +
           "; in JAX: in_shardings=...with_memory_kind(\"pinned_host\") for " +
           jaxArgument +
           ", or jax.device_put it to pinned_host before the "
           "call"});
  finding.notes.push_back(
      {write->getLoc(),
       "fix (or write into a buffer made in the program): start from "
       "jnp.zeros(...) instead of " +
           jaxArgument + ", which XLA then allocates in host memory"});
  report.findings.push_back(std::move(finding));
}

void DynamicUpdateSliceRules::reportHostCompute(Operation *write) {
  FindingCode code = FindingCode::ImplicitHostCompute;
  const FindingCodeInfo &info = getFindingCodeInfo(code, /*strict=*/true);
  std::string message =
      (info.name + ": Automatic host compute offloading is disabled; '" +
       write->getName().getStringRef() +
       "' writes a tensor in host memory (its update), which XLA can only "
       "run as host compute")
          .str();
  report.findings.push_back(
      Finding{code, info.severity, write->getLoc(), std::move(message)});
}

/// XLA:GPU runs HostOffloader's host compute of the write with its result in
/// device memory, and its layout-sensitive verifier then refuses a
/// dynamic-update-slice from host to device memory (measured:
/// s_dus_host_row_into_device_arg, and the fixes of
/// slice_dynamic_update_into_zeros; XLA:TPU compiles them).
void DynamicUpdateSliceRules::reportGpuWriteIntoDevice(Operation *write) {
  FindingCode code = FindingCode::GpuHostWriteIntoDevice;
  const FindingCodeInfo &info = getFindingCodeInfo(code, options.strict);
  std::string message =
      (info.name +
       ": INTERNAL: RET_CHECK failure (hlo_verifier.cc) "
       "DynamicUpdateSlice instruction shouldn't change layout "
       "memory space from host to device; '" +
       write->getName().getStringRef() +
       "' writes a tensor in host memory (its update) into a buffer in device "
       "memory, which XLA:GPU runs as host compute and then refuses (XLA:TPU "
       "compiles it)")
          .str();
  Finding finding{code, info.severity, write->getLoc(), std::move(message)};
  finding.notes.push_back(
      {write->getLoc(),
       "fix: move the update to device memory first (jax.device_put(x, "
       "jax.memory.Space.Device)), or write into a buffer in host memory"});
  report.findings.push_back(std::move(finding));
}

void DynamicUpdateSliceRules::run() {
  for (Operation *write : walk.getDynamicUpdateSlices()) {
    bool annotated = annotationBehind(write->getOperand(0)) ||
                     annotationBehind(write->getOperand(1));
    // XLA looks only at the writes its walks reached (or started from).
    if (!annotated && !walk.findHostNode(write->getResult(0)))
      continue;
    if (isHostForXla(write->getOperand(1))) {
      if (options.strict)
        reportHostCompute(write);
      if (options.platform == Platform::Gpu &&
          !isHostForXla(write->getOperand(0)))
        reportGpuWriteIntoDevice(write);
      continue;
    }
    if (!annotated && !isHostForXla(write->getOperand(0)))
      continue;
    UpTrace trace = traceUp(write);
    if (trace.failingStep)
      reportParameter(write, trace);
  }
}

} // namespace

void reportDynamicUpdateSlices(ModuleOp module, func::FuncOp entry,
                               const HostOffloadOptions &options,
                               const Walk &walk, const OpRules &rules,
                               HostOffloadReport &report) {
  DynamicUpdateSliceRules(module, entry, options, walk, rules, report).run();
}

} // namespace hostoffload
