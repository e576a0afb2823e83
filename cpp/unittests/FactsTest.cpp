//===- FactsTest.cpp - the facts lattice ---------------------------------===//
//
// The rules of the facts lattice (Facts.h) and its interning.
//
//===----------------------------------------------------------------------===//

#include "UnitTest.h"

#include "Facts.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <vector>

using namespace mlir;
using namespace hostoffload;

namespace hostoffload::unittest {

std::vector<unsigned> sorted(llvm::ArrayRef<unsigned> items) {
  std::vector<unsigned> copy(items.begin(), items.end());
  llvm::sort(copy);
  return copy;
}

/// The same facts as sets (lists in any order).
bool sameAsSets(const Facts &a, const Facts &b) {
  return sorted(a.starts) == sorted(b.starts) && a.moreStarts == b.moreStarts &&
         sorted(a.origins) == sorted(b.origins) && a.global == b.global &&
         a.unconditional == b.unconditional &&
         sorted(a.slices) == sorted(b.slices);
}

void testFactLattice() {
  Group group("fact table: lattice");
  FactTable table;
  unsigned a = table.forStart(0);
  unsigned b = table.forStart(1);
  check(table.forStart(0) == a, "equal facts are interned once");
  check(a != b, "different starts have different facts");
  check(table.get(a).global && table.get(a).unconditional,
        "a start is host memory for every caller, unconditionally");

  check(table.merge(a, a) == a, "merge is idempotent");
  unsigned ab = table.merge(a, b);
  check(table.merge(ab, b) == ab && table.merge(ab, a) == ab,
        "merging facts already merged in changes nothing");
  check(sameAsSets(table.get(ab), table.get(table.merge(b, a))),
        "merge is commutative as sets below the caps");
  check(sorted(table.get(ab).starts) == std::vector<unsigned>{0, 1},
        "merge is the union of the starts");
  unsigned c = table.forStart(2);
  check(sameAsSets(table.get(table.merge(table.merge(a, b), c)),
                   table.get(table.merge(a, table.merge(b, c)))),
        "merge is associative as sets below the caps");

  unsigned callee = table.intoCallee(ab, 3);
  const Facts &entered = table.get(callee);
  check(entered.starts == table.get(ab).starts,
        "entering a callee keeps the starts");
  check(entered.origins.size() == 1 && entered.origins[0] == 3 &&
            !entered.global,
        "entering a callee makes the argument the only origin");

  unsigned sliced = table.throughSlice(a, 7);
  check(!table.get(sliced).unconditional &&
            table.get(sliced).slices.size() == 1 &&
            table.get(sliced).slices[0] == 7,
        "a slice's result is host memory on the slice's condition");
  check(table.get(table.merge(sliced, a)).unconditional,
        "merging unconditional facts makes a value unconditional");
  check(table.throughHostCompute(a) == a,
        "host compute on unconditional facts changes nothing");
  const Facts &computed = table.get(table.throughHostCompute(sliced));
  check(computed.unconditional && computed.slices.empty(),
        "host compute makes facts unconditional");

  unsigned conditionalInCallee = table.throughSlice(callee, 9);
  const Facts &returned = table.get(table.outOfCallee(conditionalInCallee, b));
  check(returned.starts == table.get(b).starts && returned.global,
        "a return takes the call site operand's starts and origins");
  check(!returned.unconditional && returned.slices.size() == 1 &&
            returned.slices[0] == 9,
        "a return keeps the callee's slice condition");
  check(table.outOfCallee(callee, b) == b,
        "an unconditional return is the call site operand's facts");
}

void testFactCaps() {
  Group group("fact table: caps");
  FactTable table;
  unsigned merged = table.forStart(0);
  for (unsigned start = 1; start <= kMaxStartsPerNode; ++start)
    merged = table.merge(merged, table.forStart(start));
  const Facts &starts = table.get(merged);
  check(starts.starts.size() == kMaxStartsPerNode && starts.moreStarts,
        "past the cap, starts are summarized as more starts");
  check(!llvm::is_contained(starts.starts, kMaxStartsPerNode),
        "the first starts to arrive are kept");
  check(table.merge(merged, table.forStart(kMaxStartsPerNode + 5)) == merged,
        "past the cap, more starts change nothing");

  unsigned start = table.forStart(0);
  unsigned origins = table.intoCallee(start, 0);
  for (unsigned argument = 1; argument < kMaxOriginsPerNode; ++argument)
    origins = table.merge(origins, table.intoCallee(start, argument));
  check(table.get(origins).origins.size() == kMaxOriginsPerNode &&
            !table.get(origins).global,
        "up to the cap, origins are listed");
  origins = table.merge(origins, table.intoCallee(start, kMaxOriginsPerNode));
  check(table.get(origins).global,
        "past the cap, a value is host memory for every caller");

  unsigned slices = table.throughSlice(start, 0);
  for (unsigned slice = 1; slice < kMaxSlicesPerNode; ++slice)
    slices = table.merge(slices, table.throughSlice(start, slice));
  check(!table.get(slices).unconditional &&
            table.get(slices).slices.size() == kMaxSlicesPerNode,
        "up to the cap, slices are listed");
  slices = table.merge(slices, table.throughSlice(start, kMaxSlicesPerNode));
  check(table.get(slices).unconditional && table.get(slices).slices.empty(),
        "past the cap, a value made of slices is host memory outright");
}

void testFactInterning() {
  Group group("fact table: interning");
  FactTable table;
  constexpr unsigned kStarts = 10000;
  std::vector<unsigned> ids;
  for (unsigned start = 0; start < kStarts; ++start)
    ids.push_back(table.forStart(start));
  std::vector<unsigned> distinct = sorted(ids);
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  check(distinct.size() == kStarts, "thousands of different facts stay apart");
  bool sameIds = true;
  for (unsigned start = 0; start < kStarts; ++start)
    sameIds &= table.forStart(start) == ids[start];
  check(sameIds, "each of thousands of facts is interned once");
  check(table.get(ids[kStarts - 1]).starts ==
            llvm::SmallVector<unsigned, 2>{kStarts - 1},
        "an id stands for the facts it was given");
  unsigned entered = table.intoCallee(ids[1], 2);
  unsigned slicedFirst = table.throughSlice(entered, 3);
  unsigned slicedAgain = table.throughSlice(table.intoCallee(ids[1], 2), 3);
  check(slicedFirst == slicedAgain,
        "facts made again the same way get the same id");
  check(table.intoCallee(ids[2], 1) != entered,
        "facts with an item in another list are other facts");
  // Each operation keeps its last answer apart from its table: asked in
  // turns and in a row, every question still gets its own answer.
  bool sameAnswers = true;
  for (unsigned round = 0; round < 3; ++round)
    for (unsigned start = 0; start < 4; ++start)
      for (unsigned repeat = 0; repeat < 2; ++repeat) {
        sameAnswers &= table.get(table.intoCallee(ids[start], round)).starts ==
                       llvm::SmallVector<unsigned, 2>{start};
        sameAnswers &=
            table.get(table.intoCallee(ids[start], round)).origins.front() ==
            round;
        unsigned other = (start + 1 + round) % 4;
        sameAnswers &=
            sorted(table.get(table.merge(ids[start], ids[other])).starts) ==
            sorted(std::vector<unsigned>{start, other});
      }
  check(sameAnswers, "an answer kept from the question before is never "
                     "given to another question");
}

} // namespace hostoffload::unittest
