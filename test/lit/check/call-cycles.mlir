// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics
// RUN: %if split-lines-in-file %{ not offload-opt %s --split-input-file --host-offload-check 2>&1 | FileCheck %s %}
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device --mlir-print-op-generic | FileCheck %s --check-prefix=FIX

// A cycle of calls reachable from the entry is HOE103 at the call that
// closes it: XLA:TPU cannot compile such a program (docs/semantics.md,
// "Recursion"). The fix passes leave it as it is and never loop on it.

// A function that calls itself.
// CHECK: call-cycles.mlir:[[@LINE+10]]:8: error: HOE103: recursive call: @f -> @f; XLA cannot compile a program whose calls form a cycle
// FIX-LABEL: sym_name = "main"
// FIX-LABEL: sym_name = "f"
// FIX: "func.call"(%{{.*}}) <{callee = @f}>
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @f(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{HOE103: recursive call: @f -> @f; XLA cannot compile a program whose calls form a cycle}}
  %0 = call @f(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Mutual recursion: named from where the search first entered the cycle,
// with a note at each call on the way round.
// CHECK: call-cycles.mlir:[[@LINE+20]]:8: error: HOE103: recursive call: @f -> @g -> @h -> @f
// CHECK: call-cycles.mlir:[[@LINE+9]]:8: note: in the cycle: @f calls @g
// CHECK: call-cycles.mlir:[[@LINE+13]]:8: note: in the cycle: @g calls @h
// FIX-LABEL: sym_name = "main"
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @f(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{in the cycle: @f calls @g}}
  %0 = call @g(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @g(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{in the cycle: @g calls @h}}
  %0 = call @h(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @h(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{HOE103: recursive call: @f -> @g -> @h -> @f}}
  %0 = call @f(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A cycle the entry never calls is no error: XLA compiles only what the
// entry reaches, and compiles this module.
// CHECK-NOT: HOE103
// FIX-LABEL: sym_name = "main"
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.sine"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @unused(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @unused(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A diamond calls one function twice, through two callers: no cycle.
// CHECK-NOT: HOE103
// FIX-LABEL: sym_name = "main"
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @left(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @right(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @left(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @leaf(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @right(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @leaf(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @leaf(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}

// -----

// A recursive call inside a shard_map body, next to an E1200: both errors.
// CHECK-LABEL: error: E1200
// CHECK: call-cycles.mlir:[[@LINE+24]]:12: error: HOE103: recursive call: @body -> @body
// FIX-LABEL: sym_name = "main"
// FIX: "stablehlo.custom_call"({{.*}}call_target_name = "annotate_device_placement"{{.*}}_xla_buffer_placement = "device"
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<16x128xf32>) -> tensor<16x128xf32>, sym_name = "main"}> ({
  // expected-note @below {{in host memory from the start}}
  ^bb0(%arg0: tensor<16x128xf32>):
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0)}}
    // expected-note @below {{path: argument #0 -> sdy.manual_computation -> output 0}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%arg1: tensor<8x128xf32>):
      %1 = "func.call"(%arg1) <{callee = @body}> : (tensor<8x128xf32>) -> tensor<8x128xf32>
      "sdy.return"(%arg1) : (tensor<8x128xf32>) -> ()
    }) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    "func.return"(%0) : (tensor<16x128xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8x128xf32>) -> tensor<8x128xf32>, sym_name = "body", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8x128xf32>):
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>, manual_axes = #sdy<manual_axes{}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>}> ({
    ^bb0(%arg1: tensor<8x128xf32>):
      // expected-error @below {{HOE103: recursive call: @body -> @body}}
      %1 = "func.call"(%arg1) <{callee = @body}> : (tensor<8x128xf32>) -> tensor<8x128xf32>
      "sdy.return"(%1) : (tensor<8x128xf32>) -> ()
    }) : (tensor<8x128xf32>) -> tensor<8x128xf32>
    "func.return"(%0) : (tensor<8x128xf32>) -> ()
  }) : () -> ()
}) : () -> ()
