//===- OpRules.h - what XLA does with host memory, op by op -----*- C++ -*-===//
//
// The per-op rules of the analysis, apart from the walk that applies them (as
// XLA keeps its successor rules in host_offload_utils.cc, apart from the
// HostOffloader's walk). For host memory entering an op through one operand,
// a rule says where XLA takes it: into which results, at which tuple index,
// as data movement or as host compute. A new op is added in one place, the
// table of OpRules.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_OPRULES_H
#define HOSTOFFLOAD_LIB_ANALYSIS_OPRULES_H

#include "hostoffload/XlaReleases.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace hostoffload {

/// Where host memory entering an op through one operand goes.
enum class UseKind : uint8_t {
  /// stablehlo.tuple: into result 0, at the operand's index in front of the
  /// operand's tuple index path.
  IntoTuple,
  /// stablehlo.get_tuple_element: into result 0 when the operand's path
  /// selects the element (the whole operand selects every element).
  OutOfTuple,
  /// Into the result numbered like the operand, at the same tuple index path
  /// (stablehlo.optimization_barrier; the results of stablehlo.if and
  /// stablehlo.case for what their regions yield).
  SameNumberedResult,
  /// stablehlo.while: into the loop-carried value numbered like the operand
  /// (the result, and the argument of both regions).
  LoopCarried,
  /// stablehlo.return, sdy.return: what the op owning the region does with
  /// the operand it yields; see OpRules::classifyYield.
  RegionYield,
  /// sdy.manual_computation (shard_map), sdy.named_computation: into the
  /// body's block argument numbered like the operand; the body's sdy.return
  /// gives the op's results (XLA inlines the body between sharding custom
  /// calls, which move no data).
  IntoBody,
  /// func.call: into the callee's argument, and from there back to this call
  /// site's results.
  CallArgument,
  /// func.return: into the results of the function's call sites, and into
  /// the entry's output.
  FunctionReturn,
  /// Into result 0 at the same tuple index path: an annotation that moves to
  /// host or places elsewhere than the device, a sharding wrapper.
  Forward,
  /// Into result `UseRule::result`, whole: a custom call whose output aliases
  /// the operand.
  Aliased,
  /// Nowhere: a move to device, an annotation XLA cannot process, a region
  /// that yields to no op's results, a call run on the host thread
  /// (mhlo.async_start with execution_thread = "host"), whose host
  /// computation consumes it and whose results XLA keeps in device memory.
  Stop,
  /// stablehlo.slice, and operand 0 of stablehlo.dynamic_slice: into result 0,
  /// which stays host memory only if something computes on it; XLA reads it
  /// into device memory otherwise (measured on XLA:TPU:
  /// docs/differential.md).
  Slice,
  /// stablehlo.dynamic_update_slice: writing into a host buffer is how XLA
  /// streams to host (remat offload under scan); result 0 stays host memory
  /// without host compute.
  StreamIntoBuffer,
  /// A bitcast for XLA (stablehlo.reshape, a broadcast that only adds
  /// dimensions of size one, mhlo.bitcast), which moves no data: into result
  /// 0, whole.
  Bitcast,
  /// The updates of a one-input scatter into a constant at constant indices:
  /// host compute, but on a value made only of slices XLA:TPU's simplifier
  /// turns it into a select on the sliced tensor, and the slice keeps no
  /// compute use (measured: slice_written_into_ones; XLA:GPU computes on the
  /// slice).
  ScatterIntoConstant,
  /// Data movement on the result of a slice (a transpose on XLA:TPU, a copy
  /// once layouts are assigned, mhlo.copy; a narrowing convert, which XLA's
  /// ConvertMover hoists above the slice): into result 0, whole. Host compute
  /// on a value not made only of slices.
  MovesSlicedData,
  /// XLA computes on host memory (implicit host compute): into every result,
  /// as host memory whatever slices it is made of.
  HostCompute,
};

/// The rule for one use of host memory.
struct UseRule {
  UseKind kind;
  /// For UseKind::MovesSlicedData: XLA hoists the op above the slice, where
  /// it computes on the whole host tensor (HOW101 names it).
  bool hoistedAboveSlice = false;
  /// The result of UseKind::Aliased.
  unsigned result = 0;
};

/// Where XLA's walk up from a write into a buffer goes from a value an op
/// defines (GetPredecessors in host_offload_utils.cc, as
/// CreateAllocateBufferForDynamicUpdateSlice takes it), the predecessors of
/// the successor rules of UseKind; DynamicUpdateSlices.cpp applies them.
enum class DefKind : uint8_t {
  /// To operand 0 at the same tuple index path: stablehlo.dynamic_update_slice
  /// (its buffer), a bitcast for XLA.
  Operand0,
  /// stablehlo.get_tuple_element: to operand 0, its index before the path.
  OutOfTuple,
  /// stablehlo.tuple: to the operand the path's first index names.
  IntoTuple,
  /// To what the body yields at the result's number: stablehlo.while (its
  /// second region), sdy.manual_computation, sdy.named_computation.
  BodyYield,
  /// stablehlo.optimization_barrier: to the operand numbered like the result.
  SameNumberedOperand,
  /// func.call: to what the callee returns at the result's number.
  CallResult,
  /// stablehlo.custom_call: to operand 0, but where XLA makes a move to host
  /// a copy to host and does not walk through copies.
  CustomCall,
  /// mhlo.copy: to operand 0 where XLA walks through copies (from release
  /// 2026-07); the end before.
  Copy,
  /// stablehlo.broadcast_in_dim: XLA allocates the buffer in host memory
  /// there; this way ends without an error.
  AllocatedBuffer,
  /// Any other op: the walk ends without an error.
  End,
};

/// What a `stablehlo.custom_call` does to host memory.
enum class CustomCallKind {
  MoveToHost,
  MoveToDevice,
  /// An annotation that neither moves to nor from host (vmem, ...).
  OtherPlacement,
  /// A sharding wrapper XLA has removed by the time it traces.
  Sharding,
  /// An annotation XLA cannot process (wrong operand count).
  MalformedAnnotation,
  Other,
};

struct CustomCallInfo {
  CustomCallKind kind = CustomCallKind::Other;
  /// The target name, e.g. "annotate_device_placement".
  llvm::StringRef target;
  /// The placement of an annotate_device_placement; empty otherwise.
  llvm::StringRef placement;
  /// True when the placement is missing, not a string, or not a known one.
  bool unknownPlacement = false;
};

/// The attribute `name` of `op` if it is a string.
mlir::StringAttr getStringAttr(mlir::Operation *op, llvm::StringRef name);

/// The entry `key` of `op`'s `mhlo.frontend_attributes` if it is a string;
/// null if there is none, or the attributes are no dictionary.
mlir::StringAttr getFrontendAttr(mlir::Operation *op, llvm::StringRef key);

/// Returns the index of a `get_tuple_element`. StableHLO is not registered, so
/// nothing checks that it is an i32: an integer of any type and signedness is
/// read, and one that does not fit in 64 bits selects no element.
std::optional<int64_t> getTupleIndex(mlir::Operation *op);

/// The callee of a `func.call`; null for another op.
inline mlir::FlatSymbolRefAttr getCallee(mlir::Operation *call) {
  auto callOp = llvm::dyn_cast<mlir::func::CallOp>(call);
  return callOp ? callOp.getCalleeAttr() : mlir::FlatSymbolRefAttr();
}

/// How a step of a way names `op`: its name, "stablehlo.custom_call @target"
/// for a custom call, "call @f" for a call.
std::string describeOp(mlir::Operation *op);

/// XLA's name of entry argument `index` (its HLO parameter) as the HLO front
/// end records it in the module attribute `hostoffload.hlo_entry` (given as
/// `hloEntry`, null for a module not converted from HLO); "" if unknown.
std::string getHloArgumentName(mlir::DictionaryAttr hloEntry, unsigned index);

/// The rules of every op, with the op and attribute names they dispatch on
/// interned once per run, so that finding an op's rule, or an attribute of a
/// custom call, is a lookup by pointer.
class OpRules {
public:
  explicit OpRules(mlir::MLIRContext *context,
                   Platform platform = Platform::Tpu);

  /// The compiler whose rules these are.
  Platform getPlatform() const { return platform; }

  /// What XLA does with host memory entering `user` through operand
  /// `operand`.
  UseRule classifyUse(mlir::Operation *user, unsigned operand) const {
    Rule rule = rules.lookup(user->getName().getIdentifier());
    return rule ? rule(*this, user, operand) : UseRule{UseKind::HostCompute};
  }

  /// The rule of an op for a use through `operand`, null for the ops that
  /// compute on host memory; a rule reads the attributes it needs through
  /// `rules`.
  using Rule = UseRule (*)(const OpRules &rules, mlir::Operation *op,
                           unsigned operand);

  /// Classifies a `stablehlo.custom_call`.
  CustomCallInfo classifyCustomCall(mlir::Operation *op) const;

  /// Where XLA's walk up from a write goes from a result of `op`.
  DefKind classifyDefinition(mlir::Operation *op) const;

  /// Whether the arguments of the body of `op` are its operands, numbered
  /// alike (stablehlo.while, sdy.manual_computation, sdy.named_computation),
  /// for the walk up from a write; false for null.
  bool passesOperandsToBody(mlir::Operation *op) const;

  /// What the op owning the region of `terminator` (a stablehlo.return or
  /// sdy.return) does with host memory the terminator yields, as a rule on
  /// that op.
  UseRule classifyYield(mlir::Operation *terminator) const;

  /// A call marked compute_on("device_host"): it consumes host memory, and is
  /// no caller for the walk. Inline where the call has no discardable
  /// attributes, as most have: their dictionary is the context's one empty
  /// dictionary.
  bool isHostComputeCall(mlir::Operation *call) const {
    return call->getRawDictionaryAttrs() != emptyDictionary &&
           hasHostComputeType(call);
  }

  bool isCall(mlir::Operation *op) const { return is(op, call); }
  /// `stablehlo.if` or `stablehlo.case`.
  bool isBranching(mlir::Operation *op) const {
    return is(op, ifOp) || is(op, caseOp);
  }
  bool isCustomCall(mlir::Operation *op) const { return is(op, customCall); }
  bool isFuncReturn(mlir::Operation *op) const { return is(op, funcReturn); }
  bool isDynamicUpdateSlice(mlir::Operation *op) const {
    return is(op, dynamicUpdateSlice);
  }
  /// `mhlo.copy` (XLA's kCopy); false for null.
  bool isCopy(mlir::Operation *op) const { return op && is(op, mhloCopy); }

private:
  /// Whether the frontend attributes of `call` say compute_on("device_host").
  bool hasHostComputeType(mlir::Operation *call) const;

  static bool is(mlir::Operation *op, mlir::StringAttr name) {
    return op->getName().getIdentifier() == name;
  }

  llvm::DenseMap<mlir::StringAttr, Rule> rules;
  mlir::StringAttr customCall, call, funcReturn, whileOp, ifOp, caseOp,
      manualComputation, namedComputation, dynamicUpdateSlice, mhloCopy;
  /// Not ops: the attribute read on every call site, and those of a custom
  /// call and of its frontend attributes that say what it does.
  mlir::StringAttr frontendAttrs, callTargetName, bufferPlacement;
  /// The context's empty dictionary, which ops without attributes hold.
  mlir::DictionaryAttr emptyDictionary;
  Platform platform;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_OPRULES_H
