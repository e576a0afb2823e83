//===- WorkerThread.cpp - the library's own threads -----------------------===//

#include "hostoffload/WorkerThread.h"

#include <new>
#include <pthread.h>
#include <vector>

namespace hostoffload {

/// The fork policy of every worker (see the header), registered with
/// pthread_atfork once: no worker's lock is held by another thread while
/// the process is copied.
struct WorkerForkPolicy {
  static std::mutex &registryMutex() {
    static std::mutex *mutex = new std::mutex();
    return *mutex;
  }
  static std::vector<WorkerThread *> &workers() {
    static auto *all = new std::vector<WorkerThread *>();
    return *all;
  }

  static void add(WorkerThread *worker) {
    static bool registered = [] {
      pthread_atfork(prepare, inParent, inChild);
      return true;
    }();
    (void)registered;
    std::lock_guard<std::mutex> lock(registryMutex());
    workers().push_back(worker);
  }

  static void prepare() {
    registryMutex().lock();
    for (WorkerThread *worker : workers())
      worker->mutex.lock();
  }

  static void inParent() {
    for (WorkerThread *worker : workers())
      worker->mutex.unlock();
    registryMutex().unlock();
  }

  static void inChild() {
    for (WorkerThread *worker : workers()) {
      // Threads that waited on them do not exist here.
      new (&worker->jobAdded) std::condition_variable();
      new (&worker->becameIdle) std::condition_variable();
      worker->running = false;
      worker->busy = false;
      worker->mutex.unlock();
    }
    registryMutex().unlock();
  }
};

WorkerThread::WorkerThread() { WorkerForkPolicy::add(this); }

bool WorkerThread::post(llvm::unique_function<void()> &job, bool onlyIfIdle) {
  std::lock_guard<std::mutex> lock(mutex);
  if ((onlyIfIdle && (busy || !jobs.empty())) || !start())
    return false;
  jobs.push_back(std::move(job));
  jobAdded.notify_one();
  return true;
}

void WorkerThread::waitUntilIdle() {
  std::unique_lock<std::mutex> lock(mutex);
  if (!jobs.empty() && !start()) {
    while (!jobs.empty()) {
      llvm::unique_function<void()> job = std::move(jobs.front());
      jobs.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
    return;
  }
  becameIdle.wait(lock, [this] { return jobs.empty() && !busy; });
}

bool WorkerThread::start() {
  if (running)
    return true;
  pthread_t thread;
  if (pthread_create(&thread, nullptr, run, this) != 0)
    return false;
  pthread_detach(thread);
  running = true;
  return true;
}

void *WorkerThread::run(void *worker) {
  static_cast<WorkerThread *>(worker)->serve();
  return nullptr;
}

void WorkerThread::serve() {
  std::unique_lock<std::mutex> lock(mutex);
  while (true) {
    jobAdded.wait(lock, [this] { return !jobs.empty(); });
    llvm::unique_function<void()> job = std::move(jobs.front());
    jobs.pop_front();
    busy = true;
    lock.unlock();
    job();
    lock.lock();
    busy = false;
    if (jobs.empty())
      becameIdle.notify_all();
  }
}

} // namespace hostoffload
