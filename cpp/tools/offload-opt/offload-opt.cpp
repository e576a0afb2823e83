//===- offload-opt.cpp - the hostoffload driver ---------------------------===//
//
// mlir-opt with the func dialect and the host-offload passes. StableHLO,
// CHLO and Shardy are parsed as unregistered dialects, which is allowed by
// default because JAX output always contains them. MLIR's verifier is off:
// ours (ModuleVerifier.h) runs after parsing and after each pass instead,
// because MLIR's rejects a func.call inside an unregistered Shardy op.
//
//===----------------------------------------------------------------------===//

#include "DriverLoop.h"

#include "hostoffload/FastPaths.h"
#include "hostoffload/ModuleVerifier.h"
#include "hostoffload/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <unistd.h>

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
/// A reader that closed the output early (`offload-opt ... | head`): the
/// status a shell reports for a command that SIGPIPE ended, as
/// `hostoffload check` exits then.
static constexpr int kExitClosedPipe = 128 + SIGPIPE;

static bool namesOption(llvm::StringRef arg, llvm::StringRef optionName) {
  if (!arg.consume_front("-"))
    return false;
  arg.consume_front("-");
  return arg.split('=').first == optionName;
}

/// Ends the driver quietly when its reader has gone, whatever the disposition
/// of SIGPIPE it inherited: the offload-opt shim is Python, which ignores
/// SIGPIPE, and the exec keeps it ignored; every write then fails, and LLVM
/// ends with "IO failure on output stream" and exit 1, the status of an E1200.
static void exitOnClosedPipe(int) {
  // Removes a partly written -o file, as an interrupt does.
  llvm::sys::RunInterruptHandlers();
  _exit(kExitClosedPipe);
}

static void printVersion(llvm::raw_ostream &os) {
  os << "offload-opt (hostoffload) " << HOSTOFFLOAD_VERSION << "\n"
     << "MLIR " << LLVM_VERSION_STRING << "\n"
     << "fast paths: " << hostoffload::describeFastPaths() << "\n";
}

/// `config` with MLIR's verifier off and ours in the pipeline instead: after
/// parsing and after each pass of the user's pipeline, unless the user turned
/// that verification off (--mlir-very-unsafe-disable-verifier-on-parsing,
/// --verify-each=false).
static mlir::MlirOptMainConfig
withModuleVerifier(mlir::MlirOptMainConfig config) {
  bool verifyOnParsing = config.shouldVerifyOnParsing();
  bool verifyPasses = config.shouldVerifyPasses();
  // A copy that still adds the user's pipeline (and dumps it if asked).
  mlir::MlirOptMainConfig user = config;
  config.verifyOnParsing(false).verifyPasses(false);
  config.setPassPipelineSetupFn([=](mlir::PassManager &pm) {
    mlir::PassManager userPipeline(pm.getContext(), pm.getOpAnchorName(),
                                   mlir::OpPassManager::Nesting::Implicit);
    if (mlir::failed(user.setupPassPipeline(userPipeline)))
      return mlir::failure();
    if (verifyOnParsing)
      pm.addPass(hostoffload::createModuleVerifierPass());
    // A pass cannot be moved from one pass manager to another, so each is
    // added again from its textual form.
    for (mlir::Pass &pass : userPipeline.getPasses()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      pass.printAsTextualPipeline(os);
      if (mlir::failed(mlir::parsePassPipeline(text, pm)))
        return mlir::failure();
      if (verifyPasses)
        pm.addPass(hostoffload::createModuleVerifierPass());
    }
    return mlir::success();
  });
  return config;
}

/// What MlirOptMain does with the file names, for a config of our own; the
/// input is processed without MlirOptMain unless the config needs it.
static mlir::LogicalResult runDriver(llvm::StringRef inputFilename,
                                     llvm::StringRef outputFilename,
                                     mlir::DialectRegistry &registry,
                                     const mlir::MlirOptMainConfig &config) {
  // These print and return before reading any input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::MlirOptMain(llvm::outs(), llvm::MemoryBuffer::getMemBuffer(""),
                             registry, config);
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return mlir::failure();
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return mlir::failure();
  }
  mlir::LogicalResult processed =
      hostoffload::needsMlirOptMain(config)
          ? mlir::MlirOptMain(output->os(), std::move(input), registry, config)
          : hostoffload::processWithoutTeardown(
                output->os(), std::move(input), registry, config,
                hostoffload::fastPathEnabled(
                    hostoffload::FastPath::DiscardedOutput) &&
                    hostoffload::isNullDevice(outputFilename));
  if (mlir::failed(processed))
    return mlir::failure();
  output->keep();
  return mlir::success();
}

int main(int argc, char **argv) {
  // LLVM's own SIGPIPE handler exits with EX_IOERR (74).
  llvm::InitLLVM initLLVM(argc, argv, /*InstallPipeSignalExitHandler=*/false);
  std::signal(SIGPIPE, exitOnClosedPipe);
  // A fast path (hostoffload/FastPaths.h). A large model can produce tens of
  // thousands of diagnostics; unbuffered, each would cost several system
  // calls. raw_ostream flushes at exit. The buffer holds as much as a pipe
  // does on Linux, so that the reader is woken once a pipe's worth.
  if (hostoffload::fastPathEnabled(hostoffload::FastPath::StderrBuffer))
    llvm::errs().SetBufferSize(size_t(64) << 10);
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

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      static_cast<int>(args.size()), args.data(),
      "offload-opt: host-offload checks and fixes for StableHLO\n", registry);
  mlir::LogicalResult result = runDriver(
      inputFilename, outputFilename, registry,
      withModuleVerifier(mlir::MlirOptMainConfig::createFromCLOptions()));
  if (mlir::succeeded(result))
    return kExitClean;
  return hostoffload::hasRecordedProgramError() ? kExitProgramError
                                                : kExitBadInput;
}
