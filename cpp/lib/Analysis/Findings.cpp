//===- Findings.cpp - what the walk means for XLA -------------------------===//

#include "Findings.h"
#include "TpuLimits.h"

#include "Concatenate.h"

#include "hostoffload/Names.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <optional>
#include <string>
#include <utility>

using namespace mlir;

namespace hostoffload {

/// Where the returned value is made; the return itself when that place has
/// no file (JAX names arguments without a file).
static Location returnedValueLoc(Value value, Operation *terminator) {
  Operation *definingOp = value.getDefiningOp();
  Location loc = definingOp ? definingOp->getLoc() : value.getLoc();
  if (!findFileLocation(loc) && findFileLocation(terminator->getLoc()))
    return terminator->getLoc();
  return loc;
}

llvm::StringRef FindingBuilder::getResultInfo(unsigned output) {
  if (DictionaryAttr attrs = getAttrDict(entry.getResAttrsAttr(), output))
    if (auto info = llvm::dyn_cast_or_null<StringAttr>(
            attrs.get(names::kResultInfoAttr)))
      return info.getValue();
  return "";
}

/// XLA turns a lone output that is directly a move to host of a device
/// value into a copy to host instead of failing.
bool FindingBuilder::isRootSpecialCase(Operation *terminator,
                                       unsigned operand) {
  if (entry.getNumResults() != 1 || operand != 0)
    return false;
  Operation *definingOp = terminator->getOperand(0).getDefiningOp();
  // XLA removes sharding wrappers before (HLO has xla.sdy.FuncResultSharding
  // custom calls around the root).
  while (
      definingOp && rules.isCustomCall(definingOp) &&
      rules.classifyCustomCall(definingOp).kind == CustomCallKind::Sharding &&
      definingOp->getNumOperands() == 1 && definingOp->getResult(0).hasOneUse())
    definingOp = definingOp->getOperand(0).getDefiningOp();
  if (!definingOp || !rules.isCustomCall(definingOp) ||
      rules.classifyCustomCall(definingOp).kind != CustomCallKind::MoveToHost)
    return false;
  return definingOp->getResult(0).hasOneUse() &&
         !walk.findHostNode(definingOp->getOperand(0));
}

void FindingBuilder::reportOutputs() {
  // Findings are large, and std::vector copies them when it grows (their
  // move may throw): count them first, the warnings that follow too.
  llvm::SmallVector<std::pair<unsigned, unsigned>> hostOutputs;
  for (unsigned output = 0, e = entry.getNumResults(); output < e; ++output) {
    std::optional<unsigned> outputNode = walk.getOutputNode(output);
    if (!outputNode || resultKinds[output].kind == names::kPinnedHost)
      continue;
    if (std::optional<unsigned> hostNode =
            walk.findHostNode(walk.getNodes()[*outputNode].value))
      hostOutputs.emplace_back(output, *hostNode);
  }
  report.findings.reserve(
      report.findings.size() + (takeMismatch ? 0 : hostOutputs.size()) +
      walk.getHostComputeOps().size() + warnings.size() + 1);
  std::string functionName = ("@" + entry.getSymName()).str();
  // A taker is done with each E1200 when it returns, so the next is built in
  // its memory: a model has thousands, each of some thirty strings, which
  // would otherwise each be allocated and freed again.
  Finding taken{FindingCode::OutputNotInHostMemory, Severity::Error,
                entry.getLoc(), ""};
  for (auto [output, hostNode] : hostOutputs) {
    const DeclaredMemoryKind &declared = resultKinds[output];
    const Node &node = walk.getNodes()[hostNode];
    Operation *terminator =
        *llvm::find_if(node.value.getUsers(), [&](Operation *user) {
          return rules.isFuncReturn(user) &&
                 user->getParentOp() == entry.getOperation();
        });
    Location loc = returnedValueLoc(node.value, terminator);
    // XLA:GPU makes the copy XLA:TPU cannot (measured:
    // unpinned_host_single_output compiles).
    if (isRootSpecialCase(terminator, output) &&
        declared.kind == names::kUnpinnedHost && platform == Platform::Tpu) {
      reportRootCopyToUnpinnedHost(loc, declared, functionName);
      continue;
    }
    if (isRootSpecialCase(terminator, output)) {
      reportRootMovedToHost(loc, declared, functionName);
      continue;
    }
    report.mismatchedOutputs.push_back(output);
    if (takeMismatch) {
      buildMismatch(taken, node, hostNode, output, declared, loc, functionName);
      takeMismatch(taken);
      ++report.numTakenMismatches;
      continue;
    }
    Finding mismatch{FindingCode::OutputNotInHostMemory, Severity::Error, loc,
                     ""};
    buildMismatch(mismatch, node, hostNode, output, declared, loc,
                  functionName);
    report.findings.push_back(std::move(mismatch));
  }
}

void FindingBuilder::reportRootMovedToHost(Location loc,
                                           const DeclaredMemoryKind &declared,
                                           llvm::StringRef functionName) {
  // Measured on a TPU: XLA copies the tensor to host memory and back, and the
  // output is in device memory (docs/semantics.md, section 6).
  const FindingCodeInfo &info =
      getFindingCodeInfo(FindingCode::RootMovedToHost, strict);
  Finding finding{FindingCode::RootMovedToHost, info.severity, loc, ""};
  finding.outputIndex = 0;
  appendPieces(finding.message,
               {info.name, ": output 0 is directly a move to host of a device "
                           "tensor, and "});
  if (declared.kind.empty())
    finding.message += "has no memory kind";
  else
    appendPieces(finding.message, {"is declared ", quoted(declared.kind)});
  finding.message +=
      "; XLA compiles this without an error by copying the tensor to host "
      "memory and straight back, so the output is in device memory and the "
      "move to host only adds two copies";
  finding.resultInfo = getResultInfo(0).str();
  finding.declaredMemoryKind = declared.kind;
  finding.declaredInModuleSpaces = declared.fromModuleSpaces;
  bool hasInfo = !finding.resultInfo.empty();
  std::string note = "to keep it in host memory, declare it there: ";
  if (declared.fromModuleSpaces)
    appendPieces(note, {"set memory space 5 for output 0 in ",
                        declared.describeSource()});
  else
    appendPieces(note,
                 {"set mhlo.memory_kind = \"pinned_host\" on result 0 of ",
                  functionName});
  appendPieces(note, {"; in JAX: out_shardings=...with_memory_kind("
                      "\"pinned_host\")",
                      hasInfo ? " for \"" : "", finding.resultInfo,
                      hasInfo ? "\"" : "",
                      "; to keep it on device, drop the move to host"});
  finding.notes.push_back({loc, std::move(note)});
  warnings.add(std::move(finding));
}

/// How XLA:TPU fails to copy a lone output moved to host into unpinned host
/// memory in `release`: its message, and what happens to the program. The
/// first fails the compile; the others abort the process in the TPU backend
/// (closed source), the last only on some shapes (docs/semantics.md,
/// section 6).
static std::pair<llvm::StringRef, llvm::StringRef>
describeUnpinnedHostCopyFailure(XlaRelease release) {
  switch (release) {
  case XlaRelease::June2026:
    return {"FAILED_PRECONDITION: Unimplemented DMA from hbm to hbm",
            "the compile fails"};
  case XlaRelease::July2026:
    return {"Check failed: source->memory_space() != MemorySpace::kHost "
            "(host vs. host)",
            "libtpu aborts the whole process, without a Python exception"};
  case XlaRelease::September2026:
    break;
  }
  return {"Check failed: CopyArrayExplicit(data, vmem_data, shape, "
          "dest_shape, b) is OK (INTERNAL: RET_CHECK failure ... "
          "source->memory_space() != MemorySpace::kHost (host vs. host))",
          "libtpu aborts the whole process, without a Python exception, on "
          "some shapes"};
}

void FindingBuilder::reportRootCopyToUnpinnedHost(
    Location loc, const DeclaredMemoryKind &declared,
    llvm::StringRef functionName) {
  // Every shape fails before XLA release 2026-09; there only some do, so the
  // check cannot say that this one will.
  FindingCode code = xlaRelease < XlaRelease::September2026
                         ? FindingCode::UnpinnedHostCopyFails
                         : FindingCode::UnpinnedHostCopyMayAbort;
  const FindingCodeInfo &info = getFindingCodeInfo(code, strict);
  auto [xlaMessage, outcome] = describeUnpinnedHostCopyFailure(xlaRelease);
  Finding finding{code, info.severity, loc, ""};
  finding.outputIndex = 0;
  finding.resultInfo = getResultInfo(0).str();
  finding.declaredMemoryKind = declared.kind;
  finding.declaredInModuleSpaces = declared.fromModuleSpaces;
  bool hasInfo = !finding.resultInfo.empty();
  appendPieces(finding.message, {info.name, ": ", xlaMessage, "; output 0",
                                 hasInfo ? " (\"" : "", finding.resultInfo,
                                 hasInfo ? "\")" : "", " is declared "});
  declared.appendDescription(finding.message);
  appendPieces(
      finding.message,
      {" and is directly a move to host of a device tensor: XLA turns the "
       "move into a copy to the output's memory, which XLA:TPU cannot make "
       "(XLA ",
       getXlaReleaseInfo(xlaRelease).name, ", ",
       describeLibtpuReleases(xlaRelease), "): ", outcome});
  if (code == FindingCode::UnpinnedHostCopyMayAbort)
    finding.message +=
        " of such an output and compiles others (measured on libtpu 0.0.52, "
        "per device: f32[8], f32[128] and f32[4,128] abort; f32[8,64], "
        "f32[8,128], f32[12,128], f32[1024] and bf16[8,128] compile)";
  std::string releases = "XLA releases: ";
  for (const XlaReleaseInfo &release : getXlaReleases()) {
    auto [message, what] = describeUnpinnedHostCopyFailure(release.release);
    appendPieces(
        releases,
        {release.release == getXlaReleases().front().release ? "" : "; ",
         release.name, " (", describeLibtpuReleases(release.release),
         "): ", what, ", '", message, "'"});
  }
  finding.notes.push_back({loc, std::move(releases)});
  Fix fix{Fix::Strategy::Host, "", ""};
  if (declared.fromModuleSpaces)
    appendPieces(fix.moduleChange, {"set memory space 5 for output 0 in ",
                                    declared.describeSource()});
  else
    appendPieces(fix.moduleChange,
                 {"set mhlo.memory_kind = \"pinned_host\" on result 0 of ",
                  functionName});
  appendPieces(fix.jaxChange,
               {"out_shardings=...with_memory_kind(\"pinned_host\")",
                hasInfo ? " for \"" : "", finding.resultInfo,
                hasInfo ? "\"" : ""});
  finding.notes.push_back(
      {loc, concatenate({"fix (keep it in pinned host memory, which XLA:TPU "
                         "copies to): ",
                         fix.moduleChange, "; in JAX: ", fix.jaxChange})});
  finding.fixes.push_back(std::move(fix));
  if (info.severity == Severity::Warning) {
    warnings.add(std::move(finding));
    return;
  }
  report.findings.push_back(std::move(finding));
}

/// Writes the notes of a finding in order over those it has, each message
/// in the memory it has; the notes left over go when it is destroyed.
class NoteWriter {
public:
  explicit NoteWriter(llvm::SmallVectorImpl<FindingNote> &notes)
      : notes(notes) {}
  NoteWriter(const NoteWriter &) = delete;
  NoteWriter &operator=(const NoteWriter &) = delete;
  ~NoteWriter() { notes.truncate(written); }

  /// The message of the next note, at `loc`; empty.
  std::string &add(Location loc) {
    if (written == notes.size())
      notes.push_back({loc, std::string()});
    FindingNote &note = notes[written++];
    note.loc = loc;
    note.message.clear();
    return note.message;
  }

private:
  llvm::SmallVectorImpl<FindingNote> &notes;
  size_t written = 0;
};

/// Why a slice the output is made of stays in host memory: XLA would read
/// a slice returned as it is into device memory.
void FindingBuilder::explainComputedSlice(const Node &node,
                                          NoteWriter &notes) const {
  const Facts &facts = walk.factsOf(node);
  if (facts.unconditional)
    return;
  for (unsigned slice : facts.slices) {
    Operation *use = walk.getSliceComputedOnBy(slice);
    if (!use)
      continue;
    Operation *sliceOp = walk.getSliceOp(slice);
    appendPieces(notes.add(sliceOp->getLoc()),
                 {"'", sliceOp->getName().getStringRef(),
                  "' of host memory stays in host memory: its result is also "
                  "used by '",
                  use->getName().getStringRef(),
                  "', so XLA runs the slice as host compute instead of "
                  "reading it into device memory"});
    return;
  }
}

void FindingBuilder::buildMismatch(Finding &finding, const Node &node,
                                   unsigned id, unsigned output,
                                   const DeclaredMemoryKind &declared,
                                   Location loc, llvm::StringRef functionName) {
  // Every field is set: `finding` may hold the E1200 before.
  FindingCode code = FindingCode::OutputNotInHostMemory;
  const FindingCodeInfo &codeInfo = getFindingCodeInfo(code, strict);
  finding.code = code;
  finding.severity = codeInfo.severity;
  finding.loc = loc;
  finding.outputIndex = output;
  finding.argumentIndex = std::nullopt;
  finding.tupleIndex.clear();
  llvm::append_range(finding.tupleIndex, walk.getPaths().get(node.pathId));
  llvm::StringRef resultInfo = getResultInfo(output);
  finding.resultInfo.assign(resultInfo.data(), resultInfo.size());
  finding.declaredMemoryKind.assign(declared.kind);
  finding.declaredInModuleSpaces = declared.fromModuleSpaces;
  const Facts &facts = walk.factsOf(node);
  finding.startIndices.assign(facts.starts.begin(), facts.starts.end());
  llvm::sort(finding.startIndices);
  finding.moreStarts = facts.moreStarts;
  finding.omittedPathSteps = paths.buildPath(id, finding.path);

  outputName.clear();
  appendPieces(outputName, {"output ", std::to_string(output)});
  if (!finding.tupleIndex.empty()) {
    outputName += " at tuple index {";
    for (auto [position, index] : llvm::enumerate(finding.tupleIndex))
      appendPieces(outputName, {position ? ", " : "", std::to_string(index)});
    outputName += "}";
  }
  bool hasInfo = !finding.resultInfo.empty();
  // From HLO, also the instruction XLA's message names.
  const TraceStart &firstStart = paths.getFirstStart(id);
  bool hasXlaName = !firstStart.xlaName.empty();
  assignPieces(
      finding.message,
      {codeInfo.name, ": Tensor which is moved to host (starting from ",
       firstStart.name, hasXlaName ? ", XLA: '" : "", firstStart.xlaName,
       hasXlaName ? "'" : "",
       ") is returned from the entry computation but the layout for this "
       "output is not set to host memory; ",
       outputName, hasInfo ? " (\"" : "", finding.resultInfo,
       hasInfo ? "\")" : "",
       declared.kind.empty()
           ? " has no mhlo.memory_kind, so it is in device memory"
           : " is declared "});
  if (!declared.kind.empty())
    declared.appendDescription(finding.message);

  // One note per start, "more starts", the path, the computed slice, the
  // unpinned kind and two fixes (or one and why not the other).
  finding.notes.reserve(finding.startIndices.size() + 6);
  NoteWriter notes(finding.notes);
  for (unsigned startIndex : finding.startIndices) {
    const TraceStart &start = report.starts[startIndex];
    llvm::StringRef lead = start.kind == TraceStart::Kind::Argument
                               ? "in host memory from the start: "
                               : "moved to host here: ";
    appendPieces(notes.add(start.loc), {lead, start.reason});
  }
  if (finding.moreStarts)
    notes.add(loc).assign(
        "more tensors moved to host than shown reach this output");
  PathBuilder::appendPath(notes.add(loc), "path: ", finding.path,
                          finding.omittedPathSteps, outputName);
  explainComputedSlice(node, notes);
  if (declared.kind == names::kUnpinnedHost)
    notes.add(loc).assign(
        "XLA puts \"unpinned_host\" outputs in memory space 6, not in host "
        "memory space 5, so they do not count as host memory");
  addFixes(finding, notes, declared, loc, functionName);
}

/// Adds both fixes of an E1200 on `finding`'s output, each with its note, or
/// only the device one with a note saying why where XLA cannot take the
/// other.
void FindingBuilder::addFixes(Finding &finding, NoteWriter &notes,
                              const DeclaredMemoryKind &declared, Location loc,
                              llvm::StringRef functionName) {
  std::string output = std::to_string(*finding.outputIndex);
  // Modules converted from HLO declare memory spaces and move with
  // MoveToDevice; the fixes speak their language. JAX names the output by
  // its quoted result info, else as the module does.
  bool hasInfo = !finding.resultInfo.empty();
  llvm::StringRef jaxQuote = hasInfo ? "\"" : "";
  llvm::StringRef jaxName = hasInfo ? llvm::StringRef(finding.resultInfo)
                                    : llvm::StringRef(outputName);
  // XLA does not implement a memory kind on a tuple-typed output, so only
  // moving the elements back helps there.
  bool keepsInHost =
      !llvm::isa<TupleType>(entry.getResultTypes()[*finding.outputIndex]);
  finding.fixes.resize(keepsInHost ? 2 : 1);
  auto addFixNote = [&](llvm::StringRef lead, const Fix &fix) {
    appendPieces(notes.add(loc),
                 {lead, fix.moduleChange, "; in JAX: ", fix.jaxChange});
  };
  if (keepsInHost) {
    Fix &hostFix = finding.fixes.front();
    hostFix.strategy = Fix::Strategy::Host;
    if (declared.fromModuleSpaces)
      assignPieces(hostFix.moduleChange,
                   {"set memory space 5 for output ", output, " in ",
                    declared.describeSource()});
    else
      assignPieces(hostFix.moduleChange,
                   {"set mhlo.memory_kind = \"pinned_host\" on result ", output,
                    " of ", functionName});
    assignPieces(hostFix.jaxChange,
                 {"out_shardings=...with_memory_kind(\"pinned_host\") for ",
                  jaxQuote, jaxName, jaxQuote});
    // libtpu aborts on that alone where the output is a loop carry that
    // starts in device memory (HOE109); the carry's initial value moves too.
    // XLA:GPU compiles such a carry declared in host memory (measured).
    if (platform == Platform::Tpu)
      hostFix.loopInit = findLoopInitInDeviceMemory(
          walk, entry.getBody().front().getTerminator()->getOperand(
                    *finding.outputIndex));
    if (hostFix.loopInit) {
      appendPieces(
          hostFix.moduleChange,
          {", and move operand ",
           std::to_string(hostFix.loopInit->getOperandNumber()),
           " of the stablehlo.while it comes out of to host memory (",
           declared.fromModuleSpaces
               ? "custom call 'MoveToHost'"
               : "'annotate_device_placement' with _xla_buffer_placement = "
                 "\"pinned_host\"",
           "), since libtpu aborts on a loop carry declared in host memory "
           "that starts in device memory"});
      appendPieces(hostFix.jaxChange,
                   {", and jax.device_put(init, jax.memory.Space.Host) on the "
                    "initial value of the loop carry it comes out of"});
    }
    addFixNote("fix (keep it in host memory): ", hostFix);
  } else {
    appendPieces(notes.add(loc),
                 {"output ", output,
                  " is a tuple, and XLA does not implement a memory kind on a "
                  "tuple-typed output: it cannot be kept in host memory"});
  }
  Fix &deviceFix = finding.fixes.back();
  deviceFix.strategy = Fix::Strategy::Device;
  assignPieces(deviceFix.moduleChange,
               {declared.fromModuleSpaces
                    ? "move it back with custom call 'MoveToDevice' on operand "
                    : "move it back with 'annotate_device_placement' "
                      "(_xla_buffer_placement = \"device\") on operand ",
                output, " of func.return"});
  assignPieces(deviceFix.jaxChange,
               {"jax.device_put(x, jax.memory.Space.Device) on ", jaxQuote,
                jaxName, jaxQuote, " before returning it"});
  addFixNote("fix (bring it back to device memory): ", deviceFix);
}

void FindingBuilder::reportHostCompute() {
  FindingCode code = FindingCode::ImplicitHostCompute;
  // One finding per code and location of the first op: a layer scanned or
  // unrolled, or an update mapped over a tree of parameters, computes on
  // thousands of starts at one line. The other starts are counted in a note.
  struct Group {
    std::optional<Finding> finding;
    llvm::SmallVector<unsigned, 1> startIndices;
  };
  llvm::MapVector<std::pair<Location, const FindingCodeInfo *>, Group> groups;
  for (auto &[startIndex, ops] : walk.getHostComputeOps()) {
    const TraceStart &start = report.starts[startIndex];
    // Strict mode refuses host compute; XLA's h2h relaxation lets copies
    // through, so a start whose host compute is all copies passes.
    bool refused = strict && !(allowH2hCopy && !ops.firstNonCopy);
    const FindingCodeInfo &info = getFindingCodeInfo(code, refused);
    Operation *first =
        refused && allowH2hCopy ? ops.firstNonCopy : ops.shown.front();
    Group &group = groups[{first->getLoc(), &info}];
    group.startIndices.push_back(startIndex);
    if (group.finding)
      continue;
    std::string what = ("'" + first->getName().getStringRef() +
                        "' computes on a tensor in host memory (moved to host "
                        "starting from " +
                        start.name + ")")
                           .str();
    // Under strict, XLA's own sentence comes first, as E1200's does.
    std::string message =
        refused
            ? (info.name + ": Automatic host compute offloading is disabled; " +
               what + ", which XLA would run as host compute")
                  .str()
            : (info.name + ": " + what +
               "; XLA runs it as host compute and keeps its results in "
               "host memory")
                  .str();
    Finding finding{code, info.severity, first->getLoc(), std::move(message)};
    size_t shownCount = 1;
    for (Operation *op : ops.shown) {
      if (op == first)
        continue;
      ++shownCount;
      finding.notes.push_back(
          {op->getLoc(), ("'" + op->getName().getStringRef() +
                          "' computes on host memory from the same start")
                             .str()});
    }
    if (ops.count > shownCount)
      finding.notes.push_back(
          {first->getLoc(), "and " + std::to_string(ops.count - shownCount) +
                                " more ops compute on host memory from " +
                                start.name});
    group.finding = std::move(finding);
  }
  for (auto &[key, group] : groups) {
    Finding &finding = *group.finding;
    if (group.startIndices.size() > 1)
      finding.notes.push_back(
          {finding.loc, describeOtherStarts(group.startIndices)});
    // Errors come first in the report.
    if (finding.severity == Severity::Error)
      report.findings.push_back(std::move(finding));
    else
      warnings.add(std::move(finding));
  }
}

std::string FindingBuilder::describeOtherStarts(
    llvm::ArrayRef<unsigned> startIndices) const {
  llvm::ArrayRef<unsigned> others = startIndices.drop_front();
  llvm::ArrayRef<unsigned> shown = others.take_front(kHostComputeOpsShown);
  std::string text =
      "ops here compute on " + std::to_string(startIndices.size()) +
      " tensors in host memory in all; also moved to host starting from " +
      llvm::join(
          llvm::map_range(
              shown, [&](unsigned index) { return report.starts[index].name; }),
          ", ");
  if (others.size() > shown.size())
    text += " and " + std::to_string(others.size() - shown.size()) + " more";
  return text;
}

} // namespace hostoffload
