//===- VerifierTest.cpp - the module verifier against MLIR's -------------===//
//
// verifyModule (hostoffload/ModuleVerifier.h) on valid modules and on modules
// that break each rule MLIR's verifier checks, some made by setting an
// operand the parser would not accept: it accepts what mlir::verify accepts
// and rejects the rest with mlir::verify's diagnostics. On the fast path its
// one walk proves the valid modules of single-block regions valid (it
// collects their ops), and never an invalid one.
//
//===----------------------------------------------------------------------===//

#include "UnitTest.h"

#include "ModuleOps.h"

#include "hostoffload/FastPaths.h"
#include "hostoffload/ModuleVerifier.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <optional>
#include <string>

using namespace mlir;
using namespace hostoffload;

namespace hostoffload::unittest {

namespace {

struct Case {
  const char *what;
  const char *text;
  /// Whether mlir::verify accepts the module.
  bool valid;
  /// Whether the one walk proves it valid; false where it leaves the module
  /// to MLIR's verifier.
  bool oneWalk = true;
  /// If set, operand 0 of the first op named `user` is set to result 0 of
  /// the first op named `definition`, or to argument 0 of the block of its
  /// first region if `argument`.
  const char *user = nullptr;
  const char *definition = nullptr;
  bool argument = false;
};

const Case cases[] = {
    {"ops in order, a region using outer values, a call", R"mlir(
  func.func @main(%arg0: i32) -> i32 {
    %0 = "t.a"(%arg0) : (i32) -> i32
    %1 = "t.while"(%0) ({
    ^bb0(%x: i32):
      %2 = "t.b"(%x, %0, %arg0) : (i32, i32, i32) -> i32
      "t.return"(%2) : (i32) -> ()
    }) : (i32) -> i32
    %3 = func.call @f(%1) : (i32) -> i32
    return %3 : i32
  }
  func.func private @f(%arg0: i32) -> i32 {
    return %arg0 : i32
  }
  "t.mesh"() : () -> ())mlir",
     true},
    {"a use before its definition in an unregistered op's region", R"mlir(
  func.func @main() -> i32 {
    %0 = "t.r"() ({
      %1 = "t.use"(%2) : (i32) -> i32
      %2 = "t.def"() : () -> i32
      "t.return"(%1) : (i32) -> ()
    }) : () -> i32
    return %0 : i32
  })mlir",
     true},
    {"a use before its definition in the module's graph region", R"mlir(
  %0 = "t.use"(%1) : (i32) -> i32
  %1 = "t.def"() : () -> i32)mlir",
     true},
    {"a region of two blocks", R"mlir(
  func.func @main() {
    "t.r"() ({
      "t.br"()[^bb1] : () -> ()
    ^bb1:
      "t.end"() : () -> ()
    }) : () -> ()
    return
  })mlir",
     true, false},
    {"a use before its definition in a function", R"mlir(
  func.func @main() -> i32 {
    %0 = "t.use"(%1) : (i32) -> i32
    %1 = "t.def"() : () -> i32
    return %0 : i32
  })mlir",
     false},
    {"a use inside a region before the definition", R"mlir(
  func.func @main() -> i32 {
    "t.r"() ({
      "t.use"(%1) : (i32) -> ()
    }) : () -> ()
    %1 = "t.def"() : () -> i32
    return %1 : i32
  })mlir",
     false},
    {"an op using its own result", R"mlir(
  func.func @main() -> i32 {
    %0 = "t.use"(%0) : (i32) -> i32
    return %0 : i32
  })mlir",
     false},
    {"an op using its own result inside its region", R"mlir(
  func.func @main() -> i32 {
    %0 = "t.r"() ({
      "t.use"(%0) : (i32) -> ()
    }) : () -> i32
    return %0 : i32
  })mlir",
     false},
    {"a value of another function", R"mlir(
  func.func @main() -> i32 {
    %0 = "t.def"() : () -> i32
    return %0 : i32
  }
  func.func @other(%arg0: i32) {
    "t.use"(%arg0) : (i32) -> ()
    return
  })mlir",
     false, true, "t.use", "t.def"},
    {"a value of a sibling region", R"mlir(
  func.func @main(%arg0: i32) {
    "t.two"() ({
      %0 = "t.def"() : () -> i32
    }, {
      "t.use"(%arg0) : (i32) -> ()
    }) : () -> ()
    return
  })mlir",
     false, true, "t.use", "t.def"},
    {"an argument of a sibling region", R"mlir(
  func.func @main(%arg0: i32) {
    "t.two"() ({
    ^bb0(%x: i32):
      "t.end"() : () -> ()
    }, {
      "t.use"(%arg0) : (i32) -> ()
    }) : () -> ()
    return
  })mlir",
     false, true, "t.use", "t.two", true},
    {"a value of a region used after its op", R"mlir(
  func.func @main(%arg0: i32) {
    "t.r"() ({
      %0 = "t.def"() : () -> i32
    }) : () -> ()
    "t.use"(%arg0) : (i32) -> ()
    return
  })mlir",
     false, true, "t.use", "t.def"},
    {"a func.return of the wrong type", R"mlir(
  func.func @main(%arg0: i32) -> i64 {
    "func.return"(%arg0) : (i32) -> ()
  })mlir",
     false},
    {"a function without a terminator", R"mlir(
  func.func @main(%arg0: i32) {
    func.call @main(%arg0) : (i32) -> ()
  })mlir",
     false},
    {"an unknown op of the func dialect", R"mlir(
  func.func @main() {
    "func.unknown"() : () -> ()
    return
  })mlir",
     false},
    {"a call of a missing function", R"mlir(
  func.func @main(%arg0: i32) {
    func.call @missing(%arg0) : (i32) -> ()
    return
  })mlir",
     false},
    {"a symbol defined twice", R"mlir(
  func.func @main() {
    return
  }
  func.func @main() {
    return
  })mlir",
     false},
    {"a branch out of the middle of a block", R"mlir(
  func.func @main() {
    "t.r"() ({
      "t.br"()[^bb1] : () -> ()
      "t.after"() : () -> ()
    ^bb1:
      "t.end"() : () -> ()
    }) : () -> ()
    return
  })mlir",
     false},
};

/// The diagnostics emitted while `run` runs, one line each with its notes.
template <typename Run>
std::string diagnosticsOf(MLIRContext &context, Run run) {
  std::string text;
  llvm::raw_string_ostream os(text);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    os << diag.getLocation() << ": " << diag << "\n";
    for (Diagnostic &note : diag.getNotes())
      os << "  " << note.getLocation() << ": " << note << "\n";
    return success();
  });
  run();
  return text;
}

Operation *firstNamed(ModuleOp module, llvm::StringRef name) {
  Operation *found = nullptr;
  module->walk([&](Operation *op) {
    if (!found && op->getName().getStringRef() == name)
      found = op;
  });
  return found;
}

} // namespace

void testVerifierAgainstMlir() {
  Group group("the verifier against MLIR's");
  DialectRegistry registry;
  registry.insert<func::FuncDialect>();
  MLIRContext context(registry);
  context.allowUnregisteredDialects();
  bool oneWalk = fastPathEnabled(FastPath::OneWalkVerifier);
  for (const Case &c : cases) {
    std::string what = c.what;
    OwningOpRef<ModuleOp> module;
    std::string parseErrors = diagnosticsOf(context, [&] {
      module = parseSourceString<ModuleOp>(
          c.text, ParserConfig(&context, /*verifyAfterParse=*/false));
    });
    check(module && parseErrors.empty(), what + ": parses");
    if (!module)
      continue;
    if (c.user) {
      Operation *user = firstNamed(*module, c.user);
      Operation *definition = firstNamed(*module, c.definition);
      if (!user || !definition)
        continue;
      user->setOperand(0, c.argument
                              ? Value(definition->getRegion(0).getArgument(0))
                              : Value(definition->getResult(0)));
    }
    bool mlirAccepts = false, accepts = false;
    std::string mlirErrors = diagnosticsOf(
        context, [&] { mlirAccepts = succeeded(mlir::verify(*module)); });
    std::optional<ModuleOps> collected;
    std::string errors = diagnosticsOf(context, [&] {
      accepts = succeeded(verifyModule(*module, &collected));
    });
    check(mlirAccepts == c.valid, what + ": mlir::verify decides as expected");
    check(accepts == mlirAccepts && errors == mlirErrors,
          what + ": the same verdict and diagnostics as mlir::verify:\n" +
              errors + "against\n" + mlirErrors);
    check(collected.has_value() == (oneWalk && c.valid && c.oneWalk),
          what + (oneWalk && c.valid && c.oneWalk
                      ? ": the one walk proves it valid"
                      : ": nothing collected"));
  }
}

} // namespace hostoffload::unittest
