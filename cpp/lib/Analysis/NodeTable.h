//===- NodeTable.h - the values the walk reaches ----------------*- C++ -*-===//
//
// A node is a (value, tuple index path) in host memory. The walk creates each
// node once; a million-op module can have a million of them, so nodes are
// small and stored in one array.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_NODETABLE_H
#define HOSTOFFLOAD_LIB_ANALYSIS_NODETABLE_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Allocator.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace hostoffload {

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
  Node(mlir::Value value, unsigned pathId) : value(value), pathId(pathId) {}

  mlir::Value value;
  mlir::Operation *via = nullptr;
  /// An id in the PathTable.
  unsigned pathId;
  /// The node this one was first reached from; -1 for a start.
  int parent = -1;
  /// An id in the FactTable.
  unsigned facts = 0;
  StepKind step = StepKind::Start;
  /// The value is the first result of an op reported as implicit host
  /// compute (HOW101).
  bool reportedHostCompute = false;
};
static_assert(sizeof(Node) <= 32, "a million nodes must stay small");

/// Tuple index paths longer than this cannot come from a well-typed program.
inline constexpr size_t kMaxTupleDepth = 64;

/// Tuple index paths, interned: a node stores an id. Id 0 is the empty path,
/// the whole value.
class PathTable {
public:
  PathTable();
  PathTable(const PathTable &) = delete;
  PathTable &operator=(const PathTable &) = delete;

  /// The id of `path`, which is added if it is new.
  unsigned intern(llvm::ArrayRef<int64_t> path);

  llvm::ArrayRef<int64_t> get(unsigned id) const { return paths[id]; }

  /// Returns the longest prefix of `path` that indexes into `type`. An element
  /// the type does not have (an unverified op claims another type) is taken as
  /// the whole tuple above it, which can only add findings; and a value then
  /// has at most as many paths as its type has elements, even where recursion
  /// through a tuple op would nest them deeper every round.
  static llvm::ArrayRef<int64_t> clampToType(mlir::Type type,
                                             llvm::ArrayRef<int64_t> path);

private:
  llvm::BumpPtrAllocator allocator;
  std::vector<llvm::ArrayRef<int64_t>> paths;
  llvm::DenseMap<llvm::ArrayRef<int64_t>, unsigned> ids;
};

/// Every node of the walk, by id in the order they were made. A value traced
/// at several tuple index paths has a node for each, chained from its first.
class NodeTable {
public:
  NodeTable() = default;
  NodeTable(const NodeTable &) = delete;
  NodeTable &operator=(const NodeTable &) = delete;

  size_t size() const { return nodes.size(); }
  Node &operator[](unsigned id) { return nodes[id]; }
  const Node &operator[](unsigned id) const { return nodes[id]; }

  /// Returns the node of (value, pathId), creating it if needed; `created`
  /// tells which.
  unsigned getOrCreate(mlir::Value value, unsigned pathId, bool &created) {
    auto [first, inserted] = firstNodeOfValue.try_emplace(value, nodes.size());
    created = inserted;
    if (inserted) {
      nodes.emplace_back(value, pathId);
      return first->second;
    }
    if (nodes[first->second].pathId == pathId)
      return first->second;
    return getOrCreateAtOtherPath(first->second, pathId, created);
  }

  /// The node of `value` at its first traced index path, if any.
  std::optional<unsigned> firstNodeOf(mlir::Value value) const {
    auto it = firstNodeOfValue.find(value);
    if (it == firstNodeOfValue.end())
      return std::nullopt;
    return it->second;
  }

  /// The node of the same value at the next tuple index path, if any.
  std::optional<unsigned> nextPathNode(unsigned id) const {
    auto it = nextPathNodes.find(id);
    if (it == nextPathNodes.end())
      return std::nullopt;
    return it->second;
  }

private:
  /// getOrCreate for a value whose first node `first` is at another path:
  /// the value's other paths hang off it.
  unsigned getOrCreateAtOtherPath(unsigned first, unsigned pathId,
                                  bool &created);

  std::vector<Node> nodes;
  /// The first node of each value, and the next node of the same value for
  /// each node of a value traced at several tuple index paths.
  llvm::DenseMap<mlir::Value, unsigned> firstNodeOfValue;
  llvm::DenseMap<unsigned, unsigned> nextPathNodes;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_NODETABLE_H
