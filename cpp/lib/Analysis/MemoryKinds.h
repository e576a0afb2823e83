//===- MemoryKinds.h - memory kinds declared on the entry -------*- C++ -*-===//
//
// Where a module declares in which memory an entry argument or output lives:
// `mhlo.memory_kind` in the function's argument and result attributes, or,
// in modules converted from HLO, XLA's memory-space numbers in the module's
// frontend attributes.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_MEMORYKINDS_H
#define HOSTOFFLOAD_LIB_ANALYSIS_MEMORYKINDS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace hostoffload {

/// A memory kind as declared on an entry argument or result.
struct DeclaredMemoryKind {
  /// The spelling; empty when nothing is declared.
  std::string kind;
  /// The attribute that declares it: `mhlo.memory_kind`, or the key of the
  /// module's memory spaces.
  llvm::StringRef source;
  /// The declaration is there but is not a string.
  bool malformed = false;
  /// Declared by an XLA memory-space number in the module's attributes, as
  /// in modules converted from HLO; `space` is that number.
  bool fromModuleSpaces = false;
  llvm::StringRef space;

  /// Where it was declared, e.g. "out_memory_spaces of the module".
  std::string describeSource() const;

  /// E.g. `mhlo.memory_kind = "device"`.
  std::string describe() const;
  /// Appends `describe()` to `text`.
  void appendDescription(std::string &text) const;
};

/// Entry `index` of a function's `arg_attrs` or `res_attrs` (`perValueAttrs`,
/// may be null). Read from the array directly: the FunctionOpInterface
/// accessor costs an interface lookup per call, and every output reads it.
mlir::DictionaryAttr getAttrDict(mlir::ArrayAttr perValueAttrs, unsigned index);

/// The memory kinds declared on `count` arguments or results, given their
/// attribute dictionaries (`perValueAttrs`, may be null), by `mhlo.memory_kind`
/// or else by the module's `moduleSpacesKey` (a string literal).
std::vector<DeclaredMemoryKind>
readMemoryKinds(mlir::ArrayAttr perValueAttrs, unsigned count,
                mlir::ModuleOp module, llvm::StringLiteral moduleSpacesKey);

/// One of the kinds XLA knows: device, pinned_host, unpinned_host.
bool isKnownMemoryKind(llvm::StringRef kind);

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_MEMORYKINDS_H
