//===- HostOffloadFix.cpp - the host-offload-fix pass ---------------------===//
//
// Applies one of the two fixes of E1200 to every entry output the analysis
// reports: declare the output in host memory ("host"), or move the returned
// tensor back to device memory right before the return ("device"). New ops
// are spelled exactly as the module's producer spells them (JAX, or XLA's
// HLO-to-StableHLO conversion), so that the fixed module reads like theirs.
// The host strategy also declares in host memory each entry argument that
// XLA rejects with HOE102.
//
//===----------------------------------------------------------------------===//

#include "Analysis/OpRules.h"

#include "hostoffload/HostOffloadAnalysis.h"
#include "hostoffload/Names.h"
#include "hostoffload/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <set>
#include <utility>

using namespace mlir;

namespace hostoffload {

#define GEN_PASS_DEF_HOSTOFFLOADFIXPASS
#include "hostoffload/Passes.h.inc"

namespace {

/// Returns the E1200 findings of `report`, in output order.
llvm::SmallVector<const Finding *>
getMismatches(const HostOffloadReport &report) {
  llvm::SmallVector<const Finding *> mismatches;
  for (const Finding &finding : report.findings)
    if (finding.code == FindingCode::OutputNotInHostMemory)
      mismatches.push_back(&finding);
  return mismatches;
}

/// Sets `mhlo.memory_kind = "pinned_host"` in `attrs[index]` for each of
/// `indices`.
void setPinnedHostKinds(MLIRContext *context,
                        llvm::MutableArrayRef<DictionaryAttr> attrs,
                        llvm::ArrayRef<unsigned> indices) {
  for (unsigned index : indices) {
    NamedAttrList named(attrs[index]);
    named.set(names::kMemoryKindAttr,
              StringAttr::get(context, names::kPinnedHost));
    attrs[index] = named.getDictionary(context);
  }
}

/// Rewrites the module's frontend attribute `spacesName` (`spaces`, split)
/// with pinned host memory at each of `indices`.
void setPinnedHostSpaces(ModuleOp module, llvm::StringRef spacesName,
                         llvm::MutableArrayRef<llvm::StringRef> spaces,
                         llvm::ArrayRef<unsigned> indices) {
  if (indices.empty())
    return;
  for (unsigned index : indices)
    spaces[index] = names::kPinnedHostSpace;
  MLIRContext *context = module.getContext();
  NamedAttrList frontendAttrs(
      module->getAttrOfType<DictionaryAttr>(names::kFrontendAttrs));
  frontendAttrs.set(
      spacesName,
      StringAttr::get(context,
                      llvm::join(spaces, names::kMemorySpaceSeparator)));
  module->setAttr(names::kFrontendAttrs, frontendAttrs.getDictionary(context));
}

/// Declares the outputs of `entry` that `mismatches` name in pinned host
/// memory, each in the way the module already declares it. Every attribute
/// is rebuilt once: one rebuild per output would be quadratic in a module
/// with many outputs.
void declareInHostMemory(ModuleOp module, func::FuncOp entry,
                         llvm::ArrayRef<const Finding *> mismatches) {
  llvm::SmallVector<llvm::StringRef> spaces;
  // Modules converted from HLO declare the memory space of each output there,
  // e.g. "5;0".
  if (StringAttr declared = getFrontendAttr(module, names::kOutMemorySpaces))
    declared.getValue().split(spaces, names::kMemorySpaceSeparator);
  llvm::SmallVector<unsigned> byKind, bySpace;
  for (const Finding *finding : mismatches)
    (finding->declaredInModuleSpaces ? bySpace : byKind)
        .push_back(*finding->outputIndex);
  if (!byKind.empty()) {
    llvm::SmallVector<DictionaryAttr> resultAttrs;
    entry.getAllResultAttrs(resultAttrs);
    setPinnedHostKinds(module.getContext(), resultAttrs, byKind);
    entry.setAllResultAttrs(resultAttrs);
  }
  setPinnedHostSpaces(module, names::kOutMemorySpaces, spaces, bySpace);
}

/// Declares in pinned host memory every entry argument XLA would reject with
/// HOE102 (a tensor moved to host is written into it), in the way the module
/// declares its arguments; returns whether any changed.
bool declareArgumentsInHostMemory(ModuleOp module, func::FuncOp entry,
                                  const HostOffloadReport &report) {
  StringAttr declaredSpaces = getFrontendAttr(module, names::kArgMemorySpaces);
  llvm::SmallVector<llvm::StringRef> spaces;
  if (declaredSpaces)
    declaredSpaces.getValue().split(spaces, names::kMemorySpaceSeparator);
  llvm::SmallVector<DictionaryAttr> argumentAttrs;
  entry.getAllArgAttrs(argumentAttrs);
  llvm::SmallVector<unsigned> byKind, bySpace;
  for (const Finding &finding : report.findings) {
    if (finding.code != FindingCode::ParameterNotInHostMemory ||
        !finding.argumentIndex)
      continue;
    unsigned index = *finding.argumentIndex;
    bool inSpaces =
        !NamedAttrList(argumentAttrs[index]).get(names::kMemoryKindAttr) &&
        index < spaces.size();
    (inSpaces ? bySpace : byKind).push_back(index);
  }
  if (!byKind.empty()) {
    setPinnedHostKinds(module.getContext(), argumentAttrs, byKind);
    entry.setAllArgAttrs(argumentAttrs);
  }
  setPinnedHostSpaces(module, names::kArgMemorySpaces, spaces, bySpace);
  return !byKind.empty() || !bySpace.empty();
}

/// Creates op `name` at the builder's insertion point. The StableHLO dialect
/// is not registered, so the ops are built by name, with their `<{...}>`
/// properties as the dictionary the parser would store.
Value createOp(OpBuilder &builder, Location loc, llvm::StringRef name,
               ValueRange operands, Type resultType,
               DictionaryAttr properties = {},
               std::optional<NamedAttribute> attribute = std::nullopt) {
  OperationState state(loc, OperationName(name, builder.getContext()));
  state.addOperands(operands);
  state.addTypes(resultType);
  state.propertiesAttr = properties;
  if (attribute)
    state.addAttribute(attribute->getName(), attribute->getValue());
  return builder.create(state)->getResult(0);
}

/// Wraps `value` in a move to `placement` (device or pinned_host) of the
/// module's producer: JAX's jax.device_put(x, jax.memory.Space...), or XLA's
/// MoveToDevice / MoveToHost in modules converted from HLO (`hloStyle`).
Value createMove(OpBuilder &builder, Location loc, Value value, bool hloStyle,
                 llvm::StringRef placement) {
  llvm::SmallVector<NamedAttribute> properties{
      builder.getNamedAttr(names::kApiVersionAttr,
                           builder.getI32IntegerAttr(1)),
      builder.getNamedAttr(names::kBackendConfigAttr,
                           builder.getStringAttr(""))};
  if (hloStyle) {
    llvm::StringRef target =
        placement == names::kDevice ? names::kMoveToDevice : names::kMoveToHost;
    properties.push_back(builder.getNamedAttr(names::kCallTargetNameAttr,
                                              builder.getStringAttr(target)));
    return createOp(builder, loc, names::kCustomCallOp, value, value.getType(),
                    builder.getDictionaryAttr(properties));
  }
  properties.append({builder.getNamedAttr(names::kCallTargetNameAttr,
                                          builder.getStringAttr(
                                              names::kAnnotateDevicePlacement)),
                     builder.getNamedAttr(names::kCalledComputationsAttr,
                                          builder.getArrayAttr({})),
                     builder.getNamedAttr(names::kHasSideEffectAttr,
                                          builder.getBoolAttr(true))});
  NamedAttribute placementAttr = builder.getNamedAttr(
      names::kFrontendAttrs,
      builder.getDictionaryAttr(builder.getNamedAttr(
          names::kPlacementAttr, builder.getStringAttr(placement))));
  return createOp(builder, loc, names::kCustomCallOp, value, value.getType(),
                  builder.getDictionaryAttr(properties), placementAttr);
}

/// Moves to host memory the initial value of each loop carry that a host fix
/// names (Fix::loopInit): declared in host memory at the output, a carry
/// that starts in device memory makes libtpu abort (HOE109).
void moveLoopInitsToHost(llvm::ArrayRef<const Finding *> mismatches) {
  for (const Finding *finding : mismatches)
    for (const Fix &fix : finding->fixes) {
      if (fix.strategy != Fix::Strategy::Host || !fix.loopInit)
        continue;
      OpBuilder builder(fix.loopInit->getOwner());
      Value init = fix.loopInit->get();
      fix.loopInit->set(createMove(builder, fix.loopInit->getOwner()->getLoc(),
                                   init, finding->declaredInModuleSpaces,
                                   names::kPinnedHost));
    }
}

/// Moves returned tensors back to device memory with new custom calls.
class DeviceMover {
public:
  DeviceMover(Operation *returnOp, bool hloStyle)
      : builder(returnOp), returnOp(returnOp), hloStyle(hloStyle) {}

  /// Returns `value` with the element at tuple index `path` moved to device
  /// memory; every element under it when it is itself a tuple.
  Value moveAt(Value value, llvm::ArrayRef<int64_t> path) {
    auto tupleType = llvm::dyn_cast<TupleType>(value.getType());
    if (!tupleType)
      return moveToDevice(value);
    llvm::SmallVector<unsigned> indices;
    llvm::ArrayRef<int64_t> rest;
    // An index beyond the type can only come from an unverified op that
    // claims to be a tuple; moving every element is then what is certain.
    if (!path.empty() && path.front() >= 0 &&
        path.front() < static_cast<int64_t>(tupleType.size())) {
      indices.push_back(static_cast<unsigned>(path.front()));
      rest = path.drop_front();
    } else {
      llvm::append_range(indices, llvm::seq<unsigned>(0, tupleType.size()));
    }

    // A tuple made for this output alone is fixed where it is made, rather
    // than taken apart and rebuilt.
    Operation *definingOp = value.getDefiningOp();
    if (definingOp && value.hasOneUse() &&
        definingOp->getName().getStringRef() == names::kTupleOp &&
        definingOp->getNumOperands() == tupleType.size()) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(definingOp);
      for (unsigned index : indices)
        definingOp->setOperand(index,
                               moveAt(definingOp->getOperand(index), rest));
      return value;
    }

    Location loc = locationOf(value);
    llvm::SmallVector<Value> elements;
    for (auto [index, elementType] : llvm::enumerate(tupleType.getTypes()))
      elements.push_back(
          create(loc, names::kGetTupleElementOp, value, elementType,
                 builder.getDictionaryAttr(builder.getNamedAttr(
                     names::kTupleIndexAttr,
                     builder.getI32IntegerAttr(static_cast<int32_t>(index))))));
    for (unsigned index : indices)
      elements[index] = moveAt(elements[index], rest);
    return create(loc, names::kTupleOp, elements, tupleType);
  }

private:
  /// The new op points at where the returned value is made.
  Location locationOf(Value value) const {
    if (Operation *definingOp = value.getDefiningOp())
      return definingOp->getLoc();
    return returnOp->getLoc();
  }

  Value moveToDevice(Value value) {
    return createMove(builder, locationOf(value), value, hloStyle,
                      names::kDevice);
  }

  Value create(Location loc, llvm::StringRef name, ValueRange operands,
               Type resultType, DictionaryAttr properties = {}) {
    return createOp(builder, loc, name, operands, resultType, properties);
  }

  OpBuilder builder;
  Operation *returnOp;
  bool hloStyle;
};

struct HostOffloadFixPass : impl::HostOffloadFixPassBase<HostOffloadFixPass> {
  using HostOffloadFixPassBase::HostOffloadFixPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<Fix::Strategy> chosen = Fix::parseStrategy(strategy);
    if (!chosen) {
      // At the module's location, not on it: the module is not printed.
      InFlightDiagnostic diagnostic = emitError(module.getLoc());
      if (strategy.empty())
        diagnostic << "host-offload-fix needs a strategy: ";
      else
        diagnostic << "host-offload-fix: unknown strategy '"
                   << toValidUTF8(strategy) << "'; use ";
      diagnostic << "strategy=host (declare each output that fails with "
                    "E1200 in host memory) or strategy=device (move it back "
                    "to device memory before the return)";
      signalPassFailure();
      return;
    }
    std::optional<XlaRelease> release = parseXlaRelease(xlaRelease);
    if (!release) {
      emitUnknownXlaRelease(module.getLoc(), "host-offload-fix", xlaRelease);
      signalPassFailure();
      return;
    }
    std::optional<Platform> compiledFor = parsePlatform(platform);
    if (!compiledFor) {
      emitUnknownPlatform(module.getLoc(), "host-offload-fix", platform);
      signalPassFailure();
      return;
    }
    analysisOptions = HostOffloadOptions{entry};
    analysisOptions.xlaRelease = *release;
    analysisOptions.platform = *compiledFor;
    FailureOr<bool> changed = *chosen == Fix::Strategy::Host
                                  ? fixInHostMemory(module)
                                  : fixOnDevice(module);
    if (failed(changed)) {
      signalPassFailure();
      return;
    }
    if (!*changed)
      markAllAnalysesPreserved();
  }

  /// Returns whether anything changed. An argument declared in host memory
  /// (HOE102) can carry host memory to more outputs, so rounds repeat until
  /// one finds nothing to fix; each only declares more in host memory, so
  /// there are at most as many as arguments and outputs.
  FailureOr<bool> fixInHostMemory(ModuleOp module) {
    for (bool changed = false;; changed = true) {
      FailureOr<bool> round = fixInHostMemoryOnce(module);
      if (failed(round))
        return failure();
      if (!*round)
        return changed;
    }
  }

  FailureOr<HostOffloadReport> analyze(ModuleOp module) {
    return analyzeHostOffload(module, analysisOptions);
  }

  FailureOr<bool> fixInHostMemoryOnce(ModuleOp module) {
    FailureOr<HostOffloadReport> report = analyze(module);
    if (failed(report))
      return failure();
    func::FuncOp entryFunction = report->entry;
    llvm::SmallVector<const Finding *> mismatches = getMismatches(*report);
    // Check every output before changing any, so that a failure leaves the
    // module as it was.
    bool fixable = true;
    for (const Finding *finding : mismatches) {
      // The analysis offers no host fix where XLA cannot take one.
      if (llvm::any_of(finding->fixes, [](const Fix &fix) {
            return fix.strategy == Fix::Strategy::Host;
          }))
        continue;
      emitError(withEditorColumns(finding->loc))
          << "host-offload-fix: strategy=host cannot fix output "
          << *finding->outputIndex
          << ": it is tuple-typed, and XLA does not implement a memory kind "
             "on a tuple-typed output; use strategy=device, which moves the "
             "tuple elements in host memory back to device memory";
      fixable = false;
    }
    if (!fixable) {
      recordProgramError();
      return failure();
    }
    declareInHostMemory(module, entryFunction, mismatches);
    moveLoopInitsToHost(mismatches);
    bool declaredArguments =
        declareArgumentsInHostMemory(module, entryFunction, *report);
    return !mismatches.empty() || declaredArguments;
  }

  /// Returns whether anything changed. The analysis reports one tuple index
  /// per output, so a tuple-typed output with several elements in host memory
  /// takes one round per element: each round moves at least one more element
  /// and never undoes an earlier one.
  FailureOr<bool> fixOnDevice(ModuleOp module) {
    bool changed = false;
    std::set<std::pair<unsigned, llvm::SmallVector<int64_t>>> fixed;
    while (true) {
      FailureOr<HostOffloadReport> report = analyze(module);
      if (failed(report))
        return failure();
      func::FuncOp entryFunction = report->entry;
      llvm::SmallVector<const Finding *> mismatches = getMismatches(*report);
      if (mismatches.empty())
        return changed;
      // A moved element never carries host memory to the output again, so
      // this cannot happen; it keeps a mistake from looping forever.
      for (const Finding *finding : mismatches) {
        if (fixed.emplace(*finding->outputIndex, finding->tupleIndex).second)
          continue;
        emitError(withEditorColumns(finding->loc))
            << "host-offload-fix: strategy=device moved output "
            << *finding->outputIndex
            << " back to device memory, but the analysis still finds host "
               "memory there";
        return failure();
      }
      bool tupleOutput = false;
      llvm::SmallVector<func::ReturnOp> returnOps;
      for (Block &block : entryFunction.getFunctionBody())
        if (!block.empty())
          if (auto returnOp = llvm::dyn_cast<func::ReturnOp>(block.back()))
            returnOps.push_back(returnOp);
      for (const Finding *finding : mismatches) {
        unsigned output = *finding->outputIndex;
        for (func::ReturnOp returnOp : returnOps) {
          DeviceMover mover(returnOp, finding->declaredInModuleSpaces);
          returnOp->setOperand(
              output,
              mover.moveAt(returnOp->getOperand(output), finding->tupleIndex));
        }
        tupleOutput |=
            llvm::isa<TupleType>(entryFunction.getResultTypes()[output]);
      }
      changed = true;
      if (!tupleOutput)
        return changed;
    }
  }

  /// The options of every analysis of the run.
  HostOffloadOptions analysisOptions;
};

} // namespace
} // namespace hostoffload
