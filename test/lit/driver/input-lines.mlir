// Diagnostics at lines of the input itself show them as MLIR's handler does:
// the same bytes as MlirOptMain's run (which --split-input-file takes, on an
// input without split markers), for the first and the last line, a last line
// without a line feed, a line ended by "\r\n" with a tab, a column on the
// line's end, a column past it, lines past the end and lines asked for after
// later ones. Once on a small input, once on one of over 1 MiB with a line of
// its own wider than any shown whole. The note on debug info that only the
// loop prints after the findings is left out of the comparison
// (debug-info-hint.mlir).

// RUN: rm -rf %t && mkdir -p %t/small %t/large
// RUN: cp %S/Inputs/input-lines.mlir %t/small/in.mlir
// RUN: seq -f '// line %%g' 18 5015 >> %t/small/in.mlir
// RUN: printf '\t// a tab\r\n// the last line' >> %t/small/in.mlir
// RUN: cd %t/small && not offload-opt in.mlir --host-offload-check -o /dev/null 2> %t/small/loop.err
// RUN: cd %t/small && not offload-opt in.mlir --host-offload-check --split-input-file -o /dev/null 2> %t/small/main.err
// RUN: grep -v 'note: this module has no debug info' %t/small/loop.err | diff - %t/small/main.err
// RUN: FileCheck %s --strict-whitespace < %t/small/loop.err

// RUN: cp %S/Inputs/input-lines.mlir %t/large/in.mlir
// RUN: python3 -c "print('// line 18 ' + 'x' * (1 << 20))" >> %t/large/in.mlir
// RUN: seq -f '// line %%0150g' 19 5015 >> %t/large/in.mlir
// RUN: printf '\t// a tab\r\n// the last line' >> %t/large/in.mlir
// RUN: cd %t/large && not offload-opt in.mlir --host-offload-check -o /dev/null 2> %t/large/loop.err
// RUN: cd %t/large && not offload-opt in.mlir --host-offload-check --split-input-file -o /dev/null 2> %t/large/main.err
// RUN: grep -v 'note: this module has no debug info' %t/large/loop.err | diff - %t/large/main.err
// RUN: FileCheck %s --check-prefix=LARGE --strict-whitespace < %t/large/loop.err

// CHECK-LABEL: in.mlir:5017:4: error: E1200: {{.*}} output 0 has
// CHECK-NEXT: {{^// the last line$}}
// CHECK-NEXT: {{^   \^$}}
// CHECK-LABEL: in.mlir:5016:3: error: E1200: {{.*}} output 1 has
// CHECK-NEXT: {{^        // a tab$}}
// CHECK-NEXT: {{^         \^$}}
// CHECK-LABEL: in.mlir:2:1: error: E1200: {{.*}} output 2 has
// CHECK-NEXT: {{^func.func @main\($}}
// CHECK-LABEL: in.mlir:4097:2: error: E1200: {{.*}} output 3 has
// CHECK-NEXT: {{^// line 4097$}}
// CHECK-LABEL: in.mlir:4096:1: error: E1200: {{.*}} output 4 has
// CHECK-NEXT: {{^// line 4096$}}
// CHECK-LABEL: in.mlir:3:500: error: E1200: {{.*}} output 5 has
// CHECK-NEXT: note:
// CHECK-LABEL: in.mlir:99999:1: error: E1200: {{.*}} output 6 has
// CHECK-NEXT: note:
// CHECK-LABEL: in.mlir:5018:1: error: E1200: {{.*}} output 7 has
// CHECK-NEXT: note:
// CHECK-LABEL: in.mlir:5016:10: error: E1200: {{.*}} output 8 has
// CHECK-NEXT: {{^        // a tab$}}
// CHECK-NEXT: {{^                \^$}}
// CHECK-LABEL: in.mlir:20:11: error: E1200: {{.*}} output 9 has
// CHECK-NEXT: {{^// line 20$}}
// CHECK-NEXT: {{^          \^$}}
// CHECK-LABEL: in.mlir:5017:4: error: E1200: {{.*}} output 10 has
// CHECK-NEXT: {{^// the last line$}}
// CHECK-LABEL: in.mlir:33:1: error: E1200: {{.*}} output 11 has
// CHECK-NEXT: {{^// line 33$}}
// CHECK-NEXT: {{^\^$}}
// CHECK-LABEL: in.mlir:48:9: error: E1200: {{.*}} output 12 has
// CHECK-NEXT: {{^// line 48$}}
// CHECK-NEXT: {{^        \^$}}

// LARGE-LABEL: in.mlir:5017:4: error: E1200: {{.*}} output 0 has
// LARGE-NEXT: {{^// the last line$}}
// LARGE-LABEL: in.mlir:4097:2: error: E1200: {{.*}} output 3 has
// LARGE-NEXT: {{^// line 0+4097$}}
// LARGE-LABEL: in.mlir:4096:1: error: E1200: {{.*}} output 4 has
// LARGE-NEXT: {{^// line 0+4096$}}
// LARGE-LABEL: in.mlir:33:1: error: E1200: {{.*}} output 11 has
// LARGE-NEXT: {{^// line 0+33$}}
// LARGE-LABEL: in.mlir:48:9: error: E1200: {{.*}} output 12 has
// LARGE-NEXT: {{^// line 0+48$}}
