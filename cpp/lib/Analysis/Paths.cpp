//===- Paths.cpp - the way from a start to an output ----------------------===//

#include "Paths.h"

#include "Concatenate.h"
#include "OpRules.h"

#include "hostoffload/Names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

using namespace mlir;

namespace hostoffload {

const TraceStart &PathBuilder::startOf(const Node &node) const {
  return starts[walk.factsOf(node).starts.front()];
}

std::string PathBuilder::describeStep(const Node &node) const {
  switch (node.step) {
  case StepKind::Start:
    return startOf(node).name;
  case StepKind::IntoCallee:
    if (FlatSymbolRefAttr callee = getCallee(node.via))
      return ("call @" + callee.getValue()).str();
    return names::kCallOp.str();
  case StepKind::OutOfCallee:
    if (FlatSymbolRefAttr callee = getCallee(node.via))
      return ("return from @" + callee.getValue()).str();
    return names::kFuncReturnOp.str();
  case StepKind::Through:
  case StepKind::HostCompute:
    if (node.via->getName().getStringRef() == names::kCustomCallOp)
      if (StringAttr target =
              getStringAttr(node.via, names::kCallTargetNameAttr))
        return ("stablehlo.custom_call @" + target.getValue()).str();
    return node.via->getName().getStringRef().str();
  }
  llvm_unreachable("unknown step kind");
}

/// Places node `id` and every node before it on their way from a start.
/// Computed once per node for all findings: the ways to many outputs share
/// their beginnings, and walking each from its start would be quadratic.
const PathPosition &PathBuilder::getPathPosition(unsigned id) {
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
void PathBuilder::appendSteps(unsigned id, unsigned firstStep,
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
      const TraceStart &start = startOf(node);
      steps.push_back({start.name, start.loc});
      continue;
    }
    steps.push_back({describeStep(node), node.via->getLoc()});
  }
}

std::pair<llvm::SmallVector<PathStep>, size_t>
PathBuilder::buildPath(unsigned id) {
  unsigned total = getPathPosition(id).steps;
  llvm::SmallVector<PathStep> steps;
  steps.reserve(std::min<size_t>(total, 2 * kPathStepsAtEachEnd));
  if (total <= 2 * kPathStepsAtEachEnd) {
    appendSteps(id, 1, steps);
    return {std::move(steps), 0};
  }
  appendSteps(pathPositions[id].head, 1, steps);
  appendSteps(id, total - kPathStepsAtEachEnd + 1, steps);
  return {std::move(steps), total - 2 * kPathStepsAtEachEnd};
}

const TraceStart &PathBuilder::getFirstStart(unsigned id) const {
  return startOf(nodes[pathPositions[id].root]);
}

std::string PathBuilder::formatPath(llvm::StringRef prefix,
                                    llvm::ArrayRef<PathStep> steps,
                                    size_t omitted, llvm::StringRef end) {
  constexpr llvm::StringLiteral kArrow = " -> ";
  std::string omittedSteps;
  if (omitted)
    omittedSteps =
        concatenate({"(", std::to_string(omitted),
                     omitted == 1 ? " more step)" : " more steps)", kArrow});
  size_t size = prefix.size() + omittedSteps.size() + end.size();
  for (const PathStep &step : steps)
    size += step.what.size() + kArrow.size();
  std::string text;
  text.reserve(size);
  text += prefix;
  for (auto [index, step] : llvm::enumerate(steps)) {
    if (index == kPathStepsAtEachEnd)
      text += omittedSteps;
    appendPieces(text, {step.what, kArrow});
  }
  text += end;
  return text;
}

} // namespace hostoffload
