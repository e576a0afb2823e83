// RUN: offload-opt %S/../../differential/sibling/s_scan_offload_into_device_carry.mlir --host-offload-fix=strategy=host | FileCheck %s --check-prefix=NEWEST
// RUN: offload-opt %S/../../differential/sibling/s_scan_offload_into_device_carry.mlir --host-offload-fix=strategy=host | offload-opt --host-offload-check -o /dev/null
// RUN: offload-opt %S/../../differential/sibling/s_scan_offload_into_device_carry.mlir --host-offload-fix="strategy=host xla-release=0.0.42.1" | FileCheck %s --check-prefix=JUNE
// RUN: not offload-opt %S/../../differential/sibling/s_scan_offload_into_device_carry.mlir --host-offload-fix="strategy=host xla-release=2026-13" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// The host strategy declares pinned_host each argument its release rejects
// with HOE102. A device buffer moved to host and carried through a scan that
// writes rows moved to host into it: XLA release 2026-07 and later reject it
// (their walk up goes through the copy the move becomes), 2026-06 does not.
// NEWEST: func.func public @main(%arg0: tensor<8x128xf32> {mhlo.memory_kind = "pinned_host"
// JUNE: func.func public @main(%arg0: tensor<8x128xf32> {mhlo.memory_kind = "device"
// UNKNOWN: error: host-offload-fix: unknown xla-release '2026-13'
