//===- Starts.cpp - where tensors enter host memory -----------------------===//

#include "Starts.h"

#include "Concatenate.h"
#include "OpRules.h"

#include "hostoffload/Names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <utility>

using namespace mlir;

namespace hostoffload {

namespace {

/// The name of the HLO instruction an op was imported from: the importer
/// puts it first in the op's location (`loc("mul.6"(...))`, or first in a
/// fused location); "" if there is none.
std::string getInstructionName(Location loc) {
  return findLocationName(loc).value_or("").str();
}

/// The ops XLA's HostOffloader passes over between a MoveToHost and the
/// instruction it starts its trace from (HostOffloader::
/// InstructionIsAllowedBetweenMoveToHostAndDus): a bitcast, a copy, a
/// reshape that is a bitcast; and the sharding wrappers, which XLA has
/// removed by then.
bool isPassedBeforeStart(const OpRules &rules, Operation *op) {
  if (op->getNumOperands() != 1 || op->getNumResults() != 1)
    return false;
  if (rules.isCustomCall(op))
    return rules.classifyCustomCall(op).kind == CustomCallKind::Sharding;
  llvm::StringRef name = op->getName().getStringRef();
  return name == names::kMhloBitcastOp || name == names::kMhloCopyOp ||
         name == names::kReshapeOp;
}

/// A move to device ends XLA's trace where it starts: it never names it.
bool endsTraceAtOnce(const OpRules &rules, Operation *op) {
  return rules.isCustomCall(op) &&
         rules.classifyCustomCall(op).kind == CustomCallKind::MoveToDevice;
}

} // namespace

/// The instruction XLA's trace starts from when it takes the moved tensor
/// through `use`, or "" when its name is not known: inside a callee (XLA has
/// inlined calls by then, and renamed what it inlined); an annotation (XLA
/// replaces annotate_device_placement with a new MoveToHost); a while loop
/// or a conditional (XLA names the tuple operand that the importer dropped);
/// the return of a lone output (XLA simplifies the root). The return of
/// several outputs takes the entry's root tuple, an optimization barrier the
/// name of its tuple operand that the HLO front end recorded.
std::string StartCollector::xlaUserName(OpOperand &use) {
  Operation *user = use.getOwner();
  if (user->getParentOfType<func::FuncOp>() != entry)
    return "";
  llvm::StringRef name = user->getName().getStringRef();
  if (name == names::kFuncReturnOp) {
    auto root = hloEntry.getAs<StringAttr>(names::kHloEntryRoot);
    return root && entry.getNumResults() > 1 ? root.getValue().str() : "";
  }
  if (name == names::kOptimizationBarrierOp) {
    auto operands =
        hloEntry.getAs<DictionaryAttr>(names::kHloEntryBarrierOperands);
    auto tuple =
        operands
            ? operands.getAs<StringAttr>(getInstructionName(user->getLoc()))
            : StringAttr();
    return tuple ? tuple.getValue().str() : "";
  }
  if (name == names::kWhileOp || name == names::kIfOp || name == names::kCaseOp)
    return "";
  if (rules.isCustomCall(user) &&
      rules.classifyCustomCall(user).target == names::kAnnotateDevicePlacement)
    return "";
  return getInstructionName(user->getLoc());
}

/// The values XLA's trace reaches through a call or a callee's return, as
/// it sees them once it has inlined the call: the callee's argument, the
/// results of the callee's call sites.
void StartCollector::addInlinedValues(OpOperand &use,
                                      llvm::SmallVectorImpl<Value> &pending) {
  Operation *user = use.getOwner();
  if (FlatSymbolRefAttr callee = getCallee(user)) {
    func::FuncOp function = walk.lookupFunction(callee.getAttr());
    if (function && !function.isExternal() &&
        use.getOperandNumber() < function.getNumArguments())
      pending.push_back(function.getArgument(use.getOperandNumber()));
    return;
  }
  auto function = user->getParentOfType<func::FuncOp>();
  for (const CallSites::Entry &site :
       walk.getCallSites().of(function.getSymNameAttr()))
    if (use.getOperandNumber() < site.call->getNumResults())
      pending.push_back(site.call->getResult(use.getOperandNumber()));
}

/// XLA starts its trace of a MoveToHost at each instruction that takes the
/// moved tensor (HostOffloader::GetStartingInstructions), and its E1200
/// names the one whose trace reached the output. Named here when there is
/// one such instruction and its name is known; with several, which one XLA
/// names depends on the output, and none is named.
std::string StartCollector::xlaAnnotationName(Operation *annotation) {
  if (!hloEntry)
    return "";
  // A move to host of a tensor moved to host already is where the trace of
  // the first move starts; XLA removes it on that trace and names it.
  Operation *operandOp = annotation->getOperand(0).getDefiningOp();
  while (operandOp && isPassedBeforeStart(rules, operandOp))
    operandOp = operandOp->getOperand(0).getDefiningOp();
  if (operandOp && rules.isCustomCall(operandOp) &&
      rules.classifyCustomCall(operandOp).kind == CustomCallKind::MoveToHost)
    return rules.classifyCustomCall(annotation).target == names::kMoveToHost
               ? getInstructionName(annotation->getLoc())
               : "";
  std::string found;
  llvm::SmallVector<Value> pending{annotation->getResult(0)};
  // A bound on the values looked at: a name is for one message, and a
  // module of a million ops must not be walked for it.
  for (unsigned looked = 0; !pending.empty(); ++looked) {
    if (looked == kMaxValuesForXlaName)
      return "";
    Value value = pending.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isPassedBeforeStart(rules, user)) {
        pending.push_back(user->getResult(0));
        continue;
      }
      if (endsTraceAtOnce(rules, user))
        continue;
      llvm::StringRef userName = user->getName().getStringRef();
      if (userName == names::kCallOp ||
          (userName == names::kFuncReturnOp &&
           user->getParentOp() != entry.getOperation())) {
        addInlinedValues(use, pending);
        continue;
      }
      std::string name = xlaUserName(use);
      if (name.empty() || (!found.empty() && name != found))
        return "";
      found = std::move(name);
    }
  }
  return found;
}

ArgumentLocSearch::ArgumentLocSearch(BlockArgument argument)
    : own(argument.getLoc()) {
  std::optional<SourcePosition> position = findSourcePosition(own);
  ownHasPosition = position.has_value();
  ownIsPythonFrame = position && position->isPythonFrame;
}

void ArgumentLocSearch::visitUser(Operation *user) {
  // An argument can have a million users. Users in a row mostly share a
  // location; and where the argument has a file position of its own, only a
  // Python frame comes before it, which a bare file location is not.
  Location loc = user->getLoc();
  if (ownIsPythonFrame || loc == lastLoc ||
      (ownHasPosition && llvm::isa<FileLineColRange>(loc)))
    return;
  lastLoc = loc;
  std::optional<SourcePosition> position = findSourcePosition(loc);
  if (!position)
    return;
  std::pair<unsigned, unsigned> lineAndColumn{position->line, position->column};
  if (!firstUse || lineAndColumn <= firstPosition) {
    firstUse = loc;
    firstPosition = lineAndColumn;
  }
  if (position->isPythonFrame &&
      (!firstPythonUse || lineAndColumn <= firstPythonPosition)) {
    firstPythonUse = loc;
    firstPythonPosition = lineAndColumn;
  }
}

Location ArgumentLocSearch::getLoc(func::FuncOp entry) const {
  if (ownIsPythonFrame)
    return own;
  if (firstPythonUse)
    return *firstPythonUse;
  if (ownHasPosition)
    return own;
  if (firstUse)
    return *firstUse;
  if (findFileLocation(entry.getLoc()))
    return entry.getLoc();
  return own;
}

/// Where a warning about argument `index` points. The walk passes the users
/// of starts only, so the users are read here.
Location StartCollector::argumentLoc(unsigned index) {
  BlockArgument argument = entry.getArgument(index);
  ArgumentLocSearch search(argument);
  if (search.needsUsers()) {
    llvm::SmallVector<Operation *> users(argument.getUsers());
    for (Operation *user : llvm::reverse(users))
      search.visitUser(user);
  }
  return search.getLoc(entry);
}

void StartCollector::visitStartUser(Value start, Operation *user) {
  if (start != lastVisitedStart) {
    lastVisitedStart = start;
    lastVisitedSearch = nullptr;
    auto argument = llvm::dyn_cast<BlockArgument>(start);
    if (argument && argument.getOwner() == &entry.front())
      if (auto &search = argumentLocSearches[argument.getArgNumber()])
        lastVisitedSearch = &search->second;
  }
  if (lastVisitedSearch)
    lastVisitedSearch->visitUser(user);
}

void StartCollector::setArgumentLocs() {
  for (const auto &search : argumentLocSearches)
    if (search)
      report.starts[search->first].loc = search->second.getLoc(entry);
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

void StartCollector::checkDonation(unsigned index) {
  auto output = llvm::dyn_cast_or_null<IntegerAttr>(
      entry.getArgAttr(index, names::kAliasingOutputAttr));
  if (!output || output.getValue().isNegative() ||
      output.getValue().uge(resultKinds.size()))
    return;
  unsigned result = output.getValue().getZExtValue();
  const DeclaredMemoryKind &declared = resultKinds[result];
  // XLA:TPU places an unpinned_host output in device memory, but aliases it
  // with a pinned_host argument (measured).
  if (!declared.kind.empty() && declared.kind != names::kDevice)
    return;
  std::string where = declared.kind.empty() ? std::string("none is declared")
                                            : declared.describe();
  const FindingCodeInfo &info =
      getFindingCodeInfo(FindingCode::DonatedHostArgument, /*strict=*/false);
  Location loc = argumentLoc(index);
  Finding finding{
      FindingCode::DonatedHostArgument, info.severity, loc,
      concatenate({info.name, ": ", describeArgument(entry.getArgument(index)),
                   " is declared \"pinned_host\" and donated to ",
                   describeSignatureValue("result", result), " (",
                   names::kAliasingOutputAttr, " = ", std::to_string(result),
                   "), which is in device memory (", where,
                   "): XLA:TPU cannot alias the argument's host buffer to it "
                   "(\"FAILED_PRECONDITION: Unimplemented DMA from host to "
                   "host\")"})};
  finding.notes.push_back(
      {loc, concatenate({"fix: declare result ", std::to_string(result),
                         " \"pinned_host\" (in JAX: "
                         "out_shardings=...with_memory_kind(\"pinned_host\")), "
                         "or do not donate the argument (in JAX: leave it out "
                         "of donate_argnums)"})});
  report.findings.push_back(std::move(finding));
}

void StartCollector::collectEntrySignature() {
  std::vector<DeclaredMemoryKind> argumentKinds =
      readMemoryKinds(entry.getArgAttrsAttr(), entry.getNumArguments(), module,
                      names::kArgMemorySpaces);
  resultKinds = readMemoryKinds(entry.getResAttrsAttr(), entry.getNumResults(),
                                module, names::kOutMemorySpaces);
  // A start per argument in pinned host memory and at most one per custom
  // call: a model's optimizer state is thousands of arguments.
  size_t hostArguments =
      llvm::count_if(argumentKinds, [](const DeclaredMemoryKind &declared) {
        return declared.kind == names::kPinnedHost;
      });
  report.starts.reserve(report.starts.size() + hostArguments +
                        walk.getCustomCalls().size());
  argumentLocSearches.resize(entry.getNumArguments());
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
    const DeclaredMemoryKind &declared = argumentKinds[i];
    checkDeclaredKind(declared, "argument", i, [&] { return argumentLoc(i); });
    if (declared.kind == names::kUnpinnedHost) {
      // XLA:GPU compiles it (measured: unpinned_host_arg).
      warnings.warn(FindingCode::UnpinnedHostArgument, argumentLoc(i),
                    describeArgument(entry.getArgument(i)) +
                        " is declared \"unpinned_host\"; XLA does not trace "
                        "it as host memory" +
                        (rules.getPlatform() == Platform::Tpu
                             ? ", and XLA:TPU fails later with an internal "
                               "shape mismatch"
                             : ""));
      continue;
    }
    if (declared.kind != names::kPinnedHost)
      continue;
    if (rules.getPlatform() == Platform::Tpu)
      checkDonation(i);
    unsigned startIndex = report.starts.size();
    BlockArgument argument = entry.getArgument(i);
    std::string name = describeArgument(argument);
    std::string reason =
        concatenate({name, " is declared ", declared.describe()});
    // The location is the argument's own until setArgumentLocs.
    report.starts.push_back({TraceStart::Kind::Argument, i, std::move(name),
                             std::move(reason), argument.getLoc(),
                             getHloArgumentName(hloEntry, i)});
    argumentLocSearches[i].emplace(startIndex, ArgumentLocSearch(argument));
    walk.addStart(argument, startIndex);
  }
  for (unsigned i = 0, e = entry.getNumResults(); i < e; ++i) {
    const DeclaredMemoryKind &declared = resultKinds[i];
    checkDeclaredKind(declared, "result", i, [&] { return entry.getLoc(); });
    if (declared.kind == names::kPinnedHost)
      checkResultLayout(i);
  }
}

void StartCollector::collectCustomCall(Operation *op) {
  CustomCallInfo info = rules.classifyCustomCall(op);
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
  std::string name =
      info.placement.empty()
          ? concatenate({"'", info.target, "'"})
          : concatenate({"'", info.target, "' to ", info.placement});
  std::string reason =
      info.placement.empty()
          ? concatenate(
                {"custom call '", info.target, "' moves the tensor to host"})
          : concatenate({"custom call '", info.target, "' with ",
                         names::kPlacementAttr, " = \"", info.placement,
                         "\" moves the tensor to host"});
  unsigned startIndex = report.starts.size();
  report.starts.push_back({TraceStart::Kind::Annotation, 0, std::move(name),
                           std::move(reason), op->getLoc(),
                           xlaAnnotationName(op)});
  walk.addStart(moved, startIndex);
}

} // namespace hostoffload
