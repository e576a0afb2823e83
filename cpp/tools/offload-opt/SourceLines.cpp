//===- SourceLines.cpp - the lines of the input, found ahead --------------===//

#include "SourceLines.h"

#include "hostoffload/FastPaths.h"

#include <cstdint>
#include <cstring>

namespace hostoffload {

SourceLines::SourceLines(llvm::StringRef text)
    : text(text), checkpoints{text.begin()} {
  // The thread is a fast path (hostoffload/FastPaths.h).
  if (text.size() < kScanAheadBytes || !fastPathEnabled(FastPath::InputLines))
    return;
  checkpoints.reserve(text.size() / 64 / kLinesPerCheckpoint + 1);
  auto scan = [](void *lines) -> void * {
    static_cast<SourceLines *>(lines)->addCheckpoints(SIZE_MAX);
    return nullptr;
  };
  // Without a thread, the lines are found as they are asked for.
  pthread_t thread;
  if (pthread_create(&thread, nullptr, scan, this) == 0)
    scanner = thread;
}

SourceLines::~SourceLines() { waitForScan(); }

void SourceLines::waitForScan() {
  if (!scanner)
    return;
  pthread_join(*scanner, nullptr);
  scanner.reset();
}

const char *SourceLines::getNextLineStart(const char *position) const {
  const void *newline =
      std::memchr(position, '\n', static_cast<size_t>(text.end() - position));
  return newline ? static_cast<const char *>(newline) + 1 : nullptr;
}

void SourceLines::addCheckpoints(size_t count) {
  const char *position = checkpoints.back();
  while (checkpoints.size() < count) {
    for (unsigned i = 0; i < kLinesPerCheckpoint; ++i)
      if (!(position = getNextLineStart(position)))
        return;
    checkpoints.push_back(position);
  }
}

const char *SourceLines::getLineStart(unsigned line) {
  if (line == 0)
    return nullptr;
  waitForScan();
  size_t index = (line - 1) / kLinesPerCheckpoint;
  addCheckpoints(index + 1);
  if (index >= checkpoints.size())
    return nullptr;
  const char *position = checkpoints[index];
  for (size_t i = index * kLinesPerCheckpoint + 1; i < line && position; ++i)
    position = getNextLineStart(position);
  return position;
}

} // namespace hostoffload
