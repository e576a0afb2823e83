//===- Facts.cpp - where a value's host memory comes from -----------------===//

#include "Facts.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"

namespace hostoffload {

namespace {

/// Adds to `into` the `items` it lacks while it has fewer than `cap`; sets
/// `overflow` when one is left out, or when `itemsOverflow` is set.
void addCapped(llvm::SmallVectorImpl<unsigned> &into, bool &overflow,
               llvm::ArrayRef<unsigned> items, bool itemsOverflow,
               unsigned cap) {
  for (unsigned item : items) {
    if (llvm::is_contained(into, item))
      continue;
    if (into.size() < cap)
      into.push_back(item);
    else
      overflow = true;
  }
  overflow |= itemsOverflow;
}

/// Past the cap a value counts as host memory outright, which can only add
/// findings, never lose one.
void addSlices(Facts &into, llvm::ArrayRef<unsigned> slices) {
  bool overflow = false;
  addCapped(into.slices, overflow, slices, false, kMaxSlicesPerNode);
  if (overflow) {
    into.unconditional = true;
    into.slices.clear();
  }
}

} // namespace

unsigned FactTable::forStart(unsigned startIndex) {
  Facts start;
  start.starts.push_back(startIndex);
  start.global = true;
  return intern(std::move(start));
}

unsigned FactTable::mergeDistinct(unsigned into, unsigned from) {
  return cached(mergeCache, {into, from}, [&] {
    Facts merged = facts[into];
    const Facts &added = facts[from];
    addCapped(merged.starts, merged.moreStarts, added.starts, added.moreStarts,
              kMaxStartsPerNode);
    addCapped(merged.origins, merged.global, added.origins, added.global,
              kMaxOriginsPerNode);
    merged.unconditional |= added.unconditional;
    addSlices(merged, added.slices);
    return merged;
  });
}

unsigned FactTable::findIntoCallee(unsigned from, unsigned argument) {
  return cached(calleeCache, {from, argument}, [&] {
    Facts entering;
    entering.starts = facts[from].starts;
    entering.moreStarts = facts[from].moreStarts;
    entering.origins.push_back(argument);
    return entering;
  });
}

unsigned FactTable::findOutOfCallee(unsigned callee, unsigned caller) {
  return cached(returnCache, {callee, caller}, [&] {
    Facts returned = facts[caller];
    const Facts &inside = facts[callee];
    if (!inside.unconditional) {
      returned.unconditional = false;
      returned.slices.clear();
    }
    addSlices(returned, inside.slices);
    return returned;
  });
}

unsigned FactTable::findOutOfCalleeEverywhere(unsigned callee) {
  return cached(everywhereCache, {callee, 0}, [&] {
    Facts returned = facts[callee];
    returned.origins.clear();
    return returned;
  });
}

unsigned FactTable::findThroughSlice(unsigned from, unsigned slice) {
  return cached(sliceCache, {from, slice}, [&] {
    Facts sliced = facts[from];
    sliced.unconditional = false;
    sliced.slices.assign({slice});
    return sliced;
  });
}

unsigned FactTable::makeUnconditional(unsigned from) {
  return cached(computeCache, {from, 0}, [&] {
    Facts computed = facts[from];
    computed.unconditional = true;
    computed.slices.clear();
    return computed;
  });
}

/// Equal facts hash alike; the two largest keys are DenseMap's own.
static unsigned hashFacts(const Facts &value) {
  llvm::hash_code hash = llvm::hash_combine(
      llvm::hash_combine_range(value.starts.begin(), value.starts.end()),
      value.moreStarts,
      llvm::hash_combine_range(value.origins.begin(), value.origins.end()),
      value.global, value.unconditional,
      llvm::hash_combine_range(value.slices.begin(), value.slices.end()));
  return static_cast<unsigned>(static_cast<size_t>(hash)) >> 1;
}

static bool equalFacts(const Facts &left, const Facts &right) {
  return left.starts == right.starts && left.moreStarts == right.moreStarts &&
         left.origins == right.origins && left.global == right.global &&
         left.unconditional == right.unconditional &&
         left.slices == right.slices;
}

unsigned FactTable::intern(Facts value) {
  llvm::SmallVector<unsigned, 1> &ids = idsByHash[hashFacts(value)];
  for (unsigned id : ids)
    if (equalFacts(facts[id], value))
      return id;
  ids.push_back(facts.size());
  facts.push_back(std::move(value));
  return ids.back();
}

} // namespace hostoffload
