//===- ModuleOps.cpp - the ops the analysis starts from -------------------===//

#include "ModuleOps.h"

#include "PreorderOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

#include <cassert>

using namespace mlir;

namespace hostoffload {

void CallSites::add(Operation *call, StringAttr callee, Operation *function,
                    bool hostCompute) {
  // A cached entry stays valid: nothing else adds to its map in between.
  if (callee != lastCallee) {
    lastCallee = callee;
    lastCalleeCalls = &byCallee[callee];
  }
  lastCalleeCalls->push_back({call, hostCompute});
  if (!function)
    return;
  if (function != lastFunction) {
    lastFunction = function;
    auto [range, added] =
        byFunction.try_emplace(function, functionCalls.size(), 0);
    assert(added && "the calls of a function are added in a row");
    (void)added;
    lastFunctionRange = &range->second;
  } else if (functionCalls.back().callee == callee) {
    return;
  }
  functionCalls.push_back({call, callee});
  ++lastFunctionRange->second;
}

ModuleOps ModuleOps::collect(Operation *root, const OpRules &rules) {
  ModuleOps ops;
  for (Operation &op : root->getRegion(0).front()) {
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!name)
      continue;
    [[maybe_unused]] bool added =
        ops.symbols
            .try_emplace(name,
                         Symbol{&op, static_cast<unsigned>(ops.symbols.size())})
            .second;
    assert(added && "a verified module defines each symbol once");
  }
  PreorderOps preorder(root);
  while (Operation *op = preorder.next())
    ops.add(op, rules);
  return ops;
}

void ModuleOps::add(Operation *op, const OpRules &rules) {
  if (rules.isCall(op)) {
    FlatSymbolRefAttr callee = getCallee(op);
    if (!callee)
      return;
    if (op->getBlock() != lastCallBlock) {
      lastCallBlock = op->getBlock();
      lastCallFunction = op->getParentOfType<func::FuncOp>();
    }
    callSites.add(op, callee.getAttr(), lastCallFunction,
                  rules.isHostComputeCall(op));
    return;
  }
  if (rules.isCustomCall(op)) {
    customCalls.push_back(op);
    return;
  }
  if (rules.isDynamicUpdateSlice(op) && op->getNumOperands() >= 2 &&
      op->getNumResults() == 1)
    dynamicUpdateSlices.push_back(op);
}

} // namespace hostoffload
