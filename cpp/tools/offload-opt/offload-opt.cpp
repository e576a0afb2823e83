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

namespace {

/// A command-line option whose default differs from mlir-opt's. The flag is
/// added unless the user spells the option out.
struct DefaultFlag {
  llvm::StringLiteral optionName;
  llvm::StringLiteral flag;
};

} // namespace

static constexpr DefaultFlag kDefaultFlags[] = {
    // JAX output always contains StableHLO, CHLO and Shardy ops.
    {"allow-unregistered-dialect", "--allow-unregistered-dialect"},
    // Printing the whole module with every diagnostic is unreadable on real
    // models, which have hundreds of thousands of ops.
    {"mlir-print-op-on-diagnostic", "--mlir-print-op-on-diagnostic=false"},
};

/// The exit status: 1 only for an error in the program (E1200, HOE101 under
/// strict, an E1200 the fix cannot fix), 2 for input or options that could
/// not be used, so that a script can tell a verdict from unreadable input.
static constexpr int kExitClean = 0;
static constexpr int kExitProgramError = 1;
static constexpr int kExitBadInput = 2;

static bool namesOption(llvm::StringRef arg, llvm::StringRef optionName) {
  if (!arg.consume_front("-"))
    return false;
  arg.consume_front("-");
  return arg.split('=').first == optionName;
}

static void printVersion(llvm::raw_ostream &os) {
  os << "offload-opt (hostoffload) " << HOSTOFFLOAD_VERSION << "\n"
     << "MLIR " << LLVM_VERSION_STRING << "\n";
}

int main(int argc, char **argv) {
  // A large model can produce tens of thousands of diagnostics; unbuffered,
  // each would cost several system calls. raw_ostream flushes at exit.
  llvm::errs().SetBuffered();
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect>();
  hostoffload::registerHostOffloadPasses();
  llvm::cl::SetVersionPrinter(printVersion);

  llvm::SmallVector<char *> args(argv, argv + argc);
  llvm::SmallVector<std::string> addedFlags;
  for (const DefaultFlag &defaultFlag : kDefaultFlags) {
    bool userSetsOption = llvm::any_of(args, [&](llvm::StringRef arg) {
      return namesOption(arg, defaultFlag.optionName);
    });
    if (!userSetsOption)
      addedFlags.push_back(defaultFlag.flag.str());
  }
  for (std::string &flag : addedFlags)
    args.insert(args.begin() + 1, flag.data());

  mlir::LogicalResult result = mlir::MlirOptMain(
      static_cast<int>(args.size()), args.data(),
      "offload-opt: host-offload checks and fixes for StableHLO\n", registry);
  if (mlir::succeeded(result))
    return kExitClean;
  return hostoffload::hasRecordedProgramError() ? kExitProgramError
                                                : kExitBadInput;
}
