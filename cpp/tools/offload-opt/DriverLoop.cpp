//===- DriverLoop.cpp - mlir-opt's work without the teardown --------------===//
//
// Follows MlirOptMain's processBuffer and performActions (MLIR 22) step by
// step for the options needsMlirOptMain lets through.
//
//===----------------------------------------------------------------------===//

#include "DriverLoop.h"

#include "CachedDiagnosticHandler.h"

#include "hostoffload/FastPaths.h"
#include "hostoffload/Parse.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Debug/CLOptionsSetup.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Tools/ParseUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <sys/stat.h>
#include <unistd.h>

bool hostoffload::needsMlirOptMain(const mlir::MlirOptMainConfig &config) {
  if (!config.inputSplitMarker().empty() || config.shouldVerifyDiagnostics() ||
      !config.getIrdlFile().empty() || config.shouldRunReproducer() ||
      !config.getReproducerFilename().empty() || config.shouldVerifyRoundtrip())
    return true;
  // MlirOptMain filters diagnostics only when one of these is changed.
  if (config.getDiagnosticVerbosityLevel() !=
          mlir::VerbosityLevel::ErrorsWarningsAndRemarks ||
      !config.shouldShowNotes())
    return true;
  // No pass this driver registers emits optimization remarks, so the remark
  // engine MlirOptMain installs matters only when the user configures it.
  return config.shouldEmitRemarks() ||
         config.getRemarkFormat() != mlir::RemarkFormat::REMARK_FORMAT_STDOUT;
}

/// Prints `op` as MlirOptMain does: bytecode if asked for, else text with
/// the printing options of the command line.
static mlir::LogicalResult
printResult(mlir::Operation *op, llvm::raw_ostream &output,
            const mlir::MlirOptMainConfig &config,
            mlir::FallbackAsmResourceMap &fallbackResourceMap) {
  if (config.shouldEmitBytecode()) {
    mlir::BytecodeWriterConfig writerConfig(fallbackResourceMap);
    if (std::optional<int64_t> version = config.bytecodeVersionToEmit())
      writerConfig.setDesiredBytecodeVersion(*version);
    if (config.shouldElideResourceDataFromBytecode())
      writerConfig.setElideResourceDataFlag();
    return mlir::writeBytecodeToFile(op, output, writerConfig);
  }
  if (config.bytecodeVersionToEmit())
    return mlir::emitError(mlir::UnknownLoc::get(op->getContext()))
           << "bytecode version while not emitting bytecode";
  mlir::AsmState asmState(op, mlir::OpPrintingFlags(), /*locationMap=*/nullptr,
                          &fallbackResourceMap);
  output << mlir::OpWithState(op, asmState) << '\n';
  return mlir::success();
}

bool hostoffload::isNullDevice(llvm::StringRef outputFilename) {
  struct stat output;
  struct stat null;
  int status = outputFilename == "-"
                   ? fstat(STDOUT_FILENO, &output)
                   : stat(outputFilename.str().c_str(), &output);
  if (status != 0 || !S_ISCHR(output.st_mode) || stat("/dev/null", &null) != 0)
    return false;
  return S_ISCHR(null.st_mode) && output.st_rdev == null.st_rdev;
}

mlir::LogicalResult hostoffload::processWithoutTeardown(
    llvm::raw_ostream &output, std::unique_ptr<llvm::MemoryBuffer> input,
    mlir::DialectRegistry &registry, const mlir::MlirOptMainConfig &config,
    bool outputDiscarded) {
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  // Multithreading as --mlir-disable-threading says. The context is destroyed
  // on return, which frees what it uniqued and touches no operation.
  mlir::MLIRContext context(registry);
  context.allowUnregisteredDialects(config.shouldAllowUnregisteredDialects());
  mlir::tracing::InstallDebugHandler debugHandler(context,
                                                  config.getDebugConfig());
  CachedDiagnosticHandler diagnosticHandler(*sourceMgr, &context);

  mlir::DefaultTimingManager timingManager;
  mlir::applyDefaultTimingManagerCLOptions(timingManager);
  mlir::TimingScope timing = timingManager.getRootScope();

  // Resources of dialects that are not loaded pass through to the output;
  // a parse done again reads them anew. A text parsed in parts has none.
  auto fallbackResourceMap = std::make_unique<mlir::FallbackAsmResourceMap>();
  auto parse = [&] {
    fallbackResourceMap = std::make_unique<mlir::FallbackAsmResourceMap>();
    mlir::ParserConfig parserConfig(&context, config.shouldVerifyOnParsing(),
                                    fallbackResourceMap.get());
    return mlir::parseSourceFileForTool(sourceMgr, parserConfig,
                                        !config.shouldUseExplicitModule());
  };
  mlir::TimingScope parserTiming = timing.nest("Parser");
  const llvm::MemoryBuffer &buffer =
      *sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
  mlir::OwningOpRef<mlir::Operation *> parsed = hostoffload::parseWithFastPaths(
      buffer.getBuffer(), buffer.getBufferIdentifier(), &context, parse);
  // Released at once, so that it is never destroyed (see the header), but on
  // the plain path, where it is destroyed on return as MlirOptMain does.
  mlir::Operation *op = parsed.get();
  if (fastPathEnabled(FastPath::KeptModule))
    (void)parsed.release();
  parserTiming.stop();
  if (!op)
    return mlir::failure();

  mlir::PassManager pm(op->getName(), mlir::PassManager::Nesting::Implicit);
  pm.enableVerifier(config.shouldVerifyPasses());
  if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
    return mlir::failure();
  pm.enableTiming(timing);
  if (mlir::failed(config.setupPassPipeline(pm)) || mlir::failed(pm.run(op)))
    return mlir::failure();

  // Printing a large module is much of a check run, for a user who asked for
  // no output. Bytecode is still written: writing it can fail.
  if (outputDiscarded && !config.shouldEmitBytecode() &&
      !config.bytecodeVersionToEmit())
    return mlir::success();
  mlir::TimingScope outputTiming = timing.nest("Output");
  return printResult(op, output, config, *fallbackResourceMap);
}
