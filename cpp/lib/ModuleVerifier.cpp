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
// A fast path (hostoffload/FastPaths.h), `one-walk-verifier`, first checks
// the module in one walk that reports nothing (OneWalkVerifier below); only a
// module it does not prove valid is verified as above, which reports MLIR's
// first error.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/ModuleVerifier.h"

#include "hostoffload/FastPaths.h"

#include "Analysis/ModuleOps.h"
#include "Analysis/OpRules.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <bitset>
#include <memory>

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

/// The SymbolTable trait's checks of `table` (SymbolTable.cpp,
/// verifySymbolTable), with its users' symbols resolved in `table`.
LogicalResult verifySymbolTableOf(Operation *table) {
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

/// A module's verification in MLIR's order, after the module's own checks:
/// the ops of its body (those isolated from above in parallel, as MLIR's
/// verifier does), then its region traits: SymbolTable, and
/// IsolatedFromAbove, which can only fail for a module that has a parent.
LogicalResult verifyModuleBody(ModuleOp module) {
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
  if (failed(verifySymbolTableOf(module)))
    return failure();
  if (module->getParentOp() &&
      failed(OpTrait::impl::verifyIsIsolatedFromAbove(module)))
    return failure();
  return success();
}

#if HOSTOFFLOAD_FAST_PATHS
/// The ops a walk has taken, by address: a bit for every 8 bytes, in pages
/// of 1 MiB of addresses, which a walk in program order fills and tests in
/// the few pages it is in. MLIR's order of a block's ops
/// (Operation::isBeforeInBlock) costs another walk of them, and a hash set
/// of a million ops a cache miss for each.
class TakenOps {
public:
  void insert(const Operation *op) {
    auto address = reinterpret_cast<uintptr_t>(op);
    std::unique_ptr<Page> &page = pages[address >> kPageShift];
    if (!page)
      page = std::make_unique<Page>();
    page->set((address & kOffsetMask) >> kBitShift);
  }
  bool contains(const Operation *op) const {
    auto address = reinterpret_cast<uintptr_t>(op);
    auto it = pages.find(address >> kPageShift);
    return it != pages.end() &&
           it->second->test((address & kOffsetMask) >> kBitShift);
  }

private:
  static constexpr unsigned kPageShift = 20, kBitShift = 3;
  static constexpr uintptr_t kOffsetMask = (uintptr_t(1) << kPageShift) - 1;
  using Page = std::bitset<(size_t(1) << (kPageShift - kBitShift))>;
  llvm::DenseMap<uintptr_t, std::unique_ptr<Page>> pages;
};

/// What verifyModuleBody checks (MLIR's verifier of each op, Verifier.cpp
/// and the region traits of registered ops; the module's symbol uses), in
/// one walk of the ops in program order that also adds each op to
/// `collected`, if given: MLIR's verifier keeps a set of the ops it has seen,
/// and walks a function's ops again for the dominance of each operand and again
/// for its isolation from above. It emits nothing: it fails wherever MLIR's
/// verifier might fail, and on what it leaves to it (a region of several
/// blocks, an op with successors, a module with a parent).
class OneWalkVerifier {
public:
  OneWalkVerifier(ModuleOp module, ModuleOps *collected)
      : module(module), collected(collected), rules(module.getContext()) {}

  /// Whether the module is valid, every op added to `collected`, if given,
  /// if it is.
  bool verify();

private:
  /// A block being walked; the frames below it hold its ancestors.
  struct Frame {
    Block *block;
    Block::iterator next;
    /// The op of `block` taken last: the one being checked, or the one
    /// whose region the frames above hold.
    Operation *op;
    /// The lowest frame whose values the block's ops may use: the frames
    /// from it up are inside the innermost op isolated from above.
    size_t floor;
    /// Whether a value must be defined before its uses in `block`, as MLIR's
    /// DominanceInfo has it: the single block of an unregistered op's region
    /// and a graph region need not.
    bool ssaDominance;
    /// Whether the symbol users of `block` resolve in the module: not inside
    /// a nested symbol table, which verifies its own.
    bool moduleScope;
  };

  bool walk();
  bool verifyOp(Operation *op);
  bool dominates(Value value) const;
  bool enterRegion(Operation *op, unsigned from);

  ModuleOp module;
  ModuleOps *collected;
  OpRules rules;
  llvm::SmallVector<Frame, 8> frames;
  /// What is checked after the walk, once every op passed: the region
  /// invariants of registered ops, and the module's symbol uses.
  llvm::SmallVector<Operation *> withRegionInvariants, symbolUsers;
  TakenOps taken;
};

bool OneWalkVerifier::verify() {
  bool emitted = false;
  ScopedDiagnosticHandler quiet(module.getContext(), [&](Diagnostic &) {
    emitted = true;
    return success();
  });
  return walk() && !emitted;
}

bool OneWalkVerifier::walk() {
  if (module->getParentOp() || module->getNumRegions() != 1)
    return false;
  Operation *redefined;
  ModuleOps::Symbols symbols = ModuleOps::findSymbols(module, redefined);
  if (redefined || !enterRegion(module, 0))
    return false;
  while (!frames.empty()) {
    Frame &frame = frames.back();
    if (frame.next == frame.block->end()) {
      Region *region = frame.block->getParent();
      frames.pop_back();
      if (!enterRegion(region->getParentOp(), region->getRegionNumber() + 1))
        return false;
      continue;
    }
    Operation *op = &*frame.next++;
    frame.op = op;
    if (frame.ssaDominance)
      taken.insert(op);
    if (!verifyOp(op) || !enterRegion(op, 0))
      return false;
  }
  // An op's after those of the ops nested in it, as MLIR runs them.
  for (Operation *op : llvm::reverse(withRegionInvariants))
    if (failed(op->getName().getRegisteredInfo()->verifyRegionInvariants(op)))
      return false;
  RegisteredSymbolTables symbolTables(module, symbols);
  for (Operation *user : symbolUsers) {
    symbolTables.setUser(user);
    if (failed(llvm::cast<SymbolUserOpInterface>(user).verifySymbolUses(
            symbolTables)))
      return false;
  }
  if (collected)
    collected->setSymbols(std::move(symbols));
  return true;
}

/// MLIR's checks of `op` on entering and leaving it (Verifier.cpp), but for
/// the region invariants of a registered op, and the dominance of each of
/// its operands (DominanceInfo::properlyDominates).
bool OneWalkVerifier::verifyOp(Operation *op) {
  if (op->getNumSuccessors() != 0)
    return false;
  for (Value operand : op->getOperands())
    if (!operand || !dominates(operand))
      return false;
  for (NamedAttribute attr : op->getDiscardableAttrs())
    if (Dialect *dialect = attr.getNameDialect())
      if (failed(dialect->verifyOperationAttribute(op, attr)))
        return false;
  OperationName name = op->getName();
  if (std::optional<RegisteredOperationName> registered =
          name.getRegisteredInfo()) {
    if (failed(registered->verifyInvariants(op)))
      return false;
    // A func.func's only region invariant is its isolation from above, which
    // `dominates` checks.
    if (op->getNumRegions() != 0 && !llvm::isa<func::FuncOp>(op))
      withRegionInvariants.push_back(op);
  } else {
    Dialect *dialect = name.getDialect();
    if (dialect ? !dialect->allowsUnknownOperations()
                : !op->getContext()->allowsUnregisteredDialects())
      return false;
  }
  if (frames.back().moduleScope && llvm::isa<SymbolUserOpInterface>(op))
    symbolUsers.push_back(op);
  if (collected)
    collected->add(op, rules);
  return true;
}

/// Whether `value` dominates the op taken last, and is defined inside the
/// innermost op isolated from above around it.
bool OneWalkVerifier::dominates(Value value) const {
  Operation *definition = value.getDefiningOp();
  Block *block = definition ? definition->getBlock()
                            : llvm::cast<BlockArgument>(value).getOwner();
  size_t at = frames.size() - 1;
  while (frames[at].block != block) {
    if (at == frames.back().floor)
      return false;
    --at;
  }
  if (!definition)
    return true;
  const Frame &frame = frames[at];
  // An op may use its own result only in a block without SSA dominance, and
  // never inside its own regions.
  if (definition == frame.op)
    return at == frames.size() - 1 && !frame.ssaDominance;
  return !frame.ssaDominance || taken.contains(definition);
}

/// Pushes the frame of the first region of `op` from `from` on that has a
/// block, after MLIR's checks of the region on entering `op`; fails on what
/// MLIR might reject or this walk does not check.
bool OneWalkVerifier::enterRegion(Operation *op, unsigned from) {
  for (unsigned index = from; index < op->getNumRegions(); ++index) {
    Region &region = op->getRegion(index);
    if (region.empty())
      continue;
    if (!region.hasOneBlock())
      return false;
    Block &block = region.front();
    if (!block.hasNoPredecessors())
      return false;
    for (BlockArgument argument : block.getArguments())
      if (argument.getOwner() != &block)
        return false;
    if (!op->mightHaveTrait<OpTrait::NoTerminator>() &&
        (block.empty() ||
         !block.back().mightHaveTrait<OpTrait::IsTerminator>()))
      return false;
    bool registered = op->isRegistered();
    auto kinds = llvm::dyn_cast<RegionKindInterface>(op);
    // The module is isolated from above and holds the first frame.
    bool isolated = registered && op->hasTrait<OpTrait::IsIsolatedFromAbove>();
    size_t floor = isolated ? frames.size() : frames.back().floor;
    bool ssaDominance = registered && (!kinds || kinds.hasSSADominance(index));
    bool moduleScope = op == module || (frames.back().moduleScope &&
                                        !op->hasTrait<OpTrait::SymbolTable>());
    frames.push_back(
        {&block, block.begin(), nullptr, floor, ssaDominance, moduleScope});
    return true;
  }
  return true;
}
#endif

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
  if (collected)
    collected->reset();
  auto module = llvm::dyn_cast<ModuleOp>(op);
  if (!module)
    return verify(op);
  if (failed(verifyOpItself(module)))
    return failure();
#if HOSTOFFLOAD_FAST_PATHS
  if (fastPathEnabled(FastPath::OneWalkVerifier)) {
    // Collecting looks at every op again, wasted where the caller does not
    // take the ops (the C API's parse and verify).
    std::optional<ModuleOps> ops;
    if (OneWalkVerifier(module, collected ? &ops.emplace() : nullptr)
            .verify()) {
      if (collected)
        *collected = std::move(ops);
      return success();
    }
  }
#endif
  return verifyModuleBody(module);
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
