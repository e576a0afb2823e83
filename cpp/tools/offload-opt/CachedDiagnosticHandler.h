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
/// message goes to MLIR's handler. Two changes to what MLIR prints: a source
/// line wider than kWidestSourceLineShown is shown as a window around the
/// caret (see there), and findings none of whose locations is in a Python
/// file (a module without debug info) are followed, once, by a note that
/// says how to get Python lines instead (kWithoutDebugInfoHint).
class CachedDiagnosticHandler : public mlir::SourceMgrDiagnosticHandler {
public:
  /// `sourceMgr` must already hold the input, as its first buffer.
  CachedDiagnosticHandler(llvm::SourceMgr &sourceMgr,
                          mlir::MLIRContext *context);
  /// Prints the note on debug info, if the findings printed call for it.
  ~CachedDiagnosticHandler();

private:
  /// The part of a source line shown under a message when the line is too
  /// wide: the line's text around the column, "..." where it is cut, and the
  /// caret's column in it (none where the text is not ASCII, as
  /// llvm::SMDiagnostic shows no caret under such a line).
  struct SourceWindow {
    std::string text;
    std::optional<size_t> caret;
  };
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
    /// Whether MLIR's handler shows the source line.
    bool showsSourceLine = false;
    /// The window of a wide source line, shown after the message instead.
    std::optional<SourceWindow> window;
  };
  /// A location, and its severity and whether it shows the source line.
  using FrameKey = std::pair<const void *, unsigned>;
  /// A line of a file: its name's attribute and its number.
  using FileLine = std::pair<const void *, unsigned>;
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
  /// The text of the line `file` is on, without its end, if known: any line
  /// of the input, and the wide lines of other files that MLIR's handler
  /// has read. None otherwise, or where the file has no such line.
  std::optional<llvm::StringRef> getKnownLine(mlir::FileLineColLoc file);
  /// Remembers the line `file` is on, from the buffer MLIR's handler read
  /// its file into, so that the next message on it is formatted here.
  void rememberLine(mlir::FileLineColLoc file);
  /// The window shown for `file`'s line, if that line is known and wider
  /// than kWidestSourceLineShown and `file`'s column is on it.
  std::optional<SourceWindow> getWindow(mlir::FileLineColLoc file);
  /// Notes the file of `diagnostic`, if it is a finding (an error or a
  /// warning of the check, by its code), and whether a location of it or of
  /// its notes is in a Python file.
  void noteFindingLocations(const mlir::Diagnostic &diagnostic);

  bool showsColors;
  /// Whether every message is printed by MLIR's handler, its frame never
  /// reused: in colour, and on the plain path (hostoffload/FastPaths.h), where
  /// what stays of this handler is its windows and its note on debug info.
  bool formatsEveryMessage;
  std::string formatted;
  llvm::raw_string_ostream formattedStream{formatted};
  /// MLIR's handler printing into `formatted`. It is registered before this
  /// handler's own function, which the engine calls first and which always
  /// handles the diagnostic, so the engine never calls it.
  mlir::SourceMgrDiagnosticHandler formatter;
  llvm::DenseMap<FrameKey, FrameEntry> frames;
  /// The lines getKnownLine() has found: their text, or a null StringRef
  /// where the input has no such line.
  llvm::DenseMap<FileLine, llvm::StringRef> knownLines;
  /// The file of the first finding printed ("" where its location has
  /// none), and whether a finding or one of its notes was at a line of a
  /// Python file (the module has debug info).
  std::optional<std::string> firstFindingFile;
  bool findingInPythonFile = false;
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
