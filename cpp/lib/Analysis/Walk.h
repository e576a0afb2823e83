//===- Walk.h - follow host memory through the module -----------*- C++ -*-===//
//
// The worklist engine. It takes host memory from its starts along every use,
// applying the rule OpRules gives for the op, into callees and back out of
// them, until nothing changes; then it knows, for every value it reached,
// whether the value is host memory, and which ops compute on host memory. A
// result of host compute that nothing uses is not kept as a node (a million
// ops can compute on one host tensor), nor is a region's argument that
// nothing in the region uses (a loop's condition reads few of the values the
// loop carries): no way runs through either and no output is either.
//
// Every node is created once, and a path is clamped to the tuple elements of
// its value's type; a node is propagated again only when its facts grow,
// which their caps bound, so the walk is linear in the size of the module.
// Nothing recurses on the depth of the program.
//
// The walk is breadth first, which makes each node's way from a start a
// shortest one: that way, and the order of the findings, are what users read.
// With many starts it takes them a few at a time, which touches far less
// memory at once, and starts over with all of them where two batches' host
// memory meets: the outcome is the same, and the work at most twice.
//
// XLA flattens the call graph (one clone of a callee per call site) before it
// traces, so a callee's result is host only at the call sites that pass host
// memory in. Each node therefore remembers through which arguments of its
// function the host memory came ("origins"), or that it is host whatever the
// caller passes ("global": a start inside the function, or too many origins);
// a callee's return then flows only to the call sites whose matching operand
// is host.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_WALK_H
#define HOSTOFFLOAD_LIB_ANALYSIS_WALK_H

#include "Facts.h"
#include "ModuleOps.h"
#include "NodeTable.h"
#include "OpBitSet.h"
#include "OpRules.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <optional>
#include <utility>
#include <vector>

namespace hostoffload {

/// Implicit host compute lists this many ops besides the first per start.
inline constexpr size_t kHostComputeOpsShown = 4;

/// The first ops computing on host memory from one start, and how many do.
struct HostComputeOps {
  llvm::SmallVector<mlir::Operation *, kHostComputeOpsShown + 1> shown;
  size_t count = 0;
  /// The first op that is not a copy (`mhlo.copy`, XLA's kCopy), which
  /// XLA's h2h relaxation of strict mode does not allow; null if none.
  mlir::Operation *firstNonCopy = nullptr;
};

class Walk {
public:
  /// A walk of `module`, whose ops the analysis looks up are `ops`; room is
  /// made for every value of the module at once.
  Walk(mlir::ModuleOp module, mlir::func::FuncOp entry, const OpRules &rules,
       const ModuleOps &ops);
  Walk(const Walk &) = delete;
  Walk &operator=(const Walk &) = delete;

  /// The custom calls of the module, in program order.
  llvm::ArrayRef<mlir::Operation *> getCustomCalls() const {
    return ops.getCustomCalls();
  }
  /// The `stablehlo.dynamic_update_slice` ops of the module with a buffer, an
  /// update and one result, in program order.
  llvm::ArrayRef<mlir::Operation *> getDynamicUpdateSlices() const {
    return ops.getDynamicUpdateSlices();
  }
  const CallSites &getCallSites() const { return ops.getCallSites(); }
  /// The op named `name` in the module's body, null if there is none.
  mlir::Operation *lookupSymbol(mlir::StringAttr name) const {
    return ops.lookupSymbol(name);
  }
  /// The function named `name`, if the module has one.
  mlir::func::FuncOp lookupFunction(mlir::StringAttr name) const {
    return ops.lookupFunction(name);
  }

  /// Host memory starts at `value`, as start `startIndex` of the report.
  void addStart(mlir::Value value, unsigned startIndex);

  /// Called with the value of a start and one of its users.
  using StartUserVisitor =
      llvm::function_ref<void(mlir::Value start, mlir::Operation *user)>;

  /// Follows host memory from the starts until nothing changes, breadth
  /// first: the path to a value is a shortest one, and ties go to the start
  /// added first. `visitStartUser`, if given, is called with every user of
  /// each start, in program order, as the walk takes host memory through it
  /// (again where the walk starts over): a start can have a million users,
  /// which are out of the caches by a second pass over them.
  void run(StartUserVisitor visitStartUser = nullptr);

  //===--------------------------------------------------------------------===//
  // What the walk found, once it has run.
  //===--------------------------------------------------------------------===//

  const NodeTable &getNodes() const { return nodes; }
  const PathTable &getPaths() const { return paths; }
  const Facts &factsOf(const Node &node) const {
    return factTable.get(node.facts);
  }
  const Facts &factsOf(unsigned id) const { return factsOf(nodes[id]); }

  /// The first node reaching output `output` of the entry function, if any.
  std::optional<unsigned> getOutputNode(unsigned output) const {
    if (outputNodes[output] < 0)
      return std::nullopt;
    return static_cast<unsigned>(outputNodes[output]);
  }

  /// The first node of `value` that is host memory, if any; none for a result
  /// of host compute without uses.
  std::optional<unsigned> findHostNode(mlir::Value value) const;

  /// The first op computing on slice `slice`; null when XLA reads the slice
  /// into device memory.
  mlir::Operation *getSliceComputedOnBy(unsigned slice) const {
    return computedSlices.lookup(slice);
  }
  mlir::Operation *getSliceOp(unsigned slice) const { return sliceOps[slice]; }

  /// The ops reported as implicit host compute, by the start whose host
  /// memory they compute on.
  const llvm::MapVector<unsigned, HostComputeOps> &getHostComputeOps() const {
    return hostComputeByStart;
  }

private:
  //===--------------------------------------------------------------------===//
  // The worklist (Walk.cpp).
  //===--------------------------------------------------------------------===//

  // Every step of the walk reaches a value: these three are inline, below
  // the class, so that the steps in each file take them without a call.

  /// Adds `facts` to node `id`; queues the node when that changes anything.
  void addFacts(unsigned id, unsigned facts, bool created);

  /// Marks (value, pathId) as host, reached from node `from` through `via`,
  /// with the facts `facts` (those of `from` unless given).
  unsigned reach(mlir::Value value, unsigned pathId, unsigned from,
                 mlir::Operation *via, StepKind step,
                 std::optional<unsigned> facts = std::nullopt);
  std::optional<unsigned>
  reachResult(mlir::Operation *op, unsigned resultNumber, unsigned pathId,
              unsigned from, StepKind step = StepKind::Through,
              std::optional<unsigned> facts = std::nullopt);
  /// Whether `value`, a result of host compute or a region's argument that
  /// host memory reaches, gets no node: nothing uses it, so it passes
  /// nothing on and no output or finding is it, and the walk does not take
  /// starts apart.
  bool skipsNodeOf(mlir::Value value) const {
    return !walkingApart && value.use_empty();
  }
  /// Path `pathId`, clamped to the tuple elements of the type of `value`.
  unsigned clampPath(mlir::Value value, unsigned pathId);
  void reachBlockArgument(mlir::Operation *op, unsigned regionNumber,
                          unsigned argNumber, unsigned pathId, unsigned from);
  /// Loop-carried value `index` of a while loop: the result, and the
  /// argument of the condition (region 0) and of the body (region 1).
  void reachLoopCarried(mlir::Operation *whileOp, unsigned index,
                        unsigned pathId, unsigned from);

  /// Makes `roots` the queue, to be walked from its first level.
  void queueRoots(llvm::ArrayRef<unsigned> roots);
  /// Propagates the queued nodes, and those they queue, until none is left.
  void walkQueue();
  /// The walk of run() a few starts at a time, in order: a start's host
  /// memory is mostly in one part of the module, and the breadth-first walk
  /// of a thousand starts at once touches a thousand parts at each step (in
  /// a module whose parse does not fit the caches). Where no two batches'
  /// host memory meets, the nodes, paths and findings are those of the walk
  /// of all at once. Returns false, with the walk as it was before, where two
  /// meet or where that cannot be told.
  bool walkStartsApart();
  /// Forgets what the walk found: the nodes are `startNodes` again, and
  /// `roots` are queued.
  void restart(const NodeTable::Saved &startNodes,
               llvm::ArrayRef<unsigned> roots);

  void propagate(unsigned id);
  /// propagate for a value with more than two uses, or a start whose users
  /// are visited.
  void propagateThroughManyUses(unsigned id);
  /// Applies the rule of `user` to host memory of node `id` entering it
  /// through operand `operand`. `computedBy` is the op the previous use of
  /// the node found computing on it, if any.
  void propagateThroughUse(unsigned id, mlir::Operation *user, unsigned operand,
                           mlir::Operation *&computedBy);

  /// `op` computes on node `id` in host memory. Unless XLA rewrites the op
  /// to compute on the sliced tensor instead (`usesSlices` false), that makes
  /// every slice the node is made of host compute too.
  void propagateThroughHostCompute(unsigned id, mlir::Operation *op,
                                   bool usesSlices = true);
  /// Records `op` for HOW101 the first time host memory that no host compute
  /// made (node `id`) enters it; `firstResult` is the node of its result 0,
  /// -1 if it has none. Not a std::optional: GCC passes one in a register it
  /// assembles on the stack from two stores and reads back with one load,
  /// which waits for both to reach the cache.
  void recordHostCompute(mlir::Operation *op, unsigned id, int firstResult);
  /// The ops computing on the host memory of start `start`, added if none
  /// are yet.
  HostComputeOps &getHostComputeGroup(unsigned start);

  bool isMadeOfSlicesOnly(unsigned id) const;
  unsigned getSliceId(mlir::Operation *slice);
  /// Records that `op`, which is not data movement, uses node `id`: every
  /// slice the node is made of becomes host compute, and so do the slices
  /// of the callers' operands it came through (resolved after the walk, when
  /// every call site is known).
  void noteComputedOn(unsigned id, mlir::Operation *op);
  void markSlicesComputedInCallees();
  /// Whether the node is host memory once the walk is over: not made only of
  /// slices XLA reads into device memory.
  bool isHost(unsigned id) const;

  //===--------------------------------------------------------------------===//
  // Calls and returns (WalkCalls.cpp).
  //===--------------------------------------------------------------------===//

  void propagateIntoCallee(unsigned id, mlir::Operation *call,
                           unsigned operand);
  /// Host memory of node `returnNode`, returned as result `result` of a
  /// callee, comes back from `call`, which passed it in from node
  /// `callerNode`.
  void returnToCall(mlir::Operation *call, unsigned result, unsigned returnNode,
                    unsigned callerNode);
  /// Host memory of node `id` enters argument `operand` of the last callee;
  /// returns the argument's flow.
  unsigned enterCallee(unsigned id, mlir::Operation *call, unsigned operand);
  /// enterCallee where entering the same way last time changed something,
  /// or that was another entry.
  unsigned enterCalleeAnew(unsigned id, mlir::Operation *call,
                           unsigned operand);
  /// Host memory entered argument flow `flow` from `call`.
  void recordCall(unsigned flow, mlir::Operation *call);
  /// The flow of argument `argument` of the function that is symbol `symbol`
  /// of the module's body and has `argumentCount` arguments.
  unsigned getArgumentFlow(unsigned symbol, unsigned argumentCount,
                           unsigned argument);
  void propagateOutOfFunction(unsigned id, mlir::Operation *terminator,
                              unsigned operand);

  mlir::ModuleOp module;
  mlir::func::FuncOp entry;
  const OpRules &rules;
  const ModuleOps &ops;
  FactTable factTable;
  PathTable paths;
  NodeTable nodes;
  std::vector<unsigned> queue;
  size_t queueHead = 0;
  /// The level of the breadth-first walk (the steps from its root) of the
  /// nodes queued before `levelEnd`, and the batch of roots walked
  /// (walkStartsApart; 0 for all at once).
  unsigned level = 0;
  size_t levelEnd = 0;
  unsigned batch = 0;
  /// The visitor run() was given, while it runs.
  StartUserVisitor startUserVisitor = nullptr;
  /// The name of the op propagateThroughUse saw last, and its rule.
  const void *lastUserName = nullptr;
  OpRules::Rule lastUserRule = nullptr;

  /// The callee the walk entered last, its body (null if it has none), and
  /// its index among the symbols of the module's body.
  mlir::FlatSymbolRefAttr lastCallee;
  mlir::Block *lastCalleeBody = nullptr;
  unsigned lastCalleeSymbol = 0;
  /// A time host memory entered a callee's argument.
  struct CalleeEntry {
    mlir::Block *body = nullptr;
    unsigned argument = 0;
    unsigned pathId = 0;
    unsigned callerFacts = 0;
    /// The argument's node, and its facts right after.
    unsigned node = 0;
    unsigned nodeFacts = 0;
    /// Entering left the node's facts as they were.
    bool changesNothing = false;
    /// The argument's flow.
    unsigned flow = 0;
  };
  /// The last few ways host memory entered callees' arguments, the latest
  /// first: call sites in a row alternate between a few callees (a layer,
  /// and the functions each of its steps calls).
  static constexpr size_t kCalleeEntriesKept = 4;
  std::array<CalleeEntry, kCalleeEntriesKept> lastEntries;

  /// What flows through one argument of one function.
  struct ArgumentFlow {
    /// The (result number, node) pairs of the function's returns that carry
    /// host memory coming through the argument.
    llvm::SmallVector<std::pair<unsigned, unsigned>, 1> returns;
    /// The first and last of the argument's `flowCalls`; -1 if none.
    int firstCall = -1;
    int lastCall = -1;
  };
  std::vector<ArgumentFlow> argumentFlows;
  /// The call sites host memory entered an argument from, once for each time
  /// the facts of the operand grew, linked per argument: (call, next entry of
  /// the same argument or -1). One array for all, where thousands of
  /// arguments entered from one call site each would take an allocation
  /// each.
  std::vector<std::pair<mlir::Operation *, int>> flowCalls;
  /// By the index of a function among the symbols of the module's body, the
  /// flow of its argument 0, those of the others after it; kNoFlows before
  /// host memory enters the function. A table made at once for every symbol,
  /// where a map by (function, argument) would be searched, and grow, for
  /// each function entered.
  static constexpr unsigned kNoFlows = ~0u;
  std::vector<unsigned> firstFlowOfSymbol;

  /// The first node reaching each output of the entry function; -1 if none.
  std::vector<int> outputNodes;
  /// Ops reported as implicit host compute whose result 0 has no node (the
  /// others are marked on that node): walking starts apart, with the batch
  /// whose walk reported each; otherwise in a bit set.
  llvm::DenseMap<mlir::Operation *, unsigned> resultlessHostComputeOps;
  OpBitSet hostComputeOpsWithoutNode;
  /// Whether the walk takes starts apart (walkStartsApart), which notes
  /// where batches meet on the nodes they make: every value it reaches has a
  /// node. Otherwise values without uses among the results of host compute
  /// and the arguments of regions have none (`skipsNodeOf`).
  bool walkingApart = false;
  llvm::MapVector<unsigned, HostComputeOps> hostComputeByStart;
  /// For each group of `hostComputeByStart`, the level of the walk and the
  /// batch it was made at: walkStartsApart puts the groups in the order the
  /// walk of all at once makes them.
  std::vector<std::pair<unsigned, unsigned>> hostComputeMadeAt;
  /// walkStartsApart met another batch's host memory outside the nodes.
  bool startsMet = false;
  /// The start getHostComputeGroup was last asked for, and the index of its
  /// group in `hostComputeByStart`.
  unsigned lastHostComputeStart = ~0u;
  size_t lastHostComputeGroup = 0;

  /// The slices reached, by id.
  llvm::DenseMap<mlir::Operation *, unsigned> sliceIds;
  std::vector<mlir::Operation *> sliceOps;
  /// Slices XLA turns into host compute, with the first op computing on
  /// their result.
  llvm::DenseMap<unsigned, mlir::Operation *> computedSlices;
  /// Nodes inside a function that host memory reached through its arguments
  /// and that are computed on, with the op that does it.
  std::vector<std::pair<unsigned, mlir::Operation *>> computedOnInCallees;
};

inline void Walk::addFacts(unsigned id, unsigned facts, bool created) {
  Node &node = nodes[id];
  unsigned merged = created ? facts : factTable.merge(node.facts, facts);
  if (!created && merged == node.facts)
    return;
  node.facts = merged;
  // A value without uses has nothing to pass on; most results of host
  // compute on a widely used host tensor are such values.
  if (!node.value.use_empty())
    queue.push_back(id);
}

inline unsigned Walk::reach(mlir::Value value, unsigned pathId, unsigned from,
                            mlir::Operation *via, StepKind step,
                            std::optional<unsigned> facts) {
  if (pathId != 0)
    pathId = clampPath(value, pathId);
  bool created;
  unsigned id = nodes.getOrCreate(value, pathId, created);
  Node &node = nodes[id];
  if (created) {
    node.parent = static_cast<int>(from);
    node.via = via;
    node.step = step;
  }
  addFacts(id, facts.value_or(nodes[from].facts), created);
  return id;
}

inline std::optional<unsigned>
Walk::reachResult(mlir::Operation *op, unsigned resultNumber, unsigned pathId,
                  unsigned from, StepKind step, std::optional<unsigned> facts) {
  if (resultNumber >= op->getNumResults())
    return std::nullopt;
  return reach(op->getResult(resultNumber), pathId, from, op, step, facts);
}

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_WALK_H
