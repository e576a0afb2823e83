//===- ModuleOpsTest.cpp - the ops the analysis looks up -----------------===//
//
// The ops in pre-order (PreorderOps.h), and the ops the analysis looks up
// (ModuleOps.h).
//
//===----------------------------------------------------------------------===//

#include "UnitTest.h"

#include "ModuleOps.h"
#include "PreorderOps.h"

#include "hostoffload/Dialects.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"

#include <memory>
#include <optional>
#include <vector>

using namespace mlir;
using namespace hostoffload;

namespace hostoffload::unittest {

/// A module of `count` ops, the first of which holds a region of two blocks,
/// each with an op holding a region of its own.
OwningOpRef<ModuleOp> nestedModule(MLIRContext &context, unsigned count) {
  OpBuilder builder(&context);
  Location loc = UnknownLoc::get(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  OperationState outer(loc, "test.outer");
  outer.addRegion();
  Operation *outerOp = builder.create(outer);
  for (unsigned blockIndex = 0; blockIndex < 2; ++blockIndex) {
    Block *block = builder.createBlock(&outerOp->getRegion(0),
                                       outerOp->getRegion(0).end());
    OperationState inner(loc, "test.inner");
    inner.addRegion();
    Operation *innerOp = builder.create(inner);
    builder.createBlock(&innerOp->getRegion(0));
    builder.create(OperationState(loc, "test.innermost"));
    builder.setInsertionPointToEnd(block);
  }
  builder.setInsertionPointAfter(outerOp);
  for (unsigned i = 5; i < count; ++i)
    builder.create(OperationState(loc, "test.flat"));
  return module;
}

void testPreorderOps(MLIRContext &context) {
  Group group("pre-order ops");
  OwningOpRef<ModuleOp> module = nestedModule(context, 8);
  std::vector<Operation *> walked;
  module->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != module->getOperation())
      walked.push_back(op);
  });
  std::vector<Operation *> taken;
  PreorderOps ops(*module);
  while (Operation *op = ops.next())
    taken.push_back(op);
  check(walked.size() == 8, "the module holds eight ops");
  check(taken == walked, "the ops come in the order Operation::walk visits "
                         "them before their regions");
  OwningOpRef<ModuleOp> empty = ModuleOp::create(UnknownLoc::get(&context));
  check(!PreorderOps(*empty).next(), "an empty module has no ops");
}

/// A module with calls at the top of functions, inside a region of an op of
/// an unregistered dialect and inside a nested module, a host compute call,
/// custom calls and dynamic_update_slice ops, one of them without a result.
constexpr llvm::StringLiteral collectedModule = R"mlir(
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = func.call @f(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "stablehlo.custom_call"(%0) <{call_target_name = "MoveToHost"}> : (tensor<4xf32>) -> tensor<4xf32>
    %2 = "stablehlo.while"(%1) ({
    ^bb0(%x: tensor<4xf32>):
      %3 = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %4 = func.call @f(%3) {mhlo.frontend_attributes = {_xla_compute_type = "host"}} : (tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%4) : (tensor<4xf32>) -> ()
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %i = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.dynamic_update_slice"(%2, %1, %i) : (tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
    "stablehlo.dynamic_update_slice"(%5, %1, %i) : (tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> ()
    return %5 : tensor<4xf32>
  }
  module @inner {
    func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
      %0 = func.call @h(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
      %1 = "stablehlo.custom_call"(%0) <{call_target_name = "MoveToDevice"}> : (tensor<4xf32>) -> tensor<4xf32>
      return %1 : tensor<4xf32>
    }
    func.func private @h(%arg0: tensor<4xf32>) -> tensor<4xf32> {
      return %arg0 : tensor<4xf32>
    }
  }
  func.func private @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = func.call @g(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @g(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
}
)mlir";

void testModuleOpsCollect() {
  Group group("the ops the analysis looks up");
  DialectRegistry registry;
  registerDialects(registry);
  MLIRContext context(registry);
  context.allowUnregisteredDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      collectedModule, ParserConfig(&context, /*verifyAfterParse=*/false));
  check(module && succeeded(verify(*module)), "the test module verifies");
  if (!module)
    return;
  OpRules rules(&context);
  ModuleOps collected = ModuleOps::collect(*module, rules);
  check(collected.getCustomCalls().size() == 2,
        "two custom calls, the nested module's included");
  check(collected.getDynamicUpdateSlices().size() == 1,
        "the dynamic_update_slice with a result");
  auto callsOf = [&](llvm::StringRef name) {
    return collected.getCallSites().of(StringAttr::get(&context, name));
  };
  check(callsOf("f").size() == 2 && callsOf("f")[1].hostCompute &&
            !callsOf("f")[0].hostCompute,
        "two calls of @f, the second on the host");
  check(callsOf("g").size() == 2 && callsOf("h").size() == 1 &&
            callsOf("main").empty(),
        "two calls of @g, one of @h, none of @main");
  for (llvm::StringRef name : {"main", "f", "g"}) {
    func::FuncOp function =
        collected.lookupFunction(StringAttr::get(&context, name));
    check(function && function->getParentOp() == module->getOperation(),
          ("finds the module's own @" + name).str());
  }
  for (llvm::StringRef name : {"h", "inner", "missing"})
    check(!collected.lookupFunction(StringAttr::get(&context, name)),
          ("finds no function @" + name + " in the module's body").str());
  func::FuncOp main =
      collected.lookupFunction(StringAttr::get(&context, "main"));
  llvm::ArrayRef<CallSites::Call> inMain =
      main ? collected.getCallSites().in(main)
           : llvm::ArrayRef<CallSites::Call>();
  check(inMain.size() == 3 && inMain[0].callee.getValue() == "f" &&
            inMain[1].callee.getValue() == "g" &&
            inMain[2].callee.getValue() == "f",
        "the calls inside @main in program order");
}

void testCallsInAFunction() {
  Group group("the calls inside a function");
  DialectRegistry registry;
  registry.insert<func::FuncDialect>();
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = func.call @f(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = func.call @f(%0) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = func.call @g(%1) : (tensor<4xf32>) -> tensor<4xf32>
    %3 = func.call @f(%2) : (tensor<4xf32>) -> tensor<4xf32>
    %4 = func.call @f(%3) : (tensor<4xf32>) -> tensor<4xf32>
    return %4 : tensor<4xf32>
  }
  func.func private @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
  func.func private @g(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
  )mlir",
                                                             &context);
  check(static_cast<bool>(module), "the test module parses");
  if (!module)
    return;
  OpRules rules(&context);
  ModuleOps ops = ModuleOps::collect(*module, rules);
  llvm::SmallVector<func::CallOp> calls;
  module->walk([&](func::CallOp call) { calls.push_back(call); });
  func::FuncOp main = ops.lookupFunction(StringAttr::get(&context, "main"));
  check(calls.size() == 5 && main, "five calls inside @main");
  if (calls.size() != 5 || !main)
    return;
  llvm::ArrayRef<CallSites::Call> in = ops.getCallSites().in(main);
  check(in.size() == 3 && in[0].call == calls[0] && in[1].call == calls[2] &&
            in[2].call == calls[3],
        "the first call of each run of calls to one callee, in order");
  check(in.size() == 3 && in[0].callee.getValue() == "f" &&
            in[1].callee.getValue() == "g" && in[2].callee.getValue() == "f",
        "each with its callee");
  check(ops.getCallSites().of(StringAttr::get(&context, "f")).size() == 4,
        "the call sites of @f are all four");
}

} // namespace hostoffload::unittest
