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

using namespace mlir;

namespace hostoffload {

namespace {

/// A function on the search's stack, with its call sites (the first to each
/// callee) and how many of them the search has followed.
struct Frame {
  Operation *function;
  llvm::SmallVector<CallSites::Call> calls;
  size_t next = 0;
};

/// Which callees a frame has taken a call to already: by callee, the last
/// frame that did. One table for the whole search, where a set per frame
/// would be an allocation for each of thousands of functions.
using LastFrames = llvm::DenseMap<Attribute, size_t>;

Frame enter(Operation *function, llvm::ArrayRef<CallSites::Call> calls,
            LastFrames &lastFrames, size_t frameNumber) {
  Frame frame{function, {}};
  for (auto [call, callee] : calls) {
    auto [last, added] = lastFrames.try_emplace(callee, frameNumber);
    if (!added && last->second == frameNumber)
      continue;
    last->second = frameNumber;
    frame.calls.push_back({call, callee});
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
    auto [next, nextCallee] = frame.calls[frame.next - 1];
    finding.notes.push_back(
        {next->getLoc(), "in the cycle: " + calleeName(frame.function) +
                             " calls @" + nextCallee.getValue().str()});
  }
  return finding;
}

} // namespace

void reportCallCycles(func::FuncOp entry, const Walk &walk,
                      std::vector<Finding> &findings) {
  const CallSites &callSites = walk.getCallSites();
  // The stack position of each function on the stack; -1 once it is done.
  llvm::DenseMap<Operation *, int> positions;
  llvm::SmallVector<Frame> stack;
  LastFrames lastFrames;
  size_t framesEntered = 0;
  positions[entry] = 0;
  stack.push_back(
      enter(entry, callSites.in(entry), lastFrames, framesEntered++));
  while (!stack.empty()) {
    Frame &top = stack.back();
    if (top.next == top.calls.size()) {
      positions[top.function] = -1;
      stack.pop_back();
      continue;
    }
    auto [call, calleeSymbol] = top.calls[top.next++];
    // Only a function with calls in its body, which is what CallSites
    // indexes by function, can be on a cycle. Telling that from the index,
    // without reading the callee's op, saves a wait for memory per function
    // of a large module, whose ops are no longer in the caches.
    Operation *callee = walk.lookupSymbol(calleeSymbol);
    llvm::ArrayRef<CallSites::Call> calleeCalls = callSites.in(callee);
    if (calleeCalls.empty())
      continue;
    auto [it, inserted] =
        positions.try_emplace(callee, static_cast<int>(stack.size()));
    if (inserted) {
      stack.push_back(enter(callee, calleeCalls, lastFrames, framesEntered++));
      continue;
    }
    if (it->second >= 0)
      findings.push_back(cycleFinding(
          call, llvm::ArrayRef<Frame>(stack).drop_front(it->second)));
  }
}

} // namespace hostoffload
