// RUN: not offload-opt %s --split-input-file --host-offload-check -o /dev/null 2>&1 | FileCheck %s

// JAX gives entry arguments no file location: a note about an argument points
// at its user that comes first in the Python source (by line, then column),
// whatever the program order; of users at one position, the last in program
// order. A column is shown plus one, as an editor counts.

// Three users: the walk gathers the argument's uses.
// CHECK-LABEL: error: E1200: {{.*}}argument 'many'
// CHECK-NEXT: b.py:12:4: note: in host memory from the start: argument 'many'
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%x: tensor<8xf32> loc("many")):
  %a = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("a"("a.py":30:0))
  %b = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("b"("a.py":12:3))
  %c = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("c"("b.py":12:3))
  %d = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("d"("a.py":12:5))
  "func.return"(%x) : (tensor<8xf32>) -> () loc("r"("a.py":50:0))
}) : () -> ()

// -----

// Two users, taken without gathering: the later one in program order comes
// first in the source.
// CHECK-LABEL: error: E1200: {{.*}}argument 'two'
// CHECK-NEXT: a.py:10:1: note: in host memory from the start: argument 'two'
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%x: tensor<8xf32> loc("two")):
  %a = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("a"("a.py":20:0))
  "func.return"(%x) : (tensor<8xf32>) -> () loc("r"("a.py":10:0))
}) : () -> ()

// -----

// Two users at one position: the last.
// CHECK-LABEL: error: E1200: {{.*}}argument 'tie'
// CHECK-NEXT: b.py:10:1: note: in host memory from the start: argument 'tie'
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%x: tensor<8xf32> loc("tie")):
  %a = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("a"("a.py":10:0))
  "func.return"(%x) : (tensor<8xf32>) -> () loc("r"("b.py":10:0))
}) : () -> ()

// -----

// An argument with a line of the file given (HLO input): a user in the Python
// source comes first, a user with only a file line does not.
// CHECK-LABEL: error: E1200: {{.*}}argument 'own'
// CHECK-NEXT: a.py:40:1: note: in host memory from the start: argument 'own'
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%x: tensor<8xf32> loc(fused["own", "in.mlir":3:4])):
  %a = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("in.mlir":1:1)
  %b = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("a"("a.py":40:0))
  "func.return"(%x) : (tensor<8xf32>) -> () loc("in.mlir":2:1)
}) : () -> ()

// -----

// CHECK-LABEL: error: E1200: {{.*}}argument 'own_only'
// CHECK-NEXT: in.mlir:3:4: note: in host memory from the start: argument 'own_only'
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%x: tensor<8xf32> loc(fused["own_only", "in.mlir":3:4])):
  %a = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("in.mlir":1:1)
  "func.return"(%x) : (tensor<8xf32>) -> () loc("in.mlir":2:1)
}) : () -> ()

// -----

// Without the Python source, a user with a file line; of two at one
// position, the last.
// CHECK-LABEL: error: E1200: {{.*}}argument 'lines'
// CHECK-NEXT: b.mlir:5:1: note: in host memory from the start: argument 'lines'
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%x: tensor<8xf32> loc("lines")):
  %a = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("a.mlir":9:1)
  %b = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("a.mlir":5:1)
  %c = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("b.mlir":5:1)
  "func.return"(%x) : (tensor<8xf32>) -> () loc("a.mlir":7:1)
}) : () -> ()

// -----

// A warning about an argument that is no start takes its location the same way.
// CHECK-LABEL: b.py:12:4: warning: HOW106: argument 'unpinned'
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "unpinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
^bb0(%x: tensor<8xf32> loc("unpinned")):
  %a = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("a"("a.py":30:0))
  %b = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("b"("a.py":12:3))
  %c = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32> loc("c"("b.py":12:3))
  "func.return"(%x) : (tensor<8xf32>) -> () loc("r"("a.py":50:0))
}) : () -> ()
