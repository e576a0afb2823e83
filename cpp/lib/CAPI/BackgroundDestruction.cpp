//===- BackgroundDestruction.cpp - modules destroyed off the caller's path ===//
//
// `hostoffload.check` parses a module it alone uses and drops it once the
// analysis has written its report. Destroying it frees every operation, one at
// a time: 55-70 ms for a JAX training step of 100k ops, half a second at 1M,
// time in which the caller could already read the report. A single thread of
// the library's own destroys such modules in the order they are handed over.
// That thread is a fast path (hostoffload/FastPaths.h): on the plain path the
// caller destroys the module itself.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/CAPI.h"
#include "hostoffload/FastPaths.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinOps.h"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <pthread.h>

namespace {

/// The operations of one module's body, and what to call once they are gone.
struct Destruction {
  std::unique_ptr<mlir::Block> body;
  void (*done)(void *);
  void *userData;
};

void finish(Destruction &destruction) {
  destruction.body.reset();
  if (destruction.done)
    destruction.done(destruction.userData);
}

#if HOSTOFFLOAD_FAST_PATHS
/// The thread that destroys, started on first use. It waits for work without
/// end: the process's exit does not wait for it, which is why callers that
/// must know a destruction has ended (an interpreter about to finalize) wait.
class BackgroundDestroyer {
public:
  /// Hands `destruction` to the thread; false, with `destruction` untouched,
  /// when no thread could be started.
  bool add(Destruction &destruction) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!start())
      return false;
    pending.push_back(std::move(destruction));
    workAdded.notify_one();
    return true;
  }

  void waitUntilIdle() {
    std::unique_lock<std::mutex> lock(mutex);
    // Destructions a forked child took over wait for a thread of its own.
    if (!pending.empty() && !start()) {
      while (!pending.empty()) {
        Destruction destruction = std::move(pending.front());
        pending.pop_front();
        finish(destruction);
      }
      return;
    }
    becameIdle.wait(lock, [this] { return pending.empty() && !busy; });
  }

  /// Around a fork: no other thread holds the lock while the process is
  /// copied.
  void lockForFork() { mutex.lock(); }
  void unlockAfterFork() { mutex.unlock(); }

  /// In a forked child, which has no thread of this one: a new destroyer,
  /// which starts a thread of its own, with the destructions not yet begun.
  /// This one is abandoned (its lock held, a destruction its thread had begun
  /// half done).
  BackgroundDestroyer *takeOverInChild() {
    auto *successor = new BackgroundDestroyer();
    successor->pending = std::move(pending);
    return successor;
  }

private:
  /// Starts the thread unless it runs; false if it cannot. With the lock held.
  bool start() {
    if (started)
      return true;
    pthread_t thread;
    if (pthread_create(&thread, nullptr, run, this) != 0)
      return false;
    pthread_detach(thread);
    started = true;
    return true;
  }

  static void *run(void *destroyer) {
    static_cast<BackgroundDestroyer *>(destroyer)->destroyForever();
    return nullptr;
  }

  void destroyForever() {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      workAdded.wait(lock, [this] { return !pending.empty(); });
      Destruction destruction = std::move(pending.front());
      pending.pop_front();
      busy = true;
      lock.unlock();
      finish(destruction);
      lock.lock();
      busy = false;
      if (pending.empty())
        becameIdle.notify_all();
    }
  }

  std::mutex mutex;
  std::condition_variable workAdded;
  std::condition_variable becameIdle;
  std::deque<Destruction> pending;
  bool busy = false;
  bool started = false;
};

/// Never destroyed: the detached thread may still use it while the process
/// exits.
BackgroundDestroyer *destroyer = nullptr;

void prepareFork() { destroyer->lockForFork(); }
void afterForkInParent() { destroyer->unlockAfterFork(); }
void afterForkInChild() { destroyer = destroyer->takeOverInChild(); }

BackgroundDestroyer &getDestroyer() {
  static bool made = [] {
    destroyer = new BackgroundDestroyer();
    pthread_atfork(prepareFork, afterForkInParent, afterForkInChild);
    return true;
  }();
  (void)made;
  return *destroyer;
}
#endif

} // namespace

void hostoffloadDestroyBodyInBackground(MlirOperation module,
                                        void (*done)(void *userData),
                                        void *userData) {
  auto moduleOp = llvm::cast<mlir::ModuleOp>(unwrap(module));
  auto body = std::make_unique<mlir::Block>();
  body->getOperations().splice(body->end(),
                               moduleOp.getBody()->getOperations());
  Destruction destruction{std::move(body), done, userData};
#if HOSTOFFLOAD_FAST_PATHS
  if (hostoffload::fastPathEnabled(
          hostoffload::FastPath::BackgroundDestruction) &&
      getDestroyer().add(destruction))
    return;
#endif
  finish(destruction);
}

void hostoffloadWaitForBackgroundDestruction(void) {
#if HOSTOFFLOAD_FAST_PATHS
  if (hostoffload::fastPathEnabled(
          hostoffload::FastPath::BackgroundDestruction))
    getDestroyer().waitUntilIdle();
#endif
}
