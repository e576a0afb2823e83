//===- ModuleOps.h - the ops the analysis starts from -----------*- C++ -*-===//
//
// One walk of the module finds what every part of the analysis looks up: the
// functions by name, the call sites, the custom calls, the writes into
// buffers, and how many values the walk may reach.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_MODULEOPS_H
#define HOSTOFFLOAD_LIB_ANALYSIS_MODULEOPS_H

#include "OpRules.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace hostoffload {

/// The `func.call` ops of the module, indexed by callee and by the function
/// they are in.
class CallSites {
public:
  /// A call site, and whether it is marked compute_on("device_host"): such a
  /// call consumes host memory, and is no caller for the walk.
  struct Entry {
    mlir::Operation *call;
    bool hostCompute;
  };

  /// Adds `call` of `callee`, inside `function` (null outside any). The
  /// calls of a function are added in a row.
  void add(mlir::Operation *call, mlir::StringAttr callee,
           mlir::Operation *function, bool hostCompute);

  /// The call sites of the function named `callee`, in program order.
  llvm::ArrayRef<Entry> of(mlir::StringAttr callee) const {
    auto it = byCallee.find(callee);
    if (it == byCallee.end())
      return {};
    return it->second;
  }

  /// A call inside a function, and the function it calls.
  struct Call {
    mlir::Operation *call;
    mlir::StringAttr callee;
  };

  /// The calls inside `function` in program order, but a call to the callee
  /// of the call before it: the call graph's edges, each at its first call
  /// of a run (a scanned or unrolled layer calls one function many times in
  /// a row). None if `function` is no func.func, or null.
  llvm::ArrayRef<Call> in(mlir::Operation *function) const {
    auto it = byFunction.find(function);
    if (it == byFunction.end())
      return {};
    return llvm::ArrayRef(functionCalls)
        .slice(it->second.first, it->second.second);
  }

  /// How many functions have calls inside.
  size_t getCallerCount() const { return byFunction.size(); }

private:
  llvm::DenseMap<mlir::StringAttr, llvm::SmallVector<Entry, 1>> byCallee;
  /// The calls of every function as `in` gives them, those of each function
  /// in a row: a module is walked a function at a time. By function, where
  /// its calls start in `functionCalls` and how many there are.
  std::vector<Call> functionCalls;
  llvm::DenseMap<mlir::Operation *, std::pair<size_t, size_t>> byFunction;
  /// The entries of the callee and of the function `add` saw last: calls in
  /// a row are mostly in one function, and mostly to one callee.
  mlir::StringAttr lastCallee;
  llvm::SmallVector<Entry, 1> *lastCalleeCalls = nullptr;
  mlir::Operation *lastFunction = nullptr;
  std::pair<size_t, size_t> *lastFunctionRange = nullptr;
};

/// The ops of a module the analysis looks up, each list in program order,
/// the symbols of its body, and the counts it sizes its tables by. Valid
/// while the module stays as it was when they were collected.
class ModuleOps {
public:
  /// An op of a symbol table's body that has a symbol name, and its place
  /// among those ops: the walk keeps what it learns of a function in tables
  /// indexed by that place.
  struct Symbol {
    mlir::Operation *op = nullptr;
    unsigned index = 0;
  };
  /// The ops of a symbol table's body that have a symbol name, by name: what
  /// mlir::SymbolTable holds.
  using Symbols = llvm::DenseMap<mlir::StringAttr, Symbol>;

  /// Walks `root` (a module) in program order, adding every op nested in it,
  /// and finds the symbols of its body.
  static ModuleOps collect(mlir::Operation *root, const OpRules &rules);

  /// The op of the module's body named `name`, null if there is none. Reads
  /// nothing of the op itself.
  mlir::Operation *lookupSymbol(mlir::StringAttr name) const {
    return symbols.lookup(name).op;
  }
  /// The symbol of the module's body named `name`, null if there is none.
  const Symbol *findSymbol(mlir::StringAttr name) const {
    auto it = symbols.find(name);
    return it == symbols.end() ? nullptr : &it->second;
  }
  /// How many ops of the module's body have a symbol name.
  size_t getSymbolCount() const { return symbols.size(); }
  /// The function of the module's body named `name`, if there is one.
  mlir::func::FuncOp lookupFunction(mlir::StringAttr name) const {
    return llvm::dyn_cast_or_null<mlir::func::FuncOp>(lookupSymbol(name));
  }

  const CallSites &getCallSites() const { return callSites; }
  /// The custom calls of the module.
  llvm::ArrayRef<mlir::Operation *> getCustomCalls() const {
    return customCalls;
  }
  /// The `stablehlo.dynamic_update_slice` ops of the module with a buffer, an
  /// update and one result.
  llvm::ArrayRef<mlir::Operation *> getDynamicUpdateSlices() const {
    return dynamicUpdateSlices;
  }

private:
  /// Adds `op`: the ops nested in the module are added once each, in
  /// program order (the pre-order of Operation::walk), with `rules` of the
  /// module's context.
  void add(mlir::Operation *op, const OpRules &rules);

  Symbols symbols;
  CallSites callSites;
  llvm::SmallVector<mlir::Operation *> customCalls;
  llvm::SmallVector<mlir::Operation *> dynamicUpdateSlices;
  /// The function of the calls in the block a call was added from last.
  mlir::Block *lastCallBlock = nullptr;
  mlir::Operation *lastCallFunction = nullptr;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_MODULEOPS_H
