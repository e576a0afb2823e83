//===- LargeArrayAllocator.cpp - where the analysis's memory comes from ---===//
//
// Mapped arrays, their preparation and runWithOwnHeap are fast paths
// (hostoffload/FastPaths.h); the plain path is `operator new` on the
// caller's thread, the `#else` of each.
//
//===----------------------------------------------------------------------===//

#include "LargeArrayAllocator.h"

#include "hostoffload/FastPaths.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__GLIBC__)
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace hostoffload {

#if HOSTOFFLOAD_FAST_PATHS && defined(__linux__) && defined(MADV_HUGEPAGE)
static constexpr size_t kHugePageBytes = size_t(2) << 20;
/// From half a huge page on, one huge page costs less than the 4 KiB pages
/// it replaces, even where half of it stays unused, as long as the kernel
/// has huge pages at hand (docs/performance.md, "Where the time goes").
static constexpr size_t kSmallestHugeArray = kHugePageBytes / 2;

/// Maps `rounded` bytes, whole huge pages, on a huge page boundary, with
/// protection `protection`.
static char *mapOnHugePageBoundary(size_t rounded, int protection) {
  // Mapped with a huge page to spare, so that the array can start on a
  // huge page boundary; the spare ends are unmapped at once.
  void *mapped = mmap(nullptr, rounded + kHugePageBytes, protection,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED)
    return nullptr;
  auto start = reinterpret_cast<uintptr_t>(mapped);
  uintptr_t aligned = llvm::alignTo(start, kHugePageBytes);
  if (aligned != start)
    munmap(mapped, aligned - start);
  size_t tail = kHugePageBytes - (aligned - start);
  if (tail != 0)
    munmap(reinterpret_cast<void *>(aligned + rounded), tail);
  return reinterpret_cast<char *>(aligned);
}

/// How many arrays a LargeArrayPreparation makes ready before it measures:
/// the analysis of a module large enough maps its nodes and its table of
/// first nodes first, and where it has many values or call sites, up to
/// three more (the work queue, the call records and flows), which only a
/// measure tells. A page made ready is resident in full, taken or not, where
/// a walk may have written a few 4 KiB pages of it: `nested` 100k's peak
/// memory 54 -> 57 MB with two ready, 61 MB with four made ready unmeasured.
static constexpr size_t kArraysReadyFirst = 2;
/// The address space a prepared array sets aside: more than the largest
/// array of a module that fits in memory (32 bytes a value), costing nothing
/// until written. A larger array is mapped anew.
static constexpr size_t kPreparedArrayBytes = size_t(16) << 30;

namespace {

/// Address space prepareArray set aside for an array, and how many of its
/// first bytes are readable and written.
struct PreparedArray {
  char *start = nullptr;
  size_t writtenBytes = 0;
};

/// The arrays a preparation made ready, in the order the analysis takes
/// them, and its thread's state. Fixed in size: that thread allocates
/// nothing, which would make glibc a heap for it, but where `measure` does.
struct PreparedArrays {
  std::mutex mutex;
  std::array<PreparedArray, kMostArraysPrepared> ready;
  size_t readyCount = 0;
  /// Whether a preparation's thread runs.
  bool preparing = false;
  /// What that thread runs once the arrays are ready, and whether it runs
  /// it still; `measured` is notified when it has returned.
  MeasurePreparedBytes measure;
  bool measuring = false;
  std::condition_variable measured;
  std::atomic<bool> stopMeasuring{false};
};

} // namespace

static PreparedArrays &getPreparedArrays() {
  // Never destroyed: its thread may still run as the process exits.
  static auto *arrays = new PreparedArrays;
  return *arrays;
}

/// Sets address space aside for an array and writes its first huge page;
/// returns its start, or null where it cannot.
static char *prepareArray() {
  char *start = mapOnHugePageBoundary(kPreparedArrayBytes, PROT_NONE);
  if (!start)
    return nullptr;
  if (mprotect(start, kHugePageBytes, PROT_READ | PROT_WRITE) != 0) {
    munmap(start, kPreparedArrayBytes);
    return nullptr;
  }
  madvise(start, kHugePageBytes, MADV_HUGEPAGE);
  // The fault that maps the page (a huge page where the kernel has one) and
  // the kernel's clearing of it happen here; the page stays all zero bytes.
  *reinterpret_cast<volatile char *>(start) = 0;
  return start;
}

/// A prepared array of `rounded` bytes (whole huge pages), if one is ready:
/// the first of them.
static void *takePreparedArray(size_t rounded) {
  PreparedArrays &arrays = getPreparedArrays();
  PreparedArray taken;
  {
    std::lock_guard<std::mutex> lock(arrays.mutex);
    if (arrays.readyCount == 0 || rounded > kPreparedArrayBytes)
      return nullptr;
    taken = arrays.ready[0];
    std::move(arrays.ready.begin() + 1,
              arrays.ready.begin() + arrays.readyCount, arrays.ready.begin());
    --arrays.readyCount;
  }
  char *start = taken.start;
  if (rounded > taken.writtenBytes &&
      (mprotect(start + taken.writtenBytes, rounded - taken.writtenBytes,
                PROT_READ | PROT_WRITE) != 0 ||
       madvise(start, rounded, MADV_HUGEPAGE) != 0)) {
    munmap(start, kPreparedArrayBytes);
    return nullptr;
  }
  if (rounded < kPreparedArrayBytes)
    munmap(start + rounded, kPreparedArrayBytes - rounded);
  return start;
}

/// Maps `bytes` rounded up to whole huge pages, on a huge page boundary:
/// zeroed memory, offered to the kernel for transparent huge pages.
static void *mapHugeArray(size_t bytes) {
  size_t rounded = llvm::alignTo(bytes, kHugePageBytes);
  if (void *prepared = takePreparedArray(rounded))
    return prepared;
  char *start = mapOnHugePageBoundary(rounded, PROT_READ | PROT_WRITE);
  if (!start)
    llvm::report_bad_alloc_error("cannot map memory for the analysis");
  // Only a hint: without transparent huge pages the array takes 4 KiB pages.
  madvise(start, rounded, MADV_HUGEPAGE);
  return start;
}

void *allocateLargeArray(size_t bytes) {
  if (!isMappedZeroedArray(bytes))
    return ::operator new(bytes);
  return mapHugeArray(bytes);
}

void *allocateZeroedLargeArray(size_t bytes) {
  if (!isMappedZeroedArray(bytes))
    return std::memset(::operator new(bytes), 0, bytes);
  return mapHugeArray(bytes);
}

bool isMappedZeroedArray(size_t bytes) {
  return bytes >= kSmallestHugeArray &&
         fastPathEnabled(FastPath::HugePageArrays);
}

void deallocateLargeArray(void *memory, size_t bytes) {
  if (!isMappedZeroedArray(bytes)) {
    ::operator delete(memory);
    return;
  }
  munmap(memory, llvm::alignTo(bytes, kHugePageBytes));
}
#else
void *allocateLargeArray(size_t bytes) { return ::operator new(bytes); }

void *allocateZeroedLargeArray(size_t bytes) {
  return std::memset(::operator new(bytes), 0, bytes);
}

bool isMappedZeroedArray(size_t) { return false; }

void deallocateLargeArray(void *memory, size_t) { ::operator delete(memory); }
#endif

#if HOSTOFFLOAD_FAST_PATHS && defined(__GLIBC__)
namespace {

/// What a thread of runWithOwnHeap runs, and the CPUs it may run on once it
/// has started.
struct OwnHeapThread {
  llvm::function_ref<void()> work;
  cpu_set_t allowedCpus;
  bool startsPinned = false;
};

} // namespace

static void *runWork(void *argument) {
  auto *thread = static_cast<OwnHeapThread *>(argument);
  // Started, it may move to another CPU, as any thread of the process may.
  if (thread->startsPinned)
    pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t),
                           &thread->allowedCpus);
  thread->work();
  return nullptr;
}

/// Thread attributes whose CPU set runWithOwnHeap sets, made when the library
/// is loaded. glibc allocates the memory for a CPU set in attributes the first
/// time one is set, from the caller's heap: after a parse, from the main heap,
/// whose sorting the thread is there to avoid (3.4-6.6 ms of `chain` 1M's
/// first check, docs/performance.md). Setting a set of the same size again
/// reuses that memory. The attributes live as long as the process; `mutex`
/// guards them.
struct PinningAttributes {
  PinningAttributes() {
    cpu_set_t cpus;
    ready =
        pthread_attr_init(&attributes) == 0 &&
        sched_getaffinity(0, sizeof(cpu_set_t), &cpus) == 0 &&
        pthread_attr_setaffinity_np(&attributes, sizeof(cpu_set_t), &cpus) == 0;
  }
  std::mutex mutex;
  pthread_attr_t attributes;
  bool ready = false;
};
static PinningAttributes pinningAttributes;

/// Starts `thread` on the CPU the caller runs on, which the caller leaves to
/// it while it waits. Placed by the scheduler, a new thread could wait on a
/// busy CPU for the running task's time slice while the caller's CPU was
/// idle: with one other busy process on two CPUs, it started 2-4 ms late in
/// 13 of 25 checks of a 10k-op model, longer than the whole check takes.
/// Returns the pthread_create result; not 0 where the thread could not be
/// started so.
static int startOnThisCpu(OwnHeapThread &thread, pthread_t &id) {
  int cpu = sched_getcpu();
  if (!pinningAttributes.ready || cpu < 0 || cpu >= CPU_SETSIZE ||
      pthread_getaffinity_np(pthread_self(), sizeof(cpu_set_t),
                             &thread.allowedCpus) != 0)
    return -1;
  cpu_set_t thisCpu;
  CPU_ZERO(&thisCpu);
  CPU_SET(cpu, &thisCpu);
  std::lock_guard<std::mutex> lock(pinningAttributes.mutex);
  if (pthread_attr_setaffinity_np(&pinningAttributes.attributes,
                                  sizeof(cpu_set_t), &thisCpu) != 0)
    return -1;
  thread.startsPinned = true;
  int created =
      pthread_create(&id, &pinningAttributes.attributes, runWork, &thread);
  if (created != 0)
    thread.startsPinned = false;
  return created;
}

/// The end of glibc's main heap when the library was loaded.
static const char *const mainHeapEndAtLoad = static_cast<char *>(sbrk(0));

/// Below this much growth of the main heap since the library was loaded, the
/// chunks it can hold cost less to sort than a thread and its fresh heap: a
/// parsed real model takes about 320 bytes of it per op, and the analysis on
/// the main heap was 0.1-0.25 ms faster at 10k ops, as fast at 30k (10 MiB),
/// and 1-2.5 ms slower at 100k (32 MiB) (docs/performance.md).
static constexpr size_t kMainHeapGrowthWorthAThread = size_t(16) << 20;

/// Whether the caller allocates from glibc's main heap, as the process's
/// first thread does, and it has grown by less than
/// `kMainHeapGrowthWorthAThread` since the library was loaded. Another
/// thread's heap cannot be sized as cheaply.
static bool allocatesFromSmallMainHeap() {
  if (getpid() != gettid())
    return false;
  auto *end = static_cast<const char *>(sbrk(0));
  return end >= mainHeapEndAtLoad &&
         size_t(end - mainHeapEndAtLoad) < kMainHeapGrowthWorthAThread;
}

void runWithOwnHeap(llvm::function_ref<void()> work) {
  if (!fastPathEnabled(FastPath::OwnHeap) || allocatesFromSmallMainHeap()) {
    work();
    return;
  }
  OwnHeapThread thread{work};
  pthread_t id;
  // Started unpinned where its CPUs could not be set: glibc fails the
  // creation where it cannot (a sandbox may forbid it).
  int created = startOnThisCpu(thread, id);
  if (created != 0)
    created = pthread_create(&id, nullptr, runWork, &thread);
  if (created != 0) {
    work();
    return;
  }
  pthread_join(id, nullptr);
}
#else
void runWithOwnHeap(llvm::function_ref<void()> work) { work(); }
#endif

#if HOSTOFFLOAD_FAST_PATHS && defined(__GLIBC__) && defined(__linux__) &&      \
    defined(MADV_HUGEPAGE)
/// Makes an array ready after those ready already; returns its start, or
/// null where it cannot.
static char *addReadyArray() {
  char *start = prepareArray();
  if (!start)
    return nullptr;
  PreparedArrays &arrays = getPreparedArrays();
  std::lock_guard<std::mutex> lock(arrays.mutex);
  arrays.ready[arrays.readyCount++] = {start, kHugePageBytes};
  return start;
}

/// Makes arrays ready until there is one for each of `bytes` and writes
/// their pages up to `bytes` each, a page at a time, under the lock that
/// taking an array takes: an array taken meanwhile is left to the analysis,
/// which may have written to it.
static void writePreparedArrays(const PreparedBytes &bytes) {
  PreparedArrays &arrays = getPreparedArrays();
  size_t count = std::min(bytes.size(), kMostArraysPrepared);
  std::array<char *, kMostArraysPrepared> starts{};
  size_t known;
  {
    std::lock_guard<std::mutex> lock(arrays.mutex);
    known = std::min(count, arrays.readyCount);
    for (size_t index = 0; index < known; ++index)
      starts[index] = arrays.ready[index].start;
  }
  for (size_t index = known; index < count; ++index) {
    starts[index] = addReadyArray();
    if (!starts[index]) {
      count = index;
      break;
    }
  }
  for (size_t index = 0; index < count; ++index) {
    size_t rounded = std::min(llvm::alignTo(bytes[index], kHugePageBytes),
                              kPreparedArrayBytes);
    for (;;) {
      std::lock_guard<std::mutex> lock(arrays.mutex);
      auto *end = arrays.ready.begin() + arrays.readyCount;
      auto *array = std::find_if(arrays.ready.begin(), end,
                                 [&](const PreparedArray &ready) {
                                   return ready.start == starts[index];
                                 });
      if (array == end || array->writtenBytes >= rounded)
        break;
      char *page = array->start + array->writtenBytes;
      if (mprotect(page, kHugePageBytes, PROT_READ | PROT_WRITE) != 0 ||
          madvise(page, kHugePageBytes, MADV_HUGEPAGE) != 0)
        break;
      *reinterpret_cast<volatile char *>(page) = 0;
      array->writtenBytes += kHugePageBytes;
    }
  }
}

static void *prepareArrays(void *argument) {
  auto count = reinterpret_cast<uintptr_t>(argument);
  PreparedArrays &arrays = getPreparedArrays();
  for (uintptr_t i = 0; i < count; ++i)
    if (!addReadyArray())
      break;
  MeasurePreparedBytes measure;
  {
    std::lock_guard<std::mutex> lock(arrays.mutex);
    measure = std::move(arrays.measure);
  }
  std::optional<PreparedBytes> bytes;
  if (measure)
    bytes = measure(arrays.stopMeasuring);
  // Destroyed before the preparation's end is told, as what it holds may
  // belong to the preparation's caller.
  measure = nullptr;
  {
    std::lock_guard<std::mutex> lock(arrays.mutex);
    arrays.measuring = false;
  }
  arrays.measured.notify_all();
  if (bytes)
    writePreparedArrays(*bytes);
  std::lock_guard<std::mutex> lock(arrays.mutex);
  arrays.preparing = false;
  return nullptr;
}

LargeArrayPreparation::LargeArrayPreparation(MeasurePreparedBytes measure) {
  // Where runWithOwnHeap would run the analysis on the caller's thread, the
  // module is too small for its arrays to be mapped. Under a limit on the
  // address space, what is set aside could make another allocation fail.
  rlimit addressSpace;
  // Arrays are made ready only for the huge-page arrays to take.
  if (!fastPathEnabled(FastPath::PreparedArrays) ||
      !fastPathEnabled(FastPath::HugePageArrays) ||
      allocatesFromSmallMainHeap() ||
      getrlimit(RLIMIT_AS, &addressSpace) != 0 ||
      addressSpace.rlim_cur != RLIM_INFINITY)
    return;
  PreparedArrays &arrays = getPreparedArrays();
  uintptr_t count;
  {
    std::lock_guard<std::mutex> lock(arrays.mutex);
    if (arrays.preparing)
      return;
    count = kArraysReadyFirst - std::min(kArraysReadyFirst, arrays.readyCount);
    arrays.preparing = true;
    arrays.measure = std::move(measure);
    arrays.measuring = true;
    arrays.stopMeasuring = false;
  }
  pthread_t id;
  if (pthread_create(&id, nullptr, prepareArrays,
                     reinterpret_cast<void *>(count)) == 0) {
    pthread_detach(id);
    measures = true;
    return;
  }
  std::lock_guard<std::mutex> lock(arrays.mutex);
  arrays.preparing = false;
  arrays.measure = nullptr;
  arrays.measuring = false;
}

LargeArrayPreparation::~LargeArrayPreparation() {
  if (!measures)
    return;
  PreparedArrays &arrays = getPreparedArrays();
  arrays.stopMeasuring = true;
  std::unique_lock<std::mutex> lock(arrays.mutex);
  arrays.measured.wait(lock, [&] { return !arrays.measuring; });
}
#else
LargeArrayPreparation::LargeArrayPreparation(MeasurePreparedBytes) {}
LargeArrayPreparation::~LargeArrayPreparation() = default;
#endif

} // namespace hostoffload
