//===- GpuBranches.cpp - XLA:GPU's check of branches in host memory -------===//

#include "GpuBranches.h"

#include "hostoffload/Names.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <string>

using namespace mlir;

namespace hostoffload {

namespace {

/// Whether the yields of the branches of `op` give result `number` in host
/// memory and in device memory both.
bool isMixed(const Walk &walk, Operation *op, unsigned number) {
  bool host = false;
  bool device = false;
  for (Region &branch : op->getRegions()) {
    if (branch.empty() || branch.front().empty())
      continue;
    Operation *yield = branch.front().getTerminator();
    if (!yield || number >= yield->getNumOperands())
      continue;
    (walk.findHostNode(yield->getOperand(number)) ? host : device) = true;
  }
  return host && device;
}

} // namespace

void reportGpuMixedBranches(const HostOffloadOptions &options, const Walk &walk,
                            const OpRules &rules, HostOffloadReport &report) {
  if (options.platform != Platform::Gpu)
    return;
  llvm::DenseSet<Operation *> reported;
  const NodeTable &nodes = walk.getNodes();
  for (unsigned id = 0, e = nodes.size(); id < e; ++id) {
    auto result = llvm::dyn_cast<OpResult>(nodes[id].value);
    if (!result || !rules.isBranching(result.getOwner()))
      continue;
    Operation *op = result.getOwner();
    if (reported.contains(op) || !isMixed(walk, op, result.getResultNumber()))
      continue;
    reported.insert(op);
    FindingCode code = FindingCode::GpuMixedBranches;
    const FindingCodeInfo &info = getFindingCodeInfo(code, options.strict);
    std::string message =
        (info.name +
         ": INTERNAL: Expected instruction to have shape equal "
         "to ...; result " +
         std::to_string(result.getResultNumber()) + " of '" +
         op->getName().getStringRef() +
         "' is in host memory from one branch and in device memory from "
         "another: XLA:GPU's check of shapes after host offloading refuses "
         "the conditional, whatever memory the outputs are declared in "
         "(XLA:TPU compiles it)")
            .str();
    Finding finding{code, info.severity, op->getLoc(), std::move(message)};
    finding.notes.push_back(
        {op->getLoc(),
         "fix: give the result the same memory in every branch: move the "
         "host value to device memory inside its branch "
         "(jax.device_put(x, jax.memory.Space.Device)), or move the device "
         "values to host in theirs"});
    report.findings.push_back(std::move(finding));
  }
}

} // namespace hostoffload
