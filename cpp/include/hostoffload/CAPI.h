/*===- CAPI.h - C API of hostoffload ------------------------------*- C -*-===*/
/* The Python extensions are built with RTTI and exceptions, the passes
 * without; they meet only through this C interface. */

#ifndef HOSTOFFLOAD_CAPI_H
#define HOSTOFFLOAD_CAPI_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers the host-offload passes with MLIR's global pass registry, so
/// that pass pipelines parsed from text can name them.
MLIR_CAPI_EXPORTED void hostoffloadRegisterPasses(void);

#ifdef __cplusplus
}
#endif

#endif /* HOSTOFFLOAD_CAPI_H */
