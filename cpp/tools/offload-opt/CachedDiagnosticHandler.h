//===- CachedDiagnosticHandler.h - diagnostics formatted once -*- C++ -*-===//
//
// A check of a large JAX model reports thousands of E1200, each with the call
// stack of its location and five or six notes: tens of thousands of printed
// messages at a few hundred distinct locations. MLIR's
// SourceMgrDiagnosticHandler looks for each message's file location, reads its
// source line and formats it anew every time; this handler prints the same
// bytes and does that once per location.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_TOOLS_OFFLOADOPT_CACHEDDIAGNOSTICHANDLER_H
#define HOSTOFFLOAD_TOOLS_OFFLOADOPT_CACHEDDIAGNOSTICHANDLER_H

#include "SourceLines.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <utility>

namespace hostoffload {

/// Prints each diagnostic to llvm::errs() byte for byte as
/// mlir::SourceMgrDiagnosticHandler would (with its default call stack limit
/// and no location filter), and formats each location once: the text before
/// and after a message at a location (its file position, severity, source line
/// and caret) comes from MLIR's handler the first time and is reused after.
/// A file location in the input itself is formatted here instead, the same
/// way, with its line found by SourceLines. When errs() shows colours, every
/// message goes to MLIR's handler. One change to what MLIR prints: a source
/// line longer than kLongestSourceLineShown is not shown (see there).
class CachedDiagnosticHandler : public mlir::SourceMgrDiagnosticHandler {
public:
  /// `sourceMgr` must already hold the input, as its first buffer.
  CachedDiagnosticHandler(llvm::SourceMgr &sourceMgr,
                          mlir::MLIRContext *context);

private:
  /// The text MLIR prints around a message at one location, or none when the
  /// message could not be told apart from it.
  struct Frame {
    std::string before;
    std::string after;
  };
  /// How a message at one location is printed: from its frame, if it has
  /// one, and whether with its source line.
  struct FrameEntry {
    std::optional<Frame> frame;
    bool showsSourceLine = false;
  };
  /// A location, and its severity and whether it shows the source line.
  using FrameKey = std::pair<const void *, unsigned>;
  /// A line of a file: its name's attribute and its number.
  using LongLine = std::pair<const void *, unsigned>;
  /// The "called from" notes printed after a message at one location, and
  /// the location the first note's is compared with.
  struct CallStack {
    std::string text;
    mlir::Location last;
  };

  void emit(mlir::Diagnostic &diagnostic);
  /// Prints the "called from" notes after a message at `loc`; returns the
  /// location the first note's is compared with.
  mlir::Location emitCallStack(mlir::Location loc);
  void emitMessage(mlir::Location loc, mlir::DiagnosticSeverity severity,
                   bool displaySourceLine,
                   llvm::function_ref<void(llvm::raw_ostream &)> printMessage);
  const FrameEntry &getFrame(mlir::Location loc,
                             mlir::DiagnosticSeverity severity,
                             bool displaySourceLine);
  /// Formats into `formatted` a message at a file location of the input
  /// with its source line, as MLIR's handler would, without the source
  /// manager's table of line ends (SourceLines.h). Returns false, formatting
  /// nothing, where MLIR's handler must: another kind of location, another
  /// file, or a line or column the input does not have.
  bool formatAtInputLine(mlir::Location loc, mlir::DiagnosticSeverity severity);

  bool showsColors;
  std::string formatted;
  llvm::raw_string_ostream formattedStream{formatted};
  /// MLIR's handler printing into `formatted`. It is registered before this
  /// handler's own function, which the engine calls first and which always
  /// handles the diagnostic, so the engine never calls it.
  mlir::SourceMgrDiagnosticHandler formatter;
  llvm::DenseMap<FrameKey, FrameEntry> frames;
  /// The lines found longer than kLongestSourceLineShown.
  llvm::DenseSet<LongLine> longLines;
  /// The input (the source manager's first buffer) and its lines.
  const llvm::MemoryBuffer &input;
  SourceLines inputLines;
  /// The call stack of each location a message was printed at, formatted
  /// once: an E1200 of a JAX model is printed at its output with the seven
  /// or so frames of the Python stack that made it. None where a frame is
  /// printed by MLIR's handler.
  llvm::DenseMap<const void *, std::optional<CallStack>> callStacks;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_TOOLS_OFFLOADOPT_CACHEDDIAGNOSTICHANDLER_H
