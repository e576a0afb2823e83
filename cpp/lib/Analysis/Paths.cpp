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

void PathBuilder::describeStep(const Node &node, std::string &text) const {
  switch (node.step) {
  case StepKind::Start:
    text.assign(startOf(node).name);
    return;
  case StepKind::IntoCallee:
    if (FlatSymbolRefAttr callee = getCallee(node.via))
      assignPieces(text, {"call @", callee.getValue()});
    else
      text.assign(names::kCallOp.data(), names::kCallOp.size());
    return;
  case StepKind::OutOfCallee:
    if (FlatSymbolRefAttr callee = getCallee(node.via))
      assignPieces(text, {"return from @", callee.getValue()});
    else
      text.assign(names::kFuncReturnOp.data(), names::kFuncReturnOp.size());
    return;
  case StepKind::Through:
  case StepKind::HostCompute:
    llvm::StringRef opName = node.via->getName().getStringRef();
    if (opName == names::kCustomCallOp)
      if (StringAttr target =
              getStringAttr(node.via, names::kCallTargetNameAttr)) {
        assignPieces(text, {"stablehlo.custom_call @", target.getValue()});
        return;
      }
    text.assign(opName.data(), opName.size());
    return;
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

void PathBuilder::writeSteps(unsigned id, unsigned firstStep,
                             llvm::SmallVectorImpl<PathStep> &steps,
                             size_t &written) {
  // Each step is told by its first node.
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
    Location loc =
        node.step == StepKind::Start ? startOf(node).loc : node.via->getLoc();
    if (written == steps.size())
      steps.push_back({std::string(), loc});
    PathStep &next = steps[written++];
    next.loc = loc;
    describeStep(node, next.what);
  }
}

size_t PathBuilder::buildPath(unsigned id,
                              llvm::SmallVectorImpl<PathStep> &steps) {
  unsigned total = getPathPosition(id).steps;
  steps.reserve(std::min<size_t>(total, 2 * kPathStepsAtEachEnd));
  size_t written = 0;
  size_t omitted = 0;
  if (total <= 2 * kPathStepsAtEachEnd) {
    writeSteps(id, 1, steps, written);
  } else {
    writeSteps(pathPositions[id].head, 1, steps, written);
    writeSteps(id, total - kPathStepsAtEachEnd + 1, steps, written);
    omitted = total - 2 * kPathStepsAtEachEnd;
  }
  steps.truncate(written);
  return omitted;
}

PathStep PathBuilder::describeNode(unsigned id) const {
  const Node &node = nodes[id];
  PathStep step{std::string(), node.step == StepKind::Start
                                   ? startOf(node).loc
                                   : node.via->getLoc()};
  describeStep(node, step.what);
  return step;
}

const TraceStart &PathBuilder::getFirstStart(unsigned id) const {
  return startOf(nodes[pathPositions[id].root]);
}

void PathBuilder::appendPath(std::string &text, llvm::StringRef prefix,
                             llvm::ArrayRef<PathStep> steps, size_t omitted,
                             llvm::StringRef end) {
  constexpr llvm::StringLiteral kArrow = " -> ";
  std::string omittedCount = omitted ? std::to_string(omitted) : "";
  llvm::StringRef omittedEnd = omitted == 1 ? " more step)" : " more steps)";
  size_t size = text.size() + prefix.size() + end.size();
  if (omitted)
    size += 1 + omittedCount.size() + omittedEnd.size() + kArrow.size();
  for (const PathStep &step : steps)
    size += step.what.size() + kArrow.size();
  text.reserve(size);
  text += prefix;
  for (auto [index, step] : llvm::enumerate(steps)) {
    if (omitted && index == kPathStepsAtEachEnd)
      appendPieces(text, {"(", omittedCount, omittedEnd, kArrow});
    appendPieces(text, {step.what, kArrow});
  }
  text += end;
}

} // namespace hostoffload
