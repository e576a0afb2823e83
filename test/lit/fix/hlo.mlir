// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=host | FileCheck %s --check-prefix=HOST
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device | FileCheck %s --check-prefix=DEVICE --match-full-lines
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=host | offload-opt --split-input-file --host-offload-check
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device | offload-opt --split-input-file --host-offload-check
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=host -o %t.host
// RUN: offload-opt %t.host --split-input-file --host-offload-fix=strategy=host | diff %t.host -
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device -o %t.device
// RUN: offload-opt %t.device --split-input-file --host-offload-fix=strategy=device | diff %t.device -

// Modules converted from HLO declare memory kinds only as XLA memory-space
// codes in the module's mhlo.frontend_attributes (5 = pinned_host,
// 6 = unpinned_host, 0 = device) and move with custom calls @MoveToHost and
// @MoveToDevice. Both fixes speak that language: strategy=host sets the
// output's code in out_memory_spaces to 5, strategy=device adds a
// @MoveToDevice spelled like the ones such modules contain.

// Output 0 (space 0) and output 2 (space 6) fail with E1200; output 1 is a
// device value.
// HOST-LABEL: module @several_outputs attributes {mhlo.frontend_attributes = {arg_memory_spaces = "5;0", other = "kept", out_memory_spaces = "5;0;5"}} {
// HOST-NEXT: func.func public @main(%arg0: tensor<2x1xi32>, %arg1: tensor<2x1xi32>) -> (tensor<2x1xi32>, tensor<2x1xi32>, tensor<2x1xi32>) {
// HOST-NEXT: %0 = "stablehlo.custom_call"(%arg1) <{api_version = 1 : i32, backend_config = "", call_target_name = "MoveToHost"}>
// HOST-NEXT: return %arg0, %arg1, %0 :

// DEVICE-LABEL: module @several_outputs attributes {mhlo.frontend_attributes = {arg_memory_spaces = "5;0", other = "kept", out_memory_spaces = "0;0;6"}} {
// DEVICE-NEXT:   func.func public @main(%arg0: tensor<2x1xi32>, %arg1: tensor<2x1xi32>) -> (tensor<2x1xi32>, tensor<2x1xi32>, tensor<2x1xi32>) {
// DEVICE-NEXT:     %0 = "stablehlo.custom_call"(%arg1) <{api_version = 1 : i32, backend_config = "", call_target_name = "MoveToHost"}> : (tensor<2x1xi32>) -> tensor<2x1xi32>
// DEVICE-NEXT:     %1 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "MoveToDevice"}> : (tensor<2x1xi32>) -> tensor<2x1xi32>
// DEVICE-NEXT:     %2 = "stablehlo.custom_call"(%0) <{api_version = 1 : i32, backend_config = "", call_target_name = "MoveToDevice"}> : (tensor<2x1xi32>) -> tensor<2x1xi32>
// DEVICE-NEXT:     return %1, %arg1, %2 : tensor<2x1xi32>, tensor<2x1xi32>, tensor<2x1xi32>
"builtin.module"() <{sym_name = "several_outputs"}> ({
  "func.func"() <{function_type = (tensor<2x1xi32>, tensor<2x1xi32>) -> (tensor<2x1xi32>, tensor<2x1xi32>, tensor<2x1xi32>), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x1xi32> loc("param_0"), %arg1: tensor<2x1xi32> loc("param_1")):
    %0 = "stablehlo.custom_call"(%arg1) <{api_version = 1 : i32, backend_config = "", call_target_name = "MoveToHost"}> : (tensor<2x1xi32>) -> tensor<2x1xi32>
    "func.return"(%arg0, %arg1, %0) : (tensor<2x1xi32>, tensor<2x1xi32>, tensor<2x1xi32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "5;0", other = "kept", out_memory_spaces = "0;0;6"}} : () -> ()

// -----

// XLA: OutputStreamingInScanLoop with the loop result declared device: a
// MoveToHost written into a buffer in a while body.
// HOST-LABEL: module @scan_loop attributes {mhlo.frontend_attributes = {arg_memory_spaces = "0", out_memory_spaces = "5"}} {

// DEVICE-LABEL: module @scan_loop attributes {mhlo.frontend_attributes = {arg_memory_spaces = "0", out_memory_spaces = "0"}} {
// DEVICE:         }) : (tensor<i32>, tensor<4x8xf32>) -> (tensor<i32>, tensor<4x8xf32>)
// DEVICE-NEXT:    %3 = "stablehlo.custom_call"(%2#1) <{api_version = 1 : i32, backend_config = "", call_target_name = "MoveToDevice"}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
// DEVICE-NEXT:    return %3 : tensor<4x8xf32>
"builtin.module"() <{sym_name = "scan_loop"}> ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<4x8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %1 = "stablehlo.constant"() <{value = dense<0.0> : tensor<4x8xf32>}> : () -> tensor<4x8xf32>
    %2:2 = "stablehlo.while"(%0, %1) ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<4x8xf32>):
      %3 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
      %4 = "stablehlo.compare"(%arg1, %3) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%4) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<4x8xf32>):
      %3 = "stablehlo.reshape"(%arg0) : (tensor<8xf32>) -> tensor<1x8xf32>
      %4 = "stablehlo.custom_call"(%3) <{api_version = 1 : i32, backend_config = "", call_target_name = "MoveToHost"}> : (tensor<1x8xf32>) -> tensor<1x8xf32>
      %5 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %6 = "stablehlo.dynamic_update_slice"(%arg2, %4, %arg1, %5) : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<4x8xf32>
      %7 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %8 = "stablehlo.add"(%arg1, %7) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%8, %6) : (tensor<i32>, tensor<4x8xf32>) -> ()
    }) : (tensor<i32>, tensor<4x8xf32>) -> (tensor<i32>, tensor<4x8xf32>)
    "func.return"(%2#1) : (tensor<4x8xf32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "0", out_memory_spaces = "0"}} : () -> ()

// -----

// An output that has mhlo.memory_kind takes its memory kind from there, in
// modules converted from HLO as elsewhere (the analysis reads it first), so it
// is fixed there, JAX-style; out_memory_spaces stays as it is.
// HOST-LABEL: module @memory_kind_first attributes {mhlo.frontend_attributes = {out_memory_spaces = "0"}} {
// HOST-NEXT: func.func public @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) {

// DEVICE-LABEL: module @memory_kind_first attributes {mhlo.frontend_attributes = {out_memory_spaces = "0"}} {
// DEVICE-NEXT:   func.func public @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<4xf32> {mhlo.memory_kind = "device"}) {
// DEVICE-NEXT:     %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<4xf32>) -> tensor<4xf32>
"builtin.module"() <{sym_name = "memory_kind_first"}> ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    "func.return"(%arg0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {out_memory_spaces = "0"}} : () -> ()
