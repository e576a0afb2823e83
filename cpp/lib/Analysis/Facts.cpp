//===- Facts.cpp - where a value's host memory comes from -----------------===//

#include "Facts.h"

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

unsigned FactTable::intoCallee(unsigned from, unsigned argument) {
  return cached(calleeCache, {from, argument}, [&] {
    Facts entering;
    entering.starts = facts[from].starts;
    entering.moreStarts = facts[from].moreStarts;
    entering.origins.push_back(argument);
    return entering;
  });
}

unsigned FactTable::outOfCallee(unsigned callee, unsigned caller) {
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

unsigned FactTable::throughSlice(unsigned from, unsigned slice) {
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

unsigned FactTable::intern(Facts value) {
  std::vector<unsigned> key;
  key.push_back(value.starts.size());
  llvm::append_range(key, value.starts);
  key.push_back(value.moreStarts);
  key.push_back(value.origins.size());
  llvm::append_range(key, value.origins);
  key.push_back(value.global);
  key.push_back(value.unconditional);
  llvm::append_range(key, value.slices);
  auto [it, inserted] = ids.try_emplace(std::move(key), facts.size());
  if (inserted)
    facts.push_back(std::move(value));
  return it->second;
}

} // namespace hostoffload
