//===- LargeArrayAllocator.h - the analysis's memory ------------*- C++ -*-===//
//
// The analysis writes its tables into memory the process has not touched
// before, and on the project's machine the first write to each 4 KiB page
// costs about 2 us in the kernel, up to a fifth of a check of a million-op
// module. Arrays of 1 MiB or more are therefore mapped on 2 MiB boundaries
// and offered to the kernel for transparent huge pages, where one fault maps
// 2 MiB. Elsewhere, and for smaller arrays, they come from `operator new`,
// from a heap of the analysis's own (`runWithOwnHeap`).
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_LARGEARRAYALLOCATOR_H
#define HOSTOFFLOAD_LIB_ANALYSIS_LARGEARRAYALLOCATOR_H

#include "llvm/ADT/FunctionExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <atomic>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace hostoffload {

/// Returns `bytes` of memory aligned for any scalar type.
void *allocateLargeArray(size_t bytes);

/// Frees memory of `allocateLargeArray(bytes)` or
/// `allocateZeroedLargeArray(bytes)`.
void deallocateLargeArray(void *memory, size_t bytes);

/// Returns `bytes` of zeroed memory aligned for any scalar type. A large
/// array is mapped, and the kernel's zero pages are not written again: a
/// table mostly left empty costs neither the time to clear it nor memory
/// for the pages nothing is written to.
void *allocateZeroedLargeArray(size_t bytes);

/// Whether `allocateZeroedLargeArray(bytes)` maps its array, so that making
/// it costs nothing for the pages nothing is written to.
bool isMappedZeroedArray(size_t bytes);

/// The most arrays a `LargeArrayPreparation` makes ready.
inline constexpr size_t kMostArraysPrepared = 5;

/// For each of the first arrays an analysis maps, in the order it maps them,
/// how many of its bytes a `LargeArrayPreparation` writes; its first huge
/// page is written where this is less.
using PreparedBytes = llvm::SmallVector<size_t, kMostArraysPrepared>;

/// Tells a `LargeArrayPreparation` what to write: runs on the preparation's
/// thread, and returns nothing where `stop` was set before it could tell.
using MeasurePreparedBytes = llvm::unique_function<std::optional<PreparedBytes>(
    const std::atomic<bool> &stop)>;

/// While it lives, a thread of its own makes ready address space for the
/// first two large arrays of the next analysis, each with its first huge page
/// written, then runs `measure`, makes ready as many arrays as it lists and
/// writes as many bytes of each as it asks. The kernel's fault and clearing
/// of a 2 MiB page take about 0.2 ms on the project's machine, at times far
/// longer (a check of 32 ms took up to 0.39 s where its pages were fresh),
/// and the analysis of a large module writes many; made where a module is
/// verified before its analysis, which leaves the other core idle. Does
/// nothing where the module is small enough for runWithOwnHeap to run the
/// analysis on the caller's thread, whose arrays are not mapped, or where a
/// preparation's thread still runs. Arrays made ready and not taken are kept
/// for the next analysis.
class LargeArrayPreparation {
public:
  explicit LargeArrayPreparation(MeasurePreparedBytes measure);
  /// Asks `measure` to stop and waits until it has returned, so that what it
  /// reads may change once the preparation is destroyed.
  ~LargeArrayPreparation();
  LargeArrayPreparation(const LargeArrayPreparation &) = delete;
  LargeArrayPreparation &operator=(const LargeArrayPreparation &) = delete;

private:
  /// Whether this preparation started `measure`.
  bool measures = false;
};

/// Runs `work` on a thread of its own and waits for it to end, so that what
/// `work` allocates comes from a heap the parser's freed memory is not in.
/// After parsing a module, glibc's main heap holds a chunk for every value
/// name the parser freed (a million at a million ops), and the first
/// allocations that miss its caches sort them into bins: 0.1-0.3 s of the
/// first check of such a module (docs/performance.md). A new thread
/// allocates from an arena of its own. `work` runs here instead where the
/// caller is the process's first thread and glibc's main heap has grown by
/// less than 16 MiB since the library was loaded (a parsed model of ~50k ops):
/// sorting what so small a heap can hold costs less than the thread and its
/// fresh pages. It runs here too where glibc is not the C library or no
/// thread can be started. The thread's stack is as large as glibc makes any
/// thread's: the main thread's limit (RLIMIT_STACK). It starts on the
/// caller's CPU, and may then run on any the caller may.
void runWithOwnHeap(llvm::function_ref<void()> work);

/// A standard allocator for the analysis's large arrays.
template <typename T> struct LargeArrayAllocator {
  using value_type = T;

  LargeArrayAllocator() = default;
  template <typename U> LargeArrayAllocator(const LargeArrayAllocator<U> &) {}

  T *allocate(size_t count) {
    return static_cast<T *>(allocateLargeArray(count * sizeof(T)));
  }
  void deallocate(T *array, size_t count) {
    deallocateLargeArray(array, count * sizeof(T));
  }

  template <typename U> bool operator==(const LargeArrayAllocator<U> &) const {
    return true;
  }
  template <typename U> bool operator!=(const LargeArrayAllocator<U> &) const {
    return false;
  }
};

/// A vector whose storage comes from `LargeArrayAllocator`.
template <typename T>
using LargeVector = std::vector<T, LargeArrayAllocator<T>>;

/// A fixed-size array of `T` whose elements start as all zero bytes, which
/// must be a valid `T` (a trivial type): from `allocateZeroedLargeArray`.
template <typename T> class ZeroedLargeArray {
  static_assert(std::is_trivially_copyable_v<T> &&
                    std::is_trivially_destructible_v<T>,
                "zero bytes must make a T");

public:
  ZeroedLargeArray() = default;
  explicit ZeroedLargeArray(size_t size)
      : elements(static_cast<T *>(allocateZeroedLargeArray(size * sizeof(T)))),
        count(size) {}
  ZeroedLargeArray(ZeroedLargeArray &&other)
      : elements(std::exchange(other.elements, nullptr)),
        count(std::exchange(other.count, 0)) {}
  ZeroedLargeArray &operator=(ZeroedLargeArray &&other) {
    std::swap(elements, other.elements);
    std::swap(count, other.count);
    return *this;
  }
  ~ZeroedLargeArray() {
    if (elements)
      deallocateLargeArray(elements, count * sizeof(T));
  }

  size_t size() const { return count; }
  bool empty() const { return count == 0; }
  T &operator[](size_t index) { return elements[index]; }
  const T &operator[](size_t index) const { return elements[index]; }
  T *begin() { return elements; }
  T *end() { return elements + count; }

private:
  T *elements = nullptr;
  size_t count = 0;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_LARGEARRAYALLOCATOR_H
