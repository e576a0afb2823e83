// A source line longer than 4096 bytes is not shown under a message: the
// entry function of `lowered.as_text()` is one line of hundreds of KB, and a
// note at each of its arguments showed all of it (1.9 GB of messages for a
// 100k-op model). The message keeps its line and column, and shorter lines are
// shown as before. Alike for a location in the input, in another file (the
// generic form of the same module, whose locations name the first), and in
// colour.

// RUN: python3 %S/Inputs/long-signature.py > %t.long.mlir
// RUN: not offload-opt %t.long.mlir --host-offload-check -o /dev/null 2> %t.input.err
// RUN: FileCheck %s < %t.input.err
// RUN: awk 'length($0) > 4096' %t.input.err | count 0
// RUN: offload-opt %t.long.mlir --mlir-print-op-generic --mlir-print-debuginfo -o %t.generic.mlir
// RUN: not offload-opt %t.generic.mlir --host-offload-check -o /dev/null 2> %t.other.err
// RUN: FileCheck %s < %t.other.err
// RUN: awk 'length($0) > 4096' %t.other.err | count 0
// RUN: not offload-opt %t.generic.mlir --host-offload-check -o /dev/null --color 2> %t.color.err
// RUN: FileCheck %s --check-prefix=COLOR < %t.color.err
// RUN: awk 'length($0) > 4096' %t.color.err | count 0

// CHECK: long.mlir:2:8: error: E1200:
// CHECK-NEXT: {{^}}  %0 = "stablehlo.tanh"
// CHECK-NEXT: {{^       \^$}}
// CHECK-NEXT: long.mlir:1:17: note: in host memory from the start: argument #0
// CHECK-NEXT: long.mlir:2:8: note: path: argument #0 -> stablehlo.tanh -> output 0
// COLOR: long.mlir:2:8: {{.*}}error: {{.*}}E1200:
// COLOR: %0 = "stablehlo.tanh"
// COLOR: long.mlir:1:17: {{.*}}note: {{.*}}in host memory from the start: argument #0
// COLOR-NEXT: long.mlir:2:8: {{.*}}note: {{.*}}path: argument #0
