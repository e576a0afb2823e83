// RUN: offload-opt %s --host-offload-check=entry=missing -verify-diagnostics

// expected-error @below {{entry function '@missing' (from option entry=missing) is not a func.func in this module}}
module {
  func.func @main() {
    return
  }
}
