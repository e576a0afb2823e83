//===- Concatenate.h - a message made of pieces, allocated once -*- C++ -*-===//
//
// The messages of findings are made of a dozen pieces each, and a large
// model has thousands of them. A Twine writes its pieces one virtual call at
// a time into a buffer of its own, which its str() then copies; operator+ on
// std::string grows the string piece by piece. `concatenate` sizes the
// string first and copies each piece once.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_CONCATENATE_H
#define HOSTOFFLOAD_LIB_ANALYSIS_CONCATENATE_H

#include "llvm/ADT/StringRef.h"

#include <initializer_list>
#include <string>

namespace hostoffload {

/// Appends `pieces` to `text`, growing it once.
inline void appendPieces(std::string &text,
                         std::initializer_list<llvm::StringRef> pieces) {
  size_t size = text.size();
  for (llvm::StringRef piece : pieces)
    size += piece.size();
  text.reserve(size);
  for (llvm::StringRef piece : pieces)
    text.append(piece.data(), piece.size());
}

/// Makes `text` `pieces`, in the memory it has if that is large enough.
inline void assignPieces(std::string &text,
                         std::initializer_list<llvm::StringRef> pieces) {
  text.clear();
  appendPieces(text, pieces);
}

/// `pieces` in one string of exactly their size.
inline std::string concatenate(std::initializer_list<llvm::StringRef> pieces) {
  std::string text;
  appendPieces(text, pieces);
  return text;
}

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_CONCATENATE_H
