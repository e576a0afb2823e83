//===- OpBitSet.h - a set of ops, one bit each ------------------*- C++ -*-===//
//
// A set of ops kept as one bit for every 64 bytes of memory, the size of an
// mlir::Operation: no two ops share a bit. The bits of each 2 MiB of memory
// are a block of 4 KiB, made when the first op in it is added. Ops made one
// after another sit next to each other in memory, so adding ops in program
// order sets bits next to each other in one block, where a hash table writes
// a cache line at a random place per op.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_OPBITSET_H
#define HOSTOFFLOAD_LIB_ANALYSIS_OPBITSET_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Compiler.h"

#include <array>
#include <cstdint>
#include <memory>

namespace hostoffload {

class OpBitSet {
public:
  /// Adds `op`; returns whether it was not in the set yet.
  bool insert(mlir::Operation *op) {
    auto address = reinterpret_cast<uintptr_t>(op);
    uintptr_t region = address >> kRegionShift;
    if (LLVM_UNLIKELY(region != lastRegion)) {
      lastRegion = region;
      std::unique_ptr<Block> &block = blocks[region];
      if (!block)
        block = std::make_unique<Block>();
      lastBlock = block.get();
    }
    size_t bit = (address >> kOpShift) & (kBitsPerBlock - 1);
    uint64_t mask = uint64_t(1) << (bit % 64);
    uint64_t &word = (*lastBlock)[bit / 64];
    bool added = !(word & mask);
    word |= mask;
    return added;
  }

private:
  static constexpr unsigned kOpShift = 6, kRegionShift = 21;
  static_assert(sizeof(mlir::Operation) >= (size_t(1) << kOpShift),
                "two ops must not share a bit");
  static constexpr size_t kBitsPerBlock = size_t(1)
                                          << (kRegionShift - kOpShift);
  /// Value-initialized: all bits clear.
  using Block = std::array<uint64_t, kBitsPerBlock / 64>;

  llvm::DenseMap<uintptr_t, std::unique_ptr<Block>> blocks;
  /// The region of memory `insert` added an op in last, and its block; at
  /// first a region no address is in.
  uintptr_t lastRegion = ~uintptr_t(0);
  Block *lastBlock = nullptr;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_OPBITSET_H
