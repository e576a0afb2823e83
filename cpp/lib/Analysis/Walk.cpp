//===- Walk.cpp - follow host memory through the module -------------------===//

#include "Walk.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace hostoffload {

Walk::Walk(ModuleOp module, func::FuncOp entry, const OpRules &rules,
           const ModuleOps &ops)
    : module(module), entry(entry), rules(rules), ops(ops),
      firstFlowOfSymbol(ops.getSymbolCount(), kNoFlows),
      outputNodes(entry.getNumResults(), -1) {}

void Walk::addStart(Value value, unsigned startIndex) {
  bool created;
  unsigned id = nodes.getOrCreate(value, /*pathId=*/0, created);
  addFacts(id, factTable.forStart(startIndex), created);
  if (startIndex >= startNodes.size())
    startNodes.resize(startIndex + 1);
  startNodes[startIndex] = id;
}

unsigned Walk::clampPath(Value value, unsigned pathId) {
  llvm::ArrayRef<int64_t> path = paths.get(pathId);
  llvm::ArrayRef<int64_t> valid = PathTable::clampToType(value.getType(), path);
  return valid.size() == path.size() ? pathId : paths.intern(valid);
}

void Walk::reachBlockArgument(Operation *op, unsigned regionNumber,
                              unsigned argNumber, unsigned pathId,
                              unsigned from) {
  if (regionNumber >= op->getNumRegions())
    return;
  Region &region = op->getRegion(regionNumber);
  if (region.empty() || argNumber >= region.front().getNumArguments())
    return;
  // A loop's condition reads few of the values the loop carries.
  BlockArgument argument = region.front().getArgument(argNumber);
  if (skipsNodeOf(argument))
    return;
  reach(argument, pathId, from, op, StepKind::Through);
}

void Walk::reachLoopCarried(Operation *whileOp, unsigned index, unsigned pathId,
                            unsigned from) {
  reachResult(whileOp, index, pathId, from);
  reachBlockArgument(whileOp, 0, index, pathId, from);
  reachBlockArgument(whileOp, 1, index, pathId, from);
}

void Walk::run(StartUserVisitor visitStartUser) {
  startUserVisitor = visitStartUser;
  while (queueHead < queue.size())
    propagate(queue[queueHead++]);
  startUserVisitor = nullptr;
  markSlicesComputedInCallees();
}

void Walk::propagate(unsigned id) {
  // Uses in program order make paths and "first" ops the ones a reader meets
  // first.
  const Node &node = nodes[id];
  Value start =
      startUserVisitor && node.step == StepKind::Start ? node.value : Value();
  Operation *computedBy = nullptr;
  for (OpOperand *use : getUsesInProgramOrder(node.value)) {
    if (start)
      startUserVisitor(start, use->getOwner());
    propagateThroughUse(id, use->getOwner(), use->getOperandNumber(),
                        computedBy);
  }
}

void Walk::propagateThroughUse(unsigned id, Operation *user, unsigned operand,
                               Operation *&computedBy) {
  UseRule rule = rules.classifyUse(user, operand);
  // The op the rule applies to.
  Operation *op = user;
  if (rule.kind == UseKind::RegionYield) {
    // The value yielded is the operand of the same number of the op the
    // region belongs to.
    rule = rules.classifyYield(user);
    op = user->getParentOp();
  }
  unsigned pathId = nodes[id].pathId;
  switch (rule.kind) {
  case UseKind::IntoTuple: {
    llvm::SmallVector<int64_t> path{static_cast<int64_t>(operand)};
    llvm::append_range(path, paths.get(pathId));
    if (path.size() <= kMaxTupleDepth)
      reachResult(op, 0, paths.intern(path), id);
    return;
  }
  case UseKind::OutOfTuple: {
    std::optional<int64_t> index = getTupleIndex(op);
    llvm::ArrayRef<int64_t> path = paths.get(pathId);
    if (!index)
      return;
    if (path.empty())
      reachResult(op, 0, 0, id);
    else if (path.front() == *index)
      reachResult(op, 0, paths.intern(path.drop_front()), id);
    return;
  }
  case UseKind::SameNumberedResult:
    reachResult(op, operand, pathId, id);
    return;
  case UseKind::LoopCarried:
    reachLoopCarried(op, operand, pathId, id);
    return;
  case UseKind::IntoBody:
    reachBlockArgument(op, 0, operand, pathId, id);
    return;
  case UseKind::RegionYield:
    llvm_unreachable("a yield takes the rule of the op owning its region");
  case UseKind::CallArgument:
    propagateIntoCallee(id, op, operand);
    return;
  case UseKind::FunctionReturn:
    propagateOutOfFunction(id, op, operand);
    return;
  case UseKind::Forward:
    reachResult(op, 0, pathId, id);
    return;
  case UseKind::Aliased:
    reachResult(op, rule.result, 0, id);
    return;
  case UseKind::Stop:
    return;
  case UseKind::Slice:
    // Whether anything computes on the slice's result is known once the walk
    // is over, so the result is traced as host memory on that condition. XLA
    // folds a slice of a slice into one slice of the host tensor, which
    // leaves the outer slice alone (measured: slice_of_slice_computed).
    if (!isMadeOfSlicesOnly(id))
      noteComputedOn(id, op);
    reachResult(op, 0, 0, id, StepKind::Through,
                factTable.throughSlice(nodes[id].facts, getSliceId(op)));
    return;
  case UseKind::StreamIntoBuffer:
    noteComputedOn(id, op);
    reachResult(op, 0, 0, id, StepKind::Through,
                factTable.throughHostCompute(nodes[id].facts));
    return;
  case UseKind::Bitcast:
    reachResult(op, 0, 0, id);
    return;
  case UseKind::ScatterIntoConstant:
    propagateThroughHostCompute(id, op,
                                /*usesSlices=*/!isMadeOfSlicesOnly(id));
    return;
  case UseKind::MovesSlicedData: {
    if (!isMadeOfSlicesOnly(id))
      break;
    std::optional<unsigned> result = reachResult(op, 0, 0, id);
    if (rule.hoistedAboveSlice)
      recordHostCompute(op, id, result);
    return;
  }
  case UseKind::HostCompute:
    break;
  }
  // An op computing on the node through several operands in a row (`x * x`)
  // is host compute on it once: doing it again would change nothing, and
  // were the node's facts to grow in between, it is queued again.
  if (op == computedBy)
    return;
  computedBy = op;
  propagateThroughHostCompute(id, op);
}

void Walk::propagateThroughHostCompute(unsigned id, Operation *op,
                                       bool usesSlices) {
  if (usesSlices)
    noteComputedOn(id, op);
  unsigned facts = factTable.throughHostCompute(nodes[id].facts);
  std::optional<unsigned> firstResult;
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i) {
    // Most results of host compute on a widely used host tensor have no
    // uses: their nodes would be memory the walk writes and nothing reads.
    Value result = op->getResult(i);
    if (skipsNodeOf(result))
      continue;
    unsigned node = reach(result, 0, id, op, StepKind::HostCompute, facts);
    if (i == 0)
      firstResult = node;
  }
  recordHostCompute(op, id, firstResult);
}

void Walk::recordHostCompute(Operation *op, unsigned id,
                             std::optional<unsigned> firstResult) {
  const Node &node = nodes[id];
  if (node.step == StepKind::HostCompute) {
    // Not reported again, but XLA's h2h relaxation of strict mode lets only
    // copies through: an op computing on a copy's result is refused there.
    if (rules.isCopy(node.via) && !rules.isCopy(op)) {
      HostComputeOps &group = hostComputeByStart[factsOf(id).starts.front()];
      if (!group.firstNonCopy)
        group.firstNonCopy = op;
    }
    return;
  }
  if (firstResult) {
    if (nodes[*firstResult].reportedHostCompute)
      return;
    nodes[*firstResult].reportedHostCompute = true;
  } else if (!hostComputeOpsWithoutNode.insert(op).second) {
    return;
  }
  HostComputeOps &group = hostComputeByStart[factsOf(id).starts.front()];
  if (group.shown.size() <= kHostComputeOpsShown)
    group.shown.push_back(op);
  ++group.count;
  if (!group.firstNonCopy && !rules.isCopy(op))
    group.firstNonCopy = op;
}

//===----------------------------------------------------------------------===//
// Slices: which ones XLA turns into host compute.
//===----------------------------------------------------------------------===//

bool Walk::isMadeOfSlicesOnly(unsigned id) const {
  const Facts &facts = factsOf(id);
  return !facts.unconditional && !facts.slices.empty();
}

unsigned Walk::getSliceId(Operation *slice) {
  auto [it, inserted] = sliceIds.try_emplace(slice, sliceOps.size());
  if (inserted)
    sliceOps.push_back(slice);
  return it->second;
}

void Walk::noteComputedOn(unsigned id, Operation *op) {
  const Facts &facts = factsOf(id);
  for (unsigned slice : facts.slices)
    computedSlices.try_emplace(slice, op);
  if (!facts.origins.empty())
    computedOnInCallees.push_back({id, op});
}

void Walk::markSlicesComputedInCallees() {
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
    llvm::ArrayRef<CallSites::Entry> calls =
        getCallSites().of(function.getSymNameAttr());
    if (calls.empty())
      continue;
    for (unsigned origin : factsOf(id).origins) {
      if (!markedArguments.insert({function.getOperation(), origin}).second)
        continue;
      for (auto [call, hostCompute] : calls) {
        if (hostCompute || origin >= call->getNumOperands())
          continue;
        for (std::optional<unsigned> node =
                 nodes.firstNodeOf(call->getOperand(origin));
             node; node = nodes.nextPathNode(*node))
          noteComputedOn(*node, use);
      }
    }
  }
}

bool Walk::isHost(unsigned id) const {
  const Facts &facts = factsOf(id);
  return facts.unconditional || llvm::any_of(facts.slices, [&](unsigned slice) {
           return computedSlices.count(slice);
         });
}

std::optional<unsigned> Walk::findHostNode(Value value) const {
  for (std::optional<unsigned> node = nodes.firstNodeOf(value); node;
       node = nodes.nextPathNode(*node))
    if (isHost(*node))
      return *node;
  return std::nullopt;
}

} // namespace hostoffload
