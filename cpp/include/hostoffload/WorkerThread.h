//===- WorkerThread.h - the library's own threads ---------------*- C++ -*-===//
//
// Every thread the library starts is a WorkerThread: the second part of a
// long function's parse (ParallelParse.h) and the destruction of the modules
// `hostoffload.check` drops (CAPI.h). One fork policy holds for all of them:
// a forked child has none of the parent's threads, so in the child each
// worker forgets the job its thread was running (never finished there), keeps
// the jobs not yet begun, and starts a thread of its own for them when next
// asked to.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_WORKERTHREAD_H
#define HOSTOFFLOAD_WORKERTHREAD_H

#include "llvm/ADT/FunctionExtras.h"

#include <condition_variable>
#include <deque>
#include <mutex>

namespace hostoffload {

/// A thread of the library's own that runs the jobs handed to it one at a
/// time, in the order they came, started on first use and kept for the life
/// of the process (a worker is never destroyed: its thread may still wait on
/// it while the process exits). A thread keeps the malloc arena it first
/// allocated from, so what one job frees the next one reuses.
class WorkerThread {
public:
  WorkerThread();
  WorkerThread(const WorkerThread &) = delete;
  WorkerThread &operator=(const WorkerThread &) = delete;

  /// Hands `job` to the thread. Returns false, leaving `job` to the caller,
  /// where no thread can be started, or, with `onlyIfIdle`, while another job
  /// waits or runs.
  bool post(llvm::unique_function<void()> &job, bool onlyIfIdle = false);

  /// Waits until every job handed over before has ended. In a forked child
  /// whose thread could not be started, runs them here.
  void waitUntilIdle();

private:
  friend struct WorkerForkPolicy;

  /// Starts the thread unless it runs; false if it cannot. With the lock
  /// held.
  bool start();
  static void *run(void *worker);
  void serve();

  std::mutex mutex;
  std::condition_variable jobAdded;
  std::condition_variable becameIdle;
  std::deque<llvm::unique_function<void()>> jobs;
  bool running = false;
  bool busy = false;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_WORKERTHREAD_H
