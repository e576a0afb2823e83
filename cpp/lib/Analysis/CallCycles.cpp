//===- CallCycles.cpp - recursive call graphs -----------------------------===//
//
// A depth-first search of the call graph from the entry, with an explicit
// stack: a call to a function on the stack closes a cycle, which is the stack
// from that function up, back to it.
//
//===----------------------------------------------------------------------===//

#include "CallCycles.h"

#include "OpRules.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

using namespace mlir;

namespace hostoffload {

namespace {

/// What the search knows of a function it met as a callee (or the entry).
struct Visit {
  /// Its position on the search's stack; kNotEntered before the search
  /// enters it, kDone once it has followed every call in it, or found none.
  int position;
  /// The last frame that took a call to it.
  size_t lastFrame;
};
constexpr int kNotEntered = -2, kDone = -1;

/// The functions the search met, by callee name: an index into one vector,
/// so that each is looked up once per call taken and the frames find their
/// own without a lookup. One table for the whole search, where a set per
/// frame would be an allocation for each of thousands of functions.
struct Visits {
  llvm::DenseMap<Attribute, unsigned> byCallee;
  std::vector<Visit> visits;

  unsigned get(StringAttr callee) {
    auto [it, added] = byCallee.try_emplace(callee, visits.size());
    if (added)
      visits.push_back({kNotEntered, SIZE_MAX});
    return it->second;
  }
};

/// A call the search may follow, and what it knows of the callee.
struct Edge {
  Operation *call;
  StringAttr callee;
  unsigned visit;
};

/// A function on the search's stack, with its call sites (the first to each
/// callee) and how many of them the search has followed.
struct Frame {
  Operation *function;
  unsigned visit;
  llvm::SmallVector<Edge> calls;
  size_t next = 0;
};

Frame enter(Operation *function, unsigned visit,
            llvm::ArrayRef<CallSites::Call> calls, Visits &visits,
            size_t frameNumber) {
  Frame frame{function, visit, {}};
  for (auto [call, callee] : calls) {
    unsigned calleeVisit = visits.get(callee);
    size_t &lastFrame = visits.visits[calleeVisit].lastFrame;
    if (lastFrame == frameNumber)
      continue;
    lastFrame = frameNumber;
    frame.calls.push_back({call, callee, calleeVisit});
  }
  return frame;
}

/// The name of `function` as calls spell it: `@f`.
std::string calleeName(Operation *function) {
  return ("@" + llvm::cast<func::FuncOp>(function).getSymName()).str();
}

Finding cycleFinding(Operation *call, llvm::ArrayRef<Frame> cycle) {
  const FindingCodeInfo &info =
      getFindingCodeInfo(FindingCode::RecursiveCall, /*strict=*/false);
  std::string names;
  for (const Frame &frame : cycle)
    names += calleeName(frame.function) + " -> ";
  names += calleeName(cycle.front().function);
  Finding finding{FindingCode::RecursiveCall, info.severity, call->getLoc(),
                  (info.name + ": recursive call: " + names +
                   "; XLA cannot compile a program whose calls form a cycle")
                      .str()};
  // The calls on the way round, but the last: `call`, where the error is.
  for (const Frame &frame : cycle.drop_back()) {
    const Edge &next = frame.calls[frame.next - 1];
    finding.notes.push_back(
        {next.call->getLoc(), "in the cycle: " + calleeName(frame.function) +
                                  " calls @" + next.callee.getValue().str()});
  }
  return finding;
}

} // namespace

void reportCallCycles(func::FuncOp entry, const ModuleOps &ops,
                      std::vector<Finding> &findings) {
  const CallSites &callSites = ops.getCallSites();
  Visits visits;
  llvm::SmallVector<Frame> stack;
  size_t framesEntered = 0;
  unsigned entryVisit = visits.get(entry.getSymNameAttr());
  visits.visits[entryVisit].position = 0;
  stack.push_back(
      enter(entry, entryVisit, callSites.in(entry), visits, framesEntered++));
  while (!stack.empty()) {
    Frame &top = stack.back();
    if (top.next == top.calls.size()) {
      visits.visits[top.visit].position = kDone;
      stack.pop_back();
      continue;
    }
    auto [call, calleeSymbol, visit] = top.calls[top.next++];
    int position = visits.visits[visit].position;
    if (position >= 0) {
      findings.push_back(cycleFinding(
          call, llvm::ArrayRef<Frame>(stack).drop_front(position)));
      continue;
    }
    if (position == kDone)
      continue;
    // Only a function with calls in its body, which is what CallSites
    // indexes by function, can be on a cycle: told from the index, without
    // reading the callee's op.
    Operation *callee = ops.lookupSymbol(calleeSymbol);
    llvm::ArrayRef<CallSites::Call> calleeCalls = callSites.in(callee);
    if (calleeCalls.empty()) {
      visits.visits[visit].position = kDone;
      continue;
    }
    visits.visits[visit].position = static_cast<int>(stack.size());
    stack.push_back(enter(callee, visit, calleeCalls, visits, framesEntered++));
  }
}

} // namespace hostoffload
