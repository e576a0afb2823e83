//===- LexerPositions.cpp - texts parsed without the lexer's positions ----===//

#include "hostoffload/LexerPositions.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using llvm::StringRef;

namespace {

/// The parse by parseText on this thread: its placeholder, and where the
/// parser holds the name of its text.
struct PositionsReplaced {
  LocationAttr placeholder;
  const char *bufferName = nullptr;
};

PositionsReplaced &getPositionsReplaced() {
  static thread_local PositionsReplaced replaced;
  return replaced;
}

} // namespace

OwningOpRef<ModuleOp> hostoffload::parseText(StringRef text,
                                             StringRef bufferName,
                                             MLIRContext *context,
                                             LocationAttr placeholder) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, bufferName,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  PositionsReplaced &replaced = getPositionsReplaced();
  if (placeholder)
    replaced = {placeholder,
                sourceMgr.getMemoryBuffer(1)->getBufferIdentifier().data()};
  auto restore = llvm::make_scope_exit([&] { replaced = {}; });
  return parseSourceFile<ModuleOp>(
      sourceMgr, ParserConfig(context, /*verifyAfterParse=*/false));
}

LocationAttr hostoffload::getPositionPlaceholder(StringRef fileName) {
  const PositionsReplaced &replaced = getPositionsReplaced();
  return fileName.data() == replaced.bufferName ? replaced.placeholder
                                                : LocationAttr();
}

bool hostoffload::endsWithLocation(StringRef text, size_t start) {
  StringRef line = text.substr(start);
  line = line.take_until([](char c) { return c == '\n'; }).rtrim();
  return line.ends_with(")") && line.contains(" loc(");
}

LocationAttr hostoffload::makePositionPlaceholder(MLIRContext *context) {
  static const char tag = 0;
  return OpaqueLoc::get(reinterpret_cast<uintptr_t>(&tag),
                        TypeID::getFromOpaquePointer(&tag),
                        UnknownLoc::get(context));
}
bool hostoffload::keepsPlaceholder(Operation *root, LocationAttr placeholder) {
  if (root->getLoc() == placeholder)
    return true;
  // Blocks to visit, not recursion: regions nest as deep as the text likes.
  llvm::SmallVector<Block *> blocks;
  for (Region &region : root->getRegions())
    for (Block &block : region)
      blocks.push_back(&block);
  while (!blocks.empty()) {
    Block *block = blocks.pop_back_val();
    for (BlockArgument argument : block->getArguments())
      if (argument.getLoc() == placeholder)
        return true;
    for (Operation &op : *block) {
      if (op.getLoc() == placeholder)
        return true;
      for (Region &region : op.getRegions())
        for (Block &inner : region)
          blocks.push_back(&inner);
    }
  }
  return false;
}

OwningOpRef<ModuleOp>
hostoffload::parseWithoutLexerPositions(StringRef text, StringRef bufferName,
                                        MLIRContext *context) {
  // The last line that is not a location alias closes the module: printed
  // with debug information, it ends with the module's location, and so does
  // every op's.
  StringRef rest = text.rtrim();
  StringRef last;
  do {
    size_t lineStart = rest.rfind('\n');
    last = lineStart == StringRef::npos ? rest : rest.substr(lineStart + 1);
    rest = lineStart == StringRef::npos ? StringRef()
                                        : rest.take_front(lineStart).rtrim();
  } while (last.starts_with("#") && !rest.empty());
  if (last.starts_with("#") || !endsWithLocation(last, 0))
    return nullptr;

  bool diagnosed = false;
  ScopedDiagnosticHandler quiet(context, [&](Diagnostic &) {
    diagnosed = true;
    return success();
  });
  LocationAttr placeholder = makePositionPlaceholder(context);
  OwningOpRef<ModuleOp> parsed =
      parseText(text, bufferName, context, placeholder);
  if (!parsed || diagnosed || keepsPlaceholder(parsed.get(), placeholder))
    return nullptr;
  return parsed;
}
