// RUN: not offload-opt %s --split-input-file --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=TPU
// RUN: not offload-opt %s --split-input-file --host-offload-check=platform=tpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=TPU
// RUN: not offload-opt %s --split-input-file --host-offload-check=platform=cuda -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: not offload-opt %s --split-input-file --host-offload-check=platform=gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// The rules where XLA:GPU differs from XLA:TPU (docs/differential.md,
// XLA:GPU), each both ways; a split with an error in each run makes it exit 1.

// UNKNOWN: error: host-offload-check: unknown platform 'gpu'; use tpu (XLA:TPU) or cuda (XLA:GPU)

// A transpose of a slice of a pinned_host argument, returned: data movement
// on XLA:TPU, host compute on XLA:GPU (measured: slice_transpose).
// TPU-NOT: error: E1200{{.*}}"transposed"
// GPU-LABEL: error: E1200: {{.*}}output 0 ("transposed")
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8x128xf32>) -> tensor<128x2xf32>, res_attrs = [{jax.result_info = "transposed", mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%x: tensor<8x128xf32> loc("x")):
  %s = "stablehlo.slice"(%x) <{limit_indices = array<i64: 2, 128>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<8x128xf32>) -> tensor<2x128xf32>
  %t = "stablehlo.transpose"(%s) <{permutation = array<i64: 1, 0>}> : (tensor<2x128xf32>) -> tensor<128x2xf32>
  "func.return"(%t) : (tensor<128x2xf32>) -> ()
}) : () -> ()

// -----

// A pinned_host row written into a device buffer, returned to a pinned_host
// output: XLA:TPU compiles it (host compute); XLA:GPU's verifier refuses the
// write from host to device memory (measured: s_dus_host_row_into_device_arg).
// TPU-NOT: error: HOE111
// GPU-LABEL: error: HOE111: INTERNAL: RET_CHECK failure (hlo_verifier.cc) DynamicUpdateSlice instruction shouldn't change layout memory space from host to device; 'stablehlo.dynamic_update_slice' writes a tensor in host memory (its update) into a buffer in device memory
// GPU: note: fix: move the update to device memory first
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8x128xf32>, tensor<1x128xf32>) -> tensor<8x128xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%buf: tensor<8x128xf32> loc("buf"), %row: tensor<1x128xf32> loc("row")):
  %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %w = "stablehlo.dynamic_update_slice"(%buf, %row, %c0, %c0) : (tensor<8x128xf32>, tensor<1x128xf32>, tensor<i32>, tensor<i32>) -> tensor<8x128xf32>
  "func.return"(%w) : (tensor<8x128xf32>) -> ()
}) : () -> ()

// -----

// The only output, declared unpinned_host, directly a move to host of a
// device tensor: XLA:TPU cannot make the copy (HOE104 in 2026-06, HOW108 in
// 2026-09); XLA:GPU makes it (measured: unpinned_host_single_output).
// TPU-LABEL: warning: HOW108:
// GPU-NOT: HOW108
// GPU-LABEL: warning: HOW102: output 0 is directly a move to host of a device tensor, and is declared "unpinned_host"
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "unpinned_host"}], sym_name = "main"}> ({
^bb0(%x: tensor<8xf32> loc("x")):
  %h = "stablehlo.custom_call"(%x) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%h) : (tensor<8xf32>) -> ()
}) : () -> ()

// -----

// lax.switch returning a pinned_host argument from one branch and a device one
// from the other, declared pinned_host: XLA:TPU compiles it; XLA:GPU's check
// of shapes after host offloading refuses the conditional (measured:
// switch_host__fix_host).
// TPU-NOT: HOE112
// GPU-LABEL: error: HOE112: INTERNAL: Expected instruction to have shape equal to ...; result 0 of 'stablehlo.case' is in host memory from one branch and in device memory from another
// GPU: note: fix: give the result the same memory in every branch
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "device"}], function_type = (tensor<i32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%i: tensor<i32> loc("i"), %x: tensor<8xf32> loc("x"), %y: tensor<8xf32> loc("y")):
  %r = "stablehlo.case"(%i) ({
    "stablehlo.return"(%x) : (tensor<8xf32>) -> ()
  }, {
    "stablehlo.return"(%y) : (tensor<8xf32>) -> ()
  }) : (tensor<i32>) -> tensor<8xf32>
  "func.return"(%r) : (tensor<8xf32>) -> ()
}) : () -> ()

// -----

// E1200 on every platform, for each run to exit 1.
// TPU-LABEL: error: E1200: {{.*}}output 0 ("returned")
// GPU-LABEL: error: E1200: {{.*}}output 0 ("returned")
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{jax.result_info = "returned", mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%x: tensor<8xf32> loc("x")):
  "func.return"(%x) : (tensor<8xf32>) -> ()
}) : () -> ()
