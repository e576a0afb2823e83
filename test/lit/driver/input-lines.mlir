// Diagnostics at lines of the input itself show them as MLIR's handler does
// (offload-opt finds the lines without llvm::SourceMgr's table of line ends,
// SourceLines.h): the same bytes as MlirOptMain's run (which --split-input-file
// takes, on an input without split markers), for the first and the last line,
// a last line without a line feed, a line ended by "\r\n" with a tab, a column
// on the line's end, a column past it, lines past the end, and lines asked for
// after later ones, across the lines found 4096 at a time.

// RUN: rm -rf %t && mkdir -p %t && cp %S/Inputs/input-lines.mlir %t/in.mlir
// RUN: seq -f '// line %%g' 16 5015 >> %t/in.mlir
// RUN: printf '\t// a tab\r\n// the last line' >> %t/in.mlir
// RUN: cd %t && not offload-opt in.mlir --host-offload-check -o /dev/null 2> %t/loop.err
// RUN: cd %t && not offload-opt in.mlir --host-offload-check --split-input-file -o /dev/null 2> %t/main.err
// RUN: diff %t/loop.err %t/main.err
// RUN: FileCheck %s --strict-whitespace < %t/loop.err

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
