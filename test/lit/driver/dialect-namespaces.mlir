// RUN: %if split-lines-in-file %{ not offload-opt %s --split-input-file 2>/dev/null | FileCheck %s %}
// RUN: %if split-lines-in-file %{ not offload-opt %s --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR %}

// Attributes and types of dialects that are not registered are read with
// MLIR's namespace rule, ^[a-zA-Z_][a-zA-Z_0-9$]*$ (offload-opt's link gives
// it a test without a regular expression, the same accept and reject).

// CHECK-LABEL: func.func @valid
// CHECK-SAME: !ab_$1.t<2>
// CHECK: "test.op"() {a = #sdy.sharding<@m, [{}]>, b = #a$b.c<"x">, c = #_x9.y<1>, d = #Z.q, e = #a.b.c<1>}
func.func @valid(%arg0: !ab_$1.t<2>) -> !stablehlo.token {
  %0 = "test.op"() {a = #sdy.sharding<@m, [{}]>, b = #a$b.c<"x">, c = #_x9.y<1>, d = #Z.q, e = #a.b.c<1>} : () -> !stablehlo.token
  return %0 : !stablehlo.token
}

// -----

// ERR: dialect-namespaces.mlir:[[@LINE+1]]:23: error: invalid dialect namespace '"a-b"'
"test.op"() {a = #a-b.c<1>} : () -> ()

// -----

// ERR: dialect-namespaces.mlir:[[@LINE+1]]:22: error: invalid dialect namespace '"$a"'
"test.op"() {a = #$a.c<1>} : () -> ()

// -----

// ERR: dialect-namespaces.mlir:[[@LINE+1]]:25: error: invalid dialect namespace '"-t"'
"test.op"() : () -> !-t.x<1>
