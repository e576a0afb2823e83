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

#include <optional>

using namespace mlir;

namespace hostoffload {

// Every call site a callee returns host memory to takes this.
void Walk::returnToCall(Operation *call, unsigned result, unsigned returnNode,
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
  const ModuleOps::Symbol *symbol = ops.findSymbol(callee.getAttr());
  auto function =
      symbol ? llvm::dyn_cast<func::FuncOp>(symbol->op) : func::FuncOp();
  if (!function || function.isExternal() ||
      operand >= function.getNumArguments())
    return;
  Block &body = function.front();
  unsigned flow =
      getArgumentFlow(symbol->index, body.getNumArguments(), operand);
  reach(body.getArgument(operand), nodes[id].pathId, id, call,
        StepKind::IntoCallee, factTable.intoCallee(nodes[id].facts, operand));
  argumentFlows[flow].calls.push_back(call);
  // Returns already known to carry this argument now flow to this call.
  for (auto [result, returnNode] : argumentFlows[flow].returns)
    returnToCall(call, result, returnNode, id);
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
    for (Operation *call : argumentFlows[flow].calls)
      if (std::optional<unsigned> callerNode =
              nodes.firstNodeOf(call->getOperand(origin)))
        returnToCall(call, operand, id, *callerNode);
  }
}

} // namespace hostoffload
