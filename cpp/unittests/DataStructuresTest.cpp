//===- DataStructuresTest.cpp - the analysis's tables, tested alone -------===//
//
// Checks the rules of the facts lattice (Facts.h) and its interning, the node
// and path tables (NodeTable.h), toValidUTF8 and the ops in pre-order
// (PreorderOps.h) on values made for the test, and that the verifier's walk
// collects the ops the analysis's own walk would (ModuleOps.h).
// Prints one line per check that fails and a summary per group; exits 1 if
// any check failed. test/lit/unit runs it.
//
//===----------------------------------------------------------------------===//

#include "Facts.h"
#include "ModuleOps.h"
#include "NodeTable.h"
#include "PreorderOps.h"
#include "Walk.h"

#include "hostoffload/HostOffloadAnalysis.h"
#include "hostoffload/ModuleVerifier.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace hostoffload;

namespace {

unsigned failures = 0;
unsigned checks = 0;

void check(bool condition, const std::string &what) {
  ++checks;
  if (condition)
    return;
  ++failures;
  llvm::outs() << "FAILED: " << what << "\n";
}

/// Reports a group of checks, e.g. "fact table: 12 checks".
class Group {
public:
  explicit Group(llvm::StringRef name)
      : name(name), firstCheck(checks), firstFailure(failures) {}
  ~Group() {
    llvm::outs() << name << ": " << (checks - firstCheck) << " checks, "
                 << (failures - firstFailure) << " failed\n";
  }

private:
  llvm::StringRef name;
  unsigned firstCheck, firstFailure;
};

std::vector<unsigned> sorted(llvm::ArrayRef<unsigned> items) {
  std::vector<unsigned> copy(items.begin(), items.end());
  llvm::sort(copy);
  return copy;
}

/// The same facts as sets (lists in any order).
bool sameAsSets(const Facts &a, const Facts &b) {
  return sorted(a.starts) == sorted(b.starts) && a.moreStarts == b.moreStarts &&
         sorted(a.origins) == sorted(b.origins) && a.global == b.global &&
         a.unconditional == b.unconditional &&
         sorted(a.slices) == sorted(b.slices);
}

void testFactLattice() {
  Group group("fact table: lattice");
  FactTable table;
  unsigned a = table.forStart(0);
  unsigned b = table.forStart(1);
  check(table.forStart(0) == a, "equal facts are interned once");
  check(a != b, "different starts have different facts");
  check(table.get(a).global && table.get(a).unconditional,
        "a start is host memory for every caller, unconditionally");

  check(table.merge(a, a) == a, "merge is idempotent");
  unsigned ab = table.merge(a, b);
  check(table.merge(ab, b) == ab && table.merge(ab, a) == ab,
        "merging facts already merged in changes nothing");
  check(sameAsSets(table.get(ab), table.get(table.merge(b, a))),
        "merge is commutative as sets below the caps");
  check(sorted(table.get(ab).starts) == std::vector<unsigned>{0, 1},
        "merge is the union of the starts");
  unsigned c = table.forStart(2);
  check(sameAsSets(table.get(table.merge(table.merge(a, b), c)),
                   table.get(table.merge(a, table.merge(b, c)))),
        "merge is associative as sets below the caps");

  unsigned callee = table.intoCallee(ab, 3);
  const Facts &entered = table.get(callee);
  check(entered.starts == table.get(ab).starts,
        "entering a callee keeps the starts");
  check(entered.origins.size() == 1 && entered.origins[0] == 3 &&
            !entered.global,
        "entering a callee makes the argument the only origin");

  unsigned sliced = table.throughSlice(a, 7);
  check(!table.get(sliced).unconditional &&
            table.get(sliced).slices.size() == 1 &&
            table.get(sliced).slices[0] == 7,
        "a slice's result is host memory on the slice's condition");
  check(table.get(table.merge(sliced, a)).unconditional,
        "merging unconditional facts makes a value unconditional");
  check(table.throughHostCompute(a) == a,
        "host compute on unconditional facts changes nothing");
  const Facts &computed = table.get(table.throughHostCompute(sliced));
  check(computed.unconditional && computed.slices.empty(),
        "host compute makes facts unconditional");

  unsigned conditionalInCallee = table.throughSlice(callee, 9);
  const Facts &returned = table.get(table.outOfCallee(conditionalInCallee, b));
  check(returned.starts == table.get(b).starts && returned.global,
        "a return takes the call site operand's starts and origins");
  check(!returned.unconditional && returned.slices.size() == 1 &&
            returned.slices[0] == 9,
        "a return keeps the callee's slice condition");
  check(table.outOfCallee(callee, b) == b,
        "an unconditional return is the call site operand's facts");
}

void testFactCaps() {
  Group group("fact table: caps");
  FactTable table;
  unsigned merged = table.forStart(0);
  for (unsigned start = 1; start <= kMaxStartsPerNode; ++start)
    merged = table.merge(merged, table.forStart(start));
  const Facts &starts = table.get(merged);
  check(starts.starts.size() == kMaxStartsPerNode && starts.moreStarts,
        "past the cap, starts are summarized as more starts");
  check(!llvm::is_contained(starts.starts, kMaxStartsPerNode),
        "the first starts to arrive are kept");
  check(table.merge(merged, table.forStart(kMaxStartsPerNode + 5)) == merged,
        "past the cap, more starts change nothing");

  unsigned start = table.forStart(0);
  unsigned origins = table.intoCallee(start, 0);
  for (unsigned argument = 1; argument < kMaxOriginsPerNode; ++argument)
    origins = table.merge(origins, table.intoCallee(start, argument));
  check(table.get(origins).origins.size() == kMaxOriginsPerNode &&
            !table.get(origins).global,
        "up to the cap, origins are listed");
  origins = table.merge(origins, table.intoCallee(start, kMaxOriginsPerNode));
  check(table.get(origins).global,
        "past the cap, a value is host memory for every caller");

  unsigned slices = table.throughSlice(start, 0);
  for (unsigned slice = 1; slice < kMaxSlicesPerNode; ++slice)
    slices = table.merge(slices, table.throughSlice(start, slice));
  check(!table.get(slices).unconditional &&
            table.get(slices).slices.size() == kMaxSlicesPerNode,
        "up to the cap, slices are listed");
  slices = table.merge(slices, table.throughSlice(start, kMaxSlicesPerNode));
  check(table.get(slices).unconditional && table.get(slices).slices.empty(),
        "past the cap, a value made of slices is host memory outright");
}

/// Values to key the node table with: the results of ops of an unregistered
/// dialect in one block.
class Values {
public:
  Values(MLIRContext &context, unsigned count) {
    OpBuilder builder(&context);
    builder.setInsertionPointToEnd(&block);
    OperationState state(UnknownLoc::get(&context), "test.value");
    state.addTypes(builder.getI32Type());
    for (unsigned i = 0; i < count; ++i)
      values.push_back(builder.create(state)->getResult(0));
  }

  std::vector<Value> values;

private:
  Block block;
};

void testFactInterning() {
  Group group("fact table: interning");
  FactTable table;
  constexpr unsigned kStarts = 10000;
  std::vector<unsigned> ids;
  for (unsigned start = 0; start < kStarts; ++start)
    ids.push_back(table.forStart(start));
  std::vector<unsigned> distinct = sorted(ids);
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  check(distinct.size() == kStarts, "thousands of different facts stay apart");
  bool sameIds = true;
  for (unsigned start = 0; start < kStarts; ++start)
    sameIds &= table.forStart(start) == ids[start];
  check(sameIds, "each of thousands of facts is interned once");
  check(table.get(ids[kStarts - 1]).starts ==
            llvm::SmallVector<unsigned, 2>{kStarts - 1},
        "an id stands for the facts it was given");
  unsigned entered = table.intoCallee(ids[1], 2);
  unsigned slicedFirst = table.throughSlice(entered, 3);
  unsigned slicedAgain = table.throughSlice(table.intoCallee(ids[1], 2), 3);
  check(slicedFirst == slicedAgain,
        "facts made again the same way get the same id");
  check(table.intoCallee(ids[2], 1) != entered,
        "facts with an item in another list are other facts");
  // Each operation keeps its last answer apart from its table: asked in
  // turns and in a row, every question still gets its own answer.
  bool sameAnswers = true;
  for (unsigned round = 0; round < 3; ++round)
    for (unsigned start = 0; start < 4; ++start)
      for (unsigned repeat = 0; repeat < 2; ++repeat) {
        sameAnswers &= table.get(table.intoCallee(ids[start], round)).starts ==
                       llvm::SmallVector<unsigned, 2>{start};
        sameAnswers &=
            table.get(table.intoCallee(ids[start], round)).origins.front() ==
            round;
        unsigned other = (start + 1 + round) % 4;
        sameAnswers &=
            sorted(table.get(table.merge(ids[start], ids[other])).starts) ==
            sorted(std::vector<unsigned>{start, other});
      }
  check(sameAnswers, "an answer kept from the question before is never "
                     "given to another question");
}

void testNodeTable(MLIRContext &context) {
  Group group("node table");
  Values made(context, 3);
  Value first = made.values[0], second = made.values[1];
  NodeTable nodes;
  check(!nodes.firstNodeOf(first), "an empty table finds no node");
  bool created;
  unsigned id = nodes.getOrCreate(first, 0, created);
  check(created && id == 0 && nodes.size() == 1, "a new value gets node 0");
  check(nodes.getOrCreate(first, 0, created) == id && !created,
        "the same value and path find the same node");
  check(nodes.firstNodeOf(first) == id, "the value finds its first node");
  check(!nodes.firstNodeOf(second), "another value has no node");

  unsigned atOne = nodes.getOrCreate(first, 1, created);
  unsigned atTwo = nodes.getOrCreate(first, 2, created);
  check(created && atOne != id && atTwo != atOne,
        "each path of a value gets its own node");
  check(nodes.firstNodeOf(first) == id, "the first node stays first");
  check(nodes.nextPathNode(id) == atOne && nodes.nextPathNode(atOne) == atTwo &&
            !nodes.nextPathNode(atTwo),
        "the paths of a value are chained in the order they came");
  check(nodes.getOrCreate(first, 1, created) == atOne && !created,
        "a path already there is found");
  check(nodes[atTwo].value == first && nodes[atTwo].pathId == 2,
        "a node keeps its value and path");
  check(nodes.getOrCreate(second, 1, created) == 3 && created &&
            nodes.firstNodeOf(second) == 3,
        "another value's first node may be at any path");
}

void testFirstNodeTableGrowth(MLIRContext &context) {
  Group group("first node table: growth");
  constexpr unsigned kCount = 5000;
  Values made(context, kCount);
  std::vector<Node> nodes;
  FirstNodeTable table(nodes);
  bool inserted = false;
  for (unsigned i = 0; i < kCount; ++i) {
    nodes.emplace_back(made.values[i], 0);
    table.insert(made.values[i], i, inserted);
    if (!inserted)
      break;
  }
  check(inserted && table.getSize() == kCount, "every new value is inserted");
  check(table.getCapacity() >= 2 * table.getSize(),
        "the table stays at most half full");
  check(llvm::isPowerOf2_64(table.getCapacity()),
        "the capacity is a power of two");
  bool allFound = true;
  for (unsigned i = 0; i < kCount; ++i)
    allFound &= table.find(made.values[i]) == i;
  check(allFound, "every value finds its node after the table grew");
  check(table.insert(made.values[42], kCount, inserted) == 42 && !inserted,
        "inserting a value again returns its node");
}

void testPathTable(MLIRContext &context) {
  Group group("path table");
  PathTable paths;
  check(paths.intern({}) == 0 && paths.get(0).empty(),
        "path 0 is the whole value");
  unsigned id = paths.intern({1, 2});
  check(paths.intern({1, 2}) == id && id != 0, "equal paths are interned once");
  check(paths.intern({2, 1}) != id, "the order of indices matters");
  check(paths.get(id) == llvm::ArrayRef<int64_t>({1, 2}),
        "a path keeps its indices");

  Type i32 = IntegerType::get(&context, 32);
  Type inner = TupleType::get(&context, {i32, i32});
  Type outer = TupleType::get(&context, {inner, i32});
  check(PathTable::clampToType(outer, {0, 1}).size() == 2,
        "a path into the type is kept");
  check(PathTable::clampToType(outer, {0, 1, 0}).size() == 2,
        "indices past a tensor are dropped");
  check(PathTable::clampToType(outer, {2}).empty() &&
            PathTable::clampToType(outer, {-1}).empty(),
        "an element the tuple lacks is the whole tuple");
  check(PathTable::clampToType(i32, {0}).empty(), "a tensor has no elements");
}

void testValidUTF8() {
  Group group("valid UTF-8");
  const std::string replacement = "\xEF\xBF\xBD";
  for (size_t length : {0, 5, 8, 13, 16, 31, 32, 33, 64, 75}) {
    std::string ascii(length, 'a');
    check(toValidUTF8(ascii) == ascii,
          "ASCII of length " + std::to_string(length) + " is kept");
  }
  // The non-ASCII byte in each word of the first and second 32 bytes, in the
  // words after them and in the tail.
  for (size_t at : {2, 9, 17, 27, 30, 33, 45, 52, 62, 66, 72}) {
    std::string text(75, 'a');
    std::string valid = text;
    valid.replace(at, 2, "\xC3\xA9");
    check(toValidUTF8(valid) == valid,
          "valid UTF-8 at byte " + std::to_string(at) + " is kept");
    std::string invalid = text;
    invalid[at] = '\xFF';
    std::string fixed = text;
    fixed.replace(at, 1, replacement);
    check(toValidUTF8(invalid) == fixed,
          "an invalid byte at " + std::to_string(at) + " becomes U+FFFD");
  }
}

/// A module of `count` ops, the first of which holds a region of two blocks,
/// each with an op holding a region of its own.
OwningOpRef<ModuleOp> nestedModule(MLIRContext &context, unsigned count) {
  OpBuilder builder(&context);
  Location loc = UnknownLoc::get(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  OperationState outer(loc, "test.outer");
  outer.addRegion();
  Operation *outerOp = builder.create(outer);
  for (unsigned blockIndex = 0; blockIndex < 2; ++blockIndex) {
    Block *block = builder.createBlock(&outerOp->getRegion(0),
                                       outerOp->getRegion(0).end());
    OperationState inner(loc, "test.inner");
    inner.addRegion();
    Operation *innerOp = builder.create(inner);
    builder.createBlock(&innerOp->getRegion(0));
    builder.create(OperationState(loc, "test.innermost"));
    builder.setInsertionPointToEnd(block);
  }
  builder.setInsertionPointAfter(outerOp);
  for (unsigned i = 5; i < count; ++i)
    builder.create(OperationState(loc, "test.flat"));
  return module;
}

void testPreorderOps(MLIRContext &context) {
  Group group("pre-order ops");
  OwningOpRef<ModuleOp> module = nestedModule(context, 8);
  std::vector<Operation *> walked;
  module->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != module->getOperation())
      walked.push_back(op);
  });
  std::vector<Operation *> taken;
  PreorderOps ops(*module);
  while (Operation *op = ops.next())
    taken.push_back(op);
  check(walked.size() == 8, "the module holds eight ops");
  check(taken == walked, "the ops come in the order Operation::walk visits "
                         "them before their regions");
  OwningOpRef<ModuleOp> empty = ModuleOp::create(UnknownLoc::get(&context));
  check(!PreorderOps(*empty).next(), "an empty module has no ops");
}

/// A module with calls at the top of functions, inside a region of an op of
/// an unregistered dialect and inside a nested module, a host compute call,
/// custom calls and dynamic_update_slice ops, one of them without a result.
constexpr llvm::StringLiteral collectedModule = R"mlir(
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = func.call @f(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "stablehlo.custom_call"(%0) <{call_target_name = "MoveToHost"}> : (tensor<4xf32>) -> tensor<4xf32>
    %2 = "stablehlo.while"(%1) ({
    ^bb0(%x: tensor<4xf32>):
      %3 = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %4 = func.call @f(%3) {mhlo.frontend_attributes = {_xla_compute_type = "host"}} : (tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%4) : (tensor<4xf32>) -> ()
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %i = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.dynamic_update_slice"(%2, %1, %i) : (tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
    "stablehlo.dynamic_update_slice"(%5, %1, %i) : (tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> ()
    return %5 : tensor<4xf32>
  }
  module @inner {
    func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
      %0 = func.call @h(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
      %1 = "stablehlo.custom_call"(%0) <{call_target_name = "MoveToDevice"}> : (tensor<4xf32>) -> tensor<4xf32>
      return %1 : tensor<4xf32>
    }
    func.func private @h(%arg0: tensor<4xf32>) -> tensor<4xf32> {
      return %arg0 : tensor<4xf32>
    }
  }
  func.func private @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = func.call @g(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @g(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
}
)mlir";

bool sameEntries(llvm::ArrayRef<CallSites::Entry> a,
                 llvm::ArrayRef<CallSites::Entry> b) {
  return llvm::equal(a, b, [](const auto &x, const auto &y) {
    return x.call == y.call && x.hostCompute == y.hostCompute;
  });
}

bool sameCalls(llvm::ArrayRef<CallSites::Call> a,
               llvm::ArrayRef<CallSites::Call> b) {
  return llvm::equal(a, b, [](const auto &x, const auto &y) {
    return x.call == y.call && x.callee == y.callee;
  });
}

void testVerifierCollects() {
  Group group("ops collected by the verifier");
  DialectRegistry registry;
  registry.insert<func::FuncDialect>();
  MLIRContext context(registry);
  context.allowUnregisteredDialects();
  // MLIR's verifier would look for @g inside the unregistered while op.
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      collectedModule, ParserConfig(&context, /*verifyAfterParse=*/false));
  check(static_cast<bool>(module), "the test module parses");
  if (!module)
    return;
  OpRules rules(&context);
  ModuleOps walked = ModuleOps::collect(*module, rules);
  std::optional<ModuleOps> collected;
  check(succeeded(verifyModule(*module, &collected)) && collected,
        "the module verifies and the verifier collects its ops");
  if (!collected)
    return;
  check(walked.getCustomCalls().size() == 2 &&
            llvm::equal(collected->getCustomCalls(), walked.getCustomCalls()),
        "the same two custom calls, the nested module's included");
  check(walked.getDynamicUpdateSlices().size() == 1 &&
            llvm::equal(collected->getDynamicUpdateSlices(),
                        walked.getDynamicUpdateSlices()),
        "the same dynamic_update_slice with a result");
  check(walked.getCallSiteCount() == 4 &&
            collected->getCallSiteCount() == walked.getCallSiteCount(),
        "the same four call sites, the host compute call aside");
  check(walked.getValueCount() > 0 &&
            collected->getValueCount() == walked.getValueCount(),
        "the same count of values");
  unsigned calleesSeen = 0;
  for (llvm::StringRef name : {"f", "g", "h", "main"}) {
    StringAttr callee = StringAttr::get(&context, name);
    calleesSeen += !walked.getCallSites().of(callee).empty();
    check(sameEntries(collected->getCallSites().of(callee),
                      walked.getCallSites().of(callee)),
          ("the same call sites of @" + name).str());
  }
  check(calleesSeen == 3, "calls of @f, @g and @h were collected");
  for (llvm::StringRef name : {"main", "f", "g"}) {
    func::FuncOp function =
        collected->lookupFunction(StringAttr::get(&context, name));
    check(function && function->getParentOp() == module->getOperation() &&
              function == walked.lookupFunction(function.getSymNameAttr()),
          ("both find the module's own @" + name).str());
  }
  for (llvm::StringRef name : {"h", "inner", "missing"})
    check(
        !collected->lookupFunction(StringAttr::get(&context, name)) &&
            !walked.lookupFunction(StringAttr::get(&context, name)),
        ("neither finds a function @" + name + " in the module's body").str());
  unsigned functions = 0;
  module->walk([&](func::FuncOp function) {
    ++functions;
    check(sameCalls(collected->getCallSites().in(function),
                    walked.getCallSites().in(function)),
          ("the same calls inside @" + function.getSymName()).str());
  });
  check(functions == 5, "the module holds five functions");

  // An invalid module leaves nothing collected.
  module->walk([&](func::CallOp call) {
    if (call.getCallee() == "g")
      call.setCallee("missing");
  });
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) {});
  check(failed(verifyModule(*module, &collected)) && !collected,
        "a call of a missing function fails, collecting nothing");
}

void testCallsInAFunction() {
  Group group("the calls inside a function");
  DialectRegistry registry;
  registry.insert<func::FuncDialect>();
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = func.call @f(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = func.call @f(%0) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = func.call @g(%1) : (tensor<4xf32>) -> tensor<4xf32>
    %3 = func.call @f(%2) : (tensor<4xf32>) -> tensor<4xf32>
    %4 = func.call @f(%3) : (tensor<4xf32>) -> tensor<4xf32>
    return %4 : tensor<4xf32>
  }
  func.func private @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
  func.func private @g(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
  )mlir",
                                                             &context);
  check(static_cast<bool>(module), "the test module parses");
  if (!module)
    return;
  OpRules rules(&context);
  ModuleOps ops = ModuleOps::collect(*module, rules);
  llvm::SmallVector<func::CallOp> calls;
  module->walk([&](func::CallOp call) { calls.push_back(call); });
  func::FuncOp main = ops.lookupFunction(StringAttr::get(&context, "main"));
  check(calls.size() == 5 && main, "five calls inside @main");
  if (calls.size() != 5 || !main)
    return;
  llvm::ArrayRef<CallSites::Call> in = ops.getCallSites().in(main);
  check(in.size() == 3 && in[0].call == calls[0] && in[1].call == calls[2] &&
            in[2].call == calls[3],
        "the first call of each run of calls to one callee, in order");
  check(in.size() == 3 && in[0].callee.getValue() == "f" &&
            in[1].callee.getValue() == "g" && in[2].callee.getValue() == "f",
        "each with its callee");
  check(ops.getCallSites().of(StringAttr::get(&context, "f")).size() == 4,
        "the call sites of @f are all four");
}

void testWalkVisitsStartUsers() {
  Group group("the walk's visits to the users of starts");
  DialectRegistry registry;
  registry.insert<func::FuncDialect>();
  MLIRContext context(registry);
  context.allowUnregisteredDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
  func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "test.op"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "test.op"(%b, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %2 = "test.op"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %3 = "test.op"(%0, %1, %2)
        : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %3 : tensor<4xf32>
  }
  )mlir",
                                                             &context);
  check(static_cast<bool>(module), "the test module parses");
  if (!module)
    return;
  OpRules rules(&context);
  ModuleOps ops = ModuleOps::collect(*module, rules);
  func::FuncOp main = ops.lookupFunction(StringAttr::get(&context, "main"));
  if (!main)
    return;
  llvm::SmallVector<Operation *> users;
  for (Operation &op : main.front())
    users.push_back(&op);
  Value a = main.getArgument(0), b = main.getArgument(1);
  Walk walk(*module, main, rules, ops);
  walk.addStart(a, 0);
  walk.addStart(b, 1);
  std::vector<std::pair<Value, Operation *>> visits;
  walk.run(
      [&](Value start, Operation *user) { visits.emplace_back(start, user); });
  // %a has four uses, %b one: both go past the visitor, %a's users in
  // program order, an op that uses it twice twice.
  std::vector<std::pair<Value, Operation *>> expected{{a, users[0]},
                                                      {a, users[1]},
                                                      {a, users[2]},
                                                      {a, users[2]},
                                                      {b, users[1]}};
  check(visits == expected,
        "each use of each start, in program order, the starts in turn");
  check(walk.getNodes().firstNodeOf(users[3]->getResult(0)).has_value(),
        "the walk reached past the starts' users");
}

void testWalkLeavesUnusedRegionArguments() {
  Group group("the walk's nodes for the arguments of a loop's regions");
  DialectRegistry registry;
  registry.insert<func::FuncDialect>();
  MLIRContext context(registry);
  context.allowUnregisteredDialects();
  // The condition reads the second value the loop carries, not the first;
  // the body reads both.
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
  func.func @main(%a: tensor<i1>) -> (tensor<i1>, tensor<i1>) {
    %0:2 = "stablehlo.while"(%a, %a) ({
    ^bb0(%c0: tensor<i1>, %c1: tensor<i1>):
      "stablehlo.return"(%c1) : (tensor<i1>) -> ()
    }, {
    ^bb0(%b0: tensor<i1>, %b1: tensor<i1>):
      "stablehlo.return"(%b0, %b1) : (tensor<i1>, tensor<i1>) -> ()
    }) : (tensor<i1>, tensor<i1>) -> (tensor<i1>, tensor<i1>)
    return %0#0, %0#1 : tensor<i1>, tensor<i1>
  }
  )mlir",
                                                             &context);
  check(static_cast<bool>(module), "the test module parses");
  if (!module)
    return;
  OpRules rules(&context);
  ModuleOps ops = ModuleOps::collect(*module, rules);
  func::FuncOp main = ops.lookupFunction(StringAttr::get(&context, "main"));
  if (!main)
    return;
  Operation *loop = &main.front().front();
  Block &condition = loop->getRegion(0).front();
  Block &body = loop->getRegion(1).front();
  Walk walk(*module, main, rules, ops);
  walk.addStart(main.getArgument(0), 0);
  walk.run();
  const NodeTable &nodes = walk.getNodes();
  check(!nodes.firstNodeOf(condition.getArgument(0)),
        "an argument the condition does not read has no node");
  check(nodes.firstNodeOf(condition.getArgument(1)).has_value(),
        "the argument it reads has one");
  check(nodes.firstNodeOf(body.getArgument(0)).has_value() &&
            nodes.firstNodeOf(body.getArgument(1)).has_value(),
        "the body's arguments have theirs");
  check(walk.getOutputNode(0).has_value() && walk.getOutputNode(1).has_value(),
        "both values the loop carries reach the outputs");
}

} // namespace

int main() {
  MLIRContext context;
  context.allowUnregisteredDialects();
  testFactLattice();
  testFactCaps();
  testFactInterning();
  testNodeTable(context);
  testFirstNodeTableGrowth(context);
  testPathTable(context);
  testValidUTF8();
  testPreorderOps(context);
  testVerifierCollects();
  testCallsInAFunction();
  testWalkVisitsStartUsers();
  testWalkLeavesUnusedRegionArguments();
  if (failures != 0) {
    llvm::outs() << failures << " of " << checks << " checks failed\n";
    return 1;
  }
  llvm::outs() << "all " << checks << " checks passed\n";
  return 0;
}
