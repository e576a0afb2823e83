//===- SourceWindows.cpp - offload-opt's diagnostic handler ---------------===//

#include "SourceWindows.h"

#include "hostoffload/HostOffloadAnalysis.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>

using namespace mlir;
using hostoffload::SourceWindowsHandler;

/// The widest source line shown whole; a wider one is shown as a window of
/// this many columns around the caret, kCut marking where it is cut.
static constexpr size_t kWidestSourceLineShown = 160;
static constexpr llvm::StringLiteral kCut = "...";

/// Printed once after the findings of a module without debug info. The same
/// words are in python/hostoffload/report.py, and a test compares them.
static constexpr llvm::StringLiteral kWithoutDebugInfoHint =
    "this module has no debug info, so the findings point at its own lines: "
    "for Python source lines, save lowered.as_text(debug_info=True) instead "
    "of lowered.as_text(), or check the function with "
    "hostoffload.check_jax(fn, *args)";

/// The first location of kind `Found` in `loc`, through name locations, the
/// callees of call sites and the parts of fused ones, in order.
template <typename Found> static std::optional<Found> findFirst(Location loc) {
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

/// Whether byte `index` of `line` continues a UTF-8 character.
static bool continuesCharacter(llvm::StringRef line, size_t index) {
  return index < line.size() &&
         (static_cast<unsigned char>(line[index]) & 0xC0) == 0x80;
}

/// The window of kWidestSourceLineShown columns of `line` around byte
/// `column`, and the caret's column in it.
static std::string makeWindowText(llvm::StringRef line, size_t column,
                                  size_t &caret) {
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
  std::string text = from > 0 ? kCut.str() : "";
  caret = text.size() + (column - from);
  text += line.slice(from, to);
  if (to < line.size())
    text += kCut;
  // A tab would move the text away from the caret under it.
  std::replace(text.begin(), text.end(), '\t', ' ');
  return text;
}

SourceWindowsHandler::SourceWindowsHandler(llvm::SourceMgr &sourceMgr,
                                           MLIRContext *context)
    : SourceMgrDiagnosticHandler(sourceMgr, context),
      showsColors(llvm::WithColor::defaultAutoDetectFunction()(os)) {
  setHandler([this](Diagnostic &diagnostic) { handle(diagnostic); });
}

SourceWindowsHandler::~SourceWindowsHandler() {
  if (!firstFindingFile || findingInPythonFile)
    return;
  llvm::SMDiagnostic(*firstFindingFile, llvm::SourceMgr::DK_Note,
                     kWithoutDebugInfoHint)
      .print(/*ProgName=*/nullptr, os, showsColors);
}

std::optional<std::pair<std::string, std::optional<size_t>>>
SourceWindowsHandler::getWindow(Location loc) {
  std::optional<FileLineColLoc> file = findFirst<FileLineColLoc>(loc);
  if (!file || file->getLine() == 0 || file->getColumn() == 0)
    return std::nullopt;
  // Thousands of messages can be at one line: it is found once.
  auto [known, added] = lines.try_emplace(
      {file->getFilename().getAsOpaquePointer(), file->getLine()});
  if (const llvm::MemoryBuffer *buffer =
          added ? getBufferForFile(file->getFilename()) : nullptr) {
    llvm::SMLoc start = mgr.FindLocForLineAndColumn(
        mgr.FindBufferContainingLoc(
            llvm::SMLoc::getFromPointer(buffer->getBufferStart())),
        file->getLine(), 1);
    if (start.isValid())
      known->second =
          llvm::StringRef(start.getPointer(),
                          buffer->getBufferEnd() - start.getPointer())
              .take_until([](char c) { return c == '\n' || c == '\r'; });
  }
  llvm::StringRef line = known->second;
  size_t column = file->getColumn() - 1;
  if (line.size() <= kWidestSourceLineShown || column > line.size())
    return std::nullopt;
  size_t caret = 0;
  std::string text = makeWindowText(line, column, caret);
  bool ascii = llvm::isASCII(llvm::StringRef(text));
  return std::make_pair(std::move(text),
                        ascii ? std::optional<size_t>(caret) : std::nullopt);
}

void SourceWindowsHandler::handle(Diagnostic &diagnostic) {
  noteFindingLocations(diagnostic);
  // MLIR's handler prints a diagnostic with a call stack, or without a wide
  // line; a window is printed after the message shown without its line.
  Location loc = diagnostic.getLocation();
  llvm::SmallVector<Location> locs{loc};
  for (Diagnostic &note : diagnostic.getNotes())
    locs.push_back(note.getLocation());
  bool windowed =
      llvm::none_of(locs,
                    [](Location at) { return findFirst<CallSiteLoc>(at); }) &&
      llvm::any_of(locs,
                   [&](Location at) { return getWindow(at).has_value(); });
  if (!windowed) {
    emitDiagnostic(diagnostic);
    return;
  }
  auto emit = [&](const Diagnostic &part, bool displaySourceLine) {
    auto window =
        displaySourceLine ? getWindow(part.getLocation()) : std::nullopt;
    emitDiagnostic(part.getLocation(), part.str(), part.getSeverity(),
                   displaySourceLine && !window);
    if (!window)
      return;
    os << window->first << '\n';
    if (!window->second)
      return;
    os.indent(*window->second);
    llvm::WithColor(os, llvm::raw_ostream::GREEN, /*Bold=*/true, false,
                    showsColors ? llvm::ColorMode::Auto
                                : llvm::ColorMode::Disable)
        << '^';
    os << '\n';
  };
  emit(diagnostic, /*displaySourceLine=*/true);
  // As MLIR's handler: a note shows its line where its location differs
  // from the one printed before it.
  for (const Diagnostic &note : diagnostic.getNotes()) {
    emit(note, note.getLocation() != loc);
    loc = note.getLocation();
  }
}

void SourceWindowsHandler::noteFindingLocations(const Diagnostic &diagnostic) {
  DiagnosticSeverity severity = diagnostic.getSeverity();
  if (findingInPythonFile || (severity != DiagnosticSeverity::Error &&
                              severity != DiagnosticSeverity::Warning))
    return;
  // A finding's message starts with its code: "E1200: ...".
  std::string message = diagnostic.str();
  if (llvm::none_of(getFindingCodes(), [&](const auto &row) {
        llvm::StringRef rest = message;
        return rest.consume_front(row.name) && rest.starts_with(":");
      }))
    return;
  auto isInPythonFile = [](Location loc) {
    std::optional<FileLineColLoc> file = findFirst<FileLineColLoc>(loc);
    return file && file->getFilename().getValue().ends_with(".py");
  };
  if (!firstFindingFile) {
    std::optional<FileLineColLoc> file =
        findFirst<FileLineColLoc>(diagnostic.getLocation());
    firstFindingFile = file ? file->getFilename().str() : std::string();
  }
  findingInPythonFile =
      isInPythonFile(diagnostic.getLocation()) ||
      llvm::any_of(diagnostic.getNotes(), [&](const Diagnostic &note) {
        return isInPythonFile(note.getLocation());
      });
}
