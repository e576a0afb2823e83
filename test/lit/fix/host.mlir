// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=host | FileCheck %s
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=host | offload-opt --split-input-file --host-offload-check
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=host -o %t.once
// RUN: offload-opt %t.once --split-input-file --host-offload-fix=strategy=host -o %t.twice
// RUN: diff %t.once %t.twice

// strategy=host declares every output that fails with E1200 in pinned host
// memory, whatever it declared before (device, unpinned_host, nothing, or a
// malformed kind), and keeps every other attribute of the result. Outputs
// without E1200 keep their declaration, and the body does not change.

// CHECK-LABEL: func.func public @several_outputs(
// CHECK-SAME: -> (tensor<8xf32> {jax.result_info = "result[0]", mhlo.memory_kind = "pinned_host", sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>},
// CHECK-SAME: tensor<8xf32> {jax.result_info = "result[1]", mhlo.memory_kind = "pinned_host"},
// CHECK-SAME: tensor<8xf32> {jax.result_info = "result[2]", mhlo.layout_mode = "default", mhlo.memory_kind = "pinned_host"},
// CHECK-SAME: tensor<8xf32> {jax.result_info = "result[3]", mhlo.memory_kind = "pinned_host"},
// CHECK-SAME: tensor<8xf32> {jax.result_info = "result[4]", mhlo.memory_kind = "device"}) {
// The body is not touched.
// CHECK-NEXT: %0 = "stablehlo.multiply"(%arg0, %arg1)
// CHECK-NEXT: %1 = "stablehlo.custom_call"(%arg1)
// CHECK-NEXT: return %arg0, %0, %1, %0, %arg1 :
"builtin.module"() <{sym_name = "jit_several_outputs"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "device"}], function_type = (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>), res_attrs = [{jax.result_info = "result[0]", mhlo.memory_kind = "device", sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}, {jax.result_info = "result[1]", mhlo.memory_kind = "unpinned_host"}, {jax.result_info = "result[2]", mhlo.layout_mode = "default"}, {jax.result_info = "result[3]", mhlo.memory_kind = 0 : i32}, {jax.result_info = "result[4]", mhlo.memory_kind = "device"}], sym_name = "several_outputs", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>):
    %0 = "stablehlo.multiply"(%arg0, %arg1) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1 = "stablehlo.custom_call"(%arg1) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%arg0, %0, %1, %0, %arg1) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A function without res_attrs gets them for the fixed output only.
// CHECK-LABEL: func.func @no_result_attributes(
// CHECK-SAME: -> (tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<4xf32>) {
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {}], function_type = (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>), sym_name = "no_result_attributes"}> ({
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
  "func.return"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> ()
}) : () -> ()

// -----

// Outputs reached through a while loop and through a call.
// CHECK-LABEL: func.func public @loop_and_call(
// CHECK-SAME: -> (tensor<i32> {jax.result_info = "result[0]", mhlo.memory_kind = "device"},
// CHECK-SAME: tensor<4xf32> {jax.result_info = "result[1]", mhlo.memory_kind = "pinned_host"},
// CHECK-SAME: tensor<4xf32> {jax.result_info = "result[2]", mhlo.memory_kind = "pinned_host"}) {
// CHECK-LABEL: func.func private @offload(
// CHECK-SAME: -> tensor<4xf32> {
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>, tensor<4xf32>), res_attrs = [{jax.result_info = "result[0]", mhlo.memory_kind = "device"}, {jax.result_info = "result[1]", mhlo.memory_kind = "device"}, {jax.result_info = "result[2]", mhlo.memory_kind = "device"}], sym_name = "loop_and_call", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<i32>, %arg1: tensor<4xf32>):
    %0 = "stablehlo.custom_call"(%arg1) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4xf32>) -> tensor<4xf32>
    %1:2 = "stablehlo.while"(%arg0, %0) ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<4xf32>):
      %2 = "stablehlo.compare"(%arg2, %arg2) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%2) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<4xf32>):
      "stablehlo.return"(%arg2, %arg3) : (tensor<i32>, tensor<4xf32>) -> ()
    }) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
    %3 = "func.call"(%arg1) <{callee = @offload}> : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%1#0, %1#1, %3) : (tensor<i32>, tensor<4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "offload", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
