//===- Starts.cpp - where tensors enter host memory -----------------------===//

#include "Starts.h"

#include "OpRules.h"

#include "hostoffload/Names.h"

#include "llvm/ADT/Twine.h"

#include <utility>

using namespace mlir;

namespace hostoffload {

std::string StartCollector::describeArgument(unsigned index) {
  BlockArgument argument = entry.getArgument(index);
  if (auto nameLoc = llvm::dyn_cast<NameLoc>(argument.getLoc()))
    return "argument '" + nameLoc.getName().str() + "'";
  return "argument #" + std::to_string(index);
}

/// JAX names arguments with a location that has no file; point notes about
/// them at their first use in the Python source instead, else at the
/// function.
Location StartCollector::argumentLoc(unsigned index) {
  BlockArgument argument = entry.getArgument(index);
  if (findFileLocation(argument.getLoc()))
    return argument.getLoc();
  std::optional<Location> firstUse;
  std::pair<unsigned, unsigned> firstPosition;
  for (Operation *user : argument.getUsers()) {
    std::optional<FileLineColRange> file = findFileLocation(user->getLoc());
    if (!file)
      continue;
    std::pair<unsigned, unsigned> position{file->getStartLine(),
                                           file->getStartColumn()};
    if (!firstUse || position < firstPosition) {
      firstUse = user->getLoc();
      firstPosition = position;
    }
  }
  if (firstUse)
    return *firstUse;
  if (findFileLocation(entry.getLoc()))
    return entry.getLoc();
  return argument.getLoc();
}

/// E.g. "result 2 of @main".
std::string StartCollector::describeSignatureValue(llvm::StringRef valueKind,
                                                   unsigned index) {
  return (valueKind + " " + llvm::Twine(index) + " of @" + entry.getSymName())
      .str();
}

/// `getLoc` is called only for a warning: finding an argument's first use
/// walks all its uses.
void StartCollector::checkDeclaredKind(const DeclaredMemoryKind &declared,
                                       llvm::StringRef valueKind,
                                       unsigned index,
                                       llvm::function_ref<Location()> getLoc) {
  if (!declared.malformed &&
      (declared.kind.empty() || isKnownMemoryKind(declared.kind)))
    return;
  std::string what = describeSignatureValue(valueKind, index);
  Location loc = getLoc();
  if (declared.malformed) {
    warnings.warn(FindingCode::UnknownMemoryKind, loc,
                  llvm::Twine(names::kMemoryKindAttr) + " on " + what +
                      " is not a string; XLA knows \"device\", "
                      "\"pinned_host\" and \"unpinned_host\"");
    return;
  }
  warnings.warn(FindingCode::UnknownMemoryKind, loc,
                "unknown memory kind " + quoted(declared.kind) + " on " + what +
                    " (from " + declared.describeSource() +
                    "); XLA knows \"device\", \"pinned_host\" and "
                    "\"unpinned_host\"");
}

/// Warns about automatic layout on result `index`, declared pinned_host.
void StartCollector::checkResultLayout(unsigned index) {
  DictionaryAttr attrs = getAttrDict(entry.getResAttrsAttr(), index);
  auto layoutMode = attrs ? llvm::dyn_cast_or_null<StringAttr>(
                                attrs.get(names::kLayoutModeAttr))
                          : StringAttr();
  if (layoutMode && layoutMode.getValue() == names::kAutoLayout)
    warnings.warn(FindingCode::AutoLayoutOnHostOutput, entry.getLoc(),
                  describeSignatureValue("result", index) +
                      " is declared \"pinned_host\" with mhlo.layout_mode = "
                      "\"auto\"; older XLA releases drop the host memory "
                      "space of automatic layouts and fail with E1200");
}

void StartCollector::collectEntrySignature() {
  std::vector<DeclaredMemoryKind> argumentKinds =
      readMemoryKinds(entry.getArgAttrsAttr(), entry.getNumArguments(), module,
                      names::kArgMemorySpaces);
  resultKinds = readMemoryKinds(entry.getResAttrsAttr(), entry.getNumResults(),
                                module, names::kOutMemorySpaces);
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
    const DeclaredMemoryKind &declared = argumentKinds[i];
    checkDeclaredKind(declared, "argument", i, [&] { return argumentLoc(i); });
    if (declared.kind == names::kUnpinnedHost) {
      warnings.warn(FindingCode::UnpinnedHostArgument, argumentLoc(i),
                    describeArgument(i) +
                        " is declared \"unpinned_host\"; XLA does not trace "
                        "it as host memory, and XLA:TPU fails later with an "
                        "internal shape mismatch");
      continue;
    }
    if (declared.kind != names::kPinnedHost)
      continue;
    unsigned startIndex = report.starts.size();
    report.starts.push_back(
        {TraceStart::Kind::Argument, i, describeArgument(i),
         describeArgument(i) + " is declared " + declared.describe(),
         argumentLoc(i)});
    walk.addStart(entry.getArgument(i), startIndex);
  }
  for (unsigned i = 0, e = entry.getNumResults(); i < e; ++i) {
    const DeclaredMemoryKind &declared = resultKinds[i];
    checkDeclaredKind(declared, "result", i, [&] { return entry.getLoc(); });
    if (declared.kind == names::kPinnedHost)
      checkResultLayout(i);
  }
}

void StartCollector::collectCustomCall(Operation *op) {
  CustomCallInfo info = classifyCustomCall(op);
  if (info.kind == CustomCallKind::MalformedAnnotation) {
    warnings.warn(FindingCode::MalformedAnnotation, op->getLoc(),
                  "'" + info.target +
                      "' takes exactly one operand and one result, "
                      "this one has " +
                      llvm::Twine(op->getNumOperands()) + " and " +
                      llvm::Twine(op->getNumResults()) +
                      "; XLA fails on it with an internal error, and it is "
                      "not traced");
    return;
  }
  if (info.unknownPlacement) {
    warnings.warn(
        FindingCode::UnknownMemoryKind, op->getLoc(),
        (info.placement.empty()
             ? llvm::Twine("'annotate_device_placement' has no string ") +
                   names::kPlacementAttr + " in " + names::kFrontendAttrs
             : llvm::Twine("unknown ") + names::kPlacementAttr + " " +
                   quoted(info.placement)) +
            "; XLA knows \"pinned_host\", \"unpinned_host\", \"device\", "
            "\"vmem\" and \"pinned_device\"");
    return;
  }
  if (info.kind != CustomCallKind::MoveToHost)
    return;
  Value moved = op->getResult(0);
  if (moved.use_empty())
    warnings.warn(FindingCode::UnusedMoveToHost, op->getLoc(),
                  "the result of this move to host is never used, so the "
                  "offload does nothing");
  std::string name = info.placement.empty()
                         ? ("'" + info.target + "'").str()
                         : ("'" + info.target + "' to " + info.placement).str();
  std::string reason =
      info.placement.empty()
          ? ("custom call '" + info.target + "' moves the tensor to host").str()
          : ("custom call '" + info.target + "' with " + names::kPlacementAttr +
             " = " + quoted(info.placement) + " moves the tensor to host")
                .str();
  unsigned startIndex = report.starts.size();
  report.starts.push_back({TraceStart::Kind::Annotation, 0, std::move(name),
                           std::move(reason), op->getLoc()});
  walk.addStart(moved, startIndex);
}

} // namespace hostoffload
