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
#include "OpRules.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
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

/// The uses of `value` in program order: its use list runs backwards from the
/// last use.
inline llvm::SmallVector<mlir::OpOperand *, 4>
getUsesInProgramOrder(mlir::Value value) {
  llvm::SmallVector<mlir::OpOperand *, 4> uses;
  for (mlir::OpOperand &use : value.getUses())
    uses.push_back(&use);
  std::reverse(uses.begin(), uses.end());
  return uses;
}

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
  /// The node of start `startIndex`, which addStart made.
  unsigned getStartNode(unsigned startIndex) const {
    return startNodes[startIndex];
  }

  /// Called with the value of a start and one of its users.
  using StartUserVisitor =
      llvm::function_ref<void(mlir::Value start, mlir::Operation *user)>;

  /// Follows host memory from the starts until nothing changes, breadth
  /// first: the path to a value is a shortest one, and ties go to the start
  /// added first. `visitStartUser`, if given, is called with every user of
  /// each start, in program order, as the walk takes host memory through it.
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

  /// Whether the node is host memory once the walk is over: not made only of
  /// slices XLA reads into device memory.
  bool isHost(unsigned id) const;
  /// Whether node `id` is host memory only on the condition that a slice it
  /// is made of is computed on.
  bool isMadeOfSlicesOnly(unsigned id) const;

  /// The first node of `value` that is host memory, if any; none for a result
  /// of host compute without uses.
  std::optional<unsigned> findHostNode(mlir::Value value) const;

  /// The first op computing on slice `slice`; null when XLA reads the slice
  /// into device memory.
  mlir::Operation *getSliceComputedOnBy(unsigned slice) const {
    return computedSlices.lookup(slice);
  }
  mlir::Operation *getSliceOp(unsigned slice) const { return sliceOps[slice]; }
  /// How many slices the walk reached.
  unsigned getSliceCount() const { return sliceOps.size(); }

  /// The ops reported as implicit host compute, by the start whose host
  /// memory they compute on.
  const llvm::MapVector<unsigned, HostComputeOps> &getHostComputeOps() const {
    return hostComputeByStart;
  }

private:
  //===--------------------------------------------------------------------===//
  // The worklist (Walk.cpp).
  //===--------------------------------------------------------------------===//

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
  /// nothing on and no output or finding is it.
  bool skipsNodeOf(mlir::Value value) const { return value.use_empty(); }
  /// Path `pathId`, clamped to the tuple elements of the type of `value`.
  unsigned clampPath(mlir::Value value, unsigned pathId);
  void reachBlockArgument(mlir::Operation *op, unsigned regionNumber,
                          unsigned argNumber, unsigned pathId, unsigned from);
  /// Loop-carried value `index` of a while loop: the result, and the
  /// argument of the condition (region 0) and of the body (region 1).
  void reachLoopCarried(mlir::Operation *whileOp, unsigned index,
                        unsigned pathId, unsigned from);

  /// Takes host memory of node `id` through each of its uses.
  void propagate(unsigned id);
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
  /// if it has one.
  void recordHostCompute(mlir::Operation *op, unsigned id,
                         std::optional<unsigned> firstResult);

  unsigned getSliceId(mlir::Operation *slice);
  /// Records that `op`, which is not data movement, uses node `id`: every
  /// slice the node is made of becomes host compute, and so do the slices
  /// of the callers' operands it came through (resolved after the walk, when
  /// every call site is known).
  void noteComputedOn(unsigned id, mlir::Operation *op);
  void markSlicesComputedInCallees();

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
  /// By start index, its node.
  std::vector<unsigned> startNodes;
  /// The visitor run() was given, while it runs.
  StartUserVisitor startUserVisitor = nullptr;

  /// What flows through one argument of one function.
  struct ArgumentFlow {
    /// The (result number, node) pairs of the function's returns that carry
    /// host memory coming through the argument.
    llvm::SmallVector<std::pair<unsigned, unsigned>, 1> returns;
    /// The call sites host memory entered the argument from, once for each
    /// time the facts of the operand grew.
    llvm::SmallVector<mlir::Operation *, 1> calls;
  };
  std::vector<ArgumentFlow> argumentFlows;
  /// By the index of a function among the symbols of the module's body, the
  /// flow of its argument 0, those of the others after it; kNoFlows before
  /// host memory enters the function.
  static constexpr unsigned kNoFlows = ~0u;
  std::vector<unsigned> firstFlowOfSymbol;

  /// The first node reaching each output of the entry function; -1 if none.
  std::vector<int> outputNodes;
  /// Ops reported as implicit host compute whose result 0 has no node (the
  /// others are marked on that node).
  llvm::DenseSet<mlir::Operation *> hostComputeOpsWithoutNode;
  llvm::MapVector<unsigned, HostComputeOps> hostComputeByStart;

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
