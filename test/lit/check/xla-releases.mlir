// RUN: not offload-opt %s --split-input-file --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEWEST
// RUN: not offload-opt %s --split-input-file --host-offload-check=xla-release=2026-09 -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEWEST
// RUN: not offload-opt %s --split-input-file --host-offload-check=xla-release=0.0.45 -o /dev/null 2>&1 | FileCheck %s --check-prefix=JULY
// RUN: not offload-opt %s --split-input-file --host-offload-check=xla-release=0.0.42.1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=JUNE
// RUN: not offload-opt %s --split-input-file --host-offload-check=xla-release=2026-06 -o /dev/null 2>&1 | FileCheck %s --check-prefix=JUNE
// RUN: not offload-opt %s --split-input-file --host-offload-check=xla-release=0.0.44 -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// The rules that differ between XLA releases (docs/semantics.md), each both
// ways; every release finds an error in some split, so each run exits 1.

// UNKNOWN: error: host-offload-check: unknown xla-release '0.0.44'; use an XLA release (2026-06, 2026-07, 2026-09) or a libtpu release (0.0.42.1,

// HOE102 through a copy (XLA commit 29c0ee7460, from XLA release 2026-07): a
// device argument moved to host before a loop whose body writes a row moved
// to host into the carried buffer. The move to host becomes a copy, which
// XLA's walk up from the write stopped at before, and goes through since.
// NEWEST-LABEL: error: HOE102: Entry computation parameter "buf_scan" (shape index {}) is not in host memory space
// NEWEST: note: path: argument 'buf_scan' -> stablehlo.custom_call @annotate_device_placement -> stablehlo.while -> stablehlo.dynamic_update_slice
// JULY-LABEL: error: HOE102: Entry computation parameter "buf_scan" (shape index {}) is not in host memory space
// JUNE-NOT: "buf_scan"
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "device"}], function_type = (tensor<8x128xf32>, tensor<1x128xf32>) -> tensor<8x128xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%buf: tensor<8x128xf32> loc("buf_scan"), %row: tensor<1x128xf32> loc("row")):
  %0 = "stablehlo.custom_call"(%buf) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %w:2 = "stablehlo.while"(%c0, %0) ({
  ^bb0(%i: tensor<i32>, %b: tensor<8x128xf32>):
    %c8 = "stablehlo.constant"() <{value = dense<8> : tensor<i32>}> : () -> tensor<i32>
    %lt = "stablehlo.compare"(%i, %c8) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%lt) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %b: tensor<8x128xf32>):
    %moved = "stablehlo.custom_call"(%row) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<1x128xf32>) -> tensor<1x128xf32>
    %z = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %w1 = "stablehlo.dynamic_update_slice"(%b, %moved, %i, %z) : (tensor<8x128xf32>, tensor<1x128xf32>, tensor<i32>, tensor<i32>) -> tensor<8x128xf32>
    %c1 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %next = "stablehlo.add"(%i, %c1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%next, %w1) : (tensor<i32>, tensor<8x128xf32>) -> ()
  }) : (tensor<i32>, tensor<8x128xf32>) -> (tensor<i32>, tensor<8x128xf32>)
  "func.return"(%w#1) : (tensor<8x128xf32>) -> ()
}) : () -> ()

// -----

// The same through a copy of the HLO import (mhlo.copy): the write's buffer
// is a copy of a device parameter.
// NEWEST-LABEL: error: HOE102: Entry computation parameter "buf_copy" (shape index {}) is not in host memory space
// NEWEST: note: path: argument 'buf_copy' -> mhlo.copy -> stablehlo.dynamic_update_slice
// JULY-LABEL: error: HOE102: Entry computation parameter "buf_copy" (shape index {}) is not in host memory space
// JUNE-NOT: "buf_copy"
"func.func"() <{function_type = (tensor<8x4xf32>, tensor<1x4xf32>) -> tensor<8x4xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%buf: tensor<8x4xf32> loc("buf_copy"), %row: tensor<1x4xf32> loc("row")):
  %0 = "mhlo.copy"(%buf) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = "stablehlo.custom_call"(%row) <{call_target_name = "MoveToHost", has_side_effect = false}> : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %c = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %2 = "stablehlo.dynamic_update_slice"(%0, %1, %c, %c) : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
  "func.return"(%2) : (tensor<8x4xf32>) -> ()
}) : () -> ()

// -----

// A lone output declared unpinned_host that is directly a move to host of a
// device tensor: XLA's root special case copies it into the output's memory,
// which XLA:TPU cannot do. XLA release 2026-06 fails the compile, 2026-07
// aborts the process, 2026-09 aborts on some shapes and compiles others.
// NEWEST-LABEL: warning: HOW108: Check failed: CopyArrayExplicit(data, vmem_data, shape, dest_shape, b) is OK (INTERNAL: RET_CHECK failure ... source->memory_space() != MemorySpace::kHost (host vs. host)); output 0 ("result") is declared mhlo.memory_kind = "unpinned_host" and is directly a move to host of a device tensor: XLA turns the move into a copy to the output's memory, which XLA:TPU cannot make (XLA 2026-09, libtpu 0.0.49 to 0.0.52): libtpu aborts the whole process, without a Python exception, on some shapes of such an output and compiles others
// NEWEST: note: XLA releases: 2026-06 (libtpu 0.0.42.1 to 0.0.43.2): the compile fails, 'FAILED_PRECONDITION: Unimplemented DMA from hbm to hbm'; 2026-07 (libtpu 0.0.45 to 0.0.48.1): libtpu aborts
// NEWEST: note: fix (keep it in pinned host memory, which XLA:TPU copies to): set mhlo.memory_kind = "pinned_host" on result 0 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for "result"
// JULY-LABEL: error: HOE104: Check failed: source->memory_space() != MemorySpace::kHost (host vs. host); output 0 ("result") is declared mhlo.memory_kind = "unpinned_host"
// JULY-SAME: (XLA 2026-07, libtpu 0.0.45 to 0.0.48.1): libtpu aborts the whole process, without a Python exception
// JUNE-LABEL: error: HOE104: FAILED_PRECONDITION: Unimplemented DMA from hbm to hbm; output 0 ("result") is declared mhlo.memory_kind = "unpinned_host"
// JUNE-SAME: (XLA 2026-06, libtpu 0.0.42.1 to 0.0.43.2): the compile fails
// JUNE: note: fix (keep it in pinned host memory, which XLA:TPU copies to): set mhlo.memory_kind = "pinned_host" on result 0 of @main
// NEWEST-NOT: HOW102
// JULY-NOT: HOW102
// JUNE-NOT: HOW102
"func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "unpinned_host"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "unpinned_host"}} : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%0) : (tensor<8xf32>) -> ()
}) : () -> ()

// -----

// Declared device instead, the same output compiles in every release: the
// root special case's warning, HOW102, whatever the release.
// NEWEST-LABEL: warning: HOW102: output 0 is directly a move to host of a device tensor
// JULY-LABEL: warning: HOW102: output 0 is directly a move to host of a device tensor
// JUNE-LABEL: warning: HOW102: output 0 is directly a move to host of a device tensor
"func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%0) : (tensor<8xf32>) -> ()
}) : () -> ()
