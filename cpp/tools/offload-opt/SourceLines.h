//===- SourceLines.h - the lines of the input, found ahead ------*- C++ -*-===//
//
// MLIR's handler finds a location's source line through llvm::SourceMgr, which
// builds a table of every line end of the buffer on the first request, a byte
// at a time. SourceLines keeps the start of every 16th line, found with
// memchr. For a large input they are found on a worker thread
// (hostoffload/WorkerThread.h) while the input is parsed, so that the check's
// diagnostics, printed after it, do not read the whole input again. A fast
// path, with the handler's frames (CachedDiagnosticHandler.h).
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_TOOLS_OFFLOADOPT_SOURCELINES_H
#define HOSTOFFLOAD_TOOLS_OFFLOADOPT_SOURCELINES_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <vector>

namespace hostoffload {

/// The lines of one text, numbered from 1 and ended by '\n' as
/// llvm::SourceMgr numbers them.
class SourceLines {
public:
  /// The lines of `text`, which must outlive this. From 1 MiB on, their
  /// starts are found on a worker thread from here on.
  explicit SourceLines(llvm::StringRef text);
  ~SourceLines();
  SourceLines(const SourceLines &) = delete;
  SourceLines &operator=(const SourceLines &) = delete;

  /// The first byte of line `line`, or null where the text has fewer lines
  /// (or `line` is 0). Waits for the thread, if it still runs.
  const char *getLineStart(unsigned line);

private:
  static constexpr unsigned kLinesPerCheckpoint = 16;
  /// Below this, the lines are found as they are asked for: a thread costs
  /// more than reading the text.
  static constexpr size_t kScanAheadBytes = size_t(1) << 20;

  /// The start of the line after the one `position` is on; null if that is
  /// the last.
  const char *getNextLineStart(const char *position) const;
  /// Finds the starts of lines past the last checkpoint until there are
  /// `count` checkpoints or the text ends.
  void addCheckpoints(size_t count);
  void waitForScan();

  llvm::StringRef text;
  /// The start of line 1 + i * kLinesPerCheckpoint at index i, for each such
  /// line found so far. Only the scanning thread touches it while it runs.
  std::vector<const char *> checkpoints;
  /// Whether the worker thread finds them now.
  bool scanning = false;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_TOOLS_OFFLOADOPT_SOURCELINES_H
