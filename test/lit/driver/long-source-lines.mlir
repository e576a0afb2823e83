// A source line wider than 160 columns is shown as a window of 160 columns
// around the caret, "..." where it is cut: the entry function of
// `lowered.as_text()` is one line of hundreds of KB, and a note at each of its
// arguments showed all of it (1.9 GB of messages for a 100k-op model). The
// window is at the start, in the middle or at the end of the line, and the
// caret is under the column's character; shorter lines are shown as before.
// Alike for a location in the input, in another file (the generic form of the
// same module, whose locations name the first), and in colour.

// RUN: python3 %S/Inputs/long-signature.py > %t.long.mlir
// RUN: not offload-opt %t.long.mlir --host-offload-check -o /dev/null 2> %t.input.err
// RUN: FileCheck %s --strict-whitespace < %t.input.err
// RUN: awk '/^ *\^$/ { print "caret under: " substr(prev, length($0), 8) } { prev = $0 }' %t.input.err | FileCheck %s --check-prefix=CARET
// RUN: awk '/^ *\^$/ && length(prev) > 160' %t.input.err | count 0
// RUN: offload-opt %t.long.mlir --mlir-print-op-generic --mlir-print-debuginfo -o %t.generic.mlir
// RUN: not offload-opt %t.generic.mlir --host-offload-check -o /dev/null 2> %t.other.err
// RUN: FileCheck %s --strict-whitespace < %t.other.err
// RUN: awk '/^ *\^$/ { print "caret under: " substr(prev, length($0), 8) } { prev = $0 }' %t.other.err | FileCheck %s --check-prefix=CARET
// RUN: awk '/^ *\^$/ && length(prev) > 160' %t.other.err | count 0
// RUN: not offload-opt %t.generic.mlir --host-offload-check -o /dev/null --color 2> %t.color.err
// RUN: FileCheck %s --check-prefix=COLOR --strict-whitespace < %t.color.err
// RUN: awk 'length($0) > 400' %t.color.err | count 0

// CHECK: long.mlir:3:8: error: E1200:
// CHECK-NEXT: {{^  %1 = "stablehlo.add"\(%0, %arg119\) : .*tensor<8xf32>$}}
// CHECK-NEXT: {{^       \^$}}
// CHECK-NEXT: long.mlir:1:17: note: in host memory from the start: argument #0
// CHECK-NEXT: {{^func.func @main\(%arg0: tensor<8xf32> {mhlo.memory_kind = "pinned_host"}, .*[^.]\.\.\.$}}
// CHECK-NEXT: {{^                \^$}}
// CHECK-NEXT: long.mlir:1:{{[0-9]+}}: note: in host memory from the start: argument #60
// CHECK-NEXT: {{^\.\.\.[^.].*, %arg60: tensor<8xf32> {mhlo.memory_kind = "pinned_host"}, .*[^.]\.\.\.$}}
// CHECK-NEXT: {{^ {80}\^$}}
// CHECK-NEXT: long.mlir:1:{{[0-9]+}}: note: in host memory from the start: argument #119
// CHECK-NEXT: {{^\.\.\..*, %arg119: tensor<8xf32> {mhlo.memory_kind = "pinned_host"}\) -> tensor<8xf32> {$}}
// CHECK-NEXT: {{^ +\^$}}
// CHECK-NEXT: long.mlir:3:8: note: path: argument #119 -> stablehlo.add -> output 0

// CARET: caret under: "stableh
// CARET-NEXT: caret under: %arg0: t
// CARET-NEXT: caret under: %arg60: 
// CARET-NEXT: caret under: %arg119:

// COLOR: long.mlir:3:8: {{.*}}error: {{.*}}E1200:
// COLOR: long.mlir:1:17: {{.*}}note: {{.*}}in host memory from the start: argument #0
// COLOR-NEXT: {{func.func @main\(%arg0: .*\.\.\.$}}
// COLOR-NEXT: {{^ {16}[^ ]*\^}}
// COLOR-NEXT: long.mlir:1:{{[0-9]+}}: {{.*}}note: {{.*}}in host memory from the start: argument #60
// COLOR-NEXT: {{\.\.\..*%arg60: .*\.\.\.$}}
