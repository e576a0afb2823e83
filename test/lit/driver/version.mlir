// RUN: offload-opt --version | FileCheck %s

// CHECK: offload-opt (hostoffload) {{[0-9]+\.[0-9]+\.[0-9]+}}
// CHECK-NEXT: MLIR 22.1.8
