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
    The pass only emits diagnostics; it never changes the IR.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "Name of the entry function (default: @main, else the only "
           "public function)">,
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Report device computation on host memory as an error, as XLA does "
           "under xla_disable_automatic_host_compute_offload">,
  ];
}

#endif // HOSTOFFLOAD_PASSES
