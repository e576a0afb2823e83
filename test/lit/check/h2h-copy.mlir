// RUN: offload-opt %s --split-input-file --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=LENIENT
// RUN: not offload-opt %s --split-input-file --host-offload-check=strict=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: not offload-opt %s --split-input-file --pass-pipeline='builtin.module(host-offload-check{strict=true allow-h2h-copy=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=H2H

// XLA's h2h relaxation of strict mode (host_offloader.cc):
// xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled lets a
// `copy` on host memory run as host compute under
// xla_disable_automatic_host_compute_offload; every other op stays refused.
// `mhlo.copy` is what XLA's HLO import leaves of a `copy`; StableHLO has no
// copy op. The first module is XLA's H2hCopyAllowed- and
// H2hCopyDisallowedWhenAutomaticHostComputeOffloadDisabled of
// host_offloader_test.cc; the second adds a negate.

// A copy of a pinned host parameter to a host output.
// LENIENT-LABEL: warning: HOW101: 'mhlo.copy' computes on a tensor in host memory (moved to host starting from argument 'param')
// STRICT-LABEL: error: HOE101: Automatic host compute offloading is disabled; 'mhlo.copy' computes on a tensor in host memory (moved to host starting from argument 'param'), which XLA would run as host compute
// H2H-LABEL: warning: HOW101: 'mhlo.copy' computes on a tensor in host memory (moved to host starting from argument 'param')
"builtin.module"() <{sym_name = "h2h_copy"}> ({
  "func.func"() <{function_type = (tensor<1024xf32>) -> tensor<1024xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<1024xf32> loc("param")):
    %0 = "mhlo.copy"(%arg0) : (tensor<1024xf32>) -> tensor<1024xf32>
    "func.return"(%0) : (tensor<1024xf32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "5", out_memory_spaces = "5"}} : () -> ()

// -----

// A copy, then a negate of the copy: the negate is refused.
// LENIENT-LABEL: warning: HOW101: 'mhlo.copy' computes on a tensor in host memory (moved to host starting from argument 'param_negated')
// STRICT-LABEL: error: HOE101: Automatic host compute offloading is disabled; 'mhlo.copy' computes on a tensor in host memory (moved to host starting from argument 'param_negated')
// H2H-LABEL: error: HOE101: Automatic host compute offloading is disabled; 'stablehlo.negate' computes on a tensor in host memory (moved to host starting from argument 'param_negated'), which XLA would run as host compute
// H2H: note: 'mhlo.copy' computes on host memory from the same start
"builtin.module"() <{sym_name = "h2h_copy_and_negate"}> ({
  "func.func"() <{function_type = (tensor<1024xf32>) -> tensor<1024xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<1024xf32> loc("param_negated")):
    %0 = "mhlo.copy"(%arg0) : (tensor<1024xf32>) -> tensor<1024xf32>
    %1 = "stablehlo.negate"(%0) : (tensor<1024xf32>) -> tensor<1024xf32>
    "func.return"(%1) : (tensor<1024xf32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "5", out_memory_spaces = "5"}} : () -> ()
