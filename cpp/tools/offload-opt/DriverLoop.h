//===- DriverLoop.h - mlir-opt's work without the teardown ------*- C++ -*-===//
//
// MlirOptMain owns the context and the parsed module and destroys both before
// it returns: on a large module that takes longer than the check itself, after
// the output is written. The loop here does the same work for the options it
// repeats exactly and leaves the module to the operating system. It also
// installs the project's diagnostic handler (CachedDiagnosticHandler.h), and
// parses with the library's fast paths (hostoffload/Parse.h): on the plain path
// (hostoffload/FastPaths.h) the loop still runs, but parses, destroys and
// prints as MlirOptMain does.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_TOOLS_OFFLOADOPT_DRIVERLOOP_H
#define HOSTOFFLOAD_TOOLS_OFFLOADOPT_DRIVERLOOP_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <memory>

namespace llvm {
class MemoryBuffer;
class raw_ostream;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class MlirOptMainConfig;
} // namespace mlir

namespace hostoffload {

/// Whether `config` asks for something that only MlirOptMain does (split
/// input, diagnostic verification, IRDL, reproducers, round-trip checks,
/// diagnostic filters, optimization remarks), so that processWithoutTeardown
/// must not be used.
bool needsMlirOptMain(const mlir::MlirOptMainConfig &config);

/// Whether the file `outputFilename` names ("-": standard output) is the
/// null device, where nothing written is ever read.
bool isNullDevice(llvm::StringRef outputFilename);

/// What MlirOptMain does with `input` for a `config` that does not need it:
/// parse (timed as "Parser"), run the pipeline, print the result to `output`
/// (timed as "Output"), with the same diagnostics and timing report. With
/// `outputDiscarded` (the output is the null device), the module is not
/// printed as text, which cannot fail and which no one would read; the
/// report then has no "Output". The parsed module is never destroyed: the
/// caller exits once the output is written, and the operating system frees
/// the memory. Both are fast paths: on the plain path the module is
/// destroyed before return (the caller passes `outputDiscarded` false).
mlir::LogicalResult processWithoutTeardown(
    llvm::raw_ostream &output, std::unique_ptr<llvm::MemoryBuffer> input,
    mlir::DialectRegistry &registry, const mlir::MlirOptMainConfig &config,
    bool outputDiscarded = false);

} // namespace hostoffload

#endif // HOSTOFFLOAD_TOOLS_OFFLOADOPT_DRIVERLOOP_H
