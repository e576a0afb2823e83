//===- HostOffloadAnalysis.cpp - trace tensors moved to host --------------===//
//
// The analysis in order: the module's call sites and custom calls are
// collected, the starts enter the walk,
// it runs, and the findings (and, if asked, the trace) are read off what it
// found. Each step is in a
// file of this folder: OpRules (what XLA does with each op), ModuleOps (the
// ops looked up), Facts (the lattice), NodeTable, Starts, Walk and WalkCalls
// (the worklist), Paths and Findings.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/HostOffloadAnalysis.h"

#include "CallCycles.h"
#include "Concatenate.h"
#include "DynamicUpdateSlices.h"
#include "Findings.h"
#include "GpuBranches.h"
#include "ModuleOps.h"
#include "OpRules.h"
#include "Starts.h"
#include "TpuLimits.h"
#include "Trace.h"
#include "Walk.h"
#include "Warnings.h"

#include "hostoffload/EntryFunction.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>

using namespace mlir;

namespace hostoffload {

namespace {

constexpr FindingCodeInfo kFindingCodes[] = {
#define HOSTOFFLOAD_FINDING_CODE(Enumerator, Name, Level, Description)         \
  {FindingCode::Enumerator, false, Name, Severity::Level, Description},
#define HOSTOFFLOAD_STRICT_FINDING_CODE(Enumerator, Name, Level, Description)  \
  {FindingCode::Enumerator, true, Name, Severity::Level, Description},
#include "hostoffload/FindingCodes.def"
};

constexpr FormerFindingCodeName kFormerFindingCodeNames[] = {
#define HOSTOFFLOAD_FORMER_FINDING_CODE(Former, Name) {Former, Name},
#include "hostoffload/FindingCodes.def"
};

} // namespace

llvm::ArrayRef<FindingCodeInfo> getFindingCodes() { return kFindingCodes; }

llvm::ArrayRef<FormerFindingCodeName> getFormerFindingCodeNames() {
  return kFormerFindingCodeNames;
}

const FindingCodeInfo &getFindingCodeInfo(FindingCode code, bool strict) {
  // A strict row follows the row of its code.
  const FindingCodeInfo *found = nullptr;
  for (const FindingCodeInfo &info : kFindingCodes)
    if (info.code == code && (strict || !info.strictOnly))
      found = &info;
  if (!found)
    llvm_unreachable("a finding code without a row in FindingCodes.def");
  return *found;
}

llvm::StringRef getFindingCodeName(FindingCode code, bool strict) {
  return getFindingCodeInfo(code, strict).name;
}

llvm::StringRef getSeverityName(Severity severity) {
  return severity == Severity::Error ? "error" : "warning";
}

llvm::StringRef Fix::getStrategyName(Strategy strategy) {
  return strategy == Strategy::Host ? "host" : "device";
}

std::optional<Fix::Strategy> Fix::parseStrategy(llvm::StringRef name) {
  for (Strategy strategy : {Strategy::Host, Strategy::Device})
    if (name == getStrategyName(strategy))
      return strategy;
  return std::nullopt;
}

bool HostOffloadReport::hasErrors() const {
  return numTakenMismatches > 0 ||
         llvm::any_of(findings, [](const Finding &finding) {
           return finding.severity == Severity::Error;
         });
}

FailureOr<HostOffloadReport>
analyzeHostOffload(ModuleOp module, const HostOffloadOptions &options,
                   llvm::function_ref<void(const Finding &)> takeMismatch) {
  FailureOr<func::FuncOp> entry = findEntryFunction(module, options.entry);
  if (failed(entry))
    return failure();
  HostOffloadReport report;
  report.entry = *entry;
  report.xlaRelease = options.xlaRelease;

  OpRules rules(module.getContext(), options.platform);
  ModuleOps collected = ModuleOps::collect(module, rules);
  Walk walk(module, *entry, rules, collected);
  WarningList warnings(options.strict);
  StartCollector starts(module, *entry, report, walk, rules, warnings);
  starts.collectEntrySignature();
  for (Operation *op : walk.getCustomCalls())
    starts.collectCustomCall(op);
  // Where an entry argument's note points is found from its users, which the
  // walk reads anyway.
  auto visitStartUser = [&](Value start, Operation *user) {
    starts.visitStartUser(start, user);
  };
  walk.run(visitStartUser);
  std::vector<Finding> cycles;
  reportCallCycles(*entry, collected, cycles);
  starts.setArgumentLocs();

  FindingBuilder findings(*entry, options, report, walk, rules,
                          starts.getResultKinds(), warnings, takeMismatch);
  findings.reportOutputs();
  if (options.trace)
    traceStarts(*entry, report, walk, rules, starts.getResultKinds());
  findings.reportHostCompute();
  reportDynamicUpdateSlices(module, *entry, options, walk, rules, report);
  reportGpuMixedBranches(options, walk, rules, report);
  if (options.platform == Platform::Tpu)
    reportTpuLimits(walk, *entry, starts.getResultKinds(), options.xlaRelease,
                    report.findings, warnings);
  std::move(cycles.begin(), cycles.end(), std::back_inserter(report.findings));
  warnings.moveTo(report.findings);
  return report;
}

Location FindingEmitter::getEditorLoc(Location loc) {
  auto [entry, added] = editorLocs.try_emplace(loc, loc);
  if (added)
    entry->second = withEditorColumns(loc);
  return entry->second;
}

void FindingEmitter::emit(const Finding &finding) {
  // The messages are streamed as references to the finding's own text, which
  // outlives the diagnostic (a string streamed into a diagnostic is copied
  // into it); only a message repaired as UTF-8 is a copy, kept meanwhile.
  auto validText = [&](const std::string &text) {
    if (llvm::json::isUTF8(text))
      return DiagnosticArgument(llvm::StringRef(text));
    return DiagnosticArgument(
        llvm::StringRef(repaired.emplace_back(llvm::json::fixUTF8(text))));
  };
  Location loc = getEditorLoc(finding.loc);
  InFlightDiagnostic diagnostic =
      finding.severity == Severity::Error ? emitError(loc) : emitWarning(loc);
  diagnostic << validText(finding.message);
  for (const FindingNote &note : finding.notes)
    diagnostic.attachNote(getEditorLoc(note.loc)) << validText(note.message);
}

namespace {

/// The innermost file location inside `loc`, and whether it sits directly
/// inside a name location (a Python frame, as JAX writes them).
std::optional<std::pair<FileLineColRange, bool>>
findFileLocationAndFrame(Location loc) {
  llvm::SmallVector<std::pair<Location, bool>> pending{{loc, false}};
  while (!pending.empty()) {
    auto [current, insideName] = pending.pop_back_val();
    if (auto file = llvm::dyn_cast<FileLineColRange>(current))
      return std::make_pair(file, insideName);
    if (auto name = llvm::dyn_cast<NameLoc>(current)) {
      pending.push_back({name.getChildLoc(), true});
    } else if (auto callSite = llvm::dyn_cast<CallSiteLoc>(current)) {
      // The callee is the innermost frame; the caller is looked at only when
      // the callee has no file.
      pending.push_back({callSite.getCaller(), false});
      pending.push_back({callSite.getCallee(), false});
    } else if (auto fused = llvm::dyn_cast<FusedLoc>(current)) {
      for (Location part : llvm::reverse(fused.getLocations()))
        pending.push_back({part, false});
    } else if (auto opaque = llvm::dyn_cast<OpaqueLoc>(current)) {
      pending.push_back({opaque.getFallbackLocation(), false});
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<FileLineColRange> findFileLocation(Location loc) {
  if (auto found = findFileLocationAndFrame(loc))
    return found->first;
  return std::nullopt;
}

std::optional<llvm::StringRef> findLocationName(Location loc) {
  if (auto fused = llvm::dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      loc = fused.getLocations().front();
  if (auto name = llvm::dyn_cast<NameLoc>(loc))
    return name.getName().getValue();
  return std::nullopt;
}

std::string describeArgument(BlockArgument argument) {
  if (std::optional<llvm::StringRef> name = findLocationName(argument.getLoc()))
    return concatenate({"argument '", *name, "'"});
  return concatenate({"argument #", std::to_string(argument.getArgNumber())});
}

std::optional<SourcePosition> findSourcePosition(Location loc) {
  auto found = findFileLocationAndFrame(loc);
  if (!found)
    return std::nullopt;
  auto [file, isPythonFrame] = *found;
  return SourcePosition{file.getFilename().getValue(), file.getStartLine(),
                        file.getStartColumn() + (isPythonFrame ? 1 : 0),
                        isPythonFrame};
}

Location withEditorColumns(Location loc) {
  AttrTypeReplacer replacer;
  replacer.addReplacement(
      [](NameLoc name) -> std::optional<std::pair<Attribute, WalkResult>> {
        auto file = llvm::dyn_cast<FileLineColRange>(name.getChildLoc());
        if (!file)
          return std::nullopt;
        auto shifted = FileLineColRange::get(
            file.getFilename(), file.getStartLine(), file.getStartColumn() + 1,
            file.getEndLine(), file.getEndColumn() + 1);
        return std::make_pair(NameLoc::get(name.getName(), shifted),
                              WalkResult::skip());
      });
  return llvm::cast<LocationAttr>(replacer.replace(LocationAttr(loc)));
}

std::string toValidUTF8(llvm::StringRef text) {
  if (llvm::json::isUTF8(text))
    return text.str();
  return llvm::json::fixUTF8(text);
}

} // namespace hostoffload
