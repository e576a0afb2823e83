//===- SourceWindows.h - offload-opt's diagnostic handler -------*- C++ -*-===//
//
// MLIR's SourceMgrDiagnosticHandler, with two additions for large models: a
// line wider than 160 columns (`lowered.as_text()` prints the entry's signature
// on one) is shown as a window around the caret, and findings of a module
// without debug info are followed by a note on how to get Python lines.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_TOOLS_OFFLOADOPT_SOURCEWINDOWS_H
#define HOSTOFFLOAD_TOOLS_OFFLOADOPT_SOURCEWINDOWS_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>

namespace hostoffload {

/// Prints to llvm::errs() as MLIR's handler, with windows and the note.
class SourceWindowsHandler : public mlir::SourceMgrDiagnosticHandler {
public:
  /// `sourceMgr` holds the input, if it is known (MLIR's handler reads the
  /// other files it shows lines of).
  SourceWindowsHandler(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context);
  /// Prints the note on debug info, if the findings printed call for it.
  ~SourceWindowsHandler();

private:
  void handle(mlir::Diagnostic &diagnostic);
  /// The window shown for `loc`'s line if it is too wide: the text, and the
  /// caret's column (none under text that is not ASCII, as in llvm).
  std::optional<std::pair<std::string, std::optional<size_t>>>
  getWindow(mlir::Location loc);
  /// Notes the file of `diagnostic` if it is a finding, and whether a
  /// location of it or of its notes is in a Python file.
  void noteFindingLocations(const mlir::Diagnostic &diagnostic);

  bool showsColors;
  /// The text of each line getWindow looked at, by file name and number.
  llvm::DenseMap<std::pair<const void *, unsigned>, llvm::StringRef> lines;
  /// The file of the first finding ("" if none), and whether a finding or a
  /// note of one was in a Python file.
  std::optional<std::string> firstFindingFile;
  bool findingInPythonFile = false;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_TOOLS_OFFLOADOPT_SOURCEWINDOWS_H
