// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device | FileCheck %s --match-full-lines
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device | offload-opt --split-input-file --host-offload-check
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device -o %t.once
// RUN: offload-opt %t.once --split-input-file --host-offload-fix=strategy=device -o %t.twice
// RUN: diff %t.once %t.twice
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=host -verify-diagnostics

// Tuple-typed outputs. strategy=device moves exactly the tuple elements in
// host memory back to device memory (a move of a whole tuple is not what XLA
// traces): a tuple made for the output alone gets the move on its operand;
// any other tuple is taken apart with get_tuple_element and rebuilt.
// strategy=host cannot fix them: XLA does not implement a memory kind on a
// tuple-typed output, so the pass fails with a located error and changes
// nothing.

// CHECK-LABEL: func.func @tuple_made_for_the_output({{.*}}
// CHECK-NEXT:    %0 = "stablehlo.custom_call"(%arg1) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %1 = "stablehlo.tuple"(%arg0, %0) : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
// CHECK-NEXT:    return %1 : tuple<tensor<4xf32>, tensor<4xf32>>
"func.func"() <{arg_attrs = [{}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>, sym_name = "tuple_made_for_the_output"}> ({
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
  // expected-error @below {{host-offload-fix: strategy=host cannot fix output 0: it is tuple-typed, and XLA does not implement a memory kind on a tuple-typed output; use strategy=device, which moves the tuple elements in host memory back to device memory}}
  %0 = "stablehlo.tuple"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  "func.return"(%0) : (tuple<tensor<4xf32>, tensor<4xf32>>) -> ()
}) : () -> ()

// -----

// Two host elements, one of them a nested tuple in host memory as a whole
// (every element under it is moved); the device element in between and the
// tuple used elsewhere stay as they are.
// CHECK-LABEL: func.func @rebuilt_tuple({{.*}}
// CHECK-NEXT:    %0 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<4xf32>}> : () -> tensor<4xf32>
// CHECK-NEXT:    %1 = "stablehlo.tuple"(%arg0, %0, %arg1) : (tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>) -> tuple<tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>>
// CHECK-NEXT:    %2 = "stablehlo.get_tuple_element"(%1) <{index = 0 : i32}> : (tuple<tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>>) -> tensor<4xf32>
// CHECK-NEXT:    %3 = "stablehlo.get_tuple_element"(%1) <{index = 1 : i32}> : (tuple<tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>>) -> tensor<4xf32>
// CHECK-NEXT:    %4 = "stablehlo.get_tuple_element"(%1) <{index = 2 : i32}> : (tuple<tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>>) -> tuple<tensor<2xf32>, tensor<3xf32>>
// CHECK-NEXT:    %5 = "stablehlo.custom_call"(%2) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %6 = "stablehlo.get_tuple_element"(%4) <{index = 0 : i32}> : (tuple<tensor<2xf32>, tensor<3xf32>>) -> tensor<2xf32>
// CHECK-NEXT:    %7 = "stablehlo.get_tuple_element"(%4) <{index = 1 : i32}> : (tuple<tensor<2xf32>, tensor<3xf32>>) -> tensor<3xf32>
// CHECK-NEXT:    %8 = "stablehlo.custom_call"(%6) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %9 = "stablehlo.custom_call"(%7) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %10 = "stablehlo.tuple"(%8, %9) : (tensor<2xf32>, tensor<3xf32>) -> tuple<tensor<2xf32>, tensor<3xf32>>
// CHECK-NEXT:    %11 = "stablehlo.tuple"(%5, %3, %10) : (tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>) -> tuple<tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>>
// CHECK-NEXT:    return %11, %1 : tuple<tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>>, tuple<tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>>
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>) -> (tuple<tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>>, tuple<tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>>), res_attrs = [{}, {mhlo.memory_kind = "pinned_host"}], sym_name = "rebuilt_tuple"}> ({
^bb0(%arg0: tensor<4xf32>, %arg1: tuple<tensor<2xf32>, tensor<3xf32>>):
  %0 = "stablehlo.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  // expected-error @below {{host-offload-fix: strategy=host cannot fix output 0: it is tuple-typed}}
  %1 = "stablehlo.tuple"(%arg0, %0, %arg1) : (tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>) -> tuple<tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>>
  "func.return"(%1, %1) : (tuple<tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>>, tuple<tensor<4xf32>, tensor<4xf32>, tuple<tensor<2xf32>, tensor<3xf32>>>) -> ()
}) : () -> ()

// -----

// A tuple that comes out of a while loop with a host element in it; the plain
// output next to it is fixed in the same run. With strategy=host, the error
// on the tuple leaves the plain output unfixed too.
// CHECK-LABEL: func.func @tuple_through_loop({{.*}}
// CHECK:         }) : (tuple<tensor<i32>, tensor<4xf32>>) -> tuple<tensor<i32>, tensor<4xf32>>
// CHECK-NEXT:    %2 = "stablehlo.custom_call"(%0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %3 = "stablehlo.get_tuple_element"(%1) <{index = 0 : i32}> : (tuple<tensor<i32>, tensor<4xf32>>) -> tensor<i32>
// CHECK-NEXT:    %4 = "stablehlo.get_tuple_element"(%1) <{index = 1 : i32}> : (tuple<tensor<i32>, tensor<4xf32>>) -> tensor<4xf32>
// CHECK-NEXT:    %5 = "stablehlo.custom_call"(%4) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %6 = "stablehlo.tuple"(%3, %5) : (tensor<i32>, tensor<4xf32>) -> tuple<tensor<i32>, tensor<4xf32>>
// CHECK-NEXT:    return %2, %6 : tensor<4xf32>, tuple<tensor<i32>, tensor<4xf32>>
"func.func"() <{function_type = (tensor<4xf32>, tuple<tensor<i32>, tensor<4xf32>>) -> (tensor<4xf32>, tuple<tensor<i32>, tensor<4xf32>>), sym_name = "tuple_through_loop"}> ({
^bb0(%arg0: tensor<4xf32>, %arg1: tuple<tensor<i32>, tensor<4xf32>>):
  %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @below {{host-offload-fix: strategy=host cannot fix output 1: it is tuple-typed}}
  %1 = "stablehlo.while"(%arg1) ({
  ^bb0(%arg2: tuple<tensor<i32>, tensor<4xf32>>):
    %2 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "stablehlo.return"(%2) : (tensor<i1>) -> ()
  }, {
  ^bb0(%arg2: tuple<tensor<i32>, tensor<4xf32>>):
    %2 = "stablehlo.get_tuple_element"(%arg2) <{index = 0 : i32}> : (tuple<tensor<i32>, tensor<4xf32>>) -> tensor<i32>
    %3 = "stablehlo.tuple"(%2, %0) : (tensor<i32>, tensor<4xf32>) -> tuple<tensor<i32>, tensor<4xf32>>
    "stablehlo.return"(%3) : (tuple<tensor<i32>, tensor<4xf32>>) -> ()
  }) : (tuple<tensor<i32>, tensor<4xf32>>) -> tuple<tensor<i32>, tensor<4xf32>>
  "func.return"(%0, %1) : (tensor<4xf32>, tuple<tensor<i32>, tensor<4xf32>>) -> ()
}) : () -> ()

// -----

// StableHLO is not verified here, so an op can claim to be a tuple with a type
// that does not match its operands. The elements the analysis names cannot be
// found in the type then, and every element (or the whole value) is moved.
// CHECK-LABEL: func.func @unverified_tuples({{.*}}
// CHECK-NEXT:    %0 = "stablehlo.tuple"(%arg0, %arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>>
// CHECK-NEXT:    %1 = "stablehlo.tuple"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %2 = "stablehlo.optimization_barrier"(%0) : (tuple<tensor<4xf32>>) -> tuple<tensor<4xf32>>
// CHECK-NEXT:    %3 = "stablehlo.get_tuple_element"(%2) <{index = 0 : i32}> : (tuple<tensor<4xf32>>) -> tensor<4xf32>
// CHECK-NEXT:    %4 = "stablehlo.custom_call"(%3) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %5 = "stablehlo.tuple"(%4) : (tensor<4xf32>) -> tuple<tensor<4xf32>>
// CHECK-NEXT:    %6 = "stablehlo.custom_call"(%1) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    return %5, %6 : tuple<tensor<4xf32>>, tensor<4xf32>
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>) -> (tuple<tensor<4xf32>>, tensor<4xf32>), sym_name = "unverified_tuples"}> ({
^bb0(%arg0: tensor<4xf32>):
  %0 = "stablehlo.tuple"(%arg0, %arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>>
  %1 = "stablehlo.tuple"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // expected-error @below {{host-offload-fix: strategy=host cannot fix output 0: it is tuple-typed}}
  %2 = "stablehlo.optimization_barrier"(%0) : (tuple<tensor<4xf32>>) -> tuple<tensor<4xf32>>
  "func.return"(%2, %1) : (tuple<tensor<4xf32>>, tensor<4xf32>) -> ()
}) : () -> ()
