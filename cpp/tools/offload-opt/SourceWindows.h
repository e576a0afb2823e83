//===- SourceWindows.h - offload-opt's diagnostic handler -------*- C++ -*-===//
//
// MLIR's SourceMgrDiagnosticHandler, with two additions for the findings of
// large models. A source line wider than kWidestSourceLineShown is shown as a
// window around the caret: `lowered.as_text()` prints the signature of a
// model's entry function on one line, and every note at an argument showed all
// of it. And findings none of whose locations is in a Python file (a module
// without debug info) are followed, once, by a note that says how to get Python
// lines instead.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_TOOLS_OFFLOADOPT_SOURCEWINDOWS_H
#define HOSTOFFLOAD_TOOLS_OFFLOADOPT_SOURCEWINDOWS_H

#include "mlir/IR/Diagnostics.h"

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
  /// The file of the first finding ("" if none), and whether a finding or a
  /// note of one was in a Python file.
  std::optional<std::string> firstFindingFile;
  bool findingInPythonFile = false;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_TOOLS_OFFLOADOPT_SOURCEWINDOWS_H
