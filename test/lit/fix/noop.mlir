// RUN: offload-opt %s --split-input-file --mlir-print-op-generic --mlir-print-debuginfo -o %t.plain
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=host --mlir-print-op-generic --mlir-print-debuginfo -o %t.host
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device --mlir-print-op-generic --mlir-print-debuginfo -o %t.device
// RUN: diff %t.plain %t.host
// RUN: diff %t.plain %t.device

// A module without E1200 comes out of either strategy exactly as it went in,
// warnings or not.

// Nothing moves to host.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<4xf32> loc("x")):
  %0 = "stablehlo.tanh"(%arg0) : (tensor<4xf32>) -> tensor<4xf32> loc("tanh")
  "func.return"(%0) : (tensor<4xf32>) -> () loc("return")
}) : () -> ()

// -----

// HOW102, XLA's root special case: the only output is directly a move to host
// of a device tensor. XLA copies it to host memory and back without E1200, so
// there is nothing to fix (the check pass only warns).
"func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%0) : (tensor<8xf32>) -> ()
}) : () -> ()

// -----

// HOW101: host compute on a host argument whose result is declared
// pinned_host, and a host value moved back to device before it is returned.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), res_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = "stablehlo.custom_call"(%0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%0, %1) : (tensor<8xf32>, tensor<8xf32>) -> ()
}) : () -> ()

// -----

// A module converted from HLO whose host output is declared in space 5.
"builtin.module"() <{sym_name = "hlo"}> ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    "func.return"(%arg0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "5", out_memory_spaces = "5"}} : () -> ()
