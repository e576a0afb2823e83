// RUN: offload-opt --help | FileCheck %s

// CHECK: Available Dialects: builtin, chlo, func, mhlo, sdy, stablehlo
// CHECK: --host-offload-check
// CHECK-NEXT: --allow-h2h-copy
// CHECK-NEXT: --entry=<string>
// CHECK-NEXT: --platform=<string>
// CHECK-NEXT: --strict
// CHECK: --host-offload-fix
// CHECK-NEXT: --entry=<string>
// CHECK-NEXT: --platform=<string>
// CHECK-NEXT: --strategy=<string>
