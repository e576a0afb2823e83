// After the findings of a module without debug info, whose own lines stand in
// for the Python lines (`lowered.as_text()`), offload-opt says once how to get
// Python lines. It says nothing where a finding or a note is at a line of a
// Python file, nor where there is no finding.

// RUN: not offload-opt %s --host-offload-check -o /dev/null 2> %t.python.err
// RUN: not grep 'debug info' %t.python.err
// RUN: sed 's/ loc("model.py":[0-9:]*)//' %s > %t.plain.mlir
// RUN: not offload-opt %t.plain.mlir --host-offload-check -o /dev/null 2> %t.plain.err
// RUN: FileCheck %s --check-prefix=PLAIN < %t.plain.err
// RUN: grep 'debug info' %t.plain.err | count 1
// RUN: not offload-opt - --host-offload-check -o /dev/null < %t.plain.mlir 2>&1 | tail -1 | FileCheck %s --check-prefix=STDIN
// RUN: offload-opt %t.plain.mlir --host-offload-check=entry=clean -o /dev/null 2>&1 | count 0

// PLAIN: plain.mlir:{{[0-9]+}}:8: error: E1200: {{.*}} output 0 has
// PLAIN: plain.mlir:{{[0-9]+}}:8: error: E1200: {{.*}} output 1 has
// PLAIN: plain.mlir:{{[0-9]+}}:8: warning: HOW101:
// PLAIN: plain.mlir:{{[0-9]+}}:8: note: 'stablehlo.exponential' computes on host memory
// PLAIN-NEXT: {{^  %1 = "stablehlo.exponential"}}
// PLAIN-NEXT: {{^ +\^$}}
// PLAIN-NEXT: {{^.*plain.mlir: note: this module has no debug info, so the findings point at its own lines: for Python source lines, save lowered.as_text\(debug_info=True\) instead of lowered.as_text\(\), or check the function with hostoffload.check_jax\(fn, \*args\)$}}
// PLAIN-NOT: {{.}}

// STDIN: {{^<stdin>: note: this module has no debug info}}

func.func @main(%state: tensor<8xf32> {mhlo.memory_kind = "pinned_host"} loc("model.py":3:5))
    -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = "stablehlo.tanh"(%state) : (tensor<8xf32>) -> tensor<8xf32> loc("model.py":4:9)
  %1 = "stablehlo.exponential"(%state) : (tensor<8xf32>) -> tensor<8xf32> loc("model.py":5:9)
  return %0, %1 : tensor<8xf32>, tensor<8xf32> loc("model.py":6:5)
}

func.func @clean(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
