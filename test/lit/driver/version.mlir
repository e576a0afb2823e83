// RUN: offload-opt --version | FileCheck %s

// CHECK: offload-opt (hostoffload) {{[0-9]+\.[0-9]+\.[0-9]+}}
// CHECK-NEXT: MLIR {{2[12]\.[0-9]+\.[0-9]+}}
