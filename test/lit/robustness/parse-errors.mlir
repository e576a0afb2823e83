// Random bytes, truncated modules, invalid UTF-8 and NUL bytes: MLIR's parser
// gives a located error and the driver exits with 1, whatever the pass.
//
// RUN: printf '\377\376\000\001garbage\n' > %t.random
// RUN: %if shim %{ not offload-opt %t.random --host-offload-check 2>&1 | FileCheck %s --check-prefix=RANDOM %}
// RUN: %if shim %{ not offload-opt %t.random --host-offload-fix=strategy=host 2>&1 | FileCheck %s --check-prefix=RANDOM %}
// RUN: %if shim %{ not offload-opt %t.random --host-offload-fix=strategy=device 2>&1 | FileCheck %s --check-prefix=RANDOM %}
// RANDOM: random: error: the input is binary data that is no MLIR bytecode (it starts with b'\xff\xfe\x00\x01garbage\n'); hostoffload reads StableHLO as MLIR in the generic form
// RANDOM-NOT: Stack dump
//
// Inputs/offload.mlir cut short in a string, an attribute and a type.
// RUN: head -c 10 %S/Inputs/offload.mlir > %t.cut10
// RUN: not offload-opt %t.cut10 --host-offload-check 2>&1 | FileCheck %s --check-prefix=CUT10
// RUN: not offload-opt %t.cut10 --host-offload-fix=strategy=device 2>&1 | FileCheck %s --check-prefix=CUT10
// CUT10: cut10:1:11: error: expected '"' in string literal
// RUN: head -c 200 %S/Inputs/offload.mlir > %t.cut200
// RUN: not offload-opt %t.cut200 --host-offload-check 2>&1 | FileCheck %s --check-prefix=CUT200
// RUN: not offload-opt %t.cut200 --host-offload-fix=strategy=host 2>&1 | FileCheck %s --check-prefix=CUT200
// CUT200: cut200:2:177: error: expected attribute value
// RUN: head -c 420 %S/Inputs/offload.mlir > %t.cut420
// RUN: not offload-opt %t.cut420 --host-offload-check 2>&1 | FileCheck %s --check-prefix=CUT420
// RUN: not offload-opt %t.cut420 --host-offload-fix=strategy=host 2>&1 | FileCheck %s --check-prefix=CUT420
// CUT420: cut420:6:13: error: expected non-function type
//
// Invalid UTF-8 outside a string literal is an unexpected character.
// RUN: printf 'func.func @ma\377in() {\n  return\n}\n' > %t.utf8
// RUN: not offload-opt %t.utf8 --host-offload-check 2>&1 | FileCheck %s --check-prefix=UTF8
// RUN: not offload-opt %t.utf8 --host-offload-fix=strategy=device 2>&1 | FileCheck %s --check-prefix=UTF8
// UTF8: utf8:1:14: error: unexpected character
//
// Inside a string literal MLIR takes any byte: the module is checked and fixed.
// RUN: printf '"builtin.module"() ({\n  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, res_attrs = [{jax.result_info = "r\377", mhlo.memory_kind = "dev\377"}], sym_name = "ma\377in"}> ({\n  ^bb0(%%%%arg0: tensor<4xf32>):\n    "func.return"(%%%%arg0) : (tensor<4xf32>) -> ()\n  }) : () -> ()\n}) : () -> ()\n' > %t.string
// RUN: not offload-opt %t.string --host-offload-check 2>&1 | FileCheck %s --check-prefix=STRING
// RUN: offload-opt %t.string --host-offload-fix=strategy=host | FileCheck %s --check-prefix=STRING-HOST
// RUN: offload-opt %t.string --host-offload-fix=strategy=device | FileCheck %s --check-prefix=STRING-DEVICE
// Diagnostics are UTF-8: each byte that is not becomes U+FFFD.
// STRING: string:3:8: error: E1200: Tensor which is moved to host (starting from argument #0) {{.*}}; output 0 ("r�") is declared mhlo.memory_kind = "dev�"
// STRING: string:2:3: warning: HOW104: unknown memory kind "dev�" on result 0 of @ma�in (from mhlo.memory_kind)
// STRING-HOST: func.func @"ma\FFin"(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<4xf32> {jax.result_info = "r\FF", mhlo.memory_kind = "pinned_host"})
// STRING-DEVICE: _xla_buffer_placement = "device"
//
// NUL bytes are blanks to MLIR's lexer.
// RUN: printf 'func.func @main(%%%%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> tensor<4xf32> {\n  \000return %%%%arg0 : tensor<4xf32>\n}\n\000' > %t.nul
// RUN: not offload-opt %t.nul --host-offload-check 2>&1 | FileCheck %s --check-prefix=NUL
// NUL: nul:1:17: error: E1200
