//===- ParallelParse.cpp - One long function parsed on two threads --------===//
//
// The layout read here is the one MLIR's printer gives the generic form; see
// the header. Each step checks what it relies on and gives the text back to
// the parse of the whole when something differs.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/ParallelParse.h"

#include "hostoffload/LexerPositions.h"
#include "hostoffload/WorkerThread.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace hostoffload;
using llvm::StringRef;

namespace {

constexpr size_t npos = StringRef::npos;

/// The op that holds the second part while it is parsed, and the op that
/// stands in it for a value of the first part.
constexpr llvm::StringLiteral kPartOpName = "hostoffload.parallel_parse_part";
constexpr llvm::StringLiteral kPlaceholderOpName =
    "hostoffload.parallel_parse_value";

/// Where the first part of a function body ends, as a share of the body's
/// bytes: the second part's thread first reads its text and the first part's
/// definitions, and the first part's text also holds every location alias.
constexpr double kFirstPartShare = 0.48;

/// The lines of a text from an offset on, each without its newline.
class Lines {
public:
  Lines(StringRef text, size_t offset) : text(text), offset(offset) {}

  /// Sets `line` and `start` to the next line and returns true, or returns
  /// false at the end of the text.
  bool next(StringRef &line, size_t &start) {
    if (offset >= text.size())
      return false;
    start = offset;
    size_t end = std::min(text.find('\n', offset), text.size());
    line = text.slice(offset, end);
    offset = end + 1;
    return true;
  }

  /// Where the line after the last one returned starts.
  size_t position() const { return std::min(offset, text.size()); }

private:
  StringRef text;
  size_t offset;
};

/// Whether `line` starts with exactly `indent` blanks.
bool isIndented(StringRef line, size_t indent) {
  return line.find_first_not_of(' ') == indent;
}

/// Whether `line` starts an op `indent` blanks deep: its results or its
/// quoted name.
bool startsOpAt(StringRef line, size_t indent) {
  return isIndented(line, indent) &&
         (line[indent] == '%' || line[indent] == '"');
}

/// The index of the quote that ends the string whose opening quote is at
/// `quote`, or the end of `text`.
size_t skipString(StringRef text, size_t quote) {
  for (size_t i = quote + 1; i < text.size(); ++i) {
    if (text[i] == '\\')
      ++i;
    else if (text[i] == '"')
      return i;
  }
  return text.size();
}

/// Whether `c` may follow `%` in a value's name (MLIR's suffix-id).
bool isNameChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-';
}

/// The end of the value name (without `#` and a result number) that starts
/// with the `%` at `percent`.
size_t nameEnd(StringRef text, size_t percent) {
  return std::min(text.find_if_not(isNameChar, percent + 1), text.size());
}

/// Whether the text at `i` is a location, `loc(` after a blank.
bool isLocationAt(StringRef text, size_t i) {
  return i > 0 && text[i - 1] == ' ' && text.substr(i).starts_with("loc(");
}

/// Whether `text` holds `->` at `i`.
bool isArrowAt(StringRef text, size_t i) {
  return text[i] == '-' && i + 1 < text.size() && text[i + 1] == '>';
}

/// Scans `text` from `i`, where the bracket depth is zero, to the first
/// position at depth zero for which `stop` is true (or the end), skipping
/// strings; `->` is no bracket.
template <typename Stop>
size_t scanTopLevel(StringRef text, size_t i, Stop stop) {
  int depth = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      i = skipString(text, i);
      continue;
    }
    if (depth == 0 && stop(i))
      return i;
    if (isArrowAt(text, i))
      ++i;
    else if (c == '(' || c == '[' || c == '{' || c == '<')
      ++depth;
    else if (c == ')' || c == ']' || c == '}' || c == '>')
      --depth;
  }
  return text.size();
}

/// Scans `text` from `i` to the first of `stops` or a location at depth zero.
size_t scanToDepthZero(StringRef text, size_t i, StringRef stops) {
  return scanTopLevel(text, i, [&](size_t at) {
    return stops.contains(text[at]) || isLocationAt(text, at);
  });
}

/// The result types, as written, of an op whose type ends `line` (`: (...) ->
/// results`, then maybe a location); empty if there are none.
StringRef resultTypes(StringRef line) {
  // After the last `->` that follows the last `:`.
  size_t arrow = npos;
  size_t end = scanTopLevel(line, 0, [&](size_t at) {
    if (isLocationAt(line, at))
      return true;
    if (line[at] == ':')
      arrow = npos;
    else if (isArrowAt(line, at))
      arrow = at + 2;
    return false;
  });
  if (arrow == npos)
    return "";
  return line.slice(arrow, end).trim();
}

/// The names and types of the arguments in an entry block's header
/// (`^bb0(%a: type loc(...), ...):`), or nothing if it reads otherwise.
std::optional<llvm::SmallVector<std::pair<StringRef, StringRef>>>
headerArguments(StringRef header) {
  llvm::SmallVector<std::pair<StringRef, StringRef>> arguments;
  size_t i = header.find('(');
  if (i == npos)
    return std::nullopt;
  ++i;
  while (i < header.size() && header[i] != ')') {
    if (header[i] != '%')
      return std::nullopt;
    size_t end = nameEnd(header, i);
    StringRef name = header.slice(i, end);
    if (!header.substr(end).starts_with(": "))
      return std::nullopt;
    size_t typeBegin = end + 2;
    i = scanToDepthZero(header, typeBegin, ",)");
    arguments.emplace_back(name, header.slice(typeBegin, i).rtrim());
    if (isLocationAt(header, i))
      i = scanToDepthZero(header, i + 4, ")") + 1;
    while (i < header.size() && header[i] == ' ')
      ++i;
    if (i < header.size() && header[i] == ',')
      i += 2;
  }
  if (!header.substr(i).starts_with("):"))
    return std::nullopt;
  return arguments;
}

/// Where the parts of a module's text are.
struct Layout {
  /// The module's first line, and the end of its last line's newline.
  size_t moduleBegin = 0;
  size_t moduleEnd = 0;
  /// The function's entry block header (npos if it has none), its first op
  /// and its closing line.
  size_t header = npos;
  size_t bodyBegin = 0;
  size_t bodyEnd = 0;
  /// The second part's first op.
  size_t split = 0;
  /// The function's position among the module's ops.
  unsigned functionIndex = 0;
};

/// The layout of `text` if it is a module printed in the generic form whose
/// longest function body, of one block, holds at least `minBodyBytes`.
std::optional<Layout> findLayout(StringRef text, size_t minBodyBytes) {
  // No body is longer than the text: a shorter text is not read line by line.
  if (text.size() < minBodyBytes)
    return std::nullopt;
  Layout layout;
  StringRef line;
  size_t start = 0;
  // Alias definitions and comments, then the module.
  Lines head(text, 0);
  bool foundModule = false;
  while (head.next(line, start)) {
    if (line.empty() || line.starts_with("#") || line.starts_with("!") ||
        line.starts_with("//"))
      continue;
    if (!line.starts_with("\"builtin.module\"("))
      return std::nullopt;
    foundModule = true;
    layout.moduleBegin = start;
    break;
  }
  if (!foundModule)
    return std::nullopt;
  size_t moduleBodyBegin = head.position();

  // From the end: location aliases after the module, then its closing line.
  size_t lineEnd = text.size();
  if (lineEnd > 0 && text[lineEnd - 1] == '\n')
    --lineEnd;
  size_t moduleClose = npos;
  while (moduleClose == npos) {
    size_t lineStart = lineEnd == 0 ? npos : text.rfind('\n', lineEnd - 1);
    lineStart = lineStart == npos ? 0 : lineStart + 1;
    if (lineStart < moduleBodyBegin)
      return std::nullopt;
    StringRef last = text.slice(lineStart, lineEnd);
    if (last.starts_with("})")) {
      moduleClose = lineStart;
      layout.moduleEnd = std::min(lineEnd + 1, text.size());
    } else if (!last.empty() && !last.starts_with("#")) {
      return std::nullopt;
    } else {
      lineEnd = lineStart - 1;
    }
  }

  // The module's ops, two blanks deep: the longest function of one block.
  // The parts are cut and joined where the indentation says, so the regions
  // must nest as it says: a line that closes a region deeper or shallower
  // than its blanks tell (found by tools/fuzz) would put the second part's
  // ops in another block than a parse of the whole does. With `depth`
  // regions open inside the module's, an op starts 2 * (depth + 1) blanks
  // deep, and a block header or a region's closing line 2 * depth.
  Lines body(text.substr(0, moduleClose), moduleBodyBegin);
  size_t bestSize = 0;
  unsigned index = 0;
  bool inRegion = false, oneBlock = false;
  size_t header = npos, bodyBegin = 0;
  size_t depth = 0;
  while (body.next(line, start)) {
    size_t blanks = line.find_first_not_of(' ');
    if (blanks == npos)
      return std::nullopt;
    StringRef content = line.drop_front(blanks);
    if (content.starts_with("}") || content.starts_with("^")) {
      if (depth == 0 || blanks != 2 * depth)
        return std::nullopt;
      if (content.starts_with("})"))
        --depth;
      else if (content.starts_with("}") && !content.starts_with("}, {"))
        return std::nullopt;
    } else if (!startsOpAt(line, 2 * (depth + 1))) {
      return std::nullopt;
    }
    if (line.ends_with("({"))
      ++depth;
    if (startsOpAt(line, 2)) {
      ++index;
      inRegion = line.ends_with("({");
      oneBlock = true;
      header = npos;
      bodyBegin = body.position();
      continue;
    }
    if (!inRegion || !isIndented(line, 2))
      continue;
    if (line.starts_with("  ^bb") && start == bodyBegin && header == npos) {
      header = start;
      bodyBegin = body.position();
    } else if (line.starts_with("  })")) {
      inRegion = false;
      if (oneBlock && start - bodyBegin > bestSize) {
        bestSize = start - bodyBegin;
        layout.header = header;
        layout.bodyBegin = bodyBegin;
        layout.bodyEnd = start;
        layout.functionIndex = index - 1;
      }
    } else {
      // Another block or region.
      oneBlock = false;
    }
  }
  if (depth != 0 || bestSize == 0 || bestSize < minBodyBytes)
    return std::nullopt;

  // The second part starts with the first op of the body four blanks deep
  // from the share of its bytes on.
  size_t target = layout.bodyBegin +
                  static_cast<size_t>((layout.bodyEnd - layout.bodyBegin) *
                                      kFirstPartShare);
  size_t lineAfter = text.find('\n', target);
  if (lineAfter == npos || lineAfter + 1 >= layout.bodyEnd)
    return std::nullopt;
  // An op holding most of the body (a scan's loop) leaves too little for a
  // second thread to pay for itself: the body is parsed whole.
  size_t latest = layout.bodyEnd - (layout.bodyEnd - layout.bodyBegin) / 4;
  Lines rest(text.substr(0, latest), lineAfter + 1);
  while (rest.next(line, start)) {
    if (startsOpAt(line, 4)) {
      layout.split = start;
      return layout;
    }
  }
  return std::nullopt;
}

/// What stands in the second part for a value group of the first part: a
/// function argument or the results of one of the body's ops.
struct Placeholder {
  StringRef name;
  StringRef types;
  /// The argument's index, or the op's among the body's ops.
  size_t index;
  bool isArgument;
  unsigned numResults;
};

/// The second part's text and what its placeholders stand for.
struct SecondPart {
  std::string text;
  llvm::SmallVector<Placeholder> placeholders;
  size_t numFirstOps = 0;
  size_t numSecondOps = 0;
};

/// Reads which values the second part uses but does not define, the types
/// of their definitions in the first part, and writes the second part's
/// text; nothing if any of them is not found.
std::optional<SecondPart> makeSecondPart(StringRef text, const Layout &layout) {
  SecondPart part;
  // The second part's own values and the others it uses, by group name.
  llvm::StringSet<> defined, outsideSet;
  std::vector<StringRef> outside;
  StringRef second = text.slice(layout.split, layout.bodyEnd);
  Lines lines(second, 0);
  StringRef line;
  size_t start = 0;
  while (lines.next(line, start)) {
    size_t i = line.find_first_not_of(' ');
    if (i == npos)
      continue;
    if (i == 4 && startsOpAt(line, 4))
      ++part.numSecondOps;
    // Results before `=` and a block's arguments are definitions.
    bool defining = line[i] == '%' || line[i] == '^';
    bool header = line[i] == '^';
    for (; i < line.size(); ++i) {
      char c = line[i];
      if (c == '"') {
        i = skipString(line, i);
        if (!header)
          defining = false;
      } else if (c == '=' && !header) {
        defining = false;
      } else if (c == '%') {
        size_t end = nameEnd(line, i);
        StringRef name = line.slice(i, end);
        if (defining)
          defined.insert(name);
        else if (!defined.contains(name) && outsideSet.insert(name).second)
          outside.push_back(name);
        i = end - 1;
      }
    }
  }
  if (part.numSecondOps == 0)
    return std::nullopt;

  // Their definitions: the function's arguments and the first part's ops.
  // Whether each is found.
  llvm::StringMap<bool> wanted;
  for (StringRef name : outside)
    wanted.try_emplace(name, false);
  llvm::SmallVector<Placeholder> &found = part.placeholders;
  if (layout.header != npos) {
    StringRef headerLine =
        text.slice(layout.header, layout.bodyBegin).rtrim('\n');
    std::optional<llvm::SmallVector<std::pair<StringRef, StringRef>>>
        arguments = headerArguments(headerLine);
    if (!arguments)
      return std::nullopt;
    for (auto [index, argument] : llvm::enumerate(*arguments)) {
      // A name the second part defines again: the whole text's error.
      if (defined.contains(argument.first))
        return std::nullopt;
      auto it = wanted.find(argument.first);
      if (it != wanted.end() && !it->second) {
        it->second = true;
        found.push_back({argument.first, argument.second, index, true, 1});
      }
    }
  }
  Lines first(text.substr(0, layout.split), layout.bodyBegin);
  // The op of the first part whose results are wanted and whose type is on a
  // later line (it has regions).
  std::optional<Placeholder> open;
  while (first.next(line, start)) {
    if (startsOpAt(line, 4)) {
      size_t index = part.numFirstOps++;
      if (line[4] != '%')
        continue;
      size_t end = nameEnd(line, 4);
      StringRef name = line.slice(4, end);
      if (defined.contains(name))
        return std::nullopt;
      auto it = wanted.find(name);
      if (it == wanted.end() || it->second)
        continue;
      unsigned numResults = 1;
      if (line.substr(end).starts_with(":")) {
        size_t digitsEnd = end + 1;
        while (digitsEnd < line.size() && llvm::isDigit(line[digitsEnd]))
          ++digitsEnd;
        if (line.slice(end + 1, digitsEnd).getAsInteger(10, numResults))
          return std::nullopt;
      }
      Placeholder placeholder{name, "", index, false, numResults};
      if (line.ends_with("({")) {
        open = placeholder;
        continue;
      }
      placeholder.types = resultTypes(line);
      if (placeholder.types.empty())
        return std::nullopt;
      it->second = true;
      found.push_back(placeholder);
    } else if (open && isIndented(line, 4) && line.starts_with("    })")) {
      open->types = resultTypes(line.drop_front(6));
      if (open->types.empty())
        return std::nullopt;
      wanted[open->name] = true;
      found.push_back(*open);
      open.reset();
    }
  }
  for (StringRef name : outside)
    if (!wanted[name])
      return std::nullopt;

  // The text: every alias definition on the first line, empty lines, then
  // the placeholders on the line before the second part's first op, so that
  // each of its lines is where it is in the whole text. Comments and blank
  // lines among the aliases are left out.
  size_t splitLine = text.substr(0, layout.split).count('\n');
  if (splitLine < 2)
    return std::nullopt;
  llvm::raw_string_ostream out(part.text);
  part.text.reserve(layout.moduleBegin + (text.size() - layout.moduleEnd) +
                    splitLine + second.size() + 64 * part.placeholders.size() +
                    64);
  for (StringRef aliases :
       {text.substr(0, layout.moduleBegin), text.substr(layout.moduleEnd)}) {
    Lines aliasLines(aliases, 0);
    while (aliasLines.next(line, start))
      if (line.starts_with("#") || line.starts_with("!"))
        out << line << ' ';
  }
  out << std::string(splitLine - 1, '\n') << '"' << kPartOpName << "\"() ({";
  for (const Placeholder &placeholder : part.placeholders) {
    out << ' ' << placeholder.name;
    if (placeholder.numResults != 1)
      out << ':' << placeholder.numResults;
    out << " = \"" << kPlaceholderOpName << "\"() : () -> "
        << placeholder.types;
  }
  out << '\n' << second << "}) : () -> ()\n";
  return part;
}

/// Moves every use of `from` to `to`, so that `to`'s use list is as a parse
/// of the whole text leaves it: the parser puts each new use first, and the
/// second part's uses come after the first part's.
void moveUses(Value from, Value to) {
  llvm::SmallVector<OpOperand *> uses;
  for (OpOperand &use : from.getUses())
    uses.push_back(&use);
  for (OpOperand *use : llvm::reverse(uses))
    use->set(to);
}

/// The block of `op`'s one region, null where it has not one region of one
/// block: the parts are not verified (ModuleOp::getBody asserts this).
Block *getOnlyBlock(Operation *op) {
  if (op->getNumRegions() != 1 || !op->getRegion(0).hasOneBlock())
    return nullptr;
  return &op->getRegion(0).front();
}

/// Moves the second part into the function of the first; false if the
/// parsed parts are not as their texts say.
bool joinParts(ModuleOp firstModule, ModuleOp secondModule,
               const Layout &layout, const SecondPart &part) {
  Block *modulesOps = getOnlyBlock(firstModule);
  if (!modulesOps || modulesOps->getOperations().size() <= layout.functionIndex)
    return false;
  Block *functionBody =
      getOnlyBlock(&*std::next(modulesOps->begin(), layout.functionIndex));
  if (!functionBody)
    return false;
  Block &body = *functionBody;

  Block *secondOps = getOnlyBlock(secondModule);
  if (!secondOps || !llvm::hasSingleElement(*secondOps))
    return false;
  Operation *partOp = &secondOps->front();
  if (partOp->getName().getStringRef() != kPartOpName)
    return false;
  Block *partBody = getOnlyBlock(partOp);
  if (!partBody)
    return false;
  Block &second = *partBody;

  std::vector<Operation *> firstOps;
  firstOps.reserve(part.numFirstOps);
  for (Operation &op : body)
    firstOps.push_back(&op);
  size_t numSecond = std::distance(second.begin(), second.end());
  if (firstOps.size() != part.numFirstOps ||
      numSecond != part.placeholders.size() + part.numSecondOps)
    return false;

  auto secondOp = second.begin();
  for (const Placeholder &placeholder : part.placeholders) {
    Operation *stand = &*secondOp++;
    if (stand->getName().getStringRef() != kPlaceholderOpName ||
        stand->getNumResults() != placeholder.numResults)
      return false;
    llvm::SmallVector<Value> values;
    if (placeholder.isArgument) {
      if (placeholder.index >= body.getNumArguments())
        return false;
      values.push_back(body.getArgument(placeholder.index));
    } else {
      llvm::append_range(values, firstOps[placeholder.index]->getResults());
    }
    if (values.size() != stand->getNumResults())
      return false;
    for (auto [result, value] : llvm::zip_equal(stand->getResults(), values))
      if (result.getType() != value.getType())
        return false;
  }
  secondOp = second.begin();
  for (const Placeholder &placeholder : part.placeholders) {
    Operation *stand = &*secondOp++;
    if (placeholder.isArgument) {
      moveUses(stand->getResult(0), body.getArgument(placeholder.index));
      continue;
    }
    for (auto [result, value] : llvm::zip_equal(
             stand->getResults(), firstOps[placeholder.index]->getResults()))
      moveUses(result, value);
  }
  body.getOperations().splice(body.end(), second.getOperations(), secondOp,
                              second.end());
  return true;
}

/// The worker that parses second parts, one at a time.
WorkerThread &getPartWorker() {
  static auto *worker = new WorkerThread();
  return *worker;
}

/// The module of the whole text parsed in two parts at once, the second on
/// the part worker, or null where that is not done or fails.
OwningOpRef<ModuleOp> parseParts(StringRef text, StringRef bufferName,
                                 MLIRContext *context, const Layout &layout,
                                 bool withoutLexerPositions) {
  std::atomic<bool> diagnosed{false};
  ScopedDiagnosticHandler quiet(context, [&](Diagnostic &) {
    diagnosed = true;
    return success();
  });

  // Where every op's line ends with its location (the body's first and last
  // tell), the lexer's positions are left out (checked once the parts are
  // joined).
  LocationAttr placeholder;
  size_t lastLine = text.rfind('\n', layout.bodyEnd - 2) + 1;
  if (withoutLexerPositions && endsWithLocation(text, layout.bodyBegin) &&
      endsWithLocation(text, lastLine))
    placeholder = makePositionPlaceholder(context);

  std::optional<SecondPart> part;
  OwningOpRef<ModuleOp> secondModule;
  llvm::unique_function<void()> parseSecondPart = [&] {
    part = makeSecondPart(text, layout);
    if (!part)
      return;
    secondModule = parseText(part->text, bufferName, context, placeholder);
  };
  if (!getPartWorker().post(parseSecondPart, /*onlyIfIdle=*/true))
    return nullptr;

  // The first part: the text with the second part's lines left empty.
  StringRef second = text.slice(layout.split, layout.bodyEnd);
  std::string first;
  first.reserve(text.size() - second.size() + second.size() / 64);
  first.append(text.data(), layout.split);
  first.append(second.count('\n'), '\n');
  StringRef rest = text.substr(layout.bodyEnd);
  first.append(rest.data(), rest.size());
  OwningOpRef<ModuleOp> firstModule =
      parseText(first, bufferName, context, placeholder);
  getPartWorker().waitUntilIdle();

  if (!firstModule || !secondModule || diagnosed ||
      !joinParts(*firstModule, *secondModule, layout, *part))
    return nullptr;
  if (placeholder && keepsPlaceholder(firstModule->getOperation(), placeholder))
    return nullptr;
  return firstModule;
}

/// Whether two threads can parse at once in `context`.
bool canParseInParts(MLIRContext *context) {
  return llvm::llvm_is_multithreaded() &&
         llvm::hardware_concurrency().compute_thread_count() >= 2 &&
         context->allowsUnregisteredDialects();
}

} // namespace

OwningOpRef<ModuleOp>
hostoffload::parseInParts(StringRef text, StringRef bufferName,
                          MLIRContext *context, size_t minBodyBytes,
                          bool withoutLexerPositions, bool &tried) {
  tried = false;
  if (!canParseInParts(context))
    return nullptr;
  std::optional<Layout> layout = findLayout(text, minBodyBytes);
  if (!layout)
    return nullptr;
  bool multithreading = context->isMultithreadingEnabled();
  // The two parsers must not load a dialect at once.
  context->loadAllAvailableDialects();
  context->enableMultithreading(true);
  // MLIR's command line can keep threading off.
  tried = context->isMultithreadingEnabled();
  OwningOpRef<ModuleOp> module;
  if (tried)
    module =
        parseParts(text, bufferName, context, *layout, withoutLexerPositions);
  context->enableMultithreading(multithreading);
  return module;
}
