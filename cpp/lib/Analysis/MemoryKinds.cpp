//===- MemoryKinds.cpp - memory kinds declared on the entry ---------------===//

#include "MemoryKinds.h"

#include "Concatenate.h"
#include "OpRules.h"

#include "hostoffload/Names.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

using namespace mlir;

namespace hostoffload {

std::string DeclaredMemoryKind::describeSource() const {
  return fromModuleSpaces ? (source + " of the module").str() : source.str();
}

void DeclaredMemoryKind::appendDescription(std::string &text) const {
  if (!fromModuleSpaces) {
    appendPieces(text, {source, " = \"", kind, "\""});
    return;
  }
  appendPieces(text, {"memory space ", space, " (\"", kind, "\") in "});
  text += describeSource();
}

std::string DeclaredMemoryKind::describe() const {
  std::string text;
  appendDescription(text);
  return text;
}

/// Maps XLA's memory-space numbers in modules converted from HLO to kinds.
static std::string memorySpaceToKind(llvm::StringRef space) {
  space = space.trim();
  if (space == names::kDeviceSpace)
    return names::kDevice.str();
  if (space == names::kPinnedHostSpace)
    return names::kPinnedHost.str();
  if (space == names::kUnpinnedHostSpace)
    return names::kUnpinnedHost.str();
  return ("memory space " + space).str();
}

DictionaryAttr getAttrDict(ArrayAttr perValueAttrs, unsigned index) {
  return perValueAttrs && index < perValueAttrs.size()
             ? llvm::dyn_cast<DictionaryAttr>(perValueAttrs[index])
             : DictionaryAttr();
}

std::vector<DeclaredMemoryKind>
readMemoryKinds(ArrayAttr perValueAttrs, unsigned count, ModuleOp module,
                llvm::StringLiteral moduleSpacesKey) {
  std::vector<DeclaredMemoryKind> kinds(count);
  llvm::SmallVector<llvm::StringRef> moduleSpaces;
  if (StringAttr spaces = getFrontendAttr(module, moduleSpacesKey))
    spaces.getValue().split(moduleSpaces, names::kMemorySpaceSeparator);
  StringAttr memoryKindName =
      StringAttr::get(module.getContext(), names::kMemoryKindAttr);
  for (unsigned index = 0; index < count; ++index) {
    DeclaredMemoryKind &declared = kinds[index];
    DictionaryAttr attrs = getAttrDict(perValueAttrs, index);
    if (Attribute kind = attrs ? attrs.get(memoryKindName) : Attribute()) {
      declared.source = names::kMemoryKindAttr;
      if (auto kindString = llvm::dyn_cast<StringAttr>(kind))
        declared.kind = kindString.getValue().str();
      else
        declared.malformed = true;
      continue;
    }
    if (index >= moduleSpaces.size())
      continue;
    declared.kind = memorySpaceToKind(moduleSpaces[index]);
    declared.source = moduleSpacesKey;
    declared.fromModuleSpaces = true;
    declared.space = moduleSpaces[index].trim();
  }
  return kinds;
}

bool isKnownMemoryKind(llvm::StringRef kind) {
  return kind == names::kDevice || kind == names::kPinnedHost ||
         kind == names::kUnpinnedHost;
}

} // namespace hostoffload
