//===- offload-opt.cpp - the hostoffload driver ---------------------------===//
//
// mlir-opt with the host-offload passes and the context set-up of
// hostoffload/Dialects.h: StableHLO, CHLO, MHLO and Shardy are parsed as
// unregistered ops, which is allowed by default because JAX output always
// contains them. MlirOptMain does the work; what is added is the diagnostic
// handler of SourceWindows.h and the exit status.
//
//===----------------------------------------------------------------------===//

#include "SourceWindows.h"

#include "hostoffload/Dialects.h"
#include "hostoffload/FastPaths.h"
#include "hostoffload/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <unistd.h>

/// Command-line flags whose default differs from mlir-opt's, added unless the
/// user spells the option out.
static constexpr std::pair<llvm::StringLiteral, llvm::StringLiteral>
    kDefaultFlags[] = {
        // JAX output always contains StableHLO, CHLO and Shardy ops.
        {"allow-unregistered-dialect", "--allow-unregistered-dialect"},
        // Printing the whole module with every diagnostic is unreadable on
        // real models, which have hundreds of thousands of ops.
        {"mlir-print-op-on-diagnostic", "--mlir-print-op-on-diagnostic=false"},
};

/// The exit status: 1 only for an error in the program (E1200, HOE101 under
/// strict, an E1200 the fix cannot fix), 2 for input or options that could
/// not be used, so that a script can tell a verdict from unreadable input;
/// for a reader that closed the output early (`offload-opt ... | head`), the
/// status a shell reports for a command that SIGPIPE ended.
static constexpr int kExitClean = 0;
static constexpr int kExitProgramError = 1;
static constexpr int kExitBadInput = 2;
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

namespace {

/// Holds the handler of SourceWindows.h for the life of a pass manager, which
/// ends before that of its context.
struct SourceWindowsInstrumentation : mlir::PassInstrumentation {
  SourceWindowsInstrumentation(const llvm::MemoryBuffer *input,
                               mlir::MLIRContext *context)
      : handler(sourceMgr, context) {
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(),
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
  }

  llvm::SourceMgr sourceMgr;
  hostoffload::SourceWindowsHandler handler;
};

} // namespace

/// `config` with the handler of SourceWindows.h in place of MLIR's for the
/// diagnostics of the pipeline, where MLIR's handler takes the input whole
/// and prints every diagnostic as it comes.
static mlir::MlirOptMainConfig
withSourceWindows(mlir::MlirOptMainConfig config,
                  const llvm::MemoryBuffer *input) {
  if (!config.inputSplitMarker().empty() || config.shouldVerifyDiagnostics() ||
      !config.shouldShowNotes() ||
      config.getDiagnosticVerbosityLevel() !=
          mlir::VerbosityLevel::ErrorsWarningsAndRemarks)
    return config;
  mlir::MlirOptMainConfig user = config;
  config.setPassPipelineSetupFn([=](mlir::PassManager &pm) {
    pm.addInstrumentation(
        std::make_unique<SourceWindowsInstrumentation>(input, pm.getContext()));
    return user.setupPassPipeline(pm);
  });
  return config;
}

int main(int argc, char **argv) {
  // LLVM's own SIGPIPE handler exits with EX_IOERR (74).
  llvm::InitLLVM initLLVM(argc, argv, /*InstallPipeSignalExitHandler=*/false);
  std::signal(SIGPIPE, exitOnClosedPipe);
  // A large model can produce tens of thousands of diagnostics: unbuffered,
  // each would cost several system calls. raw_ostream flushes at exit.
  llvm::errs().SetBufferSize(size_t(64) << 10);
  mlir::DialectRegistry registry;
  hostoffload::registerDialects(registry);
  hostoffload::registerHostOffloadPasses();
  llvm::cl::SetVersionPrinter(printVersion);

  llvm::SmallVector<char *> args(argv, argv + argc);
  llvm::SmallVector<std::string> addedFlags;
  for (auto [optionName, flag] : kDefaultFlags)
    if (llvm::none_of(args, [&, optionName = optionName](llvm::StringRef arg) {
          return namesOption(arg, optionName);
        }))
      addedFlags.push_back(flag.str());
  for (std::string &flag : addedFlags)
    args.insert(args.begin() + 1, flag.data());

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      static_cast<int>(args.size()), args.data(),
      "offload-opt: host-offload checks and fixes for StableHLO\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input;
  std::unique_ptr<llvm::ToolOutputFile> output;
  // These print and return before reading any input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    input = llvm::MemoryBuffer::getMemBuffer("");
  else if (!(input = mlir::openInputFile(inputFilename, &errorMessage)))
    llvm::errs() << errorMessage << "\n";
  if (input && !(output = mlir::openOutputFile(outputFilename, &errorMessage)))
    llvm::errs() << errorMessage << "\n";
  if (!input || !output)
    return kExitBadInput;
  const llvm::MemoryBuffer *inputBuffer = input.get();
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry,
                                     withSourceWindows(config, inputBuffer))))
    return hostoffload::hasRecordedProgramError() ? kExitProgramError
                                                  : kExitBadInput;
  output->keep();
  return kExitClean;
}
