//===- PreorderOps.h - the ops of a module without recursion ----*- C++ -*-===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_PREORDEROPS_H
#define HOSTOFFLOAD_LIB_ANALYSIS_PREORDEROPS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstddef>
#include <utility>

namespace hostoffload {

/// The ops nested in an op, in the pre-order Operation::walk visits them, but
/// with a stack of the blocks still being walked instead of recursion: the top
/// is the rest of the innermost block, and an op's regions go on top of it
/// once the op is taken. Taking an op calls no callback, and nothing recurses
/// on the nesting of the program.
class PreorderOps {
public:
  explicit PreorderOps(mlir::Operation *root) { enterRegions(root); }

  /// The next op, whose regions are walked next; null once all were taken.
  mlir::Operation *next() {
    while (!blocks.empty()) {
      auto &[at, end] = blocks.back();
      if (at == end) {
        blocks.pop_back();
        continue;
      }
      mlir::Operation *op = &*at++;
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

  llvm::SmallVector<std::pair<mlir::Block::iterator, mlir::Block::iterator>, 8>
      blocks;
  size_t depth = 0;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_PREORDEROPS_H
