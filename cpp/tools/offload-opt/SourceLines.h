//===- SourceLines.h - the lines of the input, found as asked for -*- C++
//-*-===//
//
// MLIR's handler finds a location's source line through llvm::SourceMgr, which
// builds a table of every line end of the buffer on the first request, a byte
// at a time: 27 ms for the 93 MB of a million-op module, a third of the first
// check of the synthetic shapes, whose warnings show lines of the input.
// SourceLines finds line starts with memchr from the last one found, keeping
// the start of every 4096th line so that an earlier line costs at most that
// many line ends.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_TOOLS_OFFLOADOPT_SOURCELINES_H
#define HOSTOFFLOAD_TOOLS_OFFLOADOPT_SOURCELINES_H

#include "llvm/ADT/StringRef.h"

#include <vector>

namespace hostoffload {

/// The lines of one text, numbered from 1 and ended by '\n' as
/// llvm::SourceMgr numbers them.
class SourceLines {
public:
  explicit SourceLines(llvm::StringRef text);

  /// The first byte of line `line`, or null where the text has fewer lines
  /// (or `line` is 0).
  const char *getLineStart(unsigned line);

private:
  static constexpr unsigned kLinesPerCheckpoint = 4096;

  llvm::StringRef text;
  /// The start of line 1 + i * kLinesPerCheckpoint at index i, for each such
  /// line found so far.
  std::vector<const char *> checkpoints;
  /// The line found last and its start.
  unsigned cursorLine = 1;
  const char *cursor;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_TOOLS_OFFLOADOPT_SOURCELINES_H
