//===- ModuleVerifier.cpp - MLIR's verifier, symbols resolved -------------===//
//
// `mlir::verify` of a module is: the module's own checks on entering it, every
// op inside it, then the module's region traits. Of these only the SymbolTable
// trait looks symbols up, through SymbolTable::getNearestSymbolTable, which
// returns nothing above an unregistered op with one region. So this verifier
// does the module's own checks here (as MLIR's Verifier.cpp does them), hands
// each op of the module's body to `mlir::verify` (which never looks a symbol
// up outside a symbol table it verifies), and does the SymbolTable trait's
// checks (SymbolTable.cpp, verifySymbolTable) here, with a symbol table
// collection that resolves in the module. Every symbol user's own
// `verifySymbolUses` still runs, so a `func.call` to a missing function, or
// with the wrong types, fails with MLIR's message at the call.
//
// Where the Shardy dialect is registered (jaxlib, XLA), its ops are known not
// to be symbol tables and MLIR resolves such calls in the module too.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/ModuleVerifier.h"

#include "Analysis/ModuleOps.h"
#include "Analysis/OpRules.h"
#include "Analysis/PreorderOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace hostoffload {

namespace {

/// The symbol tables seen by the symbol users of one symbol table op,
/// `scope`. MLIR's collection finds the nearest symbol table by climbing from
/// the user and stops at an unregistered op with a region; this one skips such
/// ops, which have no traits and so are not symbol tables to MLIR either.
/// The symbols of `scope` itself are those the verifier found in its body.
class RegisteredSymbolTables : public SymbolTableCollection {
public:
  RegisteredSymbolTables(Operation *scope, const ModuleOps::Symbols &symbols)
      : scope(scope), scopeSymbols(symbols) {}

  using SymbolTableCollection::lookupNearestSymbolFrom;

  Operation *lookupNearestSymbolFrom(Operation *from,
                                     StringAttr symbol) override {
    Operation *table = getNearestSymbolTable(from);
    if (table == scope)
      return scopeSymbols.lookup(symbol).op;
    return table ? lookupSymbolIn(table, symbol) : nullptr;
  }

  Operation *lookupNearestSymbolFrom(Operation *from,
                                     SymbolRefAttr symbol) override {
    Operation *table = getNearestSymbolTable(from);
    if (table == scope && symbol.getNestedReferences().empty())
      return scopeSymbols.lookup(symbol.getRootReference()).op;
    return table ? lookupSymbolIn(table, symbol) : nullptr;
  }

  /// The op whose symbol uses are being verified.
  void setUser(Operation *op) { user = op; }

private:
  Operation *getNearestSymbolTable(Operation *from) const {
    if (from->hasTrait<OpTrait::SymbolTable>())
      return from;
    // The walk of `scope` enters no nested symbol table, so `scope` is the
    // nearest one of every user it visits: no need to climb, which would cost
    // the nesting depth per call.
    if (from == user)
      return scope;
    while ((from = from->getParentOp()))
      if (from->hasTrait<OpTrait::SymbolTable>())
        return from;
    return nullptr;
  }

  Operation *scope;
  const ModuleOps::Symbols &scopeSymbols;
  Operation *user = nullptr;
};

/// What MLIR's verifier checks on entering `op` and its blocks, without the
/// ops inside them (Verifier.cpp, verifyOnEntrance and verifyOnExit of an op
/// and of a block): attributes of loaded dialects, the op's invariants, the
/// shape of its regions and blocks.
LogicalResult verifyOpItself(Operation *op) {
  for (Value operand : op->getOperands())
    if (!operand)
      return op->emitError("null operand found");
  for (NamedAttribute attr : op->getDiscardableAttrs())
    if (Dialect *dialect = attr.getNameDialect())
      if (failed(dialect->verifyOperationAttribute(op, attr)))
        return failure();
  std::optional<RegisteredOperationName> registered =
      op->getName().getRegisteredInfo();
  if (registered && failed(registered->verifyInvariants(op)))
    return failure();
  auto kinds = llvm::dyn_cast<RegionKindInterface>(op);
  for (auto [index, region] : llvm::enumerate(op->getRegions())) {
    if (region.empty())
      continue;
    RegionKind kind = kinds ? kinds.getRegionKind(index) : RegionKind::SSACFG;
    if (kind == RegionKind::Graph && !region.hasOneBlock())
      return op->emitOpError("expects graph region #")
             << index << " to have 0 or 1 blocks";
    if (!region.front().hasNoPredecessors())
      return op->emitError("entry block of region may not have predecessors");
    for (Block &block : region) {
      for (BlockArgument argument : block.getArguments())
        if (argument.getOwner() != &block)
          return emitError(argument.getLoc(), "block argument not owned by "
                                              "block");
      for (Operation &nested : block)
        if (nested.getNumSuccessors() != 0 && &nested != &block.back())
          return nested.emitError("operation with block successors must "
                                  "terminate its parent block");
      for (Block *successor : block.getSuccessors())
        if (successor->getParent() != &region)
          return block.back().emitOpError("branching to block of a different "
                                          "region");
    }
  }
  return success();
}

/// The symbol uses verifySymbolTableOf checks, in one walk of every op of
/// `table` in program order that also adds each op to `collected`: the
/// analysis that follows the verifier looks these ops up, and another walk of
/// a million ops would wait for their memory again. MLIR checks the uses in
/// another order (a stack of regions) and reports the first that fails, so
/// what a use reports is held back here; fails, emitting nothing, if any use
/// fails, and the caller checks the uses again in MLIR's order.
LogicalResult verifySymbolUsesCollecting(Operation *table,
                                         const ModuleOps::Symbols &symbols,
                                         ModuleOps &collected) {
  OpRules rules(table->getContext());
  RegisteredSymbolTables symbolTables(table, symbols);
  llvm::SmallVector<Diagnostic> held;
  bool usesVerified = true;
  {
    ScopedDiagnosticHandler hold(table->getContext(), [&](Diagnostic &diag) {
      held.push_back(std::move(diag));
      return success();
    });
    // The depths of the nested symbol tables around the op: their uses are
    // their own scope's, which mlir::verify checked.
    llvm::SmallVector<size_t> nestedTables;
    PreorderOps ops(table);
    while (Operation *op = ops.next()) {
      collected.add(op, rules);
      size_t depth = ops.getDepth();
      while (!nestedTables.empty() && depth <= nestedTables.back())
        nestedTables.pop_back();
      if (!nestedTables.empty())
        continue;
      if (auto user = llvm::dyn_cast<SymbolUserOpInterface>(op)) {
        symbolTables.setUser(op);
        // The uses are checked again in MLIR's order, and what was
        // collected is dropped.
        if (failed(user.verifySymbolUses(symbolTables))) {
          usesVerified = false;
          break;
        }
      }
      if (op->hasTrait<OpTrait::SymbolTable>())
        nestedTables.push_back(depth);
    }
  }
  if (!usesVerified)
    return failure();
  for (Diagnostic &diag : held)
    table->getContext()->getDiagEngine().emit(std::move(diag));
  return success();
}

/// The SymbolTable trait's checks of `table` (SymbolTable.cpp,
/// verifySymbolTable), with its users' symbols resolved in `table`; adds
/// every op of `table` to `collected`, if given, when they pass.
LogicalResult verifySymbolTableOf(Operation *table, ModuleOps *collected) {
  if (table->getNumRegions() != 1)
    return table->emitOpError()
           << "Operations with a 'SymbolTable' must have exactly one region";
  if (!llvm::hasSingleElement(table->getRegion(0)))
    return table->emitOpError()
           << "Operations with a 'SymbolTable' must have exactly one block";

  Operation *redefined;
  ModuleOps::Symbols symbols = ModuleOps::findSymbols(table, redefined);
  if (redefined) {
    auto name =
        redefined->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    return redefined->emitError()
        .append("redefinition of symbol named '", name.getValue(), "'")
        .attachNote(symbols.lookup(name).op->getLoc())
        .append("see existing symbol definition here");
  }

  if (collected &&
      succeeded(verifySymbolUsesCollecting(table, symbols, *collected))) {
    collected->setSymbols(std::move(symbols));
    return success();
  }
  // MLIR's order of the uses, for MLIR's first error.
  RegisteredSymbolTables symbolTables(table, symbols);
  llvm::SmallVector<Region *> pending{&table->getRegion(0)};
  while (!pending.empty()) {
    for (Operation &op : pending.pop_back_val()->getOps()) {
      if (auto user = llvm::dyn_cast<SymbolUserOpInterface>(&op)) {
        symbolTables.setUser(&op);
        if (failed(user.verifySymbolUses(symbolTables)))
          return failure();
      }
      // A nested symbol table is its own scope; mlir::verify checked it.
      if (op.hasTrait<OpTrait::SymbolTable>())
        continue;
      for (Region &region : op.getRegions())
        pending.push_back(&region);
    }
  }
  return success();
}

/// A module's verification in MLIR's order: the module itself, the ops of its
/// body (those isolated from above in parallel, as MLIR's verifier does), then
/// its region traits: SymbolTable, and IsolatedFromAbove, which can only fail
/// for a module that has a parent.
LogicalResult verifyModuleOp(ModuleOp module, ModuleOps *collected) {
  if (failed(verifyOpItself(module)))
    return failure();
  llvm::SmallVector<Operation *> isolated;
  for (Operation &op : *module.getBody()) {
    if (op.hasTrait<OpTrait::IsIsolatedFromAbove>())
      isolated.push_back(&op);
    else if (failed(verify(&op)))
      return failure();
  }
  if (failed(failableParallelForEach(module.getContext(), isolated,
                                     [](Operation *op) { return verify(op); })))
    return failure();
  if (failed(verifySymbolTableOf(module, collected)))
    return failure();
  if (module->getParentOp() &&
      failed(OpTrait::impl::verifyIsIsolatedFromAbove(module)))
    return failure();
  return success();
}

struct ModuleVerifierPass
    : public PassWrapper<ModuleVerifierPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ModuleVerifierPass)

  llvm::StringRef getArgument() const override { return "host-offload-verify"; }
  llvm::StringRef getName() const override { return "HostOffloadVerifier"; }
  llvm::StringRef getDescription() const override {
    return "MLIR's verifier, with symbols resolved in the module";
  }

  void runOnOperation() override {
    markAllAnalysesPreserved();
    if (getCachedAnalysis<VerifiedModule>())
      return;
    std::optional<ModuleOps> collected;
    if (failed(verifyModule(getOperation(), &collected))) {
      signalPassFailure();
      return;
    }
    getAnalysis<VerifiedModule>().setOps(std::move(collected));
  }
};

} // namespace

LogicalResult verifyModule(Operation *op, std::optional<ModuleOps> *collected) {
  auto module = llvm::dyn_cast<ModuleOp>(op);
  if (!module)
    return verify(op);
  if (!collected)
    return verifyModuleOp(module, nullptr);
  ModuleOps &ops = collected->emplace();
  if (succeeded(verifyModuleOp(module, &ops)))
    return success();
  collected->reset();
  return failure();
}

VerifiedModule::VerifiedModule(Operation *) {}
VerifiedModule::~VerifiedModule() = default;

void VerifiedModule::setOps(std::optional<ModuleOps> collected) {
  if (collected)
    ops = std::make_unique<ModuleOps>(std::move(*collected));
}

std::unique_ptr<Pass> createModuleVerifierPass() {
  return std::make_unique<ModuleVerifierPass>();
}

} // namespace hostoffload
