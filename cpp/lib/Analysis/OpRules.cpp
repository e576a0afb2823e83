//===- OpRules.cpp - what XLA does with host memory, op by op -------------===//

#include "OpRules.h"

#include "hostoffload/Names.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APSInt.h"

using namespace mlir;

namespace hostoffload {

//===----------------------------------------------------------------------===//
// Custom calls.
//===----------------------------------------------------------------------===//

StringAttr getStringAttr(Operation *op, llvm::StringRef name) {
  return llvm::dyn_cast_or_null<StringAttr>(op->getAttr(name));
}

StringAttr getFrontendAttr(Operation *op, llvm::StringRef key) {
  auto frontendAttrs = op->getAttrOfType<DictionaryAttr>(names::kFrontendAttrs);
  return frontendAttrs
             ? llvm::dyn_cast_or_null<StringAttr>(frontendAttrs.get(key))
             : StringAttr();
}

std::string describeOp(Operation *op) {
  llvm::StringRef name = op->getName().getStringRef();
  if (name == names::kCustomCallOp)
    if (StringAttr target = getStringAttr(op, names::kCallTargetNameAttr))
      return ("stablehlo.custom_call @" + target.getValue()).str();
  if (FlatSymbolRefAttr callee = getCallee(op))
    return ("call @" + callee.getValue()).str();
  return name.str();
}

std::string getHloArgumentName(DictionaryAttr hloEntry, unsigned index) {
  auto arguments = hloEntry
                       ? hloEntry.getAs<ArrayAttr>(names::kHloEntryArguments)
                       : ArrayAttr();
  if (!arguments || index >= arguments.size())
    return "";
  auto name = llvm::dyn_cast<StringAttr>(arguments[index]);
  return name ? name.getValue().str() : "";
}

/// The attribute `name` of `op`, as Operation::getAttr finds it: inherent,
/// else discardable. An unregistered op keeps its inherent attributes in a
/// dictionary, which getAttr searches by the name's text; here both are
/// searched by pointer.
static Attribute findAttr(Operation *op, StringAttr name) {
  if (op->isRegistered())
    return op->getAttr(name);
  if (auto inherent = llvm::dyn_cast_or_null<DictionaryAttr>(
          op->getPropertiesAsAttribute()))
    if (Attribute found = inherent.get(name))
      return found;
  return op->getDiscardableAttr(name);
}

CustomCallInfo OpRules::classifyCustomCall(Operation *op) const {
  CustomCallInfo info;
  auto target =
      llvm::dyn_cast_or_null<StringAttr>(findAttr(op, callTargetName));
  if (!target)
    return info;
  info.target = target.getValue();
  bool isAnnotation = false;
  if (info.target == names::kAnnotateDevicePlacement) {
    isAnnotation = true;
    auto frontend =
        llvm::dyn_cast_or_null<DictionaryAttr>(findAttr(op, frontendAttrs));
    auto placement =
        frontend
            ? llvm::dyn_cast_or_null<StringAttr>(frontend.get(bufferPlacement))
            : StringAttr();
    info.placement = placement ? placement.getValue() : llvm::StringRef();
    if (info.placement == names::kPinnedHost ||
        info.placement == names::kUnpinnedHost) {
      info.kind = CustomCallKind::MoveToHost;
    } else if (info.placement == names::kDevice) {
      info.kind = CustomCallKind::MoveToDevice;
    } else {
      info.kind = CustomCallKind::OtherPlacement;
      info.unknownPlacement = info.placement != names::kVmem &&
                              info.placement != names::kPinnedDevice;
    }
  } else if (info.target == names::kMoveToHost) {
    isAnnotation = true;
    info.kind = CustomCallKind::MoveToHost;
  } else if (info.target == names::kMoveToDevice) {
    isAnnotation = true;
    info.kind = CustomCallKind::MoveToDevice;
  } else if (info.target == names::kSharding ||
             info.target == names::kFuncResultSharding ||
             info.target == names::kFullToShardShape ||
             info.target == names::kShardToFullShape) {
    info.kind = CustomCallKind::Sharding;
  }
  if (isAnnotation && (op->getNumOperands() != 1 || op->getNumResults() != 1))
    info.kind = CustomCallKind::MalformedAnnotation;
  return info;
}

namespace {

/// Reads the integer after `key` in the text of an opaque attribute such as
/// `#stablehlo.output_operand_alias<output_tuple_indices = [1], ...>`; the
/// StableHLO dialect is not registered, so its attributes stay opaque.
std::optional<int64_t> readOpaqueInteger(llvm::StringRef text,
                                         llvm::StringRef key) {
  size_t position = text.find(key);
  if (position == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = text.drop_front(position + key.size()).ltrim();
  int64_t value;
  if (rest.consumeInteger(10, value))
    return std::nullopt;
  return value;
}

/// Returns the result of `op` that aliases operand `operandNumber` through
/// `output_operand_aliases`, if any.
std::optional<unsigned> findAliasedResult(Operation *op,
                                          unsigned operandNumber) {
  auto aliases = llvm::dyn_cast_or_null<ArrayAttr>(
      op->getAttr(names::kOutputOperandAliasesAttr));
  if (!aliases)
    return std::nullopt;
  for (Attribute alias : aliases) {
    auto opaque = llvm::dyn_cast<OpaqueAttr>(alias);
    if (!opaque)
      continue;
    llvm::StringRef text = opaque.getAttrData();
    std::optional<int64_t> operandIndex =
        readOpaqueInteger(text, "operand_index =");
    if (!operandIndex || *operandIndex != operandNumber)
      continue;
    int64_t resultIndex =
        readOpaqueInteger(text, "output_tuple_indices = [").value_or(0);
    if (resultIndex < 0 || resultIndex >= op->getNumResults())
      return std::nullopt;
    return static_cast<unsigned>(resultIndex);
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Predicates on ops.
//===----------------------------------------------------------------------===//

bool hasName(Operation *op, llvm::StringRef name) {
  return op && op->getName().getStringRef() == name;
}

/// A value made by `stablehlo.constant`, directly or broadcast.
bool isConstant(Value value) {
  Operation *op = value.getDefiningOp();
  if (hasName(op, names::kBroadcastInDimOp) && op->getNumOperands() == 1)
    op = op->getOperand(0).getDefiningOp();
  return hasName(op, names::kConstantOp);
}

bool hasOneOperandAndResult(Operation *op) {
  return op->getNumOperands() == 1 && op->getNumResults() == 1;
}

/// A broadcast that only adds dimensions of size one.
bool keepsElementCount(Operation *op) {
  if (!hasOneOperandAndResult(op))
    return false;
  auto operandType = llvm::dyn_cast<ShapedType>(op->getOperand(0).getType());
  auto resultType = llvm::dyn_cast<ShapedType>(op->getResult(0).getType());
  return operandType && resultType && operandType.hasStaticShape() &&
         resultType.hasStaticShape() &&
         operandType.getNumElements() == resultType.getNumElements();
}

/// A convert to a narrower integer or float type.
bool isNarrowingConvert(Operation *op) {
  if (!hasOneOperandAndResult(op))
    return false;
  Type from = getElementTypeOrSelf(op->getOperand(0).getType());
  Type to = getElementTypeOrSelf(op->getResult(0).getType());
  return from.isIntOrFloat() && to.isIntOrFloat() &&
         to.getIntOrFloatBitWidth() < from.getIntOrFloatBitWidth();
}

//===----------------------------------------------------------------------===//
// The rules. Ops without one compute on host memory (UseKind::HostCompute).
//===----------------------------------------------------------------------===//

UseRule rule(UseKind kind) { return UseRule{kind}; }

UseRule customCallRule(const OpRules &rules, Operation *op, unsigned operand) {
  switch (rules.classifyCustomCall(op).kind) {
  case CustomCallKind::MoveToDevice:
  case CustomCallKind::MalformedAnnotation:
    return rule(UseKind::Stop);
  case CustomCallKind::MoveToHost:
  case CustomCallKind::OtherPlacement:
  case CustomCallKind::Sharding:
    return rule(UseKind::Forward);
  case CustomCallKind::Other:
    break;
  }
  if (std::optional<unsigned> aliased = findAliasedResult(op, operand))
    return UseRule{UseKind::Aliased, /*hoistedAboveSlice=*/false, *aliased};
  return rule(UseKind::HostCompute);
}

/// A slice of the whole tensor is the tensor: XLA removes it, and the tensor
/// itself goes on in host memory (measured: a bf16[512] sliced [0:512] and
/// returned in device memory fails with E1200 on a TPU v5e).
bool isWholeSlice(Operation *op) {
  return op->getNumResults() == 1 &&
         op->getResult(0).getType() == op->getOperand(0).getType();
}

UseRule sliceRule(const OpRules &, Operation *op, unsigned) {
  return rule(isWholeSlice(op) ? UseKind::Forward : UseKind::Slice);
}

UseRule dynamicSliceRule(const OpRules &, Operation *op, unsigned operand) {
  // The other operands are the start indices.
  if (operand != 0)
    return rule(UseKind::HostCompute);
  return rule(isWholeSlice(op) ? UseKind::Forward : UseKind::Slice);
}

UseRule broadcastInDimRule(const OpRules &, Operation *op, unsigned) {
  return rule(keepsElementCount(op) ? UseKind::Bitcast : UseKind::HostCompute);
}

UseRule scatterRule(const OpRules &rules, Operation *op, unsigned operand) {
  bool intoConstant = rules.getPlatform() == Platform::Tpu &&
                      op->getNumOperands() == 3 && operand == 2 &&
                      isConstant(op->getOperand(0)) &&
                      isConstant(op->getOperand(1));
  return rule(intoConstant ? UseKind::ScatterIntoConstant
                           : UseKind::HostCompute);
}

/// XLA:TPU's layouts make a transpose of a slice a bitcast or a copy; XLA:GPU
/// fuses it before HostOffloader runs, and computes on the slice (measured:
/// slice_transpose).
UseRule transposeRule(const OpRules &rules, Operation *, unsigned) {
  return rule(rules.getPlatform() == Platform::Tpu ? UseKind::MovesSlicedData
                                                   : UseKind::HostCompute);
}

UseRule convertRule(const OpRules &, Operation *op, unsigned) {
  if (!isNarrowingConvert(op))
    return rule(UseKind::HostCompute);
  return UseRule{UseKind::MovesSlicedData, /*hoistedAboveSlice=*/true};
}

/// XLA's HostOffloader follows host memory into an async call's computation,
/// where the host computation consumes it; it never traces the results of a
/// call on the host thread (IsHostAsyncStart), which stay in device memory
/// unless they only flow to host outputs. Another thread's call is device
/// compute on host memory.
UseRule asyncStartRule(const OpRules &, Operation *op, unsigned) {
  StringAttr thread = getStringAttr(op, names::kExecutionThreadAttr);
  bool onHost = thread && thread.getValue() == names::kHostThread;
  return rule(onHost ? UseKind::Stop : UseKind::HostCompute);
}

template <UseKind kind> UseRule always(const OpRules &, Operation *, unsigned) {
  return rule(kind);
}

struct OpRuleEntry {
  llvm::StringLiteral op;
  OpRules::Rule rule;
};

/// The one place a new op is added.
constexpr OpRuleEntry kOpRules[] = {
    {names::kTupleOp, always<UseKind::IntoTuple>},
    {names::kGetTupleElementOp, always<UseKind::OutOfTuple>},
    {names::kOptimizationBarrierOp, always<UseKind::SameNumberedResult>},
    {names::kWhileOp, always<UseKind::LoopCarried>},
    {names::kRegionReturnOp, always<UseKind::RegionYield>},
    {names::kCallOp, always<UseKind::CallArgument>},
    {names::kFuncReturnOp, always<UseKind::FunctionReturn>},
    {names::kCustomCallOp, customCallRule},
    {names::kSliceOp, sliceRule},
    {names::kDynamicSliceOp, dynamicSliceRule},
    {names::kShardingConstraintOp, always<UseKind::Forward>},
    {names::kDynamicUpdateSliceOp, always<UseKind::StreamIntoBuffer>},
    {names::kReshapeOp, always<UseKind::Bitcast>},
    {names::kBroadcastInDimOp, broadcastInDimRule},
    {names::kScatterOp, scatterRule},
    {names::kTransposeOp, transposeRule},
    {names::kConvertOp, convertRule},
    {names::kManualComputationOp, always<UseKind::IntoBody>},
    {names::kNamedComputationOp, always<UseKind::IntoBody>},
    {names::kShardyReturnOp, always<UseKind::RegionYield>},
    {names::kMhloAsyncStartOp, asyncStartRule},
    {names::kMhloBitcastOp, always<UseKind::Bitcast>},
    {names::kMhloCopyOp, always<UseKind::MovesSlicedData>},
};

} // namespace

std::optional<int64_t> getTupleIndex(Operation *op) {
  auto index =
      llvm::dyn_cast_or_null<IntegerAttr>(op->getAttr(names::kTupleIndexAttr));
  if (!index)
    return std::nullopt;
  return llvm::APSInt(index.getValue(), index.getType().isUnsignedInteger())
      .tryExtValue();
}

OpRules::OpRules(MLIRContext *context, Platform platform)
    : customCall(StringAttr::get(context, names::kCustomCallOp)),
      call(StringAttr::get(context, names::kCallOp)),
      funcReturn(StringAttr::get(context, names::kFuncReturnOp)),
      whileOp(StringAttr::get(context, names::kWhileOp)),
      ifOp(StringAttr::get(context, names::kIfOp)),
      caseOp(StringAttr::get(context, names::kCaseOp)),
      manualComputation(StringAttr::get(context, names::kManualComputationOp)),
      namedComputation(StringAttr::get(context, names::kNamedComputationOp)),
      dynamicUpdateSlice(
          StringAttr::get(context, names::kDynamicUpdateSliceOp)),
      mhloCopy(StringAttr::get(context, names::kMhloCopyOp)),
      frontendAttrs(StringAttr::get(context, names::kFrontendAttrs)),
      callTargetName(StringAttr::get(context, names::kCallTargetNameAttr)),
      bufferPlacement(StringAttr::get(context, names::kPlacementAttr)),
      emptyDictionary(DictionaryAttr::get(context)), platform(platform) {
  for (const OpRuleEntry &entry : kOpRules)
    rules[StringAttr::get(context, entry.op)] = entry.rule;
}

UseRule OpRules::classifyYield(Operation *terminator) const {
  // The terminator of a function or module body gives no op a value.
  Operation *parent = terminator->getParentOp();
  if (!parent || parent->hasTrait<OpTrait::IsIsolatedFromAbove>())
    return rule(UseKind::Stop);
  if (is(parent, whileOp)) {
    // Region 0 is the condition, whose yield is the loop predicate.
    if (terminator->getParentRegion()->getRegionNumber() != 1)
      return rule(UseKind::Stop);
    return rule(UseKind::LoopCarried);
  }
  if (is(parent, ifOp) || is(parent, caseOp) || is(parent, manualComputation) ||
      is(parent, namedComputation))
    return rule(UseKind::SameNumberedResult);
  // The body of a reduce, sort, scatter, ...: the op computes on host data.
  return rule(UseKind::HostCompute);
}

bool OpRules::hasHostComputeType(Operation *call) const {
  auto frontendAttrs = llvm::dyn_cast_or_null<DictionaryAttr>(
      call->getDiscardableAttr(this->frontendAttrs));
  if (!frontendAttrs)
    return false;
  auto computeType = llvm::dyn_cast_or_null<StringAttr>(
      frontendAttrs.get(names::kComputeTypeAttr));
  return computeType && computeType.getValue() == names::kHostComputeType;
}

DefKind OpRules::classifyDefinition(Operation *op) const {
  llvm::StringRef name = op->getName().getStringRef();
  if (name == names::kDynamicUpdateSliceOp)
    return DefKind::Operand0;
  if (name == names::kGetTupleElementOp)
    return DefKind::OutOfTuple;
  if (name == names::kTupleOp)
    return DefKind::IntoTuple;
  if (name == names::kBroadcastInDimOp)
    return DefKind::AllocatedBuffer;
  if (name == names::kOptimizationBarrierOp)
    return DefKind::SameNumberedOperand;
  if (passesOperandsToBody(op))
    return DefKind::BodyYield;
  if (isCall(op))
    return DefKind::CallResult;
  if (isCustomCall(op))
    return DefKind::CustomCall;
  if (isCopy(op))
    return DefKind::Copy;
  if (op->getNumOperands() >= 1 && classifyUse(op, 0).kind == UseKind::Bitcast)
    return DefKind::Operand0;
  return DefKind::End;
}

bool OpRules::passesOperandsToBody(Operation *op) const {
  return op && (is(op, whileOp) || is(op, manualComputation) ||
                is(op, namedComputation));
}

} // namespace hostoffload
