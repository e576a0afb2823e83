//===- WalkTest.cpp - the walk's nodes -----------------------------------===//
//
// Which values the walk (Walk.h) makes nodes for.
//
//===----------------------------------------------------------------------===//

#include "UnitTest.h"

#include "ModuleOps.h"
#include "OpRules.h"
#include "Walk.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <optional>

using namespace mlir;
using namespace hostoffload;

namespace hostoffload::unittest {

void testWalkVisitsStartUsers() {
  Group group("the walk's visits to the users of starts");
  DialectRegistry registry;
  registry.insert<func::FuncDialect>();
  MLIRContext context(registry);
  context.allowUnregisteredDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
  func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "test.op"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "test.op"(%b, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %2 = "test.op"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %3 = "test.op"(%0, %1, %2)
        : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %3 : tensor<4xf32>
  }
  )mlir",
                                                             &context);
  check(static_cast<bool>(module), "the test module parses");
  if (!module)
    return;
  OpRules rules(&context);
  ModuleOps ops = ModuleOps::collect(*module, rules);
  func::FuncOp main = ops.lookupFunction(StringAttr::get(&context, "main"));
  if (!main)
    return;
  llvm::SmallVector<Operation *> users;
  for (Operation &op : main.front())
    users.push_back(&op);
  Value a = main.getArgument(0), b = main.getArgument(1);
  Walk walk(*module, main, rules, ops);
  walk.addStart(a, 0);
  walk.addStart(b, 1);
  std::vector<std::pair<Value, Operation *>> visits;
  walk.run(
      [&](Value start, Operation *user) { visits.emplace_back(start, user); });
  // %a has four uses, %b one: both go past the visitor, %a's users in
  // program order, an op that uses it twice twice.
  std::vector<std::pair<Value, Operation *>> expected{{a, users[0]},
                                                      {a, users[1]},
                                                      {a, users[2]},
                                                      {a, users[2]},
                                                      {b, users[1]}};
  check(visits == expected,
        "each use of each start, in program order, the starts in turn");
  check(walk.getNodes().firstNodeOf(users[3]->getResult(0)).has_value(),
        "the walk reached past the starts' users");
}

void testWalkLeavesUnusedRegionArguments() {
  Group group("the walk's nodes for the arguments of a loop's regions");
  DialectRegistry registry;
  registry.insert<func::FuncDialect>();
  MLIRContext context(registry);
  context.allowUnregisteredDialects();
  // The condition reads the second value the loop carries, not the first;
  // the body reads both.
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
  func.func @main(%a: tensor<i1>) -> (tensor<i1>, tensor<i1>) {
    %0:2 = "stablehlo.while"(%a, %a) ({
    ^bb0(%c0: tensor<i1>, %c1: tensor<i1>):
      "stablehlo.return"(%c1) : (tensor<i1>) -> ()
    }, {
    ^bb0(%b0: tensor<i1>, %b1: tensor<i1>):
      "stablehlo.return"(%b0, %b1) : (tensor<i1>, tensor<i1>) -> ()
    }) : (tensor<i1>, tensor<i1>) -> (tensor<i1>, tensor<i1>)
    return %0#0, %0#1 : tensor<i1>, tensor<i1>
  }
  )mlir",
                                                             &context);
  check(static_cast<bool>(module), "the test module parses");
  if (!module)
    return;
  OpRules rules(&context);
  ModuleOps ops = ModuleOps::collect(*module, rules);
  func::FuncOp main = ops.lookupFunction(StringAttr::get(&context, "main"));
  if (!main)
    return;
  Operation *loop = &main.front().front();
  Block &condition = loop->getRegion(0).front();
  Block &body = loop->getRegion(1).front();
  Walk walk(*module, main, rules, ops);
  walk.addStart(main.getArgument(0), 0);
  walk.run();
  const NodeTable &nodes = walk.getNodes();
  check(!nodes.firstNodeOf(condition.getArgument(0)),
        "an argument the condition does not read has no node");
  check(nodes.firstNodeOf(condition.getArgument(1)).has_value(),
        "the argument it reads has one");
  check(nodes.firstNodeOf(body.getArgument(0)).has_value() &&
            nodes.firstNodeOf(body.getArgument(1)).has_value(),
        "the body's arguments have theirs");
  check(walk.getOutputNode(0).has_value() && walk.getOutputNode(1).has_value(),
        "both values the loop carries reach the outputs");
}

} // namespace hostoffload::unittest
