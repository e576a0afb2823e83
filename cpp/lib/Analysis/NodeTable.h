//===- NodeTable.h - the values the walk reaches ----------------*- C++ -*-===//
//
// A node is a (value, tuple index path) in host memory. The walk creates each
// node once; a million-op module can have a million of them, so nodes are
// small, stored in one array, and found through an open-addressing table
// keyed by the values themselves.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_NODETABLE_H
#define HOSTOFFLOAD_LIB_ANALYSIS_NODETABLE_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Compiler.h"

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

/// The first node of each traced value: an open-addressing table of node ids,
/// whose keys are the values of the nodes themselves. A bucket holds a node id
/// and the value's hash, 8 bytes where a DenseMap entry takes 16, which halves
/// the memory the walk's lookups range over; the hash is the value's address
/// alone, so values made one after another sit in neighbouring buckets and
/// filling the table walks memory in order. The table grows with the nodes: a
/// JAX program's walk reaches few of its values.
class FirstNodeTable {
public:
  explicit FirstNodeTable(const std::vector<Node> &nodes) : nodes(nodes) {}

  /// The first node of `value`, if it has one.
  std::optional<unsigned> find(mlir::Value value) const {
    if (buckets.empty())
      return std::nullopt;
    const Bucket &bucket = buckets[probe(value, hashOf(value))];
    if (bucket.isEmpty())
      return std::nullopt;
    return bucket.getNode();
  }

  /// Returns the first node of `value`, which becomes `newNode` if it has
  /// none; `inserted` tells which.
  unsigned insert(mlir::Value value, unsigned newNode, bool &inserted) {
    // At most half full, so that linear probes stay short.
    if (2 * (size + 1) > buckets.size())
      rebuild(std::max<size_t>(64, 2 * buckets.size()));
    uint32_t hash = hashOf(value);
    Bucket &bucket = buckets[probe(value, hash)];
    inserted = bucket.isEmpty();
    if (inserted) {
      bucket = Bucket::of(newNode, hash);
      ++size;
    }
    return bucket.getNode();
  }

  /// Empties the table, which keeps its room.
  void clear();

  /// How many values have a node.
  size_t getSize() const { return size; }
  /// How many buckets the table has; at least twice getSize().
  size_t getCapacity() const { return buckets.size(); }

private:
  struct Bucket {
    /// The node's id plus one; 0 in an empty bucket.
    unsigned nodePlusOne;
    uint32_t hash;

    static Bucket of(unsigned node, uint32_t hash) { return {node + 1, hash}; }
    bool isEmpty() const { return nodePlusOne == 0; }
    unsigned getNode() const { return nodePlusOne - 1; }
  };

  static uint32_t hashOf(mlir::Value value) {
    return static_cast<uint32_t>(
        reinterpret_cast<uintptr_t>(value.getAsOpaquePointer()) >> 4);
  }

  size_t mask() const { return buckets.size() - 1; }

  /// The bucket of `value` (whose hash is `hash`), or the empty one where it
  /// would go; without a `value`, the first empty bucket for `hash`.
  size_t probe(std::optional<mlir::Value> value, uint32_t hash) const {
    for (size_t index = hash & mask();; index = (index + 1) & mask()) {
      const Bucket &bucket = buckets[index];
      if (bucket.isEmpty() || (value && bucket.hash == hash &&
                               nodes[bucket.getNode()].value == *value))
        return index;
    }
  }

  /// Moves the buckets into a table of `capacity` buckets, a power of two.
  void rebuild(size_t capacity);

  const std::vector<Node> &nodes;
  /// An empty bucket is all zero bytes.
  std::vector<Bucket> buckets;
  size_t size = 0;
};

/// Every node of the walk, by id in the order they were made. A value traced
/// at several tuple index paths has a node for each, chained from its first.
class NodeTable {
public:
  NodeTable() = default;
  NodeTable(const NodeTable &) = delete;
  NodeTable &operator=(const NodeTable &) = delete;

  /// Makes room for `count` nodes of distinct values, so that the array
  /// never copies itself as it grows.
  void reserve(size_t count) { nodes.reserve(count); }

  size_t size() const { return nodes.size(); }
  Node &operator[](unsigned id) { return nodes[id]; }
  const Node &operator[](unsigned id) const { return nodes[id]; }

  /// Returns the node of (value, pathId), creating it if needed; `created`
  /// tells which.
  unsigned getOrCreate(mlir::Value value, unsigned pathId, bool &created) {
    bool inserted;
    unsigned id = firstNodeOfValue.insert(value, nodes.size(), inserted);
    created = inserted;
    if (inserted) {
      nodes.emplace_back(value, pathId);
      return id;
    }
    // `id` is the value's first node; the test is out of line, where it
    // leaves this function small enough for GCC to inline in each step.
    if (LLVM_UNLIKELY(id < othersBefore))
      noteReachedBefore(id);
    if (nodes[id].pathId == pathId)
      return id;
    return getOrCreateAtOtherPath(id, pathId, created);
  }

  /// The node of `value` at its first traced index path, if any.
  std::optional<unsigned> firstNodeOf(mlir::Value value) const {
    return firstNodeOfValue.find(value);
  }

  /// From now on, notes a value reached that has a node made before now
  /// other than the nodes `roots`: host memory walked from `roots` meets
  /// what was walked before, or another start. `roots` must outlive the
  /// watch.
  void watchFrom(llvm::ArrayRef<unsigned> roots) {
    othersBefore = nodes.size();
    watchedRoots = roots;
    reachedOthers = false;
  }
  /// Whether a value was reached that watchFrom says to note.
  bool hasReachedOthers() const { return reachedOthers; }

  /// The nodes as they are, for restore().
  struct Saved {
    std::vector<Node> nodes;
    llvm::DenseMap<unsigned, unsigned> nextPathNodes;
  };
  Saved save() const { return {{nodes.begin(), nodes.end()}, nextPathNodes}; }
  /// Makes the nodes those of `saved`, and stops watching.
  void restore(const Saved &saved) {
    firstNodeOfValue.clear();
    nodes.assign(saved.nodes.begin(), saved.nodes.end());
    nextPathNodes = saved.nextPathNodes;
    // A value's first node comes before its nodes at other paths.
    for (unsigned id = 0, e = nodes.size(); id != e; ++id) {
      bool inserted;
      firstNodeOfValue.insert(nodes[id].value, id, inserted);
    }
    othersBefore = 0;
    reachedOthers = false;
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
  /// the value's other paths hang off it. Out of line, as few values have
  /// several.
  unsigned getOrCreateAtOtherPath(unsigned first, unsigned pathId,
                                  bool &created);
  /// Node `first`, made before the watch began, was reached again.
  void noteReachedBefore(unsigned first);

  std::vector<Node> nodes;
  /// The first node of each value, and the next node of the same value for
  /// each node of a value traced at several tuple index paths.
  FirstNodeTable firstNodeOfValue{nodes};
  llvm::DenseMap<unsigned, unsigned> nextPathNodes;
  /// What watchFrom watches: nodes before `othersBefore` but
  /// `watchedRoots` are others'.
  unsigned othersBefore = 0;
  llvm::ArrayRef<unsigned> watchedRoots;
  bool reachedOthers = false;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_NODETABLE_H
