// RUN: offload-opt %s --host-offload-fix=strategy=host | FileCheck %s --check-prefix=HOST
// RUN: offload-opt %s --host-offload-fix=strategy=device | FileCheck %s --check-prefix=DEVICE
// RUN: offload-opt %s --host-offload-fix=strategy=host | not offload-opt --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: offload-opt %s --host-offload-fix=strategy=device | not offload-opt --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER

// A slice returned as it is and also computed on stays in host memory (XLA
// runs it as host compute), so both outputs are fixed, while the slice read
// into device memory through a reshape (output 2) is left alone. Fixed, the
// module has no E1200; its slice at element 4 of a tensor<8xf32> read into
// device memory still halts a TPU core (HOE105), which neither fix changes.

// AFTER-NOT: E1200
// AFTER: error: HOE105: XLA:TPU reads this slice of host memory into device memory with an asynchronous slice starting at element 4
// AFTER-NOT: E1200

// HOST-LABEL: func.func @main(
// HOST-SAME: -> (tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<2x2xf32> {mhlo.memory_kind = "device"})
// HOST-NEXT: %0 = "stablehlo.slice"(%arg0)
// HOST-NEXT: %1 = "stablehlo.multiply"(%0, %0)
// HOST-NEXT: %2 = "stablehlo.slice"(%arg0)
// HOST-NEXT: %3 = "stablehlo.reshape"(%2)
// HOST-NEXT: return %0, %1, %3 :

// DEVICE-LABEL: func.func @main(
// DEVICE-SAME: -> (tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32> {mhlo.memory_kind = "device"})
// DEVICE: %3 = "stablehlo.reshape"(%2)
// DEVICE-NEXT: %4 = "stablehlo.custom_call"(%0) <{{.*}}call_target_name = "annotate_device_placement"{{.*}}_xla_buffer_placement = "device"
// DEVICE-NEXT: %5 = "stablehlo.custom_call"(%1) <{{.*}}call_target_name = "annotate_device_placement"{{.*}}_xla_buffer_placement = "device"
// DEVICE-NEXT: return %4, %5, %3 :
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>), res_attrs = [{}, {}, {mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  %0 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
  %1 = "stablehlo.multiply"(%0, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 8>, start_indices = array<i64: 4>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
  %3 = "stablehlo.reshape"(%2) : (tensor<4xf32>) -> tensor<2x2xf32>
  "func.return"(%0, %1, %3) : (tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>) -> ()
}) : () -> ()
