//===- BackgroundDestruction.cpp - modules destroyed off the caller's path ===//
//
// `hostoffload.check` parses a module it alone uses and drops it once the
// analysis has written its report. Destroying it frees every operation, one at
// a time, time in which the caller could already read the report. A worker
// thread of the library's own (WorkerThread.h) destroys such modules in the
// order they are handed over. That thread is a fast path
// (hostoffload/FastPaths.h): on the plain path the caller destroys the module
// itself.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/CAPI.h"
#include "hostoffload/FastPaths.h"
#include "hostoffload/WorkerThread.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>

#if HOSTOFFLOAD_FAST_PATHS
static hostoffload::WorkerThread &getDestroyer() {
  static auto *destroyer = new hostoffload::WorkerThread();
  return *destroyer;
}
#endif

void hostoffloadDestroyBodyInBackground(MlirOperation module,
                                        void (*done)(void *userData),
                                        void *userData) {
  auto moduleOp = llvm::cast<mlir::ModuleOp>(unwrap(module));
  auto body = std::make_unique<mlir::Block>();
  body->getOperations().splice(body->end(),
                               moduleOp.getBody()->getOperations());
  llvm::unique_function<void()> destruction = [body = std::move(body), done,
                                               userData]() mutable {
    body.reset();
    if (done)
      done(userData);
  };
#if HOSTOFFLOAD_FAST_PATHS
  if (hostoffload::fastPathEnabled(
          hostoffload::FastPath::BackgroundDestruction) &&
      getDestroyer().post(destruction))
    return;
#endif
  destruction();
}

void hostoffloadWaitForBackgroundDestruction(void) {
#if HOSTOFFLOAD_FAST_PATHS
  if (hostoffload::fastPathEnabled(
          hostoffload::FastPath::BackgroundDestruction))
    getDestroyer().waitUntilIdle();
#endif
}
