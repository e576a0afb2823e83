//===- SourceLines.cpp - the lines of the input, found ahead --------------===//

#include "SourceLines.h"

#include "hostoffload/FastPaths.h"
#include "hostoffload/WorkerThread.h"

#include <cstdint>
#include <cstring>

namespace hostoffload {

/// The worker that finds the lines of large inputs.
static WorkerThread &getLineScanner() {
  static auto *scanner = new WorkerThread();
  return *scanner;
}

SourceLines::SourceLines(llvm::StringRef text)
    : text(text), checkpoints{text.begin()} {
  if (text.size() < kScanAheadBytes ||
      !fastPathEnabled(FastPath::DiagnosticFrames))
    return;
  checkpoints.reserve(text.size() / 64 / kLinesPerCheckpoint + 1);
  // Without a thread, the lines are found as they are asked for.
  llvm::unique_function<void()> scan = [this] { addCheckpoints(SIZE_MAX); };
  scanning = getLineScanner().post(scan);
}

SourceLines::~SourceLines() { waitForScan(); }

void SourceLines::waitForScan() {
  if (!scanning)
    return;
  getLineScanner().waitUntilIdle();
  scanning = false;
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
