//===- SourceLocations.cpp - the parser's locations of its own text -------===//
//
// MLIR's lexer gives every operation it parses the file, line and column of
// its text (`Lexer::getEncodedSourceLocation`), which the operation keeps
// unless a trailing `loc(...)` replaces it, and the generic parser asks once
// more for the position of every operation's type, which only an error would
// show. Each request made a string attribute of the file's name anew (hashing
// the name) and searched the buffer's table of line ends: on a JAX training
// step of 100k ops, 217k requests were 18 % of the parse's instructions.
//
// The links of `offload-opt` and of the Python extensions redirect the
// lexer's constructor and those requests here (`--wrap`, see CMakeLists.txt
// beside this file). The constructor is MLIR's; this file then remembers, for
// each lexer, the file name's attribute and how far it has counted the
// buffer's lines. The parser asks for positions in the order of the text, so a
// request mostly counts the line ends since the one before. A request before
// the line counted last, or from a lexer not seen (its record taken by
// another), goes to MLIR's own function. The location is the one MLIR makes:
// the line is one more than the line feeds before the position, the column
// one more than the bytes since the last of them. While a text whose ops
// carry their own locations is parsed, whole or in parts, without the
// lexer's (hostoffload/ParallelParse.h), the lexers of its thread give every
// position the placeholder `lexerPositionPlaceholder` names instead.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/FastPaths.h"
#include "hostoffload/ParallelParse.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include <array>
#include <cstring>
#include <mutex>
#include <optional>
#include <pthread.h>

namespace mlir {
class AsmParserCodeCompleteContext;
} // namespace mlir

/// MLIR's `Lexer::Lexer(const llvm::SourceMgr &, MLIRContext *,
/// AsmParserCodeCompleteContext *)`, called with the lexer as `self`.
extern "C" void
__real__ZN4mlir5LexerC1ERKN4llvm9SourceMgrEPNS_11MLIRContextEPNS_28AsmParserCodeCompleteContextE(
    void *self, const llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
    mlir::AsmParserCodeCompleteContext *codeCompleteContext);

/// MLIR's `Lexer::getEncodedSourceLocation(llvm::SMLoc)`.
extern "C" mlir::Location
__real__ZN4mlir5Lexer24getEncodedSourceLocationEN4llvm5SMLocE(void *self,
                                                              llvm::SMLoc loc);

namespace {

/// What is known of one lexer's buffer: its end, the attribute of its name,
/// and the line ends counted up to `counted`.
struct LexerLines {
  const void *lexer = nullptr;
  const char *bufferEnd = nullptr;
  mlir::StringAttr fileName;
  /// The line ends before `counted` are counted: `counted` is on line `line`,
  /// which starts at `lineStart`.
  const char *counted = nullptr;
  const char *lineStart = nullptr;
  unsigned line = 1;

  /// The line and column of `position`, if it is in the buffer and not
  /// before `lineStart` (which is not before the buffer); counts the line
  /// ends up to it.
  std::optional<std::pair<unsigned, unsigned>>
  lineAndColumn(const char *position) {
    if (position < lineStart || position > bufferEnd)
      return std::nullopt;
    while (counted < position) {
      const void *lineEnd = std::memchr(counted, '\n', position - counted);
      if (!lineEnd) {
        counted = position;
        break;
      }
      ++line;
      counted = static_cast<const char *>(lineEnd) + 1;
      lineStart = counted;
    }
    return std::pair<unsigned, unsigned>{line, position - lineStart + 1};
  }
};

/// The lexers seen most recently. A few suffice: a parse has one lexer, and
/// nested ones for the bodies of some dialect attributes.
class LexerTable {
public:
  void add(const void *lexer, const llvm::SourceMgr &sourceMgr,
           mlir::MLIRContext *context) {
    const llvm::MemoryBuffer *buffer =
        sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
    LexerLines lines;
    lines.lexer = lexer;
    lines.bufferEnd = buffer->getBufferEnd();
    // The name as MLIR's location of a file name makes it (an empty name is
    // "-"), once.
    lines.fileName =
        mlir::FileLineColLoc::get(context, buffer->getBufferIdentifier(), 1, 1)
            .getFilename();
    lines.counted = buffer->getBufferStart();
    lines.lineStart = lines.counted;
    std::lock_guard<std::mutex> lock(mutex);
    LexerLines *entry = find(lexer);
    if (!entry) {
      entry = &entries[next];
      next = (next + 1) % entries.size();
    }
    *entry = lines;
  }

  /// The location MLIR's lexer would give `position`, or none if this table
  /// cannot tell it.
  std::optional<mlir::Location> locate(const void *lexer,
                                       const char *position) {
    mlir::StringAttr fileName;
    std::optional<std::pair<unsigned, unsigned>> lineAndColumn;
    {
      std::lock_guard<std::mutex> lock(mutex);
      LexerLines *entry = find(lexer);
      if (!entry)
        return std::nullopt;
      lineAndColumn = entry->lineAndColumn(position);
      fileName = entry->fileName;
    }
    if (!lineAndColumn)
      return std::nullopt;
    return mlir::FileLineColLoc::get(fileName, lineAndColumn->first,
                                     lineAndColumn->second);
  }

  /// Around a fork: no other thread holds the lock while the process is
  /// copied; in the child the forking thread, its only one, lets it go.
  void lockForFork() { mutex.lock(); }
  void unlockAfterFork() { mutex.unlock(); }

private:
  LexerLines *find(const void *lexer) {
    for (LexerLines &entry : entries)
      if (entry.lexer == lexer)
        return &entry;
    return nullptr;
  }

  std::mutex mutex;
  std::array<LexerLines, 8> entries;
  size_t next = 0;
};

LexerTable &getLexerTable() {
  static LexerTable *table = [] {
    auto *made = new LexerTable();
    pthread_atfork([] { getLexerTable().lockForFork(); },
                   [] { getLexerTable().unlockAfterFork(); },
                   [] { getLexerTable().unlockAfterFork(); });
    return made;
  }();
  return *table;
}

} // namespace

/// What the link calls instead of MLIR's lexer constructor: MLIR's, then the
/// lexer's buffer recorded.
extern "C" void
__wrap__ZN4mlir5LexerC1ERKN4llvm9SourceMgrEPNS_11MLIRContextEPNS_28AsmParserCodeCompleteContextE(
    void *self, const llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
    mlir::AsmParserCodeCompleteContext *codeCompleteContext) {
  __real__ZN4mlir5LexerC1ERKN4llvm9SourceMgrEPNS_11MLIRContextEPNS_28AsmParserCodeCompleteContextE(
      self, sourceMgr, context, codeCompleteContext);
  if (hostoffload::fastPathEnabled(hostoffload::FastPath::LexerLines))
    getLexerTable().add(self, sourceMgr, context);
}

/// What the link calls instead of `mlir::Lexer::getEncodedSourceLocation`.
extern "C" mlir::Location
__wrap__ZN4mlir5Lexer24getEncodedSourceLocationEN4llvm5SMLocE(void *self,
                                                              llvm::SMLoc loc) {
  if (mlir::LocationAttr placeholder = hostoffload::lexerPositionPlaceholder())
    return placeholder;
  if (std::optional<mlir::Location> located =
          getLexerTable().locate(self, loc.getPointer()))
    return *located;
  return __real__ZN4mlir5Lexer24getEncodedSourceLocationEN4llvm5SMLocE(self,
                                                                       loc);
}
