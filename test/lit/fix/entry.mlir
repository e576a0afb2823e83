// RUN: offload-opt %s --host-offload-fix='strategy=host entry=named_entry' | FileCheck %s --check-prefix=HOST
// RUN: offload-opt %s --host-offload-fix='strategy=device entry=named_entry' | FileCheck %s --check-prefix=DEVICE
// RUN: not offload-opt %s --host-offload-fix=strategy=host 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// RUN: not offload-opt %s --host-offload-fix='strategy=device entry=missing' 2>&1 | FileCheck %s --check-prefix=MISSING

// entry= chooses the function to fix as for host-offload-check; without it,
// the choice between two public functions is ambiguous, and a name that is
// not in the module is an error. Only the entry function changes.

// HOST-LABEL: func.func public @named_entry(
// HOST-SAME: -> (tensor<4xf32> {mhlo.memory_kind = "pinned_host"})
// HOST-LABEL: func.func public @other(
// HOST-SAME: -> (tensor<4xf32> {mhlo.memory_kind = "device"})

// DEVICE-LABEL: func.func public @named_entry(
// DEVICE-NEXT: %[[MOVED:.*]] = "stablehlo.custom_call"(%arg0) <{{.*}}call_target_name = "annotate_device_placement"{{.*}}_xla_buffer_placement = "device"
// DEVICE-NEXT: return %[[MOVED]] : tensor<4xf32>
// DEVICE-LABEL: func.func public @other(
// DEVICE-NEXT: return %arg0 : tensor<4xf32>

// AMBIGUOUS: entry.mlir:[[@LINE+3]]:1: error: ambiguous entry function: the module has no 'func.func @main' and 2 public functions; choose one with entry=<name>
// MISSING: entry.mlir:[[@LINE+2]]:1: error: entry function '@missing' (from option entry=missing) is not a func.func in this module
// MISSING-NOT: func.func
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "named_entry", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    "func.return"(%arg0) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "other", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    "func.return"(%arg0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
