// RUN: %generate deep_ifs 300 > %t.nested
// RUN: not offload-opt %t.nested --host-offload-check 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: offload-opt %t.nested --host-offload-fix=strategy=host | offload-opt --host-offload-check
// RUN: offload-opt %t.nested --host-offload-fix=strategy=device | offload-opt --host-offload-check
// RUN: %generate many_uses 200000 > %t.uses
// RUN: not offload-opt %t.uses --host-offload-check 2>&1 | FileCheck %s --check-prefix=USES
// RUN: offload-opt %t.uses --host-offload-fix=strategy=device | offload-opt --host-offload-check 2>&1 | FileCheck %s --check-prefix=USES-FIXED

// Large inputs, generated at test time by tools/generate.py: 300 nested
// regions, and a value with 200,000 uses. Both get their one E1200, a path
// note of bounded length, and a fix that re-checks clean. (A module of over a
// million ops is in test/python/test_robustness.py, under HOSTOFFLOAD_SLOW=1.)

// NESTED: error: E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 is declared mhlo.memory_kind = "device"
// NESTED: note: path: argument #0 -> stablehlo.if -> stablehlo.if -> stablehlo.if -> stablehlo.if -> stablehlo.if -> (289 more steps) -> stablehlo.if -> stablehlo.if -> stablehlo.if -> stablehlo.if -> stablehlo.if -> stablehlo.if -> output 0
// NESTED-NOT: error:

// USES: error: E1200: {{.*}}output 0 is declared mhlo.memory_kind = "device"
// USES-NOT: error:
// USES: warning: HOW101: 'stablehlo.negate' computes on a tensor in host memory (moved to host starting from argument #0)
// USES-COUNT-4: note: 'stablehlo.negate' computes on host memory from the same start
// USES: note: and 199995 more ops compute on host memory from argument #0
// USES-NOT: error:

// The fixed module still computes on host memory, without E1200.
// USES-FIXED-NOT: error:
// USES-FIXED: warning: HOW101
// USES-FIXED-NOT: error:
