//===- Warnings.cpp - the warnings of one run -----------------------------===//

#include "Warnings.h"

#include <iterator>

namespace hostoffload {

void WarningList::warn(FindingCode code, mlir::Location loc,
                       const llvm::Twine &message) {
  const FindingCodeInfo &info = getFindingCodeInfo(code, strict);
  warnings.push_back(
      Finding{code, info.severity, loc, (info.name + ": " + message).str()});
}

void WarningList::moveTo(std::vector<Finding> &findings) {
  findings.insert(findings.end(), std::make_move_iterator(warnings.begin()),
                  std::make_move_iterator(warnings.end()));
  warnings.clear();
}

std::string quoted(llvm::StringRef text) { return ("\"" + text + "\"").str(); }

} // namespace hostoffload
