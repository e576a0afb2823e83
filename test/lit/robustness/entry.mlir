// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics
// RUN: %if split-lines-in-file %{ not offload-opt %s --split-input-file --host-offload-fix=strategy=host 2>&1 | FileCheck %s %}
// RUN: %if split-lines-in-file %{ not offload-opt %s --split-input-file --host-offload-fix=strategy=device 2>&1 | FileCheck %s %}
// RUN: printf '' > %t.empty
// RUN: %if shim %{ not offload-opt %t.empty --host-offload-check 2>&1 | FileCheck %s --check-prefix=EMPTY %}
// RUN: %if shim %{ not offload-opt %t.empty --host-offload-fix=strategy=host 2>&1 | FileCheck %s --check-prefix=EMPTY %}
// RUN: %if shim %{ not offload-opt %t.empty --host-offload-fix=strategy=device 2>&1 | FileCheck %s --check-prefix=EMPTY %}
// RUN: %if shim %{ printf ' \n\t\n' | not offload-opt - --host-offload-check 2>&1 | FileCheck %s --check-prefix=EMPTY %}

// Modules without an entry function, in addition to check/entry-*.mlir: the
// check and both fixes fail with the same located error, and exit code 1.

// An empty file, or one of blanks, holds no module (offload-opt exits with 2).
// EMPTY: error: the input is empty: there is no module to check
// EMPTY-NOT: Stack dump

// CHECK: entry.mlir:[[@LINE+2]]:1: error: no entry function: the module has no 'func.func @main' and no public func.func; name the entry computation with entry=<name>
// expected-error @below {{no entry function: the module has no 'func.func @main' and no public func.func; name the entry computation with entry=<name>}}
module {
}

// -----

// Three public functions and no @main.
// CHECK: entry.mlir:[[@LINE+2]]:1: error: ambiguous entry function: the module has no 'func.func @main' and 3 public functions; choose one with entry=<name>
// expected-error @below {{ambiguous entry function: the module has no 'func.func @main' and 3 public functions; choose one with entry=<name>}}
module {
  // CHECK: entry.mlir:[[@LINE+2]]:3: note: candidate '@a'
  // expected-note @below {{candidate '@a'}}
  func.func @a() {
    return
  }
  // CHECK: entry.mlir:[[@LINE+2]]:3: note: candidate '@b'
  // expected-note @below {{candidate '@b'}}
  func.func @b() {
    return
  }
  // CHECK: entry.mlir:[[@LINE+2]]:3: note: candidate '@c'
  // expected-note @below {{candidate '@c'}}
  func.func @c() {
    return
  }
}

// -----

// A symbol @main that is not a func.func does not count, and neither do
// private functions.
// CHECK: entry.mlir:[[@LINE+2]]:1: error: ambiguous entry function: the module has no 'func.func @main' and 2 public functions
// expected-error @below {{ambiguous entry function: the module has no 'func.func @main' and 2 public functions; choose one with entry=<name>}}
module {
  "stablehlo.symbol"() <{sym_name = "main"}> : () -> ()
  // expected-note @below {{candidate '@a'}}
  func.func @a() {
    return
  }
  // expected-note @below {{candidate '@b'}}
  func.func @b() {
    return
  }
  func.func private @c() {
    return
  }
}
// CHECK-NOT: Stack dump
