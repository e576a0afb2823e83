// offload-opt is MLIR's MlirOptMain. --split-input-file on an input without
// split markers changes nothing but its diagnostic handler: both give the same
// output, diagnostics and exit codes, but for the note on debug info that only
// offload-opt's handler prints after the findings of the whole input
// (debug-info-hint.mlir).

// RUN: offload-opt %s --host-offload-fix=strategy=host -o %t.loop
// RUN: %if split-lines-in-file %{ offload-opt %s --host-offload-fix=strategy=host --split-input-file -o %t.main %}
// RUN: %if split-lines-in-file %{ diff %t.loop %t.main %}
// RUN: FileCheck %s --check-prefix=FIXED < %t.loop
// RUN: cat %s | offload-opt - --host-offload-fix=strategy=host | diff %t.loop -
// RUN: offload-opt %s --pass-pipeline='builtin.module(host-offload-fix{strategy=device})' -o %t.loop.device
// RUN: %if split-lines-in-file %{ offload-opt %s --pass-pipeline='builtin.module(host-offload-fix{strategy=device})' --split-input-file -o %t.main.device %}
// RUN: %if split-lines-in-file %{ diff %t.loop.device %t.main.device %}
// RUN: FileCheck %s --check-prefix=DEVICE < %t.loop.device
// RUN: offload-opt %s --host-offload-fix=strategy=host --emit-bytecode -o %t.loop.mlirbc
// RUN: %if split-lines-in-file %{ offload-opt %s --host-offload-fix=strategy=host --emit-bytecode --split-input-file -o %t.main.mlirbc %}
// RUN: %if split-lines-in-file %{ diff %t.loop.mlirbc %t.main.mlirbc %}

// RUN: sh -c 'offload-opt %s --host-offload-check -o %t.e1200 2> %t.loop.err; echo "exit $?"' | FileCheck %s --check-prefix=EXIT1
// RUN: %if split-lines-in-file %{ sh -c 'offload-opt %s --host-offload-check --split-input-file -o %t.e1200 2> %t.main.err; echo "exit $?"' | FileCheck %s --check-prefix=EXIT1 %}
// RUN: %if split-lines-in-file %{ grep -v 'note: this module has no debug info' %t.loop.err | diff - %t.main.err %}
// RUN: FileCheck %s --check-prefix=E1200 < %t.loop.err
// RUN: sh -c 'offload-opt %s --host-offload-check=entry=absent; echo "exit $?"' | FileCheck %s --check-prefix=EXIT2
// RUN: sh -c 'offload-opt %s --host-offload-check=entry=absent --split-input-file; echo "exit $?"' | FileCheck %s --check-prefix=EXIT2
// RUN: sh -c 'offload-opt %s --emit-bytecode-version=1; echo "exit $?"' | FileCheck %s --check-prefix=EXIT2
// RUN: sh -c 'offload-opt %s --emit-bytecode-version=1 --split-input-file; echo "exit $?"' | FileCheck %s --check-prefix=EXIT2

// RUN: offload-opt %s --host-offload-fix=strategy=host --mlir-timing -o %t.timed 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: offload-opt %s --host-offload-fix=strategy=host --mlir-timing --split-input-file -o %t.timed 2>&1 | FileCheck %s --check-prefix=TIMING

// FIXED: func.func @main({{.*}}{mhlo.memory_kind = "pinned_host"}) -> (tensor<8xf32> {mhlo.memory_kind = "pinned_host"})
// DEVICE: call_target_name = "annotate_device_placement"
// EXIT1: exit 1
// EXIT2: exit 2
// E1200: whole-input.mlir:[[@LINE+11]]:8: error: E1200:
// E1200: whole-input.mlir:[[@LINE+10]]:8: warning: HOW101:
// TIMING: Execution time report
// TIMING: Parser
// TIMING: HostOffloadFixPass
// TIMING: Output
// TIMING: Total

// The result is in device memory but tanh's is in host memory (argument #0
// is): E1200.
func.func @main(%arg0: tensor<8xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<8xf32> {mhlo.memory_kind = "device"}) {
  %0 = "stablehlo.tanh"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
