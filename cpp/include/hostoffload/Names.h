//===- Names.h - the names XLA gives to host offloading ---------*- C++ -*-===//
//
// The attribute names, memory kinds, memory-space numbers, custom-call targets
// and op names through which a module tells XLA where its tensors live. The
// analysis reads them and the fix pass writes them; both spell them from here,
// as XLA spells them in memory_annotations.h and its HLO-to-StableHLO
// conversion.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_NAMES_H
#define HOSTOFFLOAD_NAMES_H

#include "llvm/ADT/StringRef.h"

namespace hostoffload::names {

//===----------------------------------------------------------------------===//
// Attributes.
//===----------------------------------------------------------------------===//

/// The memory kind of an entry argument or result (in arg_attrs, res_attrs).
inline constexpr llvm::StringLiteral kMemoryKindAttr = "mhlo.memory_kind";
/// The layout mode of an entry result, e.g. kAutoLayout.
inline constexpr llvm::StringLiteral kLayoutModeAttr = "mhlo.layout_mode";
/// The layout mode that lets XLA choose the layout.
inline constexpr llvm::StringLiteral kAutoLayout = "auto";
/// JAX's name of an entry result, e.g. "result[0]".
inline constexpr llvm::StringLiteral kResultInfoAttr = "jax.result_info";
/// On an entry argument: the output it is donated to (its buffer aliased).
inline constexpr llvm::StringLiteral kAliasingOutputAttr = "tf.aliasing_output";
/// The dictionary of XLA frontend attributes on an op or on the module.
inline constexpr llvm::StringLiteral kFrontendAttrs =
    "mhlo.frontend_attributes";
/// In the frontend attributes of annotate_device_placement: where to move.
inline constexpr llvm::StringLiteral kPlacementAttr = "_xla_buffer_placement";
/// In the frontend attributes of a call: "host" for compute_on("device_host").
inline constexpr llvm::StringLiteral kComputeTypeAttr = "_xla_compute_type";
/// The value of kComputeTypeAttr on a host compute call.
inline constexpr llvm::StringLiteral kHostComputeType = "host";
/// In the module's frontend attributes of modules converted from HLO: the
/// memory-space numbers of the entry's arguments and outputs, e.g. "5;0".
inline constexpr llvm::StringLiteral kArgMemorySpaces = "arg_memory_spaces";
inline constexpr llvm::StringLiteral kOutMemorySpaces = "out_memory_spaces";
/// The separator of the numbers in kArgMemorySpaces and kOutMemorySpaces.
inline constexpr llvm::StringLiteral kMemorySpaceSeparator = ";";
/// On modules converted from HLO: XLA's names of the entry parameters (one
/// per entry argument) and of the entry root, which the importer drops:
/// `{arguments = ["x.1", ...], root = "tuple.3"}`.
inline constexpr llvm::StringLiteral kHloEntryAttr = "hostoffload.hlo_entry";
inline constexpr llvm::StringLiteral kHloEntryArguments = "arguments";
inline constexpr llvm::StringLiteral kHloEntryRoot = "root";
inline constexpr llvm::StringLiteral kHloEntryBarrierOperands =
    "barrier_operands";

/// Properties of stablehlo.custom_call.
inline constexpr llvm::StringLiteral kCallTargetNameAttr = "call_target_name";
inline constexpr llvm::StringLiteral kOutputOperandAliasesAttr =
    "output_operand_aliases";
inline constexpr llvm::StringLiteral kApiVersionAttr = "api_version";
inline constexpr llvm::StringLiteral kBackendConfigAttr = "backend_config";
inline constexpr llvm::StringLiteral kCalledComputationsAttr =
    "called_computations";
inline constexpr llvm::StringLiteral kHasSideEffectAttr = "has_side_effect";
/// The property of stablehlo.get_tuple_element.
inline constexpr llvm::StringLiteral kTupleIndexAttr = "index";

//===----------------------------------------------------------------------===//
// Memory kinds and placements.
//===----------------------------------------------------------------------===//

inline constexpr llvm::StringLiteral kDevice = "device";
inline constexpr llvm::StringLiteral kPinnedHost = "pinned_host";
inline constexpr llvm::StringLiteral kUnpinnedHost = "unpinned_host";
/// Placements of annotate_device_placement that are neither host nor device.
inline constexpr llvm::StringLiteral kVmem = "vmem";
inline constexpr llvm::StringLiteral kPinnedDevice = "pinned_device";

/// XLA's memory-space numbers of the kinds, as kOutMemorySpaces holds them.
inline constexpr llvm::StringLiteral kDeviceSpace = "0";
inline constexpr llvm::StringLiteral kPinnedHostSpace = "5";
inline constexpr llvm::StringLiteral kUnpinnedHostSpace = "6";

//===----------------------------------------------------------------------===//
// Custom-call targets.
//===----------------------------------------------------------------------===//

/// JAX's placement annotation, with kPlacementAttr saying where to.
inline constexpr llvm::StringLiteral kAnnotateDevicePlacement =
    "annotate_device_placement";
/// XLA's own moves, in modules converted from HLO.
inline constexpr llvm::StringLiteral kMoveToHost = "MoveToHost";
inline constexpr llvm::StringLiteral kMoveToDevice = "MoveToDevice";
/// Sharding wrappers XLA has removed by the time it traces.
inline constexpr llvm::StringLiteral kSharding = "Sharding";
inline constexpr llvm::StringLiteral kFuncResultSharding =
    "xla.sdy.FuncResultSharding";
inline constexpr llvm::StringLiteral kFullToShardShape = "SPMDFullToShardShape";
inline constexpr llvm::StringLiteral kShardToFullShape = "SPMDShardToFullShape";

//===----------------------------------------------------------------------===//
// Ops. The StableHLO and Shardy dialects are not registered: ops are known by
// name.
//===----------------------------------------------------------------------===//

inline constexpr llvm::StringLiteral kCustomCallOp = "stablehlo.custom_call";
inline constexpr llvm::StringLiteral kTupleOp = "stablehlo.tuple";
inline constexpr llvm::StringLiteral kGetTupleElementOp =
    "stablehlo.get_tuple_element";
inline constexpr llvm::StringLiteral kOptimizationBarrierOp =
    "stablehlo.optimization_barrier";
inline constexpr llvm::StringLiteral kWhileOp = "stablehlo.while";
inline constexpr llvm::StringLiteral kIfOp = "stablehlo.if";
inline constexpr llvm::StringLiteral kCaseOp = "stablehlo.case";
inline constexpr llvm::StringLiteral kRegionReturnOp = "stablehlo.return";
inline constexpr llvm::StringLiteral kSliceOp = "stablehlo.slice";
inline constexpr llvm::StringLiteral kDynamicSliceOp =
    "stablehlo.dynamic_slice";
inline constexpr llvm::StringLiteral kDynamicUpdateSliceOp =
    "stablehlo.dynamic_update_slice";
inline constexpr llvm::StringLiteral kGatherOp = "stablehlo.gather";
inline constexpr llvm::StringLiteral kSortOp = "stablehlo.sort";
inline constexpr llvm::StringLiteral kReshapeOp = "stablehlo.reshape";
inline constexpr llvm::StringLiteral kBroadcastInDimOp =
    "stablehlo.broadcast_in_dim";
inline constexpr llvm::StringLiteral kTransposeOp = "stablehlo.transpose";
inline constexpr llvm::StringLiteral kScatterOp = "stablehlo.scatter";
inline constexpr llvm::StringLiteral kConstantOp = "stablehlo.constant";
inline constexpr llvm::StringLiteral kConvertOp = "stablehlo.convert";
inline constexpr llvm::StringLiteral kShardingConstraintOp =
    "sdy.sharding_constraint";
inline constexpr llvm::StringLiteral kManualComputationOp =
    "sdy.manual_computation";
inline constexpr llvm::StringLiteral kNamedComputationOp =
    "sdy.named_computation";
inline constexpr llvm::StringLiteral kShardyReturnOp = "sdy.return";
// Ops that XLA's HLO-to-StableHLO importer leaves in the MHLO dialect.
inline constexpr llvm::StringLiteral kMhloAsyncStartOp = "mhlo.async_start";
inline constexpr llvm::StringLiteral kMhloBitcastOp = "mhlo.bitcast";
inline constexpr llvm::StringLiteral kMhloCopyOp = "mhlo.copy";
/// The attribute of mhlo.async_start naming the thread the call runs on, and
/// its value for a call run on the host.
inline constexpr llvm::StringLiteral kExecutionThreadAttr = "execution_thread";
inline constexpr llvm::StringLiteral kHostThread = "host";
inline constexpr llvm::StringLiteral kCallOp = "func.call";
inline constexpr llvm::StringLiteral kFuncReturnOp = "func.return";

} // namespace hostoffload::names

#endif // HOSTOFFLOAD_NAMES_H
