//===- Facts.h - where a value's host memory comes from ---------*- C++ -*-===//
//
// The lattice of the analysis. A value in host memory carries Facts: which
// starts reach it, through which arguments of its function the host memory
// came, and whether it is host memory outright or only if a slice it is made
// of turns out to be computed on. The walk only ever adds facts, and each
// part of the Facts grows a bounded number of times, which bounds how often a
// value is propagated again.
//
// The rules of the lattice, as FactTable implements them:
//
//  1. Join (`merge`) is the union of each part: the starts, the origins and
//     the slices; `unconditional` is the disjunction. Lists keep the items
//     first to arrive, so the result equals its operands' union as sets, in
//     either order, as long as no cap is reached.
//  2. Caps. Past kMaxStartsPerNode starts, `moreStarts` is set and the others
//     are dropped. Past kMaxOriginsPerNode origins, the value is `global`
//     (host memory for every caller). Past kMaxSlicesPerNode slices, the value
//     is `unconditional` and lists no slice. Each of these can only add
//     findings, never lose one.
//  3. Idempotence: joining a value with itself, or joining again facts
//     already joined in, gives the same facts (the same id), so the walk
//     stops.
//  4. Crossing calls: entering a callee keeps the starts and replaces origins
//     by the argument entered (`intoCallee`); a returned value gives the call
//     site's result the facts of the caller's operand, made conditional on
//     the callee's slices where the returned value is conditional
//     (`outOfCallee`); a value that is host whatever the caller passes
//     reaches every call site with its facts but the origins
//     (`outOfCalleeEverywhere`).
//  5. Slices: the result of a slice is host memory only on the condition that
//     this slice is computed on (`throughSlice`); host compute on a value
//     makes it host memory outright (`throughHostCompute`).
//
// Almost every value of a module shares one of a few fact sets, so Facts are
// interned: a node stores an id, and each operation above is a cached lookup
// of a pair of ids.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_FACTS_H
#define HOSTOFFLOAD_LIB_ANALYSIS_FACTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <utility>
#include <vector>

namespace hostoffload {

/// How many starts a value remembers; more are summarized as "more starts".
inline constexpr unsigned kMaxStartsPerNode = 4;
/// How many argument origins a value remembers; with more, it counts as host
/// for every caller, which can only add findings, never lose one.
inline constexpr unsigned kMaxOriginsPerNode = 8;
/// How many slices a value made of slices remembers; see Facts.
inline constexpr unsigned kMaxSlicesPerNode = 4;

/// Where a node's host memory comes from: the starts that reach it and the
/// arguments of its function it came through. Sets keep the first items to
/// arrive, up to a cap, so that each grows a bounded number of times.
///
/// A slice of host memory is special: XLA reads it into device memory unless
/// its result is computed on somewhere, so a value derived from a slice only
/// through data movement is host memory only if that slice turns out to be
/// computed on. Such a value lists the slice in `slices` and is not
/// `unconditional`.
struct Facts {
  /// Indices into HostOffloadReport::starts.
  llvm::SmallVector<unsigned, 2> starts;
  bool moreStarts = false;
  /// Arguments of the enclosing function through which host memory came.
  llvm::SmallVector<unsigned, 2> origins;
  /// Host whatever the callers of the enclosing function pass in.
  bool global = false;
  /// Host memory whether or not any slice is computed on.
  bool unconditional = true;
  /// Slices (ids of the walk) whose result this value is made of.
  llvm::SmallVector<unsigned, 1> slices;
};

/// Interned Facts, by id.
class FactTable {
public:
  const Facts &get(unsigned id) const { return facts[id]; }

  /// The facts of a start: host at every call site.
  unsigned forStart(unsigned startIndex);

  /// The facts of `into` with those of `from` added.
  unsigned merge(unsigned into, unsigned from) {
    if (into == from)
      return into;
    return mergeCache.lastOr({into, from},
                             [&] { return mergeDistinct(into, from); });
  }

  /// The starts of `from`, entering a callee through its argument
  /// `argument`.
  unsigned intoCallee(unsigned from, unsigned argument) {
    return calleeCache.lastOr({from, argument},
                              [&] { return findIntoCallee(from, argument); });
  }

  /// A callee's return value with facts `callee`, seen at a call site whose
  /// operand has facts `caller`: host memory that came through the argument
  /// is there exactly when the operand is.
  unsigned outOfCallee(unsigned callee, unsigned caller) {
    return returnCache.lastOr({callee, caller},
                              [&] { return findOutOfCallee(callee, caller); });
  }

  /// A callee's return value with facts `callee`, which is host memory
  /// whatever the caller passes (`global`), seen at every call site: the
  /// same facts but the origins, which number the callee's arguments and
  /// mean nothing at a call site. Host memory that came through an argument
  /// reaches the call sites it entered from by outOfCallee.
  unsigned outOfCalleeEverywhere(unsigned callee) {
    if (facts[callee].origins.empty())
      return callee;
    return everywhereCache.lastOr(
        {callee, 0}, [&] { return findOutOfCalleeEverywhere(callee); });
  }

  /// The result of slice `slice` of a value with facts `from`.
  unsigned throughSlice(unsigned from, unsigned slice) {
    return sliceCache.lastOr({from, slice},
                             [&] { return findThroughSlice(from, slice); });
  }

  /// The result of host compute on a value with facts `from`: the compute
  /// makes every slice the value is made of host compute too.
  unsigned throughHostCompute(unsigned from) {
    const Facts &operand = facts[from];
    if (operand.unconditional && operand.slices.empty())
      return from;
    return computeCache.lastOr({from, 0},
                               [&] { return makeUnconditional(from); });
  }

private:
  // The walk asks for nearly every use, and nearly always what the answer
  // above or the last answer gives, inline; the rest is out of line, where
  // the function of a lookup in a table does not weigh on every call.
  unsigned mergeDistinct(unsigned into, unsigned from);
  unsigned makeUnconditional(unsigned from);
  unsigned findIntoCallee(unsigned from, unsigned argument);
  unsigned findOutOfCallee(unsigned callee, unsigned caller);
  unsigned findOutOfCalleeEverywhere(unsigned callee);
  unsigned findThroughSlice(unsigned from, unsigned slice);

  /// The results of one operation, by its operands. Uses in a row mostly ask
  /// the same (the call sites of one callee, the ops of a chain), so the
  /// last answer is kept apart from the table.
  struct Cache {
    llvm::DenseMap<std::pair<unsigned, unsigned>, unsigned> results;
    std::pair<unsigned, unsigned> lastKey{~0u, ~0u};
    unsigned lastResult = 0;

    /// The last answer if `key` was asked last, else `find()`.
    template <typename Find>
    unsigned lastOr(std::pair<unsigned, unsigned> key, Find find) const {
      return key == lastKey ? lastResult : find();
    }
  };

  /// The result for `key`, which was not asked last, from the table or made
  /// by `makeFacts`.
  template <typename MakeFacts>
  unsigned cached(Cache &cache, std::pair<unsigned, unsigned> key,
                  MakeFacts makeFacts) {
    cache.lastKey = key;
    auto it = cache.results.find(key);
    if (it != cache.results.end())
      return cache.lastResult = it->second;
    unsigned id = intern(makeFacts());
    cache.results[key] = id;
    return cache.lastResult = id;
  }

  unsigned intern(Facts value);

  std::vector<Facts> facts;
  /// The ids of the facts interned, by `hashFacts` of each: the facts of
  /// almost every hash have one id.
  llvm::DenseMap<unsigned, llvm::SmallVector<unsigned, 1>> idsByHash;
  Cache mergeCache, calleeCache, returnCache, everywhereCache, sliceCache,
      computeCache;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_FACTS_H
