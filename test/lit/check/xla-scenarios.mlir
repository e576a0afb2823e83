// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics

// The scenarios of XLA's host_offloader_test.cc listed in section 9 of
// docs/semantics.md, re-expressed as the generic-form StableHLO JAX
// emits (annotate_device_placement custom calls, mhlo.memory_kind on the
// entry signature). The verdict above each split is XLA's (section 9).

// XLA: OutputStreaming: OK
// A product is moved to host and returned as output 0, declared pinned_host.
"builtin.module"() <{sym_name = "jit_output_streaming"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "device"}], function_type = (tensor<2x1xi32>, tensor<2x1xi32>) -> (tensor<2x1xi32>, tensor<2x1xi32>), res_attrs = [{jax.result_info = "result[0]", mhlo.memory_kind = "pinned_host"}, {jax.result_info = "result[1]", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x1xi32> loc("param_0"), %arg1: tensor<2x1xi32> loc("param_1")):
    %0 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %2 = "stablehlo.multiply"(%arg1, %1) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %3 = "stablehlo.multiply"(%2, %arg0) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %4 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %6 = "stablehlo.multiply"(%3, %5) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %7 = "stablehlo.custom_call"(%6) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<2x1xi32>) -> tensor<2x1xi32>
    "func.return"(%7, %3) : (tensor<2x1xi32>, tensor<2x1xi32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: InvalidOutputStreaming: E1200
// The same program with output 0 declared device. There are two outputs, so
// XLA's root special case (a lone output that is a move to host) does not apply.
"builtin.module"() <{sym_name = "jit_invalid_output_streaming"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "device"}], function_type = (tensor<2x1xi32>, tensor<2x1xi32>) -> (tensor<2x1xi32>, tensor<2x1xi32>), res_attrs = [{jax.result_info = "result[0]", mhlo.memory_kind = "device"}, {jax.result_info = "result[1]", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x1xi32> loc("param_0"), %arg1: tensor<2x1xi32> loc("param_1")):
    %0 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %2 = "stablehlo.multiply"(%arg1, %1) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %3 = "stablehlo.multiply"(%2, %arg0) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %4 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %6 = "stablehlo.multiply"(%3, %5) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    // expected-error @below {{E1200: Tensor which is moved to host (starting from 'annotate_device_placement' to pinned_host) is returned from the entry computation but the layout for this output is not set to host memory; output 0 ("result[0]") is declared mhlo.memory_kind = "device"}}
    // expected-note @below {{moved to host here: custom call 'annotate_device_placement' with _xla_buffer_placement = "pinned_host" moves the tensor to host}}
    // expected-note @below {{path: 'annotate_device_placement' to pinned_host -> output 0}}
    // expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 0 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for "result[0]"}}
    // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 0 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on "result[0]" before returning it}}
    %7 = "stablehlo.custom_call"(%6) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<2x1xi32>) -> tensor<2x1xi32>
    "func.return"(%7, %3) : (tensor<2x1xi32>, tensor<2x1xi32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: OutputStreamingWithoutTuple: OK
// A single output, declared pinned_host, that is directly a move to host.
"builtin.module"() <{sym_name = "jit_output_streaming_without_tuple"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "device"}], function_type = (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "pinned_host"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x1xi32> loc("param_0"), %arg1: tensor<2x1xi32> loc("param_1")):
    %0 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %2 = "stablehlo.multiply"(%arg1, %1) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %3 = "stablehlo.multiply"(%2, %arg0) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %4 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %6 = "stablehlo.multiply"(%3, %5) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %7 = "stablehlo.custom_call"(%6) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<2x1xi32>) -> tensor<2x1xi32>
    "func.return"(%7) : (tensor<2x1xi32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: BasicNoCopy: OK
// Moved to host, then straight back to device.
"builtin.module"() <{sym_name = "jit_basic_no_copy"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}], function_type = (tensor<2048xf32>) -> tensor<2048xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2048xf32> loc("data_param")):
    %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<2048xf32>) -> tensor<2048xf32>
    %1 = "stablehlo.custom_call"(%0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<2048xf32>) -> tensor<2048xf32>
    "func.return"(%1) : (tensor<2048xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: NoCopyThroughTuple: OK
// The host value goes through a tuple and get_tuple_element, then back to
// device; element 1 of the tuple stays a device value.
"builtin.module"() <{sym_name = "jit_no_copy_through_tuple"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "device"}], function_type = (tensor<2048xf32>, tensor<2048xf32>) -> tensor<2048xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2048xf32> loc("data_param"), %arg1: tensor<2048xf32> loc("other_param")):
    %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<2048xf32>) -> tensor<2048xf32>
    %1 = "stablehlo.tuple"(%0, %arg1) : (tensor<2048xf32>, tensor<2048xf32>) -> tuple<tensor<2048xf32>, tensor<2048xf32>>
    %2 = "stablehlo.get_tuple_element"(%1) <{index = 0 : i32}> : (tuple<tensor<2048xf32>, tensor<2048xf32>>) -> tensor<2048xf32>
    %3 = "stablehlo.get_tuple_element"(%1) <{index = 1 : i32}> : (tuple<tensor<2048xf32>, tensor<2048xf32>>) -> tensor<2048xf32>
    %4 = "stablehlo.custom_call"(%2) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<2048xf32>) -> tensor<2048xf32>
    "func.return"(%4) : (tensor<2048xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: NoCopyThroughNestedTuple: OK
// The same through a tuple nested in a tuple (index path {0, 0}).
"builtin.module"() <{sym_name = "jit_no_copy_through_nested_tuple"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "device"}, {mhlo.memory_kind = "device"}], function_type = (tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>) -> tensor<2048xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2048xf32> loc("data_param"), %arg1: tensor<2048xf32> loc("other_param_0"), %arg2: tensor<2048xf32> loc("other_param_1")):
    %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<2048xf32>) -> tensor<2048xf32>
    %1 = "stablehlo.tuple"(%0, %arg1) : (tensor<2048xf32>, tensor<2048xf32>) -> tuple<tensor<2048xf32>, tensor<2048xf32>>
    %2 = "stablehlo.tuple"(%1, %arg2) : (tuple<tensor<2048xf32>, tensor<2048xf32>>, tensor<2048xf32>) -> tuple<tuple<tensor<2048xf32>, tensor<2048xf32>>, tensor<2048xf32>>
    %3 = "stablehlo.get_tuple_element"(%2) <{index = 0 : i32}> : (tuple<tuple<tensor<2048xf32>, tensor<2048xf32>>, tensor<2048xf32>>) -> tuple<tensor<2048xf32>, tensor<2048xf32>>
    %4 = "stablehlo.get_tuple_element"(%2) <{index = 1 : i32}> : (tuple<tuple<tensor<2048xf32>, tensor<2048xf32>>, tensor<2048xf32>>) -> tensor<2048xf32>
    %5 = "stablehlo.get_tuple_element"(%3) <{index = 0 : i32}> : (tuple<tensor<2048xf32>, tensor<2048xf32>>) -> tensor<2048xf32>
    %6 = "stablehlo.get_tuple_element"(%3) <{index = 1 : i32}> : (tuple<tensor<2048xf32>, tensor<2048xf32>>) -> tensor<2048xf32>
    %7 = "stablehlo.custom_call"(%5) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<2048xf32>) -> tensor<2048xf32>
    "func.return"(%7) : (tensor<2048xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: NoCopyThroughWhile: OK
// A host value is carried through a while loop. The body moves it back to
// device to accumulate it (result 0); the carried value itself is moved back
// to device after the loop (result 1), as in XLA's test.
"builtin.module"() <{sym_name = "jit_no_copy_through_while"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}], function_type = (tensor<2048xf32>) -> (tensor<2048xf32>, tensor<2048xf32>), res_attrs = [{jax.result_info = "result[0]", mhlo.memory_kind = "device"}, {jax.result_info = "result[1]", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2048xf32> loc("data_param")):
    %0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %1 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %2 = "stablehlo.broadcast_in_dim"(%1) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2048xf32>
    %3 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<2048xf32>) -> tensor<2048xf32>
    %4:3 = "stablehlo.while"(%0, %3, %2) ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<2048xf32>, %arg3: tensor<2048xf32>):
      %8 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
      %9 = "stablehlo.compare"(%arg1, %8) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%9) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<2048xf32>, %arg3: tensor<2048xf32>):
      %8 = "stablehlo.custom_call"(%arg2) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<2048xf32>) -> tensor<2048xf32>
      %9 = "stablehlo.add"(%arg3, %8) : (tensor<2048xf32>, tensor<2048xf32>) -> tensor<2048xf32>
      %10 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %11 = "stablehlo.add"(%arg1, %10) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%11, %arg2, %9) : (tensor<i32>, tensor<2048xf32>, tensor<2048xf32>) -> ()
    }) : (tensor<i32>, tensor<2048xf32>, tensor<2048xf32>) -> (tensor<i32>, tensor<2048xf32>, tensor<2048xf32>)
    %5 = "stablehlo.custom_call"(%4#1) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<2048xf32>) -> tensor<2048xf32>
    "func.return"(%4#2, %5) : (tensor<2048xf32>, tensor<2048xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: NoCopyThroughComputationAndTuple: OK
// The host value goes into a call whose callee returns it in a tuple; the
// caller takes element 0 and moves it back to device.
"builtin.module"() <{sym_name = "jit_no_copy_through_computation_and_tuple"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "device"}], function_type = (tensor<2048xf32>, tensor<2048xf32>) -> tensor<2048xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2048xf32> loc("data_param"), %arg1: tensor<2048xf32> loc("other_param")):
    %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<2048xf32>) -> tensor<2048xf32>
    %1 = "func.call"(%0, %arg1) <{callee = @other_computation}> : (tensor<2048xf32>, tensor<2048xf32>) -> tuple<tensor<2048xf32>, tensor<2048xf32>>
    %2 = "stablehlo.get_tuple_element"(%1) <{index = 0 : i32}> : (tuple<tensor<2048xf32>, tensor<2048xf32>>) -> tensor<2048xf32>
    %3 = "stablehlo.get_tuple_element"(%1) <{index = 1 : i32}> : (tuple<tensor<2048xf32>, tensor<2048xf32>>) -> tensor<2048xf32>
    %4 = "stablehlo.custom_call"(%2) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<2048xf32>) -> tensor<2048xf32>
    "func.return"(%4) : (tensor<2048xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2048xf32>, tensor<2048xf32>) -> tuple<tensor<2048xf32>, tensor<2048xf32>>, res_attrs = [{}], sym_name = "other_computation", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2048xf32> loc(unknown), %arg1: tensor<2048xf32> loc(unknown)):
    %0 = "stablehlo.tuple"(%arg0, %arg1) : (tensor<2048xf32>, tensor<2048xf32>) -> tuple<tensor<2048xf32>, tensor<2048xf32>>
    "func.return"(%0) : (tuple<tensor<2048xf32>, tensor<2048xf32>>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: Conditional: OK
// Two pinned_host arguments and a device argument go through both branches
// of a case: branch 0 passes the host values through and moves the device
// value to host; branch 1 moves them to device, computes and moves the sums
// to host. Outputs 0 and 1 are declared pinned_host; output 2 is moved back.
"builtin.module"() <{sym_name = "jit_conditional_update"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "device"}, {mhlo.memory_kind = "device"}], function_type = (tensor<1x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>, tensor<i32>) -> (tensor<1x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>), res_attrs = [{jax.result_info = "result[0]", mhlo.memory_kind = "pinned_host"}, {jax.result_info = "result[1]", mhlo.memory_kind = "pinned_host"}, {jax.result_info = "result[2]", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<1x128xf32> loc("a"), %arg1: tensor<1x128xf32> loc("b"), %arg2: tensor<1x128xf32> loc("c"), %arg3: tensor<i32> loc("k")):
    %0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %1 = "stablehlo.compare"(%arg3, %0) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %2 = "stablehlo.convert"(%1) : (tensor<i1>) -> tensor<i32>
    %3:3 = "stablehlo.case"(%2) ({
      %7 = "stablehlo.custom_call"(%arg2) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<1x128xf32>) -> tensor<1x128xf32>
      "stablehlo.return"(%arg0, %arg1, %7) : (tensor<1x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>) -> ()
    }, {
      %7 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<1x128xf32>) -> tensor<1x128xf32>
      %8 = "stablehlo.custom_call"(%arg1) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<1x128xf32>) -> tensor<1x128xf32>
      %9 = "stablehlo.add"(%7, %8) : (tensor<1x128xf32>, tensor<1x128xf32>) -> tensor<1x128xf32>
      %10 = "stablehlo.custom_call"(%9) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<1x128xf32>) -> tensor<1x128xf32>
      %11 = "stablehlo.custom_call"(%arg2) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<1x128xf32>) -> tensor<1x128xf32>
      %12 = "stablehlo.add"(%8, %11) : (tensor<1x128xf32>, tensor<1x128xf32>) -> tensor<1x128xf32>
      %13 = "stablehlo.custom_call"(%12) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<1x128xf32>) -> tensor<1x128xf32>
      %14 = "stablehlo.add"(%9, %11) : (tensor<1x128xf32>, tensor<1x128xf32>) -> tensor<1x128xf32>
      %15 = "stablehlo.custom_call"(%14) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<1x128xf32>) -> tensor<1x128xf32>
      "stablehlo.return"(%10, %13, %15) : (tensor<1x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>) -> ()
    }) : (tensor<i32>) -> (tensor<1x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>)
    %4 = "stablehlo.custom_call"(%3#0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<1x128xf32>) -> tensor<1x128xf32>
    %5 = "stablehlo.custom_call"(%3#1) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<1x128xf32>) -> tensor<1x128xf32>
    %6 = "stablehlo.custom_call"(%3#2) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<1x128xf32>) -> tensor<1x128xf32>
    "func.return"(%4, %5, %6) : (tensor<1x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: ParameterStreaming: OK
// A pinned_host argument is moved to device before it is computed on.
"builtin.module"() <{sym_name = "jit_parameter_streaming"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "device"}], function_type = (tensor<2x1xi32>, tensor<2x1xi32>) -> (tensor<2x1xi32>, tensor<2x1xi32>), res_attrs = [{jax.result_info = "result[0]", mhlo.memory_kind = "device"}, {jax.result_info = "result[1]", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x1xi32> loc("param_0"), %arg1: tensor<2x1xi32> loc("param_1")):
    %0 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %2 = "stablehlo.multiply"(%arg1, %1) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %3 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<2x1xi32>) -> tensor<2x1xi32>
    %4 = "stablehlo.multiply"(%2, %3) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %5 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %6 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %7 = "stablehlo.multiply"(%4, %6) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    "func.return"(%7, %4) : (tensor<2x1xi32>, tensor<2x1xi32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: ParameterAndOutputStreamingPassThrough: OK
// A pinned_host argument returned as is to an output declared pinned_host.
"builtin.module"() <{sym_name = "jit_parameter_and_output_streaming_pass_through"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<2x1xi32>) -> tensor<2x1xi32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "pinned_host"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x1xi32> loc("param")):
    "func.return"(%arg0) : (tensor<2x1xi32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: host argument returned to a device output: E1200
// A pinned_host argument returned as is to an output declared device.
"builtin.module"() <{sym_name = "jit_parameter_pass_through_to_device"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<2x1xi32>) -> tensor<2x1xi32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x1xi32> loc("param")):
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument 'param') is returned from the entry computation but the layout for this output is not set to host memory; output 0 ("result") is declared mhlo.memory_kind = "device"}}
    // expected-note @below {{in host memory from the start: argument 'param' is declared mhlo.memory_kind = "pinned_host"}}
    // expected-note @below {{path: argument 'param' -> output 0}}
    // expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 0 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for "result"}}
    // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 0 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on "result" before returning it}}
    "func.return"(%arg0) : (tensor<2x1xi32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: OutputStreamingInScanLoop: OK
// A scan body computes a row on device, moves it to host and writes it into
// the carried buffer with dynamic_update_slice; the buffer (loop result 1)
// is returned to an output declared pinned_host.
"builtin.module"() <{sym_name = "jit_output_streaming_in_scan_loop"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}], function_type = (tensor<1x2xf32>) -> (tensor<f32>, tensor<8x2xf32>), res_attrs = [{jax.result_info = "result[0]", mhlo.memory_kind = "device"}, {jax.result_info = "result[1]", mhlo.memory_kind = "pinned_host"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<1x2xf32> loc("x")):
    %0 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %2 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %3 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2xf32>
    %4:3 = "stablehlo.while"(%1, %3, %arg0) ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<8x2xf32>, %arg3: tensor<1x2xf32>):
      %5 = "stablehlo.constant"() <{value = dense<8> : tensor<i32>}> : () -> tensor<i32>
      %6 = "stablehlo.compare"(%arg1, %5) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%6) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<8x2xf32>, %arg3: tensor<1x2xf32>):
      %5 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %6 = "stablehlo.add"(%arg1, %5) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %7 = "stablehlo.sine"(%arg3) : (tensor<1x2xf32>) -> tensor<1x2xf32>
      %8 = "stablehlo.reshape"(%7) : (tensor<1x2xf32>) -> tensor<2xf32>
      %9 = "stablehlo.custom_call"(%8) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<2xf32>) -> tensor<2xf32>
      %10 = "stablehlo.reshape"(%9) : (tensor<2xf32>) -> tensor<1x2xf32>
      %11 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %12 = "stablehlo.dynamic_update_slice"(%arg2, %10, %arg1, %11) : (tensor<8x2xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<8x2xf32>
      "stablehlo.return"(%6, %12, %arg3) : (tensor<i32>, tensor<8x2xf32>, tensor<1x2xf32>) -> ()
    }) : (tensor<i32>, tensor<8x2xf32>, tensor<1x2xf32>) -> (tensor<i32>, tensor<8x2xf32>, tensor<1x2xf32>)
    "func.return"(%0, %4#1) : (tensor<f32>, tensor<8x2xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: OutputStreamingInScanLoop with a device output: E1200
// The same scan with the buffer returned to an output declared device.
"builtin.module"() <{sym_name = "jit_output_streaming_in_scan_loop_device_out"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}], function_type = (tensor<1x2xf32>) -> (tensor<f32>, tensor<8x2xf32>), res_attrs = [{jax.result_info = "result[0]", mhlo.memory_kind = "device"}, {jax.result_info = "result[1]", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<1x2xf32> loc("x")):
    %0 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %2 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %3 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x2xf32>
    // expected-error @below {{E1200: Tensor which is moved to host (starting from 'annotate_device_placement' to pinned_host) is returned from the entry computation but the layout for this output is not set to host memory; output 1 ("result[1]") is declared mhlo.memory_kind = "device"}}
    // expected-note @below {{path: 'annotate_device_placement' to pinned_host -> stablehlo.reshape -> stablehlo.dynamic_update_slice -> stablehlo.while -> output 1}}
    // expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 1 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for "result[1]"}}
    // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 1 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on "result[1]" before returning it}}
    %4:3 = "stablehlo.while"(%1, %3, %arg0) ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<8x2xf32>, %arg3: tensor<1x2xf32>):
      %5 = "stablehlo.constant"() <{value = dense<8> : tensor<i32>}> : () -> tensor<i32>
      %6 = "stablehlo.compare"(%arg1, %5) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%6) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<8x2xf32>, %arg3: tensor<1x2xf32>):
      %5 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %6 = "stablehlo.add"(%arg1, %5) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %7 = "stablehlo.sine"(%arg3) : (tensor<1x2xf32>) -> tensor<1x2xf32>
      %8 = "stablehlo.reshape"(%7) : (tensor<1x2xf32>) -> tensor<2xf32>
      // expected-note @below {{moved to host here: custom call 'annotate_device_placement' with _xla_buffer_placement = "pinned_host" moves the tensor to host}}
      %9 = "stablehlo.custom_call"(%8) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<2xf32>) -> tensor<2xf32>
      %10 = "stablehlo.reshape"(%9) : (tensor<2xf32>) -> tensor<1x2xf32>
      %11 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %12 = "stablehlo.dynamic_update_slice"(%arg2, %10, %arg1, %11) : (tensor<8x2xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<8x2xf32>
      "stablehlo.return"(%6, %12, %arg3) : (tensor<i32>, tensor<8x2xf32>, tensor<1x2xf32>) -> ()
    }) : (tensor<i32>, tensor<8x2xf32>, tensor<1x2xf32>) -> (tensor<i32>, tensor<8x2xf32>, tensor<1x2xf32>)
    "func.return"(%0, %4#1) : (tensor<f32>, tensor<8x2xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: output declared unpinned_host: E1200
// out_shardings with memory kind unpinned_host: JAX annotates the output with
// unpinned_host, which XLA puts in memory space 6, not host memory space 5.
"builtin.module"() <{sym_name = "jit_unpinned_host_output"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}], function_type = (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), res_attrs = [{jax.result_info = "result[0]", mhlo.memory_kind = "unpinned_host"}, {jax.result_info = "result[1]", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32> loc("x")):
    %0 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %2 = "stablehlo.multiply"(%arg0, %1) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %3 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %4 = "stablehlo.broadcast_in_dim"(%3) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %5 = "stablehlo.add"(%arg0, %4) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    // expected-error @below {{E1200: Tensor which is moved to host (starting from 'annotate_device_placement' to unpinned_host) is returned from the entry computation but the layout for this output is not set to host memory; output 0 ("result[0]") is declared mhlo.memory_kind = "unpinned_host"}}
    // expected-note @below {{moved to host here: custom call 'annotate_device_placement' with _xla_buffer_placement = "unpinned_host" moves the tensor to host}}
    // expected-note @below {{path: 'annotate_device_placement' to unpinned_host -> output 0}}
    // expected-note @below {{XLA puts "unpinned_host" outputs in memory space 6, not in host memory space 5, so they do not count as host memory}}
    // expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 0 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for "result[0]"}}
    // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 0 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on "result[0]" before returning it}}
    %6 = "stablehlo.custom_call"(%2) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "unpinned_host"}} : (tensor<8xf32>) -> tensor<8xf32>
    %7 = "stablehlo.custom_call"(%5) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%6, %7) : (tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: TanhOnHostMemory: OK
// tanh runs on a value in host memory: XLA turns it into host compute and the
// result is moved back to device. We warn (HOW101) but raise no error.
"builtin.module"() <{sym_name = "jit_tanh_on_host_memory"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}], function_type = (tensor<1024xf32>) -> tensor<1024xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<1024xf32> loc("param")):
    %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<1024xf32>) -> tensor<1024xf32>
    // expected-warning @below {{HOW101: 'stablehlo.tanh' computes on a tensor in host memory (moved to host starting from 'annotate_device_placement' to pinned_host); XLA runs it as host compute and keeps its results in host memory}}
    %1 = "stablehlo.tanh"(%0) : (tensor<1024xf32>) -> tensor<1024xf32>
    %2 = "stablehlo.custom_call"(%1) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<1024xf32>) -> tensor<1024xf32>
    "func.return"(%2) : (tensor<1024xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: LoneMoveToDevice: OK
// A move to device of a value that is already on device.
"builtin.module"() <{sym_name = "jit_lone_move_to_device"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}], function_type = (tensor<16x256xf32>) -> tensor<16x256xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<16x256xf32> loc("param_0")):
    %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<16x256xf32>) -> tensor<16x256xf32>
    "func.return"(%0) : (tensor<16x256xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: BasicDusDs: OK
// Moved to host, written into a broadcast buffer with dynamic_update_slice,
// read back with dynamic_slice and moved to device.
"builtin.module"() <{sym_name = "jit_basic_dus_ds"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "device"}], function_type = (tensor<1x16x16xf32>, tensor<i32>) -> tensor<1x16x16xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<1x16x16xf32> loc("data_param"), %arg1: tensor<i32> loc("index_param")):
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %2 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x16x16xf32>
    %3 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<1x16x16xf32>) -> tensor<1x16x16xf32>
    %4 = "stablehlo.dynamic_update_slice"(%2, %3, %arg1, %1, %1) : (tensor<2x16x16xf32>, tensor<1x16x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x16x16xf32>
    %5 = "stablehlo.dynamic_slice"(%4, %arg1, %1, %1) <{slice_sizes = array<i64: 1, 16, 16>}> : (tensor<2x16x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x16x16xf32>
    %6 = "stablehlo.custom_call"(%5) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<1x16x16xf32>) -> tensor<1x16x16xf32>
    "func.return"(%6) : (tensor<1x16x16xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// XLA: TwoChainedDusWithMoveToDevice: OK
// A row is moved to host and written into a host buffer; the whole buffer is
// moved back to device and a second dynamic_update_slice writes into it on
// device. The move to device ends the host path, so the device output is
// fine (XLA bypassed the move to device and raised a false E1200 until 2026).
"builtin.module"() <{sym_name = "jit_two_chained_dus_with_move_to_device"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "device"}, {mhlo.memory_kind = "device"}], function_type = (tensor<1x16xf32>, tensor<1x16xf32>, tensor<i32>) -> tensor<4x16xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<1x16xf32> loc("row_0"), %arg1: tensor<1x16xf32> loc("row_1"), %arg2: tensor<i32> loc("index")):
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %2 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %3 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x16xf32>
    %4 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %5 = "stablehlo.dynamic_update_slice"(%3, %4, %arg2, %1) : (tensor<4x16xf32>, tensor<1x16xf32>, tensor<i32>, tensor<i32>) -> tensor<4x16xf32>
    %6 = "stablehlo.custom_call"(%5) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %7 = "stablehlo.add"(%arg2, %2) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %8 = "stablehlo.dynamic_update_slice"(%6, %arg1, %7, %1) : (tensor<4x16xf32>, tensor<1x16xf32>, tensor<i32>, tensor<i32>) -> tensor<4x16xf32>
    "func.return"(%8) : (tensor<4x16xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
