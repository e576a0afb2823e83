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

#include "hostoffload/FastPaths.h"
#include "hostoffload/HostOffloadAnalysis.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
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

/// The widest source line a message shows whole. `lowered.as_text()` prints
/// the signature of a model's entry function on one line, and every note at
/// an argument showed all of it. A wider line is shown as a window of this
/// many columns around the caret, "..." marking where it is cut.
constexpr size_t kWidestSourceLineShown = 160;

/// What marks the ends of a window where the line goes on.
constexpr llvm::StringLiteral kCut = "...";

/// The note printed once after the findings of a module without debug info:
/// no location of a finding or its notes is in a Python file, as the module's
/// own lines stand in for them. The same words are in
/// python/hostoffload/report.py, and a test compares them.
constexpr llvm::StringLiteral kWithoutDebugInfoHint =
    "this module has no debug info, so the findings point at its own lines: "
    "for Python source lines, save lowered.as_text(debug_info=True) instead "
    "of lowered.as_text(), or check the function with "
    "hostoffload.check_jax(fn, *args)";

/// The suffix of the files of Python frames, which a module's debug info names
/// (JAX's, or the metadata of XLA's instructions).
constexpr llvm::StringLiteral kPythonSuffix = ".py";

/// Whether the text MLIR formats after a message holds a line wider than
/// kWidestSourceLineShown: the source line, or the caret under it.
bool hasWideSourceLine(llvm::StringRef after) {
  // The first line is the rest of the message's own.
  size_t lineEnd = after.find('\n');
  while (lineEnd != llvm::StringRef::npos) {
    after = after.drop_front(lineEnd + 1);
    lineEnd = after.find('\n');
    if (std::min(lineEnd, after.size()) > kWidestSourceLineShown)
      return true;
  }
  return false;
}

/// Whether byte `index` of `line` continues a UTF-8 character, so that a
/// window cut there would split it.
bool continuesCharacter(llvm::StringRef line, size_t index) {
  return index < line.size() &&
         (static_cast<unsigned char>(line[index]) & 0xC0) == 0x80;
}

/// The window of kWidestSourceLineShown columns of `line` (wider than that)
/// around byte `column` (0-based, at most the line's size).
std::string makeWindowText(llvm::StringRef line, size_t column, size_t &caret) {
  // The text between two cuts, half of it before the column.
  constexpr size_t kBetweenCuts = kWidestSourceLineShown - 2 * kCut.size();
  constexpr size_t kAfterOneCut = kWidestSourceLineShown - kCut.size();
  size_t from = column > kBetweenCuts / 2 ? column - kBetweenCuts / 2 : 0;
  size_t to = from + kBetweenCuts;
  if (from == 0) {
    to = kAfterOneCut;
  } else if (to + kCut.size() >= line.size()) {
    from = line.size() - kAfterOneCut;
    to = line.size();
  }
  while (from < column && continuesCharacter(line, from))
    ++from;
  while (to > column && continuesCharacter(line, to))
    --to;
  std::string text;
  if (from > 0)
    text += kCut;
  caret = text.size() + (column - from);
  text += line.slice(from, to);
  if (to < line.size())
    text += kCut;
  // A tab would move the text away from the caret under it.
  std::replace(text.begin(), text.end(), '\t', ' ');
  return text;
}

/// Prints the window `text` of a source line as MLIR prints a source line:
/// the text, then the caret, if any, under its column (green, where `colors`
/// are shown).
void printWindow(llvm::raw_ostream &out, llvm::StringRef text,
                 std::optional<size_t> caret, bool colors) {
  out << text << '\n';
  if (!caret)
    return;
  out.indent(*caret);
  llvm::WithColor(out, llvm::raw_ostream::GREEN, /*Bold=*/true, false,
                  colors ? llvm::ColorMode::Auto : llvm::ColorMode::Disable)
      << '^';
  out << '\n';
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
      formatsEveryMessage(showsColors ||
                          !fastPathEnabled(FastPath::DiagnosticFrames)),
      formatter(sourceMgr, context, formattedStream),
      input(*sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())),
      inputLines(input.getBuffer()) {
  setHandler([this](Diagnostic &diagnostic) { emit(diagnostic); });
}

CachedDiagnosticHandler::~CachedDiagnosticHandler() {
  if (!firstFindingFile || findingInPythonFile)
    return;
  llvm::SMDiagnostic(*firstFindingFile, llvm::SourceMgr::DK_Note,
                     kWithoutDebugInfoHint)
      .print(/*ProgName=*/nullptr, os, showsColors);
}

void CachedDiagnosticHandler::noteFindingLocations(
    const Diagnostic &diagnostic) {
  DiagnosticSeverity severity = diagnostic.getSeverity();
  if (findingInPythonFile || (severity != DiagnosticSeverity::Error &&
                              severity != DiagnosticSeverity::Warning))
    return;
  // A finding's message starts with its code: "E1200: ...".
  std::string message = diagnostic.str();
  bool isFinding = llvm::any_of(getFindingCodes(), [&](const auto &row) {
    llvm::StringRef rest = message;
    return rest.consume_front(row.name) && rest.starts_with(":");
  });
  if (!isFinding)
    return;
  std::optional<FileLineColLoc> file =
      findFirst<FileLineColLoc>(diagnostic.getLocation());
  if (!firstFindingFile)
    firstFindingFile = file ? file->getFilename().str() : std::string();
  auto isInPythonFile = [](Location loc) {
    std::optional<FileLineColLoc> file = findFirst<FileLineColLoc>(loc);
    return file && file->getFilename().getValue().ends_with(kPythonSuffix);
  };
  findingInPythonFile =
      isInPythonFile(diagnostic.getLocation()) ||
      llvm::any_of(diagnostic.getNotes(), [&](const Diagnostic &note) {
        return isInPythonFile(note.getLocation());
      });
}

void CachedDiagnosticHandler::emit(Diagnostic &diagnostic) {
  noteFindingLocations(diagnostic);
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
  if (formatsEveryMessage)
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
  if (!entry.frame || formatsEveryMessage) {
    std::string message;
    llvm::raw_string_ostream messageStream(message);
    printMessage(messageStream);
    emitDiagnostic(loc, message, severity, entry.showsSourceLine);
    if (entry.window)
      printWindow(os, entry.window->text, entry.window->caret, showsColors);
    return;
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
  // The file location whose line MLIR's handler shows. A wide line known
  // here is shown as a window, after the message without it.
  std::optional<FileLineColLoc> file = findFirst<FileLineColLoc>(loc);
  std::optional<SourceWindow> window;
  if (displaySourceLine && file)
    window = getWindow(*file);
  bool showSourceLine = displaySourceLine && !window;
  format(showSourceLine);
  llvm::StringRef text = formatted;
  size_t at = text.find(kPlaceholder);
  if (showSourceLine && at != llvm::StringRef::npos &&
      hasWideSourceLine(text.drop_front(at + kPlaceholder.size()))) {
    // A wide line of another file, which MLIR's handler has read whole: it
    // is known from now on, and formatting it again would take as long.
    if (file) {
      rememberLine(*file);
      window = getWindow(*file);
    }
    showSourceLine = false;
    format(showSourceLine);
    text = formatted;
    at = text.find(kPlaceholder);
  }
  entry->second.showsSourceLine = showSourceLine;
  entry->second.window = window;
  // A placeholder that is not there once cannot be replaced: such a location
  // is printed by MLIR's handler every time.
  if (at == llvm::StringRef::npos ||
      text.find(kPlaceholder, at + 1) != llvm::StringRef::npos)
    return entry->second;
  Frame frame{text.take_front(at).str(),
              text.drop_front(at + kPlaceholder.size()).str()};
  if (window) {
    llvm::raw_string_ostream after(frame.after);
    printWindow(after, window->text, window->caret, /*colors=*/false);
  }
  entry->second.frame = std::move(frame);
  return entry->second;
}

std::optional<llvm::StringRef>
CachedDiagnosticHandler::getKnownLine(FileLineColLoc file) {
  FileLine key{file.getFilename().getAsOpaquePointer(), file.getLine()};
  auto known = knownLines.find(key);
  if (known == knownLines.end()) {
    if (file.getFilename() != input.getBufferIdentifier())
      return std::nullopt;
    // As llvm::SourceMgr::GetMessage: the line ends at '\n' or '\r'.
    llvm::StringRef line;
    if (const char *lineStart = inputLines.getLineStart(file.getLine()))
      line = llvm::StringRef(lineStart, input.getBufferEnd() - lineStart)
                 .take_until([](char c) { return c == '\n' || c == '\r'; });
    known = knownLines.try_emplace(key, line).first;
  }
  if (!known->second.data())
    return std::nullopt;
  return known->second;
}

void CachedDiagnosticHandler::rememberLine(FileLineColLoc file) {
  for (unsigned id = 1, last = mgr.getNumBuffers(); id <= last; ++id) {
    const llvm::MemoryBuffer *buffer = mgr.getMemoryBuffer(id);
    if (buffer->getBufferIdentifier() != file.getFilename().getValue())
      continue;
    llvm::SMLoc lineStart =
        mgr.FindLocForLineAndColumn(id, file.getLine(), /*ColNo=*/1);
    if (!lineStart.isValid())
      return;
    const char *start = lineStart.getPointer();
    knownLines[{file.getFilename().getAsOpaquePointer(), file.getLine()}] =
        llvm::StringRef(start, buffer->getBufferEnd() - start)
            .take_until([](char c) { return c == '\n' || c == '\r'; });
    return;
  }
}

std::optional<CachedDiagnosticHandler::SourceWindow>
CachedDiagnosticHandler::getWindow(FileLineColLoc file) {
  std::optional<llvm::StringRef> line = getKnownLine(file);
  // As llvm::SourceMgr::FindLocForLineAndColumn: the column must lie on the
  // line, before its end.
  if (!line || line->size() <= kWidestSourceLineShown ||
      file.getColumn() == 0 || file.getColumn() - 1 > line->size())
    return std::nullopt;
  SourceWindow window;
  size_t caret = 0;
  window.text = makeWindowText(*line, file.getColumn() - 1, caret);
  // As llvm::SMDiagnostic: no caret under a line that is not ASCII.
  if (llvm::isASCII(llvm::StringRef(window.text)))
    window.caret = caret;
  return window;
}

bool CachedDiagnosticHandler::formatAtInputLine(Location loc,
                                                DiagnosticSeverity severity) {
  if (formatsEveryMessage)
    return false;
  // Without a location filter, MLIR's handler shows a file location itself.
  auto file = llvm::dyn_cast<FileLineColLoc>(loc);
  if (!file || file.getLine() == 0 || file.getColumn() == 0)
    return false;
  if (file.getFilename() != input.getBufferIdentifier())
    return false;
  std::optional<llvm::StringRef> line = getKnownLine(file);
  if (!line)
    return false;
  // As llvm::SourceMgr::FindLocForLineAndColumn: the column must lie on the
  // line, before its end.
  size_t column = file.getColumn() - 1;
  if (column > line->size())
    return false;
  llvm::SMDiagnostic diagnostic(
      mgr, llvm::SMLoc::getFromPointer(line->data() + column),
      input.getBufferIdentifier(), static_cast<int>(file.getLine()),
      static_cast<int>(column), getDiagKind(severity), kPlaceholder, *line,
      /*Ranges=*/{});
  diagnostic.print(/*ProgName=*/nullptr, formattedStream);
  return true;
}

} // namespace hostoffload
