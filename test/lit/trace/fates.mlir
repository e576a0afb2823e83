// RUN: not offload-opt %s --split-input-file --host-offload-check=trace=true -o /dev/null 2>&1 | FileCheck %s
// RUN: not offload-opt %s --split-input-file --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAIN

// Without the option, no remark.
// PLAIN-NOT: remark

// A tensor moved to host and back: one fate, moved to device, with its bytes;
// the totals count them once each way.
// CHECK-LABEL: a.py:1:1: remark: start #0, 'annotate_device_placement' to pinned_host: tensor<8x4xf32> (128 bytes) in host memory
// CHECK-NEXT: a.py:2:1: note: moved back to device by stablehlo.custom_call @annotate_device_placement: tensor<8x4xf32> (128 bytes)
// CHECK-NEXT: remark: @main: 1 starts per step: 128 bytes to host, 128 bytes back to device, 0 ops computed on the host, 0 outputs with E1200, 0 unused starts
"func.func"() <{function_type = (tensor<8x4xf32>) -> tensor<8x4xf32>, sym_name = "main"}> ({
^bb0(%x: tensor<8x4xf32>):
  %h = "stablehlo.custom_call"(%x) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8x4xf32>) -> tensor<8x4xf32> loc("a.py":1:1)
  %d = "stablehlo.custom_call"(%h) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<8x4xf32>) -> tensor<8x4xf32> loc("a.py":2:1)
  "func.return"(%d) : (tensor<8x4xf32>) -> () loc("a.py":3:1)
}) : () -> ()

// -----

// A pinned_host argument computed on, then returned twice: in host memory as
// output 1, with E1200 as output 0. A bf16 element is two bytes.
// CHECK-LABEL: remark: start #0, argument #0: tensor<2x3xbf16> (12 bytes) in host memory
// CHECK: b.py:1:1: note: computed on the host by stablehlo.negate
// CHECK-NEXT: b.py:2:1: note: returned as output 0, which is not in host memory: E1200: tensor<2x3xbf16> (12 bytes)
// CHECK-NEXT: b.py:2:1: note: returned in host memory as output 1: tensor<2x3xbf16> (12 bytes)
// CHECK-NEXT: remark: @main: 1 starts per step: 12 bytes to host, 0 bytes back to device, 1 ops computed on the host, 1 outputs with E1200, 0 unused starts
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<2x3xbf16>) -> (tensor<2x3xbf16>, tensor<2x3xbf16>), res_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%x: tensor<2x3xbf16>):
  %n = "stablehlo.negate"(%x) : (tensor<2x3xbf16>) -> tensor<2x3xbf16> loc("b.py":1:1)
  "func.return"(%n, %n) : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> () loc("b.py":2:1)
}) : () -> ()

// -----

// A slice of a host argument that nothing computes on is read into device
// memory: its fate is the slice, with the slice's bytes. An argument nothing
// uses is unused.
// CHECK-LABEL: remark: start #0, argument #0: tensor<8xf32> (32 bytes) in host memory
// CHECK: c.py:1:1: note: moved back to device by stablehlo.slice: tensor<2xf32> (8 bytes)
// CHECK: remark: start #1, argument #1: tensor<4xi1> (4 bytes) in host memory, unused
// CHECK-NOT: note:
// CHECK: remark: @main: 2 starts per step: 36 bytes to host, 8 bytes back to device, 0 ops computed on the host, 0 outputs with E1200, 1 unused starts
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>, tensor<4xi1>) -> tensor<2xf32>, sym_name = "main"}> ({
^bb0(%x: tensor<8xf32>, %unused: tensor<4xi1>):
  %s = "stablehlo.slice"(%x) <{limit_indices = array<i64: 2>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<2xf32> loc("c.py":1:1)
  "func.return"(%s) : (tensor<2xf32>) -> () loc("c.py":2:1)
}) : () -> ()

// -----

// A call run on the host consumes host memory. Through a callee and back
// out, the fate is the caller's move to device: further, so later.
// CHECK-LABEL: remark: start #0, argument #0: tensor<4xf32> (16 bytes) in host memory
// CHECK: d.py:4:1: note: consumed by call @host_fn on the host
// CHECK-NEXT: d.py:3:1: note: moved back to device by stablehlo.custom_call @MoveToDevice: tensor<4xf32> (16 bytes)
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "id", sym_visibility = "private"}> ({
^bb0(%a: tensor<4xf32>):
  "func.return"(%a) : (tensor<4xf32>) -> () loc("d.py":1:1)
}) : () -> ()
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "host_fn", sym_visibility = "private"}> ({
^bb0(%a: tensor<4xf32>):
  "func.return"(%a) : (tensor<4xf32>) -> () loc("d.py":5:1)
}) : () -> ()
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>), sym_name = "main"}> ({
^bb0(%x: tensor<4xf32>):
  %r = "func.call"(%x) <{callee = @id}> : (tensor<4xf32>) -> tensor<4xf32> loc("d.py":2:1)
  %d = "stablehlo.custom_call"(%r) <{call_target_name = "MoveToDevice"}> : (tensor<4xf32>) -> tensor<4xf32> loc("d.py":3:1)
  %h = "func.call"(%x) <{callee = @host_fn}> {mhlo.frontend_attributes = {_xla_compute_type = "host"}} : (tensor<4xf32>) -> tensor<4xf32> loc("d.py":4:1)
  "func.return"(%d, %h) : (tensor<4xf32>, tensor<4xf32>) -> () loc("d.py":6:1)
}) : () -> ()
