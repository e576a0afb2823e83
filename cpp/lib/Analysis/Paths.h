//===- Paths.h - the way from a start to an output --------------*- C++ -*-===//
//
// Every node remembers the node it was first reached from, so the way from a
// start to any node is the chain of parents. A finding shows it as steps (an
// op, a call, a return), whole when it is short, else its first and last
// kPathStepsAtEachEnd steps.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_PATHS_H
#define HOSTOFFLOAD_LIB_ANALYSIS_PATHS_H

#include "Walk.h"

#include "hostoffload/HostOffloadAnalysis.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace hostoffload {

/// Where a node is on its way from a start: how findings show that way.
struct PathPosition {
  /// The number of the node's step on the way (from 1); 0 until computed.
  unsigned steps = 0;
  /// The last node of the first kPathStepsAtEachEnd steps.
  unsigned head = 0;
  /// The start.
  unsigned root = 0;
};

/// Builds the paths of findings from the nodes of a walk that has run.
class PathBuilder {
public:
  PathBuilder(const Walk &walk, const std::vector<TraceStart> &starts)
      : walk(walk), nodes(walk.getNodes()), starts(starts) {}

  /// Makes `steps` the way from a start to node `id`, whole when it has at
  /// most 2 * kPathStepsAtEachEnd steps, else its first and last
  /// kPathStepsAtEachEnd steps; returns how many steps are left out. The
  /// steps already in `steps` are written over, each text in the memory it
  /// has.
  size_t buildPath(unsigned id, llvm::SmallVectorImpl<PathStep> &steps);

  /// Node `id` as one step of a way: its op, where the value comes from.
  PathStep describeNode(unsigned id) const;

  /// The start the path of node `id` (built already) begins at.
  const TraceStart &getFirstStart(unsigned id) const;

  /// Appends the path as a note shows it to `text`: after `prefix` and
  /// ending in `end` (the output).
  static void appendPath(std::string &text, llvm::StringRef prefix,
                         llvm::ArrayRef<PathStep> steps, size_t omitted,
                         llvm::StringRef end);

private:
  const PathPosition &getPathPosition(unsigned id);
  /// Writes steps `firstStep` and after (numbered from 1, as in
  /// PathPosition::steps) of the way to node `id` over `steps` from `written`
  /// on, counting them in `written`.
  void writeSteps(unsigned id, unsigned firstStep,
                  llvm::SmallVectorImpl<PathStep> &steps, size_t &written);
  /// Makes `text` what the step `node` begins shows.
  void describeStep(const Node &node, std::string &text) const;
  const TraceStart &startOf(const Node &node) const;

  const Walk &walk;
  const NodeTable &nodes;
  const std::vector<TraceStart> &starts;
  /// By node, for the nodes on the way to a finding.
  std::vector<PathPosition> pathPositions;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_PATHS_H
