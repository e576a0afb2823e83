// REQUIRES: jax
// Every form of one JAX program (Inputs/program.py, written by Inputs/generate.py) gets the
// diagnostics of its generic form from offload-opt, which converts it through jaxlib.

// RUN: not offload-opt %S/Inputs/step.generic.mlir --host-offload-check -o /dev/null 2> %t.generic
// RUN: FileCheck %s --check-prefix=GENERIC < %t.generic

// Forms that keep the debug info: the same diagnostics, byte for byte.
// RUN: not offload-opt %S/Inputs/step.pretty-debug.mlir --host-offload-check -o /dev/null 2> %t.pretty-debug
// RUN: diff %t.generic %t.pretty-debug
// RUN: not offload-opt %S/Inputs/step.mlirbc --host-offload-check -o /dev/null 2> %t.bytecode
// RUN: diff %t.generic %t.bytecode
// From stdin, and with the input after the other arguments.
// RUN: not offload-opt --host-offload-check -o /dev/null - < %S/Inputs/step.mlirbc 2> %t.stdin
// RUN: diff %t.generic %t.stdin

// GENERIC: program.py:16:12: error: E1200: Tensor which is moved to host (starting from argument 'opt_state') is returned from the entry computation but the layout for this output is not set to host memory; output 0 ("result[0]") is declared mhlo.memory_kind = "device"
// GENERIC: program.py:14:17: note: in host memory from the start: argument 'opt_state' is declared mhlo.memory_kind = "pinned_host"
// GENERIC: program.py:16:12: note: path: argument 'opt_state' -> stablehlo.multiply -> stablehlo.add -> stablehlo.subtract -> output 0
// GENERIC: program.py:14:17: error: E1200: Tensor which is moved to host (starting from argument 'opt_state') is returned from the entry computation but the layout for this output is not set to host memory; output 1 ("result[1]") is declared mhlo.memory_kind = "device"
// GENERIC-NOT: output 2
// GENERIC: program.py:14:17: warning: HOW101: 'stablehlo.multiply' computes on a tensor in host memory

// Pretty text without debug info (lowered.as_text()): locations are its own lines.
// RUN: not offload-opt %S/Inputs/step.pretty.mlir --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRETTY
// PRETTY: step.pretty.mlir:12:10: error: E1200: Tensor which is moved to host (starting from argument #1) {{.*}} output 0 ("result[0]") is declared mhlo.memory_kind = "device"
// PRETTY: step.pretty.mlir:3:130: note: in host memory from the start: argument #1 is declared mhlo.memory_kind = "pinned_host"
// PRETTY: step.pretty.mlir:7:10: error: E1200: {{.*}} output 1 ("result[1]")
// PRETTY-NOT: output 2

// XLA's dump (XLA_FLAGS=--xla_dump_to): the memory spaces of the entry layout (S(5)) are read,
// and the locations are JAX's Python lines, kept in the HLO's stack frames.
// RUN: not offload-opt %S/Inputs/step.before_optimizations.txt --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// DUMP: program.py:16:12: error: E1200: Tensor which is moved to host (starting from argument 'opt_state', XLA: 'opt_state.1') is returned from the entry computation but the layout for this output is not set to host memory; output 0 is declared memory space 0 ("device") in out_memory_spaces of the module
// DUMP: program.py:14:17: note: in host memory from the start: argument 'opt_state' is declared memory space 5 ("pinned_host") in arg_memory_spaces of the module
// DUMP: program.py:14:17: error: E1200: {{.*}} output 1 is declared memory space 0 ("device") in out_memory_spaces of the module
// DUMP-NOT: output 2

// lowered.as_text(dialect="hlo") holds no memory kinds (JAX hands them to XLA apart from the
// HLO): the move to host inside jit is found, at the line of the HLO file that holds it,
// and the output JAX declared pinned_host is in device memory as far as this text says.
// RUN: not offload-opt %S/Inputs/step.hlo.txt --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=HLO
// HLO: step.hlo.txt:14:0: error: E1200: Tensor which is moved to host (starting from 'annotate_device_placement' to pinned_host, XLA: 'tuple.1') {{.*}} output 2 has no mhlo.memory_kind, so it is in device memory
// HLO: step.hlo.txt:14:0: note: moved to host here

// Both fixes work on converted input, and their output checks clean.
// RUN: offload-opt %S/Inputs/step.before_optimizations.txt --host-offload-fix=strategy=host --mlir-print-op-generic | offload-opt - --host-offload-check -o /dev/null
// RUN: offload-opt %S/Inputs/step.mlirbc --host-offload-fix=strategy=device --mlir-print-op-generic | offload-opt - --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=FIXED
// FIXED-NOT: error
