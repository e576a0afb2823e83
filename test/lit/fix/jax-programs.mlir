// Real JAX lowerings from test/differential/programs (XLA:TPU verdicts in verdicts.json).

// Every program XLA rejects with E1200 passes host-offload-check after either
// fix.
// RUN: offload-opt %S/../../differential/programs/cond_host.mlir --host-offload-fix=strategy=host | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/cond_host.mlir --host-offload-fix=strategy=device | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/host_arg_compute_no_out_shardings.mlir --host-offload-fix=strategy=host | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/host_arg_compute_no_out_shardings.mlir --host-offload-fix=strategy=device | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/host_arg_compute_partial_out_shardings.mlir --host-offload-fix=strategy=host | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/host_arg_compute_partial_out_shardings.mlir --host-offload-fix=strategy=device | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/host_arg_passthrough.mlir --host-offload-fix=strategy=host | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/host_arg_passthrough.mlir --host-offload-fix=strategy=device | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/nested_jit.mlir --host-offload-fix=strategy=host | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/nested_jit.mlir --host-offload-fix=strategy=device | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/nested_jit_shared_callee.mlir --host-offload-fix=strategy=host | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/nested_jit_shared_callee.mlir --host-offload-fix=strategy=device | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/optimization_barrier.mlir --host-offload-fix=strategy=host | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/optimization_barrier.mlir --host-offload-fix=strategy=device | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/pytree_partial_offload.mlir --host-offload-fix=strategy=host | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/pytree_partial_offload.mlir --host-offload-fix=strategy=device | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/slice_then_compute.mlir --host-offload-fix=strategy=host | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/slice_then_compute.mlir --host-offload-fix=strategy=device | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/unpinned_host_from_host_arg.mlir --host-offload-fix=strategy=host | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/unpinned_host_from_host_arg.mlir --host-offload-fix=strategy=device | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/unpinned_host_two_outputs.mlir --host-offload-fix=strategy=host | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/unpinned_host_two_outputs.mlir --host-offload-fix=strategy=device | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/while_host_carry.mlir --host-offload-fix=strategy=host | offload-opt --host-offload-check
// RUN: offload-opt %S/../../differential/programs/while_host_carry.mlir --host-offload-fix=strategy=device | offload-opt --host-offload-check

// The programs without E1200 come out unchanged, including the root special
// case (HOW102) in unpinned_host_single_output.
// RUN: offload-opt %S/../../differential/programs/unpinned_host_single_output.mlir -o %t.unpinned_host_single_output
// RUN: offload-opt %S/../../differential/programs/unpinned_host_single_output.mlir --host-offload-fix=strategy=host | diff %t.unpinned_host_single_output -
// RUN: offload-opt %S/../../differential/programs/unpinned_host_single_output.mlir --host-offload-fix=strategy=device | diff %t.unpinned_host_single_output -
// RUN: offload-opt %S/../../differential/programs/device_put_host_host_out_shardings.mlir -o %t.device_put_host_host_out_shardings
// RUN: offload-opt %S/../../differential/programs/device_put_host_host_out_shardings.mlir --host-offload-fix=strategy=host | diff %t.device_put_host_host_out_shardings -
// RUN: offload-opt %S/../../differential/programs/device_put_host_host_out_shardings.mlir --host-offload-fix=strategy=device | diff %t.device_put_host_host_out_shardings -
// RUN: offload-opt %S/../../differential/programs/scan_offload_ys.mlir -o %t.scan_offload_ys
// RUN: offload-opt %S/../../differential/programs/scan_offload_ys.mlir --host-offload-fix=strategy=host | diff %t.scan_offload_ys -
// RUN: offload-opt %S/../../differential/programs/scan_offload_ys.mlir --host-offload-fix=strategy=device | diff %t.scan_offload_ys -
// RUN: offload-opt %S/../../differential/programs/remat_offload_scan_grad.mlir -o %t.remat_offload_scan_grad
// RUN: offload-opt %S/../../differential/programs/remat_offload_scan_grad.mlir --host-offload-fix=strategy=host | diff %t.remat_offload_scan_grad -
// RUN: offload-opt %S/../../differential/programs/remat_offload_scan_grad.mlir --host-offload-fix=strategy=device | diff %t.remat_offload_scan_grad -
// RUN: offload-opt %S/../../differential/programs/while_host_carry_to_device.mlir -o %t.while_host_carry_to_device
// RUN: offload-opt %S/../../differential/programs/while_host_carry_to_device.mlir --host-offload-fix=strategy=host | diff %t.while_host_carry_to_device -
// RUN: offload-opt %S/../../differential/programs/while_host_carry_to_device.mlir --host-offload-fix=strategy=device | diff %t.while_host_carry_to_device -

// The annotation strategy=device adds is the one JAX emits for
// jax.device_put(x, jax.memory.Space.Device): cond_host_to_device is the same
// program as cond_host with that device_put, and contains this very text.
// RUN: offload-opt %S/../../differential/programs/cond_host.mlir --host-offload-fix=strategy=device --mlir-print-op-generic | FileCheck %s --check-prefix=COND
// RUN: FileCheck %s --check-prefix=JAX < %S/../../differential/programs/cond_host_to_device.mlir
// COND:      }) : (tensor<i32>) -> (tensor<8xf32>, tensor<8xf32>)
// COND-NEXT: %2 = "stablehlo.custom_call"(%1#0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<8xf32>) -> tensor<8xf32>
// COND-NEXT: "func.return"(%2, %1#1)
// JAX:       %3 = "stablehlo.custom_call"(%2) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<8xf32>) -> tensor<8xf32> loc(
// JAX-NEXT:  "func.return"(%3, %1#1)

// Several outputs in one JAX program: outputs 0 ('ema') and 4 ('v') fail with
// E1200; strategy=host declares exactly those two pinned_host.
// RUN: offload-opt %S/../../differential/programs/pytree_partial_offload.mlir --host-offload-fix=strategy=host | FileCheck %s --check-prefix=PYTREE
// PYTREE-LABEL: func.func public @main(
// PYTREE-SAME: -> (tensor<8xf32> {jax.result_info = "result['ema']", mhlo.memory_kind = "pinned_host"},
// PYTREE-SAME: tensor<8xf32> {jax.result_info = "result['g']", mhlo.memory_kind = "device"},
// PYTREE-SAME: tensor<8xf32> {jax.result_info = "result['m']", mhlo.memory_kind = "pinned_host", sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>},
// PYTREE-SAME: tensor<i32> {jax.result_info = "result['step']", mhlo.memory_kind = "device"},
// PYTREE-SAME: tensor<8xf32> {jax.result_info = "result['v']", mhlo.memory_kind = "pinned_host"},
// PYTREE-SAME: tensor<8xf32> {jax.result_info = "result['w']", mhlo.memory_kind = "device"}) {
