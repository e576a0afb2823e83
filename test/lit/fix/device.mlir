// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device | FileCheck %s --match-full-lines
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=LOC
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device | offload-opt --split-input-file --host-offload-check
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device --mlir-print-op-generic --mlir-print-debuginfo -o %t.once
// RUN: offload-opt %t.once --split-input-file --host-offload-fix=strategy=device --mlir-print-op-generic --mlir-print-debuginfo -o %t.twice
// RUN: diff %t.once %t.twice

// strategy=device moves each output that fails with E1200 back to device
// memory right before the return, with the annotation spelled exactly as JAX
// emits it for jax.device_put(x, jax.memory.Space.Device). The declared
// memory kinds do not change. The new op is located where the returned value
// is made, or at the return for an argument returned as is.

// CHECK-LABEL: func.func public @several_outputs({{.*}}
// CHECK-NEXT:    %0 = "stablehlo.tanh"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    %1 = "stablehlo.custom_call"(%arg1) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    %2 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    %3 = "stablehlo.custom_call"(%0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    %4 = "stablehlo.custom_call"(%1) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    %5 = "stablehlo.custom_call"(%0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    return %2, %3, %4, %5, %arg1 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT:  }

// LOC-LABEL: func.func public @several_outputs(
// LOC: "stablehlo.custom_call"(%arg0) {{.*}}_xla_buffer_placement = "device"{{.*}} loc("return")
// LOC-NEXT: "stablehlo.custom_call"(%0) {{.*}}_xla_buffer_placement = "device"{{.*}} loc("tanh")
// LOC-NEXT: "stablehlo.custom_call"(%1) {{.*}}_xla_buffer_placement = "device"{{.*}} loc("offload")
// LOC-NEXT: "stablehlo.custom_call"(%0) {{.*}}_xla_buffer_placement = "device"{{.*}} loc("tanh")
"builtin.module"() <{sym_name = "jit_several_outputs"}> ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "device"}], function_type = (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>), res_attrs = [{jax.result_info = "result[0]", mhlo.memory_kind = "device"}, {jax.result_info = "result[1]", mhlo.memory_kind = "unpinned_host"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]", mhlo.memory_kind = "device"}, {jax.result_info = "result[4]", mhlo.memory_kind = "device"}], sym_name = "several_outputs", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>):
    %0 = "stablehlo.tanh"(%arg0) : (tensor<8xf32>) -> tensor<8xf32> loc("tanh")
    %1 = "stablehlo.custom_call"(%arg1) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8xf32>) -> tensor<8xf32> loc("offload")
    // The same value returned twice is moved once for each output.
    "func.return"(%arg0, %0, %1, %0, %arg1) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> () loc("return")
  }) : () -> ()
}) : () -> ()

// -----

// A host value carried through a while loop, and one returned from a call:
// the move is added in the entry function, after the loop and the call.
// CHECK-LABEL: func.func public @loop_and_call({{.*}}
// CHECK:         %1:2 = "stablehlo.while"(%arg0, %0) ({
// CHECK:         }) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
// CHECK-NEXT:    %2 = call @offload(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %3 = "stablehlo.custom_call"(%1#1) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %4 = "stablehlo.custom_call"(%2) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    return %1#0, %3, %4 : tensor<i32>, tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
// The callee is not changed.
// CHECK-LABEL: func.func private @offload({{.*}}
// CHECK-NEXT:    %0 = "stablehlo.custom_call"(%arg0) {{.*}}_xla_buffer_placement = "pinned_host"{{.*}}
// CHECK-NEXT:    return %0 : tensor<4xf32>

// LOC-LABEL: func.func public @loop_and_call(
// LOC: "stablehlo.custom_call"(%1#1) {{.*}}_xla_buffer_placement = "device"{{.*}} loc("while")
// LOC-NEXT: "stablehlo.custom_call"(%2) {{.*}}_xla_buffer_placement = "device"{{.*}} loc("call")
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>, tensor<4xf32>), res_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "device"}, {mhlo.memory_kind = "device"}], sym_name = "loop_and_call", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<i32>, %arg1: tensor<4xf32>):
    %0 = "stablehlo.custom_call"(%arg1) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4xf32>) -> tensor<4xf32>
    %1:2 = "stablehlo.while"(%arg0, %0) ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<4xf32>):
      %2 = "stablehlo.compare"(%arg2, %arg2) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%2) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<4xf32>):
      "stablehlo.return"(%arg2, %arg3) : (tensor<i32>, tensor<4xf32>) -> ()
    }) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) loc("while")
    %3 = "func.call"(%arg1) <{callee = @offload}> : (tensor<4xf32>) -> tensor<4xf32> loc("call")
    "func.return"(%1#0, %1#1, %3) : (tensor<i32>, tensor<4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "offload", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Only the call site that passes host memory in returns host memory (XLA
// flattens the call graph), so only output 1 is moved.
// CHECK-LABEL: func.func public @shared_callee({{.*}}
// CHECK-NEXT:    %0 = call @scale(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %1 = call @scale(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %2 = "stablehlo.custom_call"(%1) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    return %0, %2 : tensor<4xf32>, tensor<4xf32>
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {}], function_type = (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>), sym_name = "shared_callee", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
    %0 = "func.call"(%arg1) <{callee = @scale}> : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "func.call"(%arg0) <{callee = @scale}> : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "scale", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
