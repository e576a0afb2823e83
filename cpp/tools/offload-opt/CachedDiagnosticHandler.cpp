//===- CachedDiagnosticHandler.cpp - MLIR's diagnostics, formatted once ---===//
//
// emit() follows SourceMgrDiagnosticHandler::emitDiagnostic(Diagnostic &) of
// MLIR 22 for a handler without a location filter: the message at its
// location, the callers of a call site location as "called from" notes (at
// most ten, MLIR's default), then the notes, each showing its source line only
// when its location differs from the one printed before it.
//
//===----------------------------------------------------------------------===//

#include "CachedDiagnosticHandler.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>

using namespace mlir;

namespace hostoffload {

namespace {

/// MLIR's default limit on the callers printed for a call site location.
constexpr unsigned kCallStackLimit = 10;

/// What stands for the message when MLIR formats a location: the text around
/// it is the frame. Control characters keep it out of file names and sources.
constexpr llvm::StringLiteral kPlaceholder = "\x01hostoffload-message\x02";

/// The first location of kind `Found` in `loc`, looking as MLIR's handler
/// does through name locations, the callees of call sites and the parts of
/// fused ones, in order. A call site is itself found before its callee.
template <typename Found> std::optional<Found> findFirst(Location loc) {
  llvm::SmallVector<Location> pending{loc};
  while (!pending.empty()) {
    Location current = pending.pop_back_val();
    if (auto found = llvm::dyn_cast<Found>(current))
      return found;
    if (auto name = llvm::dyn_cast<NameLoc>(current))
      pending.push_back(name.getChildLoc());
    else if (auto callSite = llvm::dyn_cast<CallSiteLoc>(current))
      pending.push_back(callSite.getCallee());
    else if (auto fused = llvm::dyn_cast<FusedLoc>(current))
      llvm::append_range(pending, llvm::reverse(fused.getLocations()));
  }
  return std::nullopt;
}

/// The call site location that MLIR's handler prints a call stack for.
std::optional<CallSiteLoc> findCallSite(Location loc) {
  return findFirst<CallSiteLoc>(loc);
}

/// Calls `visitCaller` with each caller that MLIR's handler prints a "called
/// from" note for after a message at `loc`, innermost first, and stops where
/// it returns false. Returns the location MLIR's handler compares the first
/// note's with: the last caller visited, or the one after it when the stack
/// is cut at the limit.
Location forEachCaller(Location loc,
                       llvm::function_ref<bool(Location)> visitCaller) {
  std::optional<CallSiteLoc> callSite = findCallSite(loc);
  if (!callSite)
    return loc;
  loc = callSite->getCaller();
  for (unsigned depth = 0; depth < kCallStackLimit; ++depth) {
    if (!visitCaller(loc))
      break;
    callSite = findCallSite(loc);
    if (!callSite)
      break;
    loc = callSite->getCaller();
  }
  return loc;
}

/// The longest source line a message shows. `lowered.as_text()` prints the
/// signature of a model's entry function on one line (684 KB for a 100k-op
/// training step): every note at an argument showed all of it, 1.9 GB of
/// messages for one check. A longer line is left out, and the message keeps
/// its line and column.
constexpr size_t kLongestSourceLineShown = 4096;

/// Whether the text MLIR formats after a message holds a line longer than
/// kLongestSourceLineShown: the source line, or the caret under it.
bool hasLongSourceLine(llvm::StringRef after) {
  // The first line is the rest of the message's own.
  size_t lineEnd = after.find('\n');
  while (lineEnd != llvm::StringRef::npos) {
    after = after.drop_front(lineEnd + 1);
    lineEnd = after.find('\n');
    if (std::min(lineEnd, after.size()) > kLongestSourceLineShown)
      return true;
  }
  return false;
}

/// The message of the note MLIR's handler prints for each caller.
constexpr llvm::StringLiteral kCalledFrom = "called from";

void printCalledFrom(llvm::raw_ostream &out) { out << kCalledFrom; }

/// The kind of message llvm::SourceMgr prints for `severity`, as MLIR's
/// handler maps it.
llvm::SourceMgr::DiagKind getDiagKind(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Note:
    return llvm::SourceMgr::DK_Note;
  case DiagnosticSeverity::Warning:
    return llvm::SourceMgr::DK_Warning;
  case DiagnosticSeverity::Error:
    return llvm::SourceMgr::DK_Error;
  case DiagnosticSeverity::Remark:
    return llvm::SourceMgr::DK_Remark;
  }
  llvm_unreachable("a severity MLIR does not have");
}

} // namespace

CachedDiagnosticHandler::CachedDiagnosticHandler(llvm::SourceMgr &sourceMgr,
                                                 MLIRContext *context)
    : SourceMgrDiagnosticHandler(sourceMgr, context),
      showsColors(llvm::WithColor::defaultAutoDetectFunction()(os)),
      formatter(sourceMgr, context, formattedStream),
      input(*sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())),
      inputLines(input.getBuffer()) {
  setHandler([this](Diagnostic &diagnostic) { emit(diagnostic); });
}

void CachedDiagnosticHandler::emit(Diagnostic &diagnostic) {
  auto printDiagnostic = [](const Diagnostic &message) {
    return [&message](llvm::raw_ostream &out) { message.print(out); };
  };
  Location loc = diagnostic.getLocation();
  emitMessage(loc, diagnostic.getSeverity(), /*displaySourceLine=*/true,
              printDiagnostic(diagnostic));
  loc = emitCallStack(loc);
  for (const Diagnostic &note : diagnostic.getNotes()) {
    emitMessage(note.getLocation(), note.getSeverity(),
                /*displaySourceLine=*/loc != note.getLocation(),
                printDiagnostic(note));
    loc = note.getLocation();
  }
}

Location CachedDiagnosticHandler::emitCallStack(Location loc) {
  if (showsColors)
    return forEachCaller(loc, [&](Location caller) {
      emitMessage(caller, DiagnosticSeverity::Note, /*displaySourceLine=*/true,
                  printCalledFrom);
      return true;
    });
  auto [entry, added] = callStacks.try_emplace(loc.getAsOpaquePointer());
  if (added) {
    std::string text;
    bool formatted = true;
    Location last = forEachCaller(loc, [&](Location caller) {
      const std::optional<Frame> &frame =
          getFrame(caller, DiagnosticSeverity::Note,
                   /*displaySourceLine=*/true)
              .frame;
      formatted = frame.has_value();
      if (formatted) {
        text += frame->before;
        text += kCalledFrom;
        text += frame->after;
      }
      return formatted;
    });
    if (formatted)
      entry->second = CallStack{std::move(text), last};
  }
  if (entry->second) {
    os << entry->second->text;
    return entry->second->last;
  }
  return forEachCaller(loc, [&](Location caller) {
    emitMessage(caller, DiagnosticSeverity::Note, /*displaySourceLine=*/true,
                printCalledFrom);
    return true;
  });
}

void CachedDiagnosticHandler::emitMessage(
    Location loc, DiagnosticSeverity severity, bool displaySourceLine,
    llvm::function_ref<void(llvm::raw_ostream &)> printMessage) {
  const FrameEntry &entry = getFrame(loc, severity, displaySourceLine);
  // In colour, MLIR's handler prints every message.
  if (!entry.frame || showsColors) {
    std::string message;
    llvm::raw_string_ostream messageStream(message);
    printMessage(messageStream);
    return emitDiagnostic(loc, message, severity, entry.showsSourceLine);
  }
  os << entry.frame->before;
  printMessage(os);
  os << entry.frame->after;
}

const CachedDiagnosticHandler::FrameEntry &
CachedDiagnosticHandler::getFrame(Location loc, DiagnosticSeverity severity,
                                  bool displaySourceLine) {
  auto [entry, added] = frames.try_emplace(
      FrameKey{loc.getAsOpaquePointer(),
               static_cast<unsigned>(severity) * 2 + displaySourceLine});
  if (!added)
    return entry->second;
  auto format = [&](bool showSourceLine) {
    formatted.clear();
    if (!showSourceLine || !formatAtInputLine(loc, severity))
      formatter.emitDiagnostic(loc, kPlaceholder, severity, showSourceLine);
  };
  // Formatting a long line takes as long as the line: each is found once.
  // The file location whose line MLIR's handler shows.
  std::optional<FileLineColLoc> file = findFirst<FileLineColLoc>(loc);
  std::optional<LongLine> line;
  if (file)
    line = LongLine{file->getFilename().getAsOpaquePointer(), file->getLine()};
  bool showSourceLine = displaySourceLine && !(line && longLines.count(*line));
  format(showSourceLine);
  llvm::StringRef text = formatted;
  size_t at = text.find(kPlaceholder);
  if (showSourceLine && at != llvm::StringRef::npos &&
      hasLongSourceLine(text.drop_front(at + kPlaceholder.size()))) {
    if (line)
      longLines.insert(*line);
    showSourceLine = false;
    format(showSourceLine);
    text = formatted;
    at = text.find(kPlaceholder);
  }
  entry->second.showsSourceLine = showSourceLine;
  // A placeholder that is not there once cannot be replaced: such a location
  // is printed by MLIR's handler every time.
  if (at != llvm::StringRef::npos &&
      text.find(kPlaceholder, at + 1) == llvm::StringRef::npos)
    entry->second.frame =
        Frame{text.take_front(at).str(),
              text.drop_front(at + kPlaceholder.size()).str()};
  return entry->second;
}

bool CachedDiagnosticHandler::formatAtInputLine(Location loc,
                                                DiagnosticSeverity severity) {
  // Without a location filter, MLIR's handler shows a file location itself.
  auto file = llvm::dyn_cast<FileLineColLoc>(loc);
  if (!file || file.getLine() == 0 || file.getColumn() == 0)
    return false;
  if (file.getFilename() != input.getBufferIdentifier())
    return false;
  const char *lineStart = inputLines.getLineStart(file.getLine());
  if (!lineStart)
    return false;
  // As llvm::SourceMgr::FindLocForLineAndColumn: the column must lie on the
  // line, before its end.
  size_t column = file.getColumn() - 1;
  llvm::StringRef rest(lineStart, input.getBufferEnd() - lineStart);
  if (column > rest.size() ||
      rest.take_front(column).find_first_of("\n\r") != llvm::StringRef::npos)
    return false;
  // As llvm::SourceMgr::GetMessage: the line ends at '\n' or '\r'.
  llvm::StringRef line =
      rest.take_until([](char c) { return c == '\n' || c == '\r'; });
  llvm::SMDiagnostic diagnostic(
      mgr, llvm::SMLoc::getFromPointer(lineStart + column),
      input.getBufferIdentifier(), static_cast<int>(file.getLine()),
      static_cast<int>(column), getDiagKind(severity), kPlaceholder, line,
      /*Ranges=*/{});
  diagnostic.print(/*ProgName=*/nullptr, formattedStream);
  return true;
}

} // namespace hostoffload
