// RUN: offload-opt %s --host-offload-check=entry=step | FileCheck %s

// Naming the entry resolves the choice between several public functions.
// CHECK-LABEL: func.func @step
// CHECK-LABEL: func.func @eval
module {
  func.func @step() {
    return
  }
  func.func @eval() {
    return
  }
}
