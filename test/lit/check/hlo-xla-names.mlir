// RUN: not offload-opt %s --split-input-file --host-offload-check -o /dev/null 2>&1 | FileCheck %s

// The instruction XLA's E1200 names, beside our own description, in modules
// converted from HLO (they carry hostoffload.hlo_entry, and each op's
// location starts with its instruction's name): docs/diagnostics.md, E1200.

// An argument start is the entry parameter; a move to host returned among
// several outputs starts at the root tuple.
// CHECK-LABEL: starting from argument 'names_x', XLA: 'names_x.1'){{.*}}output 0
// CHECK: path: argument 'names_x' -> stablehlo.negate -> output 0
// CHECK: starting from 'MoveToHost', XLA: 'tuple.3'){{.*}}output 1
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8xf32> loc("names_x"), %arg1: tensor<8xf32> loc("names_y")):
    %0 = "stablehlo.negate"(%arg0) : (tensor<8xf32>) -> tensor<8xf32> loc("negate.2")
    %1 = "stablehlo.custom_call"(%arg1) <{call_target_name = "MoveToHost"}> : (tensor<8xf32>) -> tensor<8xf32> loc("custom-call.1")
    "func.return"(%0, %1) : (tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
}) {hostoffload.hlo_entry = {arguments = ["names_x.1", "names_y.1"], root = "tuple.3"}, mhlo.frontend_attributes = {arg_memory_spaces = "5;0", out_memory_spaces = "0;0"}} : () -> ()

// -----

// XLA starts at the instruction after the move, past bitcasts and a move to
// device (whose trace ends at once).
// CHECK-LABEL: starting from 'MoveToHost', XLA: 'past_mul.3'){{.*}}output 0
// CHECK: path: 'MoveToHost' -> mhlo.bitcast -> stablehlo.multiply -> mhlo.bitcast -> output 0
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8xf32> loc("x")):
    %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "MoveToHost"}> : (tensor<8xf32>) -> tensor<8xf32> loc("custom-call.1")
    %1 = "mhlo.bitcast"(%0) : (tensor<8xf32>) -> tensor<2x4xf32> loc("bitcast.2")
    %2 = "stablehlo.custom_call"(%0) <{call_target_name = "MoveToDevice"}> : (tensor<8xf32>) -> tensor<8xf32> loc("custom-call.2")
    %3 = "stablehlo.multiply"(%1, %1) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc(fused["past_mul.3", "f.hlo":7:0])
    %4 = "mhlo.bitcast"(%3) : (tensor<2x4xf32>) -> tensor<8xf32> loc("bitcast.4")
    "func.return"(%4, %2) : (tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
}) {hostoffload.hlo_entry = {arguments = ["x.1"], root = "tuple.5"}, mhlo.frontend_attributes = {arg_memory_spaces = "0", out_memory_spaces = "0;0"}} : () -> ()

// -----

// Through a call: XLA has inlined it, and starts at the caller's instruction
// that takes the callee's result.
// CHECK-LABEL: starting from 'MoveToHost', XLA: 'inlined_tuple.4'){{.*}}output 0
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "offload", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32> loc("p.1")):
    %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "MoveToHost"}> : (tensor<8xf32>) -> tensor<8xf32> loc("custom-call.1")
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8xf32> loc("x")):
    %0 = "func.call"(%arg0) <{callee = @offload}> : (tensor<8xf32>) -> tensor<8xf32> loc("call.2")
    "func.return"(%0, %arg0) : (tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
}) {hostoffload.hlo_entry = {arguments = ["x.1"], root = "inlined_tuple.4"}, mhlo.frontend_attributes = {arg_memory_spaces = "0", out_memory_spaces = "0;0"}} : () -> ()

// -----

// A move to host of a tensor moved to host already: XLA's trace of the first
// move starts at the second, and names it.
// CHECK-LABEL: starting from 'MoveToHost', XLA: 'second_move.2'){{.*}}output 0
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8xf32> loc("x")):
    %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "MoveToHost"}> : (tensor<8xf32>) -> tensor<8xf32> loc("custom-call.1")
    %1 = "stablehlo.custom_call"(%0) <{call_target_name = "MoveToHost"}> : (tensor<8xf32>) -> tensor<8xf32> loc("second_move.2")
    "func.return"(%1, %arg0) : (tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
}) {hostoffload.hlo_entry = {arguments = ["x.1"], root = "tuple.3"}, mhlo.frontend_attributes = {arg_memory_spaces = "0", out_memory_spaces = "0;0"}} : () -> ()

// -----

// Names XLA's message does not have in this module are not given: two
// instructions taking the moved tensor (XLA names the one on the output's
// path), the tuple operand of an optimization barrier the front end did not
// record.
// CHECK-LABEL: starting from 'MoveToHost') {{.*}}output 0
// CHECK-NOT: XLA:
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8xf32> loc("x")):
    %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "MoveToHost"}> : (tensor<8xf32>) -> tensor<8xf32> loc("custom-call.1")
    %1 = "stablehlo.negate"(%0) : (tensor<8xf32>) -> tensor<8xf32> loc("negate.2")
    "func.return"(%1, %0) : (tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
}) {hostoffload.hlo_entry = {arguments = ["x.1"], root = "tuple.3"}, mhlo.frontend_attributes = {arg_memory_spaces = "0", out_memory_spaces = "0;5"}} : () -> ()

// -----

// CHECK-LABEL: starting from 'MoveToHost') {{.*}}output 0
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8xf32> loc("x"), %arg1: tensor<8xf32> loc("y")):
    %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "MoveToHost"}> : (tensor<8xf32>) -> tensor<8xf32> loc("custom-call.1")
    %1:2 = "stablehlo.optimization_barrier"(%0, %arg1) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) loc("opt-barrier.3")
    "func.return"(%1#0, %1#1) : (tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
}) {hostoffload.hlo_entry = {arguments = ["x.1", "y.1"], root = "tuple.4"}, mhlo.frontend_attributes = {arg_memory_spaces = "0;0", out_memory_spaces = "0;0"}} : () -> ()

// -----

// The tuple operand of an optimization barrier, which the importer folds into
// the barrier, is named from what the HLO front end recorded of it.
// CHECK-LABEL: starting from 'MoveToHost', XLA: 'tuple.2') {{.*}}output 0
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8xf32> loc("x"), %arg1: tensor<8xf32> loc("y")):
    %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "MoveToHost"}> : (tensor<8xf32>) -> tensor<8xf32> loc("custom-call.1")
    %1:2 = "stablehlo.optimization_barrier"(%0, %arg1) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) loc("opt-barrier.3")
    "func.return"(%1#0, %1#1) : (tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
}) {hostoffload.hlo_entry = {arguments = ["x.1", "y.1"], barrier_operands = {"opt-barrier.3" = "tuple.2"}, root = "tuple.4"}, mhlo.frontend_attributes = {arg_memory_spaces = "0;0", out_memory_spaces = "0;0"}} : () -> ()

// -----

// A malformed bitcast (no operand) before a move to host: no name, no crash.
// CHECK-LABEL: starting from 'MoveToHost') {{.*}}output 0
"builtin.module"() ({
  "func.func"() <{function_type = () -> (tensor<8xf32>, tensor<8xf32>), sym_name = "main"}> ({
    %0 = "mhlo.bitcast"() : () -> tensor<8xf32> loc("bitcast.1")
    %1 = "stablehlo.custom_call"(%0) <{call_target_name = "MoveToHost"}> : (tensor<8xf32>) -> tensor<8xf32> loc("custom-call.2")
    %2 = "mhlo.bitcast"(%1) : (tensor<8xf32>) -> tensor<8xf32> loc("bitcast.3")
    %3 = "mhlo.copy"() : () -> tensor<8xf32> loc("copy.4")
    "func.return"(%2, %3) : (tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
}) {hostoffload.hlo_entry = {arguments = 3 : i32, root = 7 : i32}, mhlo.frontend_attributes = {out_memory_spaces = "0;0"}} : () -> ()
