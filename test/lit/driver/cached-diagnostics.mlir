// offload-opt prints its diagnostics with a handler that formats each location
// once; MlirOptMain (which --split-input-file takes, on an input without split
// markers) prints them with MLIR's own handler. Both give the same bytes, for
// locations in a source file (with a tab, non-ASCII text, a column past the
// end of its line, a line past the end of the file), a missing file, call
// stacks, fused and name locations, an unknown location, line 0, and positions
// in this file itself; each location is used more than once. No line is
// wider than 160 columns, which offload-opt shows as a window
// (long-source-lines.mlir).

// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'def step(x):\n\treturn f(x)\n  y = g(x) \xc3\xa9\nshort\n' > %t/src.py
// RUN: cd %t && not offload-opt %s --host-offload-check -o /dev/null 2> %t/loop.err
// RUN: %if split-lines-in-file %{ cd %t && not offload-opt %s --host-offload-check --split-input-file -o /dev/null 2> %t/main.err %}
// RUN: %if split-lines-in-file %{ diff %t/loop.err %t/main.err %}
// Where the diagnostics are coloured, MLIR's handler prints them all.
// RUN: cd %t && not offload-opt %s --host-offload-check --color -o /dev/null 2> %t/loop.color.err
// RUN: %if split-lines-in-file %{ cd %t && not offload-opt %s --host-offload-check --color --split-input-file -o /dev/null 2> %t/main.color.err %}
// RUN: %if split-lines-in-file %{ diff %t/loop.color.err %t/main.color.err %}
// RUN: grep -q '1;31merror: ' %t/loop.color.err
// RUN: FileCheck %s --strict-whitespace < %t/loop.err

// CHECK: src.py:2:3: error: E1200: {{.*}} output 0 has no mhlo.memory_kind
// CHECK-NEXT: {{^        return f\(x\)$}}
// CHECK-NEXT: {{^         \^$}}
// CHECK: src.py:3:1: note: called from
// CHECK-NEXT: {{^  y = g\(x\) }}
// CHECK: missing.py:1:1: error: E1200: {{.*}} output 5 has
// CHECK-NEXT: missing.py:1:1: note: in host memory from the start
// CHECK: cached-diagnostics.mlir:[[@LINE+24]]:8: error: E1200: {{.*}} output 11 has

#tab = loc("src.py":2:3)
#stack = loc(callsite("f"("src.py":2:2) at callsite("src.py":3:1 at "src.py":1:5)))
#fused = loc(fused["x", "src.py":3:4])
#past_line = loc("src.py":4:40)
#past_file = loc("src.py":99:1)
#missing = loc("missing.py":1:1)
#name = loc("name_only")
#line_zero = loc("src.py":0:0)
func.func @main(
    %a0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc(#tab),
    %a1: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc(#stack),
    %a2: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc(#fused),
    %a3: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc(#past_line),
    %a4: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc(#past_file),
    %a5: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc(#missing),
    %a6: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc(#name),
    %a7: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc(#line_zero),
    %a8: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc(unknown),
    %a9: tensor<4xf32> {mhlo.memory_kind = "pinned_host"})
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.multiply"(%a1, %a0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(#stack)
  %1 = "stablehlo.add"(%a2, %a3) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %0, %1, %a0, %a1
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
