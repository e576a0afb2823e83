//===- PreorderOps.h - the ops of a module without recursion ----*- C++ -*-===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_PREORDEROPS_H
#define HOSTOFFLOAD_LIB_ANALYSIS_PREORDEROPS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstddef>
#include <cstdint>
#include <utility>

namespace hostoffload {

/// The ops nested in an op, in the pre-order Operation::walk visits them, but
/// with a stack of the blocks still being walked instead of recursion: the top
/// is the rest of the innermost block, and an op's regions go on top of it
/// once the op is taken. Taking an op calls no callback, and nothing recurses
/// on the nesting of the program.
class PreorderOps {
public:
  explicit PreorderOps(mlir::Operation *root)
      : previousOp(reinterpret_cast<intptr_t>(root)) {
    enterRegions(root);
  }

  /// The next op, whose regions are walked next; null once all were taken.
  mlir::Operation *next() {
    while (!blocks.empty()) {
      auto &[at, end] = blocks.back();
      if (at == end) {
        blocks.pop_back();
        continue;
      }
      mlir::Operation *op = &*at++;
      // Following the ops waits for the memory of each; they mostly lie a
      // stride apart in the order walked (in program order, or against it
      // for ops nested in regions, which the parser makes after their
      // contents), so the op that many strides on is fetched meanwhile (an
      // address that misses is fetched for nothing).
      auto address = reinterpret_cast<intptr_t>(op);
      __builtin_prefetch(reinterpret_cast<const void *>(
          address + kOpsAhead * (address - previousOp)));
      previousOp = address;
      depth = blocks.size();
      if (op->getNumRegions() != 0)
        enterRegions(op);
      return op;
    }
    return nullptr;
  }

  /// How many blocks the op taken last is nested in, its own included: the
  /// ops after an op in its block have its depth, the ops inside it more.
  size_t getDepth() const { return depth; }

private:
  void enterRegions(mlir::Operation *op) {
    for (mlir::Region &region : llvm::reverse(op->getRegions()))
      for (mlir::Block &block : llvm::reverse(region))
        blocks.push_back({block.begin(), block.end()});
  }

  static constexpr intptr_t kOpsAhead = 8;
  llvm::SmallVector<std::pair<mlir::Block::iterator, mlir::Block::iterator>, 8>
      blocks;
  intptr_t previousOp;
  size_t depth = 0;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_PREORDEROPS_H
