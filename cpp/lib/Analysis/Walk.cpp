//===- Walk.cpp - follow host memory through the module -------------------===//

#include "Walk.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <numeric>

using namespace mlir;

namespace hostoffload {

Walk::Walk(ModuleOp module, func::FuncOp entry, const OpRules &rules,
           const ModuleOps &ops)
    : module(module), entry(entry), rules(rules), ops(ops),
      firstFlowOfSymbol(ops.getSymbolCount(), kNoFlows),
      outputNodes(entry.getNumResults(), -1) {
  // Room for every value of the module at one index path, and for every
  // call site once (host compute calls aside): the vectors never copy
  // themselves as they grow, and pages no node reaches stay untouched, so
  // unused room costs no memory.
  nodes.reserve(ops.getValueCount());
  queue.reserve(ops.getValueCount());
  flowCalls.reserve(ops.getCallSiteCount());
  // Room for as many argument flows as call sites and entry arguments; a
  // function's flows are made for all its arguments at once, and callees
  // with more arguments than call sites grow it.
  argumentFlows.reserve(ops.getCallSiteCount() + entry.getNumArguments());
}

void Walk::addStart(Value value, unsigned startIndex) {
  bool created;
  unsigned id = nodes.getOrCreate(value, /*pathId=*/0, created);
  addFacts(id, factTable.forStart(startIndex), created);
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

/// The number of the operand `use` is of its user `owner`:
/// OpOperand::getOperandNumber, inline, without reading the use.
static unsigned getOperandNumber(OpOperand *use, Operation *owner) {
  return static_cast<unsigned>(use - owner->getOpOperands().data());
}

static unsigned getOperandNumber(OpOperand *use) {
  return getOperandNumber(use, use->getOwner());
}

/// From how many roots (starts queued) run() walks starts apart, and how
/// many nodes a batch of roots walked together should make: few enough that
/// what the walk touches at each step stays in the caches (the walks of a
/// thousand starts at once in a large module do not), enough that the queue
/// fetches the next roots while their walks are a few nodes each (an
/// optimizer state moved to device and back).
static constexpr size_t kRootsWalkedApart = 16, kNodesPerBatch = 256;

void Walk::run(StartUserVisitor visitStartUser) {
  startUserVisitor = visitStartUser;
  if (queue.size() < kRootsWalkedApart || !walkStartsApart())
    walkQueue();
  startUserVisitor = nullptr;
  markSlicesComputedInCallees();
}

bool Walk::walkStartsApart() {
  std::vector<unsigned> roots(queue.begin(), queue.end());
  // Each root carries starts no other root does. Two starts added at one
  // value share its node, queued once with both or twice; in another batch
  // than the other, such a root would put ops in that start's group of host
  // compute in another order than the walk of all at once.
  llvm::BitVector startsOfRoots;
  for (unsigned id : roots) {
    const Facts &facts = factsOf(id);
    if (facts.moreStarts)
      return false;
    for (unsigned start : facts.starts) {
      if (start >= startsOfRoots.size())
        startsOfRoots.resize(
            std::max<size_t>(2 * startsOfRoots.size(), start + 1));
      if (startsOfRoots.test(start))
        return false;
      startsOfRoots.set(start);
    }
  }
  NodeTable::Saved startNodes = nodes.save();
  walkingApart = true;
  // The first batch is one root; each next one as many as make about
  // kNodesPerBatch nodes at the last batch's nodes per root.
  size_t rootsTogether = 1;
  for (llvm::ArrayRef<unsigned> rest = roots; !rest.empty(); ++batch) {
    llvm::ArrayRef<unsigned> together = rest.take_front(rootsTogether);
    rest = rest.drop_front(together.size());
    size_t nodesBefore = nodes.size();
    queueRoots(together);
    nodes.watchFrom(together);
    walkQueue();
    if (nodes.hasReachedOthers() || startsMet) {
      restart(startNodes, roots);
      return false;
    }
    size_t nodesPerRoot = (nodes.size() - nodesBefore) / together.size();
    rootsTogether = std::clamp<size_t>(
        kNodesPerBatch / std::max<size_t>(nodesPerRoot, 1), 1, kNodesPerBatch);
  }
  // The walk of all at once makes the groups level by level, and on each
  // level in the order of the roots: in the order of the batches, and in a
  // batch in the order its own walk made them.
  if (!llvm::is_sorted(hostComputeMadeAt)) {
    std::vector<unsigned> order(hostComputeByStart.size());
    std::iota(order.begin(), order.end(), 0);
    llvm::stable_sort(order, [&](unsigned a, unsigned b) {
      return hostComputeMadeAt[a] < hostComputeMadeAt[b];
    });
    auto groups = hostComputeByStart.takeVector();
    for (unsigned index : order)
      hostComputeByStart.insert(std::move(groups[index]));
    lastHostComputeStart = ~0u;
  }
  return true;
}

void Walk::restart(const NodeTable::Saved &startNodes,
                   llvm::ArrayRef<unsigned> roots) {
  nodes.restore(startNodes);
  queueRoots(roots);
  walkingApart = false;
  batch = 0;
  startsMet = false;
  argumentFlows.clear();
  flowCalls.clear();
  llvm::fill(firstFlowOfSymbol, kNoFlows);
  llvm::fill(outputNodes, -1);
  resultlessHostComputeOps.clear();
  hostComputeByStart.clear();
  hostComputeMadeAt.clear();
  lastHostComputeStart = ~0u;
  sliceIds.clear();
  sliceOps.clear();
  computedSlices.clear();
  computedOnInCallees.clear();
}

void Walk::queueRoots(llvm::ArrayRef<unsigned> roots) {
  queue.assign(roots.begin(), roots.end());
  queueHead = 0;
  level = 0;
  levelEnd = 0;
  // A callee entry kept from before lets host memory into the callee
  // without reaching the argument's node: where another batch walked it,
  // the two would not be seen to meet; after restart(), the node is gone.
  lastEntries.fill(CalleeEntry());
}

/// From how many nodes walked the queue drops them, at the end of a level
/// where they are at least half of it.
static constexpr size_t kWalkedNodesDropped = 1024;

void Walk::walkQueue() {
  while (queueHead < queue.size()) {
    if (queueHead == levelEnd) {
      ++level;
      // A narrow walk (a chain of call sites) would otherwise write a fresh
      // page of queue every thousand nodes; this keeps it in a few pages,
      // at the cost of moving each node queued at most once on average.
      if (queueHead >= kWalkedNodesDropped && 2 * queueHead >= queue.size()) {
        queue.erase(queue.begin(), queue.begin() + queueHead);
        queueHead = 0;
      }
      levelEnd = queue.size();
    }
    propagate(queue[queueHead++]);
  }
}

namespace {
/// A use and its user, which is read from the use while it is at hand.
struct UseAndUser {
  OpOperand *use;
  Operation *user;
};
} // namespace

/// Appends the uses of `value` to `uses` in program order: use lists run
/// backwards from the last use.
static void appendUsesInOrder(Value value,
                              llvm::SmallVectorImpl<UseAndUser> &uses) {
  size_t first = uses.size();
  for (OpOperand &use : value.getUses())
    uses.push_back({&use, use.getOwner()});
  std::reverse(uses.begin() + first, uses.end());
}

/// The use after `use` in its value's use list (the use before it in program
/// order), null at the end.
static OpOperand *getNextInUseList(OpOperand *use) {
  return static_cast<OpOperand *>(use->getNextOperandUsingThisValue());
}

/// The head of the use list of `value` (its last use in program order) when
/// the value has one or two uses; null otherwise.
static OpOperand *getLastOfFewUses(Value value) {
  if (value.use_empty())
    return nullptr;
  OpOperand *last = &*value.use_begin();
  OpOperand *before = getNextInUseList(last);
  if (before && getNextInUseList(before))
    return nullptr;
  return last;
}

// Inline in Walk::run, its one caller, which GCC does not choose: the walk
// calls it for every node it takes.
LLVM_ATTRIBUTE_ALWAYS_INLINE void Walk::propagate(unsigned id) {
  // Visiting uses in program order makes paths and "first" ops the ones a
  // reader meets first. The users of a start may be visited, which
  // propagateThroughManyUses does, out of this loop.
  const Node &node = nodes[id];
  OpOperand *last = nullptr;
  if (node.step != StepKind::Start || !startUserVisitor)
    last = getLastOfFewUses(node.value);
  if (!last)
    return propagateThroughManyUses(id);
  Operation *computedBy = nullptr;
  // Most values have one use (a call's result) or two (`x * x`): these are
  // taken without gathering a list.
  if (OpOperand *before = getNextInUseList(last))
    propagateThroughUse(id, before->getOwner(), getOperandNumber(before),
                        computedBy);
  propagateThroughUse(id, last->getOwner(), getOperandNumber(last), computedBy);
}

void Walk::propagateThroughManyUses(unsigned id) {
  const Node &node = nodes[id];
  Value start =
      startUserVisitor && node.step == StepKind::Start ? node.value : Value();
  llvm::SmallVector<UseAndUser, 4> uses;
  appendUsesInOrder(node.value, uses);
  Operation *computedBy = nullptr;
  for (auto [use, user] : uses) {
    if (start)
      startUserVisitor(start, user);
    propagateThroughUse(id, user, getOperandNumber(use, user), computedBy);
  }
}

void Walk::propagateThroughUse(unsigned id, Operation *user, unsigned operand,
                               Operation *&computedBy) {
  // Uses in a row are mostly by ops of one name: its rule is looked up once.
  if (user->getName().getAsOpaquePointer() != lastUserName) {
    lastUserName = user->getName().getAsOpaquePointer();
    lastUserRule = rules.findRule(user->getName());
  }
  UseRule rule = rules.classifyUse(lastUserRule, user, operand);
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
      recordHostCompute(op, id, result ? static_cast<int>(*result) : -1);
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
  int firstResult = -1;
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i) {
    // Most results of host compute on a widely used host tensor have no
    // uses: their nodes would be memory the walk writes and nothing reads.
    Value result = op->getResult(i);
    if (skipsNodeOf(result))
      continue;
    unsigned node = reach(result, 0, id, op, StepKind::HostCompute, facts);
    if (i == 0)
      firstResult = static_cast<int>(node);
  }
  recordHostCompute(op, id, firstResult);
}

void Walk::recordHostCompute(Operation *op, unsigned id, int firstResult) {
  const Node &node = nodes[id];
  if (node.step == StepKind::HostCompute) {
    // Not reported again, but XLA's h2h relaxation of strict mode lets only
    // copies through: an op computing on a copy's result is refused there.
    if (rules.isCopy(node.via) && !rules.isCopy(op)) {
      HostComputeOps &group = getHostComputeGroup(factsOf(id).starts.front());
      if (!group.firstNonCopy)
        group.firstNonCopy = op;
    }
    return;
  }
  if (firstResult >= 0) {
    if (nodes[firstResult].reportedHostCompute)
      return;
    nodes[firstResult].reportedHostCompute = true;
  } else if (!walkingApart) {
    if (!hostComputeOpsWithoutNode.insert(op))
      return;
  } else if (auto [reported, added] =
                 resultlessHostComputeOps.try_emplace(op, batch);
             !added) {
    if (reported->second != batch)
      startsMet = true;
    return;
  }
  HostComputeOps &group = getHostComputeGroup(factsOf(id).starts.front());
  if (group.shown.size() <= kHostComputeOpsShown)
    group.shown.push_back(op);
  ++group.count;
  if (!group.firstNonCopy && !rules.isCopy(op))
    group.firstNonCopy = op;
}

HostComputeOps &Walk::getHostComputeGroup(unsigned start) {
  // Host compute in a row is mostly on the host memory of one start (a
  // tensor used by a thousand ops).
  if (start != lastHostComputeStart) {
    lastHostComputeStart = start;
    auto [group, added] = hostComputeByStart.try_emplace(start);
    if (added)
      hostComputeMadeAt.emplace_back(level, batch);
    lastHostComputeGroup = group - hostComputeByStart.begin();
  }
  return hostComputeByStart.begin()[lastHostComputeGroup].second;
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
