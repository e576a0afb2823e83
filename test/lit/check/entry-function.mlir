// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics

// expected-error @below {{no entry function: the module has no 'func.func @main' and no public func.func; name the entry computation with entry=<name>}}
module {
  func.func private @helper() {
    return
  }
}

// -----

// expected-error @below {{ambiguous entry function: the module has no 'func.func @main' and 2 public functions; choose one with entry=<name>}}
module {
  // expected-note @below {{candidate '@step'}}
  func.func @step() {
    return
  }
  // expected-note @below {{candidate '@eval'}}
  func.func @eval() {
    return
  }
}

// -----

// expected-error @below {{entry function '@main' is a declaration without a body; there is no program to check}}
func.func private @main()

// -----

// The only public function is the entry even when it is not called main.
module {
  func.func @step() {
    return
  }
  func.func private @helper() {
    return
  }
}
