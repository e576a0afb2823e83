// REQUIRES: jax, flatbuffers
// A serialized jax.export artifact (jax reads it with flatbuffers) gets the diagnostics of the
// generic form of the same program, from a file and from stdin.

// RUN: not offload-opt %S/Inputs/step.generic.mlir --host-offload-check -o /dev/null 2> %t.generic
// RUN: not offload-opt %S/Inputs/step.export --host-offload-check -o /dev/null 2> %t.export
// RUN: diff %t.generic %t.export
// RUN: not offload-opt --host-offload-check -o /dev/null < %S/Inputs/step.export 2> %t.stdin
// RUN: diff %t.generic %t.stdin
// RUN: FileCheck %s < %t.export
// CHECK: program.py:16:12: error: E1200: Tensor which is moved to host (starting from argument 'opt_state')
