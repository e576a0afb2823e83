//===- SiteInitializer.cpp - hostoffload.mlir site initializer ------------===//
//
// MLIR's `_mlir_libs/__init__.py` imports this module when `hostoffload.mlir`
// is first used: it registers our passes and the func dialect, and lets every
// new Context parse StableHLO, CHLO and Shardy ops as unregistered dialects.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/CAPI.h"

#include "mlir-c/Dialect/Func.h"
#include "mlir-c/IR.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

NB_MODULE(_site_initialize_0, m) {
  m.doc() = "Registers the host-offload passes in hostoffload.mlir.";
  hostoffloadRegisterPasses();

  m.def("register_dialects", [](MlirDialectRegistry registry) {
    mlirDialectHandleInsertDialect(mlirGetDialectHandle__func__(), registry);
  });
  m.def("context_init_hook", [](MlirContext context) {
    mlirContextSetAllowUnregisteredDialects(context, true);
  });
}
