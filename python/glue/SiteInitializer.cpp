//===- SiteInitializer.cpp - hostoffload.mlir site initializer ------------===//
//
// MLIR's `_mlir_libs/__init__.py` imports this module when `hostoffload.mlir`
// is first used: it registers our passes and the dialects of
// hostoffload/Dialects.h, and lets every new Context parse the ops of other
// dialects as unregistered ops. The dialects are loaded into each new Context
// at once: the parse in parts reads a text on two threads, which must not load
// a dialect.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/CAPI.h"

#include "mlir-c/IR.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

NB_MODULE(_site_initialize_0, m) {
  m.doc() = "Registers the host-offload passes in hostoffload.mlir.";
  hostoffloadRegisterPasses();

  m.def("register_dialects", [](MlirDialectRegistry registry) {
    hostoffloadRegisterDialects(registry);
  });
  m.def("context_init_hook", [](MlirContext context) {
    mlirContextSetAllowUnregisteredDialects(context, true);
    mlirContextLoadAllAvailableDialects(context);
  });
}
