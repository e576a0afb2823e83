// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics
// RUN: not offload-opt %s --split-input-file --host-offload-check=xla-release=2026-06 -o /dev/null 2>&1 | FileCheck %s --check-prefix=JUNE

// What XLA:TPU fails on after its HostOffloader (docs/semantics.md §17),
// measured on a TPU v5e (test/differential/chip.json). A slice of host memory
// read into device memory off a chunk of the lane dimension halts the core.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  // expected-error@+2 {{HOE105: XLA:TPU reads this slice of host memory into device memory with an asynchronous slice starting at element 2 of the lane dimension (dimension 0 of tensor<8xf32>), which is not a multiple of 128 elements (512 bytes): XLA compiles it, but the TPU core halts when the program runs ("Async slices in the lane dimension must start on chunk boundaries")}}
  // expected-note@+1 {{fix: move the tensor to device memory before slicing it}}
  %0 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 6>, start_indices = array<i64: 2>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
  "func.return"(%0) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// On a chunk: 128 elements of f32, 256 of bf16, 512 of i8; in the sublane
// dimension anywhere. None is reported.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<256xf32>, tensor<1024xbf16>, tensor<2048xi8>, tensor<8x128xf32>) -> (tensor<128xf32>, tensor<512xbf16>, tensor<512xi8>, tensor<4x128xf32>), sym_name = "main"}> ({
^bb0(%arg0: tensor<256xf32>, %arg1: tensor<1024xbf16>, %arg2: tensor<2048xi8>, %arg3: tensor<8x128xf32>):
  %0 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 256>, start_indices = array<i64: 128>, strides = array<i64: 1>}> : (tensor<256xf32>) -> tensor<128xf32>
  %1 = "stablehlo.slice"(%arg1) <{limit_indices = array<i64: 768>, start_indices = array<i64: 256>, strides = array<i64: 1>}> : (tensor<1024xbf16>) -> tensor<512xbf16>
  %2 = "stablehlo.slice"(%arg2) <{limit_indices = array<i64: 1024>, start_indices = array<i64: 512>, strides = array<i64: 1>}> : (tensor<2048xi8>) -> tensor<512xi8>
  %3 = "stablehlo.slice"(%arg3) <{limit_indices = array<i64: 6, 128>, start_indices = array<i64: 2, 0>, strides = array<i64: 1, 1>}> : (tensor<8x128xf32>) -> tensor<4x128xf32>
  "func.return"(%0, %1, %2, %3) : (tensor<128xf32>, tensor<512xbf16>, tensor<512xi8>, tensor<4x128xf32>) -> ()
}) : () -> ()

// -----

// A rank-1 slice of 16-bit elements must also be a whole number of chunks
// long, even at start 0.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<512xbf16>) -> tensor<128xbf16>, sym_name = "main"}> ({
^bb0(%arg0: tensor<512xbf16>):
  // expected-error@+2 {{HOE105: XLA:TPU reads this slice of host memory into device memory with an asynchronous slice 128 elements long in the lane dimension (dimension 0 of tensor<512xbf16>), which is not a multiple of 256 elements (512 bytes): XLA compiles it, but the TPU core halts when the program runs ("The DMA stride is invalid")}}
  // expected-note@+1 {{fix: move the tensor to device memory}}
  %0 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 128>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<512xbf16>) -> tensor<128xbf16>
  "func.return"(%0) : (tensor<128xbf16>) -> ()
}) : () -> ()

// -----

// A slice in two dimensions does not compile.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<3x8xf32>) -> tensor<1x4xf32>, sym_name = "main"}> ({
^bb0(%arg0: tensor<3x8xf32>):
  // expected-error@+2 {{HOE106: XLA:TPU reads this slice of host memory into device memory with an asynchronous slice, which slices dimensions 0, 1 of tensor<3x8xf32>: XLA:TPU cannot compile an asynchronous slice in more than one dimension}}
  // expected-note@+1 {{fix: slice one dimension in host memory}}
  %0 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 3, 6>, start_indices = array<i64: 2, 2>, strides = array<i64: 1, 1>}> : (tensor<3x8xf32>) -> tensor<1x4xf32>
  "func.return"(%0) : (tensor<1x4xf32>) -> ()
}) : () -> ()

// -----

// A dynamic start is known only at run time; a slice computed on is host
// compute, not an asynchronous slice.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<256xf32>, tensor<i32>, tensor<8xf32>) -> (tensor<64xf32>, tensor<4xf32>), res_attrs = [{}, {mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<256xf32>, %arg1: tensor<i32>, %arg2: tensor<8xf32>):
  // expected-warning@+2 {{HOW109: XLA:TPU reads this dynamic slice of host memory into device memory with an asynchronous slice in the lane dimension (dimension 0 of tensor<256xf32>), whose start is known only when the program runs; the TPU core halts then unless its start is a multiple of 128 elements (512 bytes)}}
  // expected-note@+1 {{fix: move the tensor to device memory}}
  %0 = "stablehlo.dynamic_slice"(%arg0, %arg1) <{slice_sizes = array<i64: 64>}> : (tensor<256xf32>, tensor<i32>) -> tensor<64xf32>
  %1 = "stablehlo.slice"(%arg2) <{limit_indices = array<i64: 6>, start_indices = array<i64: 2>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
  // expected-warning@+1 {{HOW101}}
  %2 = "stablehlo.multiply"(%1, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0, %2) : (tensor<64xf32>, tensor<4xf32>) -> ()
}) : () -> ()

// -----

// A gather on the host does not compile.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {}], function_type = (tensor<8xf32>, tensor<3x1xi32>) -> tensor<3xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>, %arg1: tensor<3x1xi32>):
  // expected-error@+3 {{HOE107: this gather computes on host memory, which XLA turns into host compute, but XLA:TPU cannot compile a gather on the host}}
  // expected-note@+2 {{fix: move the tensor to device memory before the gather}}
  // expected-warning@+1 {{HOW101}}
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<8xf32>, tensor<3x1xi32>) -> tensor<3xf32>
  "func.return"(%0) : (tensor<3xf32>) -> ()
}) : () -> ()

// -----

// A pinned_host argument donated to an output in device memory.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host", tf.aliasing_output = 0 : i32}, {mhlo.memory_kind = "pinned_host", tf.aliasing_output = 1 : i32}], function_type = (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), res_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
// expected-error @below {{HOE108: argument #0 is declared "pinned_host" and donated to result 0 of @main (tf.aliasing_output = 0), which is in device memory (mhlo.memory_kind = "device"): XLA:TPU cannot alias the argument's host buffer to it ("FAILED_PRECONDITION: Unimplemented DMA from host to host")}}
// expected-note @below {{fix: declare result 0 "pinned_host" (in JAX: out_shardings=...with_memory_kind("pinned_host")), or do not donate the argument (in JAX: leave it out of donate_argnums)}}
^bb0(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>):
  %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%0, %arg1) : (tensor<8xf32>, tensor<8xf32>) -> ()
}) : () -> ()

// -----

// A sort on host memory aborts libtpu in XLA releases 2026-06 and 2026-07
// only; the newest release compiles it.
// JUNE: error: HOE110: this sort computes on host memory, which XLA turns into host compute; libtpu aborts on it in XLA release 2026-06 (libtpu 0.0.42.1 to 0.0.43.2: "Check failed: !tmp_shape_index.empty() Expected shape index to be non-empty"), and compiles it from XLA release 2026-09 (libtpu 0.0.49)
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  // expected-warning @below {{HOW101}}
  %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = "stablehlo.compare"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }) : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%0) : (tensor<8xf32>) -> ()
}) : () -> ()
