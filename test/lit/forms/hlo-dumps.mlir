// REQUIRES: jax
// XLA:TPU's own HLO dumps (test/differential/hlo, recorded by
// tools/differential/catalogue_hlo.py with XLA's verdicts) through offload-opt.

// A host call (async-start on execution_thread="host") on an S(5) argument,
// its result returned to a device output: XLA compiles it.
// RUN: offload-opt %S/../../differential/hlo/compute_on_host_arg.host_offloader.hlo.txt --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOST-CALL --allow-empty
// HOST-CALL-NOT: E1200
// HOST-CALL-NOT: HOW101

// A host call whose result is returned to an S(5) output: XLA keeps it there.
// RUN: offload-opt %S/../../differential/hlo/compute_on_device_host_to_host.host_offloader.hlo.txt --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOST-OUT --allow-empty
// HOST-OUT-NOT: E1200

// A move to host multiplied and returned to a device output. XLA: "Tensor which is
// moved to host (starting from mul.1) is returned from the entry computation ...".
// RUN: not offload-opt %S/../../differential/hlo/device_put_host_then_compute__out0_device.host_offloader.hlo.txt --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=MOVED
// MOVED: error: E1200: Tensor which is moved to host (starting from 'MoveToHost', XLA: 'mul.1') is returned from the entry computation but the layout for this output is not set to host memory; output 0 is declared memory space 0 ("device") in out_memory_spaces of the module
// MOVED: warning: HOW101: 'stablehlo.multiply' computes on a tensor in host memory

// The dump XLA starts from, of a while loop streaming into an S(5) buffer. XLA: "...
// (starting from buf.1) ...".
// RUN: not offload-opt %S/../../differential/hlo/fori_stream_into_host_buffer.before_optimizations.hlo.txt --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOP
// LOOP: error: E1200: Tensor which is moved to host (starting from argument 'buf', XLA: 'buf.1')
// LOOP-SAME: output 0

// An S(5) parameter returned as it is to a device output. The importer locates an
// argument at its name alone and the return nowhere; the error points at the
// parameter's line of the dump.
// RUN: not offload-opt %S/../../differential/hlo/host_arg_passthrough.before_optimizations.hlo.txt --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARAMETER
// PARAMETER: host_arg_passthrough.before_optimizations.hlo.txt:4:0: error: E1200: Tensor which is moved to host (starting from argument 'x', XLA: 'x.1')
// PARAMETER: host_arg_passthrough.before_optimizations.hlo.txt:4:0: note: in host memory from the start: argument 'x' is declared memory space 5
