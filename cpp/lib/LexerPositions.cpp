//===- LexerPositions.cpp - texts parsed without the lexer's positions ----===//

#include "hostoffload/LexerPositions.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using llvm::StringRef;

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

OwningOpRef<Operation *> hostoffload::parseWithoutLexerPositions(
    StringRef text, MLIRContext *context,
    llvm::function_ref<OwningOpRef<Operation *>()> parse) {
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
  OwningOpRef<Operation *> parsed;
  {
    LexerPositionsReplaced replaced(placeholder);
    parsed = parse();
  }
  if (!parsed || diagnosed || keepsPlaceholder(parsed.get(), placeholder))
    return nullptr;
  return parsed;
}

LocationAttr &hostoffload::lexerPositionPlaceholder() {
  static thread_local LocationAttr placeholder;
  return placeholder;
}
