//===- DialectsTest.cpp - the context set-up against MLIR's verifier ------===//
//
// With the dialects of hostoffload/Dialects.h, MLIR's verifier resolves a call
// inside a single-region op of JAX's dialects in the module, and rejects one
// that references no function there with its own error at the call; the ops,
// attributes and types of those dialects print as they do unregistered.
//
//===----------------------------------------------------------------------===//

#include "UnitTest.h"

#include "hostoffload/Dialects.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <string>

using namespace mlir;
using namespace hostoffload;

namespace hostoffload::unittest {

namespace {

/// A shard_map body calling @callee, with Shardy's attributes and a
/// StableHLO type.
std::string shardMapCalling(llvm::StringRef callee, llvm::StringRef ns) {
  return (R"mlir("builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>, !stablehlo.token) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<4xf32>, %arg1: !stablehlo.token):
    %0 = ")mlir" +
          ns +
          R"mlir(.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}]>]>, manual_axes = #sdy<manual_axes{"x"}>}> ({
    ^bb0(%arg2: tensor<4xf32>):
      %1 = "func.call"(%arg2) <{callee = @)mlir" +
          callee + R"mlir(}> : (tensor<4xf32>) -> tensor<4xf32>
      "sdy.return"(%1) : (tensor<4xf32>) -> ()
    }) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "body", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    "func.return"(%arg0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
)mlir")
      .str();
}

/// The verifier's errors on the module of `text`, parsed in `context`; "parse
/// error" where it does not parse.
std::string verifierErrors(MLIRContext &context, const std::string &text,
                           std::string *printed = nullptr) {
  std::string errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    errors += diagnostic.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      text, ParserConfig(&context, /*verifyAfterParse=*/false));
  if (!module)
    return "parse error";
  if (printed) {
    llvm::raw_string_ostream os(*printed);
    module->print(os, OpPrintingFlags().printGenericOpForm());
  }
  (void)verify(*module);
  return errors;
}

} // namespace

void testDialects() {
  Group group("the context set-up");
  DialectRegistry registry;
  registerDialects(registry);
  MLIRContext context(registry);
  context.allowUnregisteredDialects();
  DialectRegistry funcOnly;
  funcOnly.insert<func::FuncDialect>();
  MLIRContext bare(funcOnly);
  bare.allowUnregisteredDialects();

  std::string printed, printedBare;
  check(
      verifierErrors(context, shardMapCalling("body", "sdy"), &printed).empty(),
      "a call inside sdy.manual_computation resolves in the module");
  check(verifierErrors(bare, shardMapCalling("body", "sdy"), &printedBare) ==
            "'func.call' op 'body' does not reference a valid function\n",
        "without the set-up, MLIR's verifier rejects it");
  check(!printed.empty() && printed == printedBare,
        "the ops, attributes and types print as without the set-up");
  check(verifierErrors(context, shardMapCalling("missing", "sdy")) ==
            "'func.call' op 'missing' does not reference a valid function\n",
        "a call of a function the module lacks is MLIR's error");
  for (llvm::StringRef ns : getOpaqueDialectNamespaces())
    check(verifierErrors(context, shardMapCalling("body", ns)).empty(),
          ("a call inside a region of " + ns + " resolves").str());
  check(!verifierErrors(context, shardMapCalling("body", "other")).empty(),
        "a call inside an op of another namespace is left to MLIR");
}

} // namespace hostoffload::unittest
