// A call stack deeper than MLIR's limit of ten callers, printed by the
// handler that formats each call stack once and by MLIR's own (which
// --split-input-file takes): the same bytes. The eleventh caller (the
// call site at line 12) is not printed, but the first note is compared with
// it: the first note of output 1 is at that location and shows no source
// line; that of output 0 does.

// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'line1 = f(x)\nline2 = f(x)\nline3 = f(x)\nline4 = f(x)\nline5 = f(x)\nline6 = f(x)\nline7 = f(x)\nline8 = f(x)\nline9 = f(x)\nline10 = f(x)\nline11 = f(x)\nline12 = f(x)\nline13 = f(x)\n' > %t/src.py
// RUN: cd %t && not offload-opt %s --host-offload-check -o /dev/null 2> %t/loop.err
// RUN: cd %t && not offload-opt %s --host-offload-check --split-input-file -o /dev/null 2> %t/main.err
// RUN: diff %t/loop.err %t/main.err
// RUN: FileCheck %s --strict-whitespace < %t/loop.err

// CHECK: src.py:1:1: error: E1200: {{.*}}output 0 has
// CHECK: src.py:11:1: note: called from
// CHECK-NEXT: {{^line11 = f\(x\)$}}
// CHECK-NEXT: {{^\^$}}
// CHECK-NEXT: src.py:1:1: note: in host memory from the start: argument #0
// CHECK-NEXT: {{^line1 = f\(x\)$}}
// CHECK: src.py:1:1: error: E1200: {{.*}}output 1 has
// CHECK: src.py:11:1: note: called from
// CHECK-NEXT: {{^line11 = f\(x\)$}}
// CHECK-NEXT: {{^\^$}}
// CHECK-NEXT: src.py:12:1: note: in host memory from the start: argument #1
// CHECK-NEXT: src.py:1:1: note: path:

#deep = loc(callsite("src.py":1:1 at callsite("src.py":2:1 at callsite("src.py":3:1 at callsite("src.py":4:1 at callsite("src.py":5:1 at callsite("src.py":6:1 at callsite("src.py":7:1 at callsite("src.py":8:1 at callsite("src.py":9:1 at callsite("src.py":10:1 at callsite("src.py":11:1 at callsite("src.py":12:1 at "src.py":13:1)))))))))))))
#eleventh_caller = loc(callsite("src.py":12:1 at "src.py":13:1))
func.func @main(%a0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc(#deep), %a1: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc(#eleventh_caller)) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.multiply"(%a1, %a1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(#deep)
  return %a0, %0, %a0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
