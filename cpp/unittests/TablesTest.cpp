//===- TablesTest.cpp - the node and path tables -------------------------===//
//
// The node and path tables (NodeTable.h) on values made for the test.
//
//===----------------------------------------------------------------------===//

#include "UnitTest.h"

#include "NodeTable.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/MathExtras.h"

#include <vector>

using namespace mlir;
using namespace hostoffload;

namespace hostoffload::unittest {

/// Values to key the node table with: the results of ops of an unregistered
/// dialect in one block.
class Values {
public:
  Values(MLIRContext &context, unsigned count) {
    OpBuilder builder(&context);
    builder.setInsertionPointToEnd(&block);
    OperationState state(UnknownLoc::get(&context), "test.value");
    state.addTypes(builder.getI32Type());
    for (unsigned i = 0; i < count; ++i)
      values.push_back(builder.create(state)->getResult(0));
  }

  std::vector<Value> values;

private:
  Block block;
};

void testNodeTable(MLIRContext &context) {
  Group group("node table");
  Values made(context, 3);
  Value first = made.values[0], second = made.values[1];
  NodeTable nodes;
  check(!nodes.firstNodeOf(first), "an empty table finds no node");
  bool created;
  unsigned id = nodes.getOrCreate(first, 0, created);
  check(created && id == 0 && nodes.size() == 1, "a new value gets node 0");
  check(nodes.getOrCreate(first, 0, created) == id && !created,
        "the same value and path find the same node");
  check(nodes.firstNodeOf(first) == id, "the value finds its first node");
  check(!nodes.firstNodeOf(second), "another value has no node");

  unsigned atOne = nodes.getOrCreate(first, 1, created);
  unsigned atTwo = nodes.getOrCreate(first, 2, created);
  check(created && atOne != id && atTwo != atOne,
        "each path of a value gets its own node");
  check(nodes.firstNodeOf(first) == id, "the first node stays first");
  check(nodes.nextPathNode(id) == atOne && nodes.nextPathNode(atOne) == atTwo &&
            !nodes.nextPathNode(atTwo),
        "the paths of a value are chained in the order they came");
  check(nodes.getOrCreate(first, 1, created) == atOne && !created,
        "a path already there is found");
  check(nodes[atTwo].value == first && nodes[atTwo].pathId == 2,
        "a node keeps its value and path");
  check(nodes.getOrCreate(second, 1, created) == 3 && created &&
            nodes.firstNodeOf(second) == 3,
        "another value's first node may be at any path");
}

void testPathTable(MLIRContext &context) {
  Group group("path table");
  PathTable paths;
  check(paths.intern({}) == 0 && paths.get(0).empty(),
        "path 0 is the whole value");
  unsigned id = paths.intern({1, 2});
  check(paths.intern({1, 2}) == id && id != 0, "equal paths are interned once");
  check(paths.intern({2, 1}) != id, "the order of indices matters");
  check(paths.get(id) == llvm::ArrayRef<int64_t>({1, 2}),
        "a path keeps its indices");

  Type i32 = IntegerType::get(&context, 32);
  Type inner = TupleType::get(&context, {i32, i32});
  Type outer = TupleType::get(&context, {inner, i32});
  check(PathTable::clampToType(outer, {0, 1}).size() == 2,
        "a path into the type is kept");
  check(PathTable::clampToType(outer, {0, 1, 0}).size() == 2,
        "indices past a tensor are dropped");
  check(PathTable::clampToType(outer, {2}).empty() &&
            PathTable::clampToType(outer, {-1}).empty(),
        "an element the tuple lacks is the whole tuple");
  check(PathTable::clampToType(i32, {0}).empty(), "a tensor has no elements");
}

} // namespace hostoffload::unittest
