//===- WalkCalls.cpp - host memory into callees and back out --------------===//
//
// A callee's result is host memory at a call site only when it is host
// whatever the caller passes ("global" facts), or when the call site's
// operand it came through is host memory. Host memory entering an argument is
// recorded per argument ("flow"), with the call sites it entered from and the
// returns it reached, so that each return goes back to those call sites
// alone.
//
//===----------------------------------------------------------------------===//

#include "Walk.h"

#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <optional>

using namespace mlir;

namespace hostoffload {

// Merging facts is a function of the two facts: once entering from a node
// with some facts and path left the argument's node as it was, entering it
// again the same way changes nothing while that node stays so, which saves
// call sites in a row the lookups. That case is inline, the rest out of line.
inline unsigned Walk::enterCallee(unsigned id, Operation *call,
                                  unsigned operand) {
  const Node &caller = nodes[id];
  for (size_t i = 0; i < kCalleeEntriesKept; ++i) {
    const CalleeEntry &entry = lastEntries[i];
    if (!entry.changesNothing || entry.body != lastCalleeBody ||
        entry.argument != operand || entry.pathId != caller.pathId ||
        entry.callerFacts != caller.facts ||
        nodes[entry.node].facts != entry.nodeFacts)
      continue;
    // The entry becomes the latest, as if made now.
    std::rotate(lastEntries.begin(), lastEntries.begin() + i,
                lastEntries.begin() + i + 1);
    return lastEntries.front().flow;
  }
  return enterCalleeAnew(id, call, operand);
}

inline void Walk::recordCall(unsigned flow, Operation *call) {
  int entered = static_cast<int>(flowCalls.size());
  flowCalls.push_back({call, -1});
  int &last = argumentFlows[flow].lastCall;
  if (last < 0)
    argumentFlows[flow].firstCall = entered;
  else
    flowCalls[last].second = entered;
  last = entered;
}

// Every call site a callee returns host memory to takes this, inline.
LLVM_ATTRIBUTE_ALWAYS_INLINE void Walk::returnToCall(Operation *call,
                                                     unsigned result,
                                                     unsigned returnNode,
                                                     unsigned callerNode) {
  reachResult(
      call, result, nodes[returnNode].pathId, returnNode, StepKind::OutOfCallee,
      factTable.outOfCallee(nodes[returnNode].facts, nodes[callerNode].facts));
}

void Walk::propagateIntoCallee(unsigned id, Operation *call, unsigned operand) {
  if (rules.isHostComputeCall(call))
    return;
  FlatSymbolRefAttr callee = getCallee(call);
  if (!callee)
    return;
  // Call sites in a row mostly call one function (a scan body, a layer).
  if (callee != lastCallee) {
    lastCallee = callee;
    const ModuleOps::Symbol *symbol = ops.findSymbol(callee.getAttr());
    auto function =
        symbol ? llvm::dyn_cast<func::FuncOp>(symbol->op) : func::FuncOp();
    lastCalleeBody =
        function && !function.isExternal() ? &function.front() : nullptr;
    lastCalleeSymbol = symbol ? symbol->index : 0;
  }
  if (!lastCalleeBody || operand >= lastCalleeBody->getNumArguments())
    return;
  unsigned flow = enterCallee(id, call, operand);
  recordCall(flow, call);
  // Returns already known to carry this argument now flow to this call.
  for (auto [result, returnNode] : argumentFlows[flow].returns)
    returnToCall(call, result, returnNode, id);
}

unsigned Walk::enterCalleeAnew(unsigned id, Operation *call, unsigned operand) {
  const Node &caller = nodes[id];
  // An entry into the same argument knows its flow; one the same way, and
  // with the argument's node as it left it, tells whether this entry
  // changes anything.
  const CalleeEntry *sameArgument = nullptr;
  size_t sameWay = kCalleeEntriesKept;
  for (size_t i = 0; i < kCalleeEntriesKept; ++i) {
    const CalleeEntry &entry = lastEntries[i];
    if (entry.body != lastCalleeBody || entry.argument != operand)
      continue;
    if (!sameArgument)
      sameArgument = &entry;
    if (entry.pathId == caller.pathId && entry.callerFacts == caller.facts) {
      sameWay = i;
      break;
    }
  }
  std::optional<unsigned> factsBefore;
  if (sameWay < kCalleeEntriesKept) {
    const CalleeEntry &entry = lastEntries[sameWay];
    if (nodes[entry.node].facts == entry.nodeFacts)
      factsBefore = entry.nodeFacts;
  }
  unsigned pathId = caller.pathId;
  unsigned callerFacts = caller.facts;
  unsigned flow =
      sameArgument
          ? sameArgument->flow
          : getArgumentFlow(lastCalleeSymbol, lastCalleeBody->getNumArguments(),
                            operand);
  unsigned node =
      reach(lastCalleeBody->getArgument(operand), pathId, id, call,
            StepKind::IntoCallee, factTable.intoCallee(callerFacts, operand));
  // The entry takes the place of the one the same way, or of the oldest. Its
  // fields are written in place: an entry built aside and copied in is read
  // back in wider loads than its stores, which the CPU cannot forward.
  size_t replaced = std::min(sameWay, kCalleeEntriesKept - 1);
  std::move_backward(lastEntries.begin(), lastEntries.begin() + replaced,
                     lastEntries.begin() + replaced + 1);
  CalleeEntry &entered = lastEntries.front();
  entered.body = lastCalleeBody;
  entered.argument = operand;
  entered.pathId = pathId;
  entered.callerFacts = callerFacts;
  entered.node = node;
  entered.nodeFacts = nodes[node].facts;
  entered.changesNothing = factsBefore == entered.nodeFacts;
  entered.flow = flow;
  return flow;
}

unsigned Walk::getArgumentFlow(unsigned symbol, unsigned argumentCount,
                               unsigned argument) {
  unsigned &first = firstFlowOfSymbol[symbol];
  if (first == kNoFlows) {
    first = argumentFlows.size();
    argumentFlows.resize(argumentFlows.size() + argumentCount);
  }
  return first + argument;
}

void Walk::propagateOutOfFunction(unsigned id, Operation *terminator,
                                  unsigned operand) {
  auto function = terminator->getParentOfType<func::FuncOp>();
  if (!function)
    return;
  if (function == entry && operand < outputNodes.size() &&
      outputNodes[operand] < 0)
    outputNodes[operand] = static_cast<int>(id);
  // By id and index: reaching call results below grows the node and fact
  // tables, which may move their items; interned facts never change.
  unsigned pathId = nodes[id].pathId;
  unsigned factsId = nodes[id].facts;
  bool global = factTable.get(factsId).global;
  // Host memory enters only functions of the module's body through calls:
  // one elsewhere (inside a nested module) has no call sites to return to.
  const ModuleOps::Symbol *symbol = ops.findSymbol(function.getSymNameAttr());
  if (!symbol || symbol->op != function)
    return;
  // Host memory made inside the function returns to every call site, first:
  // its facts lead where it also came through an argument.
  if (global) {
    unsigned everywhere = factTable.outOfCalleeEverywhere(factsId);
    for (auto [call, hostCompute] :
         getCallSites().of(function.getSymNameAttr()))
      if (!hostCompute)
        reachResult(call, operand, pathId, id, StepKind::OutOfCallee,
                    everywhere);
  }
  // A node passes here again only when its facts grow, a bounded number of
  // times, so the returns need no search for repeats (which would be
  // quadratic in the results of a callee).
  //
  // Host memory that came through an argument returns only to the call
  // sites it entered from, with the facts of the operand there, also where
  // the value is host memory at every call site: a caller computing on it
  // computes on what it passed in (a slice, say). The other call sites,
  // whose operands are yet to be walked, take the return when they enter.
  // Visiting only these leaves alone the thousands of call sites of a shared
  // callee that host memory never reaches.
  unsigned argumentCount = function.front().getNumArguments();
  for (size_t i = 0, e = factTable.get(factsId).origins.size(); i != e; ++i) {
    unsigned origin = factTable.get(factsId).origins[i];
    // Origins number this function's arguments (a callee's are dropped where
    // its host memory returns to every call site); the test keeps the table
    // of flows in bounds whatever facts reach a return.
    if (origin >= argumentCount)
      continue;
    unsigned flow = getArgumentFlow(symbol->index, argumentCount, origin);
    argumentFlows[flow].returns.emplace_back(operand, id);
    for (int call = argumentFlows[flow].firstCall; call >= 0;
         call = flowCalls[call].second) {
      Operation *callOp = flowCalls[call].first;
      if (std::optional<unsigned> callerNode =
              nodes.firstNodeOf(callOp->getOperand(origin)))
        returnToCall(callOp, operand, id, *callerNode);
    }
  }
}

} // namespace hostoffload
