// RUN: not offload-opt %s --host-offload-check 2>&1 | FileCheck %s

// A module that does not parse gets MLIR's located error and exit code 1.
// CHECK: parse-error.mlir:[[@LINE+2]]:23: error: expected non-function type
// CHECK-NOT: Stack dump
func.func @main(%arg0: ) {
  return
}
