//===- Trace.cpp - where every start's host memory goes -------------------===//
//
// Read off a walk that has run, as XLA's HostOffloader log tells it: for each
// start, the ops its host memory passes through and where it ends. The facts
// of a node name the starts reaching it (up to their cap), so a start whose
// host memory joins another's shares that one's ends; the way shown to an end
// is the chain of parents, from the start that reached it first.
//
//===----------------------------------------------------------------------===//

#include "Trace.h"

#include "Paths.h"

#include "hostoffload/Names.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace hostoffload {

llvm::StringRef TraceFate::getKindName(Kind kind) {
  switch (kind) {
  case Kind::Device:
    return "device";
  case Kind::HostCompute:
    return "host_compute";
  case Kind::Output:
    return "output";
  case Kind::Mismatch:
    return "mismatch";
  case Kind::HostCall:
    return "host_call";
  }
  llvm_unreachable("unknown fate kind");
}

/// The bytes XLA gives one element of `type`: a predicate takes a byte, as
/// does any type narrower than one.
static std::optional<uint64_t> getElementBytes(Type type) {
  if (auto complex = llvm::dyn_cast<ComplexType>(type)) {
    std::optional<uint64_t> part = getElementBytes(complex.getElementType());
    return part ? std::optional<uint64_t>(2 * *part) : std::nullopt;
  }
  if (!type.isIntOrIndexOrFloat() || type.isIndex())
    return std::nullopt;
  return std::max<uint64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
}

TensorInfo TensorInfo::of(Type type) {
  TensorInfo info;
  llvm::raw_string_ostream os(info.type);
  type.print(os);
  if (auto tuple = llvm::dyn_cast<TupleType>(type)) {
    // Element by element, as a list: tuples nest no deeper than the module
    // spells them, and a tuple of unknown size has none.
    uint64_t total = 0;
    llvm::SmallVector<Type> pending(tuple.getTypes());
    while (!pending.empty()) {
      Type element = pending.pop_back_val();
      if (auto inner = llvm::dyn_cast<TupleType>(element)) {
        llvm::append_range(pending, inner.getTypes());
        continue;
      }
      std::optional<uint64_t> bytes = TensorInfo::of(element).bytes;
      if (!bytes)
        return info;
      total += *bytes;
    }
    info.bytes = total;
    return info;
  }
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return info;
  info.shape.emplace(tensor.getShape());
  llvm::raw_string_ostream dtype(info.dtype);
  tensor.getElementType().print(dtype);
  std::optional<uint64_t> elementBytes =
      getElementBytes(tensor.getElementType());
  if (tensor.hasStaticShape() && elementBytes)
    info.bytes = static_cast<uint64_t>(tensor.getNumElements()) * *elementBytes;
  return info;
}

namespace {

class TraceBuilder {
public:
  TraceBuilder(func::FuncOp entry, HostOffloadReport &report, const Walk &walk,
               const OpRules &rules,
               const std::vector<DeclaredMemoryKind> &resultKinds)
      : entry(entry), report(report), walk(walk), nodes(walk.getNodes()),
        rules(rules), resultKinds(resultKinds), paths(walk, report.starts) {}

  void build() {
    report.trace.resize(report.starts.size());
    mismatched.resize(entry.getNumResults());
    for (unsigned output : report.mismatchedOutputs)
      mismatched.set(output);
    for (auto [start, trace] : llvm::enumerate(report.trace))
      traceStart(start, trace);
    owners.resize(nodes.size());
    for (unsigned id = 0, e = nodes.size(); id != e; ++id) {
      const Node &node = nodes[id];
      // A parent is made before its children.
      owners[id] = node.parent < 0 ? walk.factsOf(node).starts.front()
                                   : owners[node.parent];
      if (!walk.isHost(id))
        continue;
      // An op passed with several results, or at several paths, counts once;
      // a start's own node is its value's.
      const void *passedAt = node.step == StepKind::Start
                                 ? node.value.getAsOpaquePointer()
                                 : node.via;
      std::optional<PathStep> step;
      for (unsigned start : walk.factsOf(node).starts) {
        if (!passed.insert({start, passedAt, node.step}).second)
          continue;
        if (!step)
          step = describeNode(id);
        report.trace[start].through.push_back(*step);
      }
      for (OpOperand *use : getUsesInProgramOrder(node.value))
        traceUse(id, *use);
    }
  }

private:
  /// The tensor of start `start`, and whether it is in host memory already:
  /// another start's host memory reaches its value, or an earlier start is
  /// at the same value.
  void traceStart(unsigned start, StartTrace &trace) {
    unsigned node = walk.getStartNode(start);
    trace.tensor = TensorInfo::of(nodes[node].value.getType());
    for (unsigned other : walk.factsOf(node).starts)
      if (other != start && (walk.getStartNode(other) != node || other < start))
        trace.alreadyInHost = true;
  }

  /// Node `id` as a step of `through`: a start's argument at its own
  /// location, which names it (the report's start points at its first use,
  /// where JAX gives arguments no file).
  PathStep describeNode(unsigned id) {
    PathStep step = paths.describeNode(id);
    const Node &node = nodes[id];
    if (node.step == StepKind::Start && llvm::isa<BlockArgument>(node.value))
      step.loc = node.value.getLoc();
    return step;
  }

  void traceUse(unsigned id, OpOperand &use) {
    Operation *user = use.getOwner();
    unsigned operand = use.getOperandNumber();
    UseRule rule = rules.classifyUse(user, operand);
    switch (rule.kind) {
    case UseKind::Stop:
      // A move to device, an annotation XLA cannot process, or a call on the
      // host thread.
      if (rules.isCustomCall(user)) {
        if (rules.classifyCustomCall(user).kind == CustomCallKind::MoveToDevice)
          addFate(id, TraceFate::Kind::Device, user, use.get().getType());
        return;
      }
      addFate(id, TraceFate::Kind::HostCall, user);
      return;
    case UseKind::CallArgument:
      if (rules.isHostComputeCall(user))
        addFate(id, TraceFate::Kind::HostCall, user);
      return;
    case UseKind::Slice:
      // XLA reads a slice nothing computes on into device memory, and makes
      // one that something does compute on host compute.
      if (user->getNumResults() != 1)
        return;
      if (walk.findHostNode(user->getResult(0)))
        addHostCompute(id, user);
      else
        addFate(id, TraceFate::Kind::Device, user,
                user->getResult(0).getType());
      return;
    case UseKind::FunctionReturn:
      if (user->getParentOp() == entry.getOperation())
        traceOutput(id, operand);
      return;
    case UseKind::HostCompute:
      addHostCompute(id, user);
      return;
    case UseKind::MovesSlicedData:
      if (!walk.isMadeOfSlicesOnly(id) || rule.hoistedAboveSlice)
        addHostCompute(id, user);
      return;
    case UseKind::ScatterIntoConstant:
      addHostCompute(id, user);
      return;
    default:
      return;
    }
  }

  void traceOutput(unsigned id, unsigned output) {
    // An output declared in host memory stays there. Another one fails with
    // E1200, but for XLA's root special case: a lone output moved to host
    // from device memory, which XLA copies to host and back, so that the
    // output is in device memory.
    TraceFate::Kind kind = TraceFate::Kind::Device;
    if (mismatched.test(output))
      kind = TraceFate::Kind::Mismatch;
    else if (resultKinds[output].kind == names::kPinnedHost)
      kind = TraceFate::Kind::Output;
    addFate(id, kind, entry.front().getTerminator(),
            entry.getFunctionType().getResult(output), output);
  }

  void addHostCompute(unsigned id, Operation *op) {
    if (computedOnce.insert(op).second)
      ++report.trace[owners[id]].firstHostComputeOps;
    for (unsigned start : walk.factsOf(id).starts) {
      if (!computed.insert({start, op}).second)
        continue;
      StartTrace &trace = report.trace[start];
      if (trace.hostComputeOps++ < kTraceHostComputeFates)
        addFateOf(start, id, TraceFate::Kind::HostCompute, op, std::nullopt,
                  std::nullopt);
    }
  }

  void addFate(unsigned id, TraceFate::Kind kind, Operation *op,
               std::optional<Type> type = std::nullopt,
               std::optional<unsigned> output = std::nullopt) {
    for (unsigned start : walk.factsOf(id).starts)
      addFateOf(start, id, kind, op, type, output);
  }

  void addFateOf(unsigned start, unsigned id, TraceFate::Kind kind,
                 Operation *op, std::optional<Type> type,
                 std::optional<unsigned> output) {
    StartTrace &trace = report.trace[start];
    TraceFate &fate = trace.fates.emplace_back(
        TraceFate{kind, {describeOp(op), op->getLoc()}});
    // The op a fate is at is on the way too; host compute's results may be.
    StepKind passedAs = kind == TraceFate::Kind::HostCompute
                            ? StepKind::HostCompute
                            : StepKind::Through;
    if (passed.insert({start, op, passedAs}).second)
      trace.through.push_back(fate.at);
    fate.outputIndex = output;
    if (type)
      fate.tensor = TensorInfo::of(*type);
    if (owners[id] != start)
      fate.fromStart = owners[id];
    fate.omittedPathSteps = paths.buildPath(id, fate.path);
  }

  func::FuncOp entry;
  HostOffloadReport &report;
  const Walk &walk;
  const NodeTable &nodes;
  const OpRules &rules;
  const std::vector<DeclaredMemoryKind> &resultKinds;
  PathBuilder paths;
  /// By node, the start whose walk made it.
  std::vector<unsigned> owners;
  /// The entry outputs that fail with E1200.
  llvm::BitVector mismatched;
  /// The steps (start, op or a start's value, how) listed in `through`.
  llvm::DenseSet<std::tuple<unsigned, const void *, StepKind>> passed;
  /// The (start, op) pairs of host compute counted, and the ops.
  llvm::DenseSet<std::pair<unsigned, Operation *>> computed;
  llvm::DenseSet<Operation *> computedOnce;
};

} // namespace

void traceStarts(func::FuncOp entry, HostOffloadReport &report,
                 const Walk &walk, const OpRules &rules,
                 const std::vector<DeclaredMemoryKind> &resultKinds) {
  TraceBuilder(entry, report, walk, rules, resultKinds).build();
}

} // namespace hostoffload
