// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device | FileCheck %s

// get_tuple_element reads its index whatever the integer type (StableHLO is
// not registered, so nothing checks it is an i32): signed, unsigned, i128.
// An index that selects no element of the tuple (out of range, negative,
// missing, not an integer, more than 64 bits) carries nothing; a whole tuple
// in host memory gives every element.

// CHECK-LABEL: func.func @main
// CHECK-COUNT-3: _xla_buffer_placement = "device"
// CHECK-NOT: _xla_buffer_placement = "device"
// CHECK: return
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = "stablehlo.tuple"(%arg1, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.tuple -> stablehlo.get_tuple_element -> output 0}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %0 = "stablehlo.get_tuple_element"(%t) <{index = 1 : ui32}> : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 1 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.tuple -> stablehlo.get_tuple_element -> output 1}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %1 = "stablehlo.get_tuple_element"(%t) <{index = 1 : si32}> : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 2 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.tuple -> stablehlo.get_tuple_element -> output 2}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %2 = "stablehlo.get_tuple_element"(%t) <{index = 1 : i128}> : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @main
// CHECK-NOT: _xla_buffer_placement = "device"
// CHECK: return
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = "stablehlo.tuple"(%arg1, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  // The element in device memory.
  %0 = "stablehlo.get_tuple_element"(%t) <{index = 0 : i32}> : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  // Out of range, negative.
  %1 = "stablehlo.get_tuple_element"(%t) <{index = 2 : i32}> : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  %2 = "stablehlo.get_tuple_element"(%t) <{index = -1 : i32}> : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  %3 = "stablehlo.get_tuple_element"(%t) <{index = -9223372036854775808 : i64}> : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  // More than 64 bits.
  %4 = "stablehlo.get_tuple_element"(%t) <{index = 18446744073709551617 : i128}> : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  %5 = "stablehlo.get_tuple_element"(%t) <{index = 18446744073709551615 : ui64}> : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  // Missing, or not an integer.
  %6 = "stablehlo.get_tuple_element"(%t) : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  %7 = "stablehlo.get_tuple_element"(%t) <{index = "1"}> : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  %8 = "stablehlo.get_tuple_element"(%t) <{index = 1.0 : f32}> : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  %9 = "stablehlo.get_tuple_element"(%t) <{index = [1]}> : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A tuple in host memory as a whole gives every element, even through an
// index that is out of range.
// CHECK-LABEL: func.func @main
// CHECK-COUNT-2: _xla_buffer_placement = "device"
// CHECK: return
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
func.func @main(%arg0: tuple<tensor<4xf32>> {mhlo.memory_kind = "pinned_host"}) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.get_tuple_element -> output 0}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %0 = "stablehlo.get_tuple_element"(%arg0) <{index = 0 : ui8}> : (tuple<tensor<4xf32>>) -> tensor<4xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 1 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.get_tuple_element -> output 1}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %1 = "stablehlo.get_tuple_element"(%arg0) <{index = 5 : i32}> : (tuple<tensor<4xf32>>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// get_tuple_element on a value that is no tuple, and a tuple op whose result
// is no tuple: the index path is followed as written.
// CHECK-LABEL: func.func @main
// CHECK: _xla_buffer_placement = "device"
// CHECK: return
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> tensor<4xf32> {
  %t = "stablehlo.tuple"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.tuple -> stablehlo.get_tuple_element -> output 0}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %0 = "stablehlo.get_tuple_element"(%t) <{index = 0 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
