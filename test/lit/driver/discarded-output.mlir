// Where the output is the null device (-o /dev/null, or standard output sent
// there), offload-opt does not print the module as text: the timing report
// then has no "Output". Diagnostics and exit codes are those of a run that
// prints it; bytecode is still written, and its errors still reported. Not
// printing is a fast path: on the plain path the module is printed.

// REQUIRES: fast-paths

// RUN: offload-opt %s --host-offload-check --mlir-timing -o /dev/null 2> %t.discarded.err
// RUN: FileCheck %s --check-prefix=DISCARDED < %t.discarded.err
// RUN: sh -c 'offload-opt %s --host-offload-check --mlir-timing > /dev/null 2> %t.stdout.err'
// RUN: FileCheck %s --check-prefix=DISCARDED < %t.stdout.err
// RUN: offload-opt %s --host-offload-check --mlir-timing -o %t.printed 2> %t.printed.err
// RUN: FileCheck %s --check-prefix=PRINTED < %t.printed.err
// RUN: FileCheck %s --check-prefix=MODULE < %t.printed
// RUN: offload-opt %s --host-offload-check 2>&1 -o /dev/null | FileCheck %s --check-prefix=WARNING
// RUN: sh -c 'offload-opt %s --host-offload-check 2>&1 > /dev/null' | FileCheck %s --check-prefix=WARNING
// RUN: offload-opt %s --host-offload-check --emit-bytecode --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINTED
// RUN: sh -c 'offload-opt %s --emit-bytecode-version=1 -o /dev/null; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=VERSION

// DISCARDED: warning: HOW101:
// DISCARDED: Parser
// DISCARDED: HostOffloadCheckPass
// DISCARDED-NOT: Output
// DISCARDED: Total
// PRINTED: Parser
// PRINTED: HostOffloadCheckPass
// PRINTED: Output
// PRINTED: Total
// MODULE: "stablehlo.tanh"
// WARNING: discarded-output.mlir:[[@LINE+8]]:8: warning: HOW101:
// WARNING-NOT: error
// VERSION: error: bytecode version while not emitting bytecode
// VERSION: exit 2

// The result is declared in host memory, where tanh's result is: no E1200,
// and tanh runs as host compute (HOW101).
func.func @main(%arg0: tensor<8xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<8xf32> {mhlo.memory_kind = "pinned_host"}) {
  %0 = "stablehlo.tanh"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
