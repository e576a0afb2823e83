//===- offload-opt.cpp - the hostoffload driver ---------------------------===//
//
// mlir-opt with the func dialect and the host-offload passes. StableHLO,
// CHLO and Shardy are parsed as unregistered dialects, which is allowed by
// default because JAX output always contains them.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

static constexpr llvm::StringLiteral kAllowUnregisteredFlag =
    "--allow-unregistered-dialect";

static void printVersion(llvm::raw_ostream &os) {
  os << "offload-opt (hostoffload) " << HOSTOFFLOAD_VERSION << "\n"
     << "MLIR " << LLVM_VERSION_STRING << "\n";
}

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect>();
  hostoffload::registerHostOffloadPasses();
  llvm::cl::SetVersionPrinter(printVersion);

  llvm::SmallVector<char *> args(argv, argv + argc);
  bool userAllowsUnregistered =
      llvm::any_of(args, [](llvm::StringRef arg) {
        return arg.starts_with("--allow-unregistered-dialect") ||
               arg.starts_with("-allow-unregistered-dialect");
      });
  std::string allowFlag = kAllowUnregisteredFlag.str();
  if (!userAllowsUnregistered)
    args.insert(args.begin() + 1, allowFlag.data());

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      static_cast<int>(args.size()), args.data(),
      "offload-opt: host-offload checks and fixes for StableHLO\n", registry));
}
