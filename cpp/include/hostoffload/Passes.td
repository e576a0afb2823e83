//===- Passes.td - host-offload passes ---------------------*- tablegen -*-===//

#ifndef HOSTOFFLOAD_PASSES
#define HOSTOFFLOAD_PASSES

include "mlir/Pass/PassBase.td"

def HostOffloadCheckPass : Pass<"host-offload-check", "::mlir::ModuleOp"> {
  let summary = "Report XLA host-offload output mismatches (E1200) before XLA";
  let description = [{
    Traces every tensor that is moved to host memory (move-to-host annotations
    and `pinned_host` entry arguments) through the module the way XLA's
    HostOffloader does, and reports an E1200 error for every output of the
    entry function that carries such a tensor but is not declared
    `pinned_host`. Also warns about offloading patterns XLA accepts silently.
    With `trace=true`, it also says where every tensor in host memory goes:
    a remark at each start names its tensor, with a note at each of its fates
    (moved back to device, computed on the host, returned in host memory,
    E1200, consumed by a call on the host; none: unused), and a last remark
    gives the totals per step.
    The pass only emits diagnostics; it never changes the IR.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "Name of the entry function (default: @main, else the only "
           "public function)">,
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Report device computation on host memory as an error, as XLA does "
           "under xla_disable_automatic_host_compute_offload">,
    Option<"allowH2hCopy", "allow-h2h-copy", "bool", /*default=*/"false",
           "Under strict=true, allow a copy on host memory (mhlo.copy), as XLA "
           "does under "
           "xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled">,
    Option<"xlaRelease", "xla-release", "std::string", /*default=*/"\"\"",
           "The XLA to model where releases differ: an XLA release "
           "such as 2026-06, or a libtpu release such as 0.0.42.1; "
           "default: the newest (docs/semantics.md)">,
    Option<"platform", "platform", "std::string", /*default=*/"\"tpu\"",
           "The platform the program is compiled for, whose XLA to model: "
           "tpu (XLA:TPU) or cuda (XLA:GPU)">,
    Option<"trace", "trace", "bool", /*default=*/"false",
           "Also remark where every tensor in host memory goes: each start, "
           "its fates, and the totals per step">,
  ];
}

def HostOffloadFixPass : Pass<"host-offload-fix", "::mlir::ModuleOp"> {
  let summary = "Fix XLA host-offload output mismatches (E1200) with one strategy";
  let description = [{
    Runs the analysis of `host-offload-check` and applies, to every output of
    the entry function that fails with E1200, the fix chosen by `strategy`:

    - `host`: declare the output in host memory: `mhlo.memory_kind =
      "pinned_host"` on the result, or memory space 5 in the module's
      `out_memory_spaces` for modules converted from HLO.
    - `device`: move the returned tensor back to device memory right before
      the return, with `annotate_device_placement` to `device` as JAX emits
      it (`MoveToDevice` in modules converted from HLO); in a tuple-typed
      output, only the elements in host memory are moved.

    Nothing else changes: a module without E1200 comes out as it went in, and
    running the pass again changes nothing. Fails with a located error on an
    unknown strategy and on an output the strategy cannot fix (`host` on a
    tuple-typed output, whose memory kind XLA does not implement).
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"\"",
           "How to fix each output that fails with E1200: 'host' declares it "
           "pinned_host, 'device' moves it back to device memory before the "
           "return">,
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "Name of the entry function (default: @main, else the only "
           "public function)">,
    Option<"xlaRelease", "xla-release", "std::string", /*default=*/"\"\"",
           "The XLA to model where releases differ: an XLA release "
           "such as 2026-06, or a libtpu release such as 0.0.42.1; "
           "default: the newest (docs/semantics.md)">,
    Option<"platform", "platform", "std::string", /*default=*/"\"tpu\"",
           "The platform the program is compiled for, whose XLA to model: "
           "tpu (XLA:TPU) or cuda (XLA:GPU)">,
  ];
}

#endif // HOSTOFFLOAD_PASSES
