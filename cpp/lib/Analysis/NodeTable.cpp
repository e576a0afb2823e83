//===- NodeTable.cpp - the values the walk reaches ------------------------===//

#include "NodeTable.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace hostoffload {

PathTable::PathTable() {
  paths.emplace_back();
  ids[llvm::ArrayRef<int64_t>()] = 0;
}

unsigned PathTable::intern(llvm::ArrayRef<int64_t> path) {
  auto it = ids.find(path);
  if (it != ids.end())
    return it->second;
  int64_t *storage = allocator.Allocate<int64_t>(path.size());
  llvm::copy(path, storage);
  llvm::ArrayRef<int64_t> stored(storage, path.size());
  unsigned id = paths.size();
  paths.push_back(stored);
  ids[stored] = id;
  return id;
}

llvm::ArrayRef<int64_t> PathTable::clampToType(Type type,
                                               llvm::ArrayRef<int64_t> path) {
  size_t length = 0;
  for (int64_t index : path) {
    auto tuple = llvm::dyn_cast<TupleType>(type);
    if (!tuple || index < 0 || index >= static_cast<int64_t>(tuple.size()))
      break;
    type = tuple.getType(index);
    ++length;
  }
  return path.take_front(length);
}

unsigned NodeTable::getOrCreateAtOtherPath(unsigned first, unsigned pathId,
                                           bool &created) {
  unsigned id = first;
  created = false;
  while (std::optional<unsigned> next = nextPathNode(id)) {
    id = *next;
    if (nodes[id].pathId == pathId)
      return id;
  }
  created = true;
  mlir::Value value = nodes[first].value;
  unsigned newId = nodes.size();
  nextPathNodes[id] = newId;
  nodes.emplace_back(value, pathId);
  return newId;
}

} // namespace hostoffload
