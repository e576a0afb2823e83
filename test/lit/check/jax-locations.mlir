// RUN: not offload-opt %S/../../../examples/offloaded_state.mlir --host-offload-check -o /dev/null 2>&1 | FileCheck %s
// RUN: cd %S/../../.. && not offload-opt examples/offloaded_state.mlir --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=CARET --strict-whitespace

// JAX counts a Python frame's columns from 0; the diagnostics count from 1, so
// the caret under the source line (found from the repository root, as the
// locations are relative to it) is at the expression.
// CARET: examples/offloaded_state.py:19:12: error: E1200:
// CARET-NEXT: {{^}}    return params - new_state, new_state{{$}}
// CARET-NEXT: {{^}}           ^{{$}}

// Diagnostics on a real JAX lowering point at the innermost Python frame, with
// the call stack, and name arguments and outputs as JAX does.

// CHECK: examples/offloaded_state.py:19:12: error: E1200: Tensor which is moved to host (starting from argument 'opt_state') is returned from the entry computation but the layout for this output is not set to host memory; output 0 ("result[0]") is declared mhlo.memory_kind = "device"
// CHECK: examples/offloaded_state.py:30:15: note: called from
// CHECK: examples/offloaded_state.py:18:17: note: in host memory from the start: argument 'opt_state' is declared mhlo.memory_kind = "pinned_host"
// CHECK: examples/offloaded_state.py:19:12: note: path: argument 'opt_state' -> stablehlo.multiply -> stablehlo.add -> stablehlo.subtract -> output 0
// CHECK: note: fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 0 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for "result[0]"
// CHECK: note: fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 0 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on "result[0]" before returning it
// CHECK: examples/offloaded_state.py:18:17: error: E1200: {{.*}}; output 1 ("result[1]") is declared mhlo.memory_kind = "device"
// CHECK: examples/offloaded_state.py:18:17: note: path: argument 'opt_state' -> stablehlo.multiply -> stablehlo.add -> output 1
// CHECK: examples/offloaded_state.py:18:17: warning: HOW101: 'stablehlo.multiply' computes on a tensor in host memory (moved to host starting from argument 'opt_state')
// CHECK-NOT: error:
