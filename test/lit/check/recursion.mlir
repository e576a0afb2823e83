// RUN: offload-opt %s --host-offload-check -verify-diagnostics

// Recursion: XLA cannot compile it (HOE103, call-cycles.mlir), and it must not
// hang the analysis, which still follows host memory through the cycle.
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  // expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
  ^bb0(%arg0: tensor<4xf32>):
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
    // expected-note @below {{path: argument #0 -> call @ping -> call @pong -> stablehlo.add -> return from @pong -> return from @ping -> output 0}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %0 = "func.call"(%arg0) <{callee = @ping}> : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "ping", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    // expected-note @below {{in the cycle: @ping calls @pong}}
    %0 = "func.call"(%arg0) <{callee = @pong}> : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "pong", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    // expected-error @below {{HOE103: recursive call: @ping -> @pong -> @ping}}
    %0 = "func.call"(%arg0) <{callee = @ping}> : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error @below {{HOE103: recursive call: @pong -> @pong}}
    %1 = "func.call"(%0) <{callee = @pong}> : (tensor<4xf32>) -> tensor<4xf32>
    // expected-warning @below {{HOW101: 'stablehlo.add' computes on a tensor in host memory (moved to host starting from argument #0)}}
    %2 = "stablehlo.add"(%arg0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%2) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
