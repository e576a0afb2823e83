//===- SourceLines.cpp - the lines of the input, found as asked for -------===//

#include "SourceLines.h"

#include <cstring>

namespace hostoffload {

SourceLines::SourceLines(llvm::StringRef text)
    : text(text), checkpoints{text.begin()}, cursor(text.begin()) {}

const char *SourceLines::getLineStart(unsigned line) {
  if (line == 0)
    return nullptr;
  if (line < cursorLine) {
    unsigned index = (line - 1) / kLinesPerCheckpoint;
    cursor = checkpoints[index];
    cursorLine = index * kLinesPerCheckpoint + 1;
  }
  while (cursorLine < line) {
    const void *newline =
        std::memchr(cursor, '\n', static_cast<size_t>(text.end() - cursor));
    if (!newline)
      return nullptr;
    cursor = static_cast<const char *>(newline) + 1;
    ++cursorLine;
    // Checkpoints are only added past the last: every line before the
    // cursor's was found once, in order.
    if ((cursorLine - 1) % kLinesPerCheckpoint == 0 &&
        (cursorLine - 1) / kLinesPerCheckpoint == checkpoints.size())
      checkpoints.push_back(cursor);
  }
  return cursor;
}

} // namespace hostoffload
