//===- Warnings.h - the warnings of one run ---------------------*- C++ -*-===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_WARNINGS_H
#define HOSTOFFLOAD_LIB_ANALYSIS_WARNINGS_H

#include "hostoffload/HostOffloadAnalysis.h"

#include "llvm/ADT/Twine.h"

#include <string>
#include <vector>

namespace hostoffload {

/// The warnings of a run in the order they are found; the report lists them
/// after the errors.
class WarningList {
public:
  explicit WarningList(bool strict) : strict(strict) {}

  /// Adds a warning whose message is `message` after the code's name.
  void warn(FindingCode code, mlir::Location loc, const llvm::Twine &message);

  void add(Finding finding) { warnings.push_back(std::move(finding)); }

  size_t size() const { return warnings.size(); }

  /// Moves every warning to the end of `findings`.
  void moveTo(std::vector<Finding> &findings);

private:
  bool strict;
  std::vector<Finding> warnings;
};

/// `text` in double quotes.
std::string quoted(llvm::StringRef text);

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_WARNINGS_H
