//===- TpuLimits.cpp - what XLA:TPU cannot do with host memory ------------===//

#include "TpuLimits.h"

#include "hostoffload/Names.h"
#include "hostoffload/XlaReleases.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

using namespace mlir;

namespace hostoffload {

namespace {

/// The bytes of the lane dimension's chunk, where an asynchronous slice of
/// host memory must start.
constexpr int64_t kChunkBytes = 512;

std::string printed(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

Finding makeFinding(FindingCode code, Location loc, std::string message,
                    std::string fix) {
  const FindingCodeInfo &info = getFindingCodeInfo(code, /*strict=*/false);
  Finding finding{code, info.severity, loc, (info.name + ": " + message).str()};
  finding.notes.push_back({loc, std::move(fix)});
  return finding;
}

/// The elements of a chunk of `type`'s lane dimension; none for element
/// types the rule was not measured on (64 bits, sub-byte, complex).
std::optional<int64_t> getChunkElements(RankedTensorType type) {
  Type element = type.getElementType();
  if (!element.isIntOrFloat())
    return std::nullopt;
  unsigned bits = element.getIntOrFloatBitWidth();
  // XLA stores a pred in a byte.
  if (bits == 1)
    bits = 8;
  if (bits != 8 && bits != 16 && bits != 32)
    return std::nullopt;
  return kChunkBytes * 8 / bits;
}

/// Where to report `op`: its own location where it names a file, else that of
/// the first call of its function that does (JAX's private functions, as
/// jnp.sort's, hold ops located by name alone). Calls are followed at most
/// kCallDepth deep.
Location getUserLoc(const Walk &walk, Operation *op) {
  constexpr unsigned kCallDepth = 16;
  Operation *current = op;
  for (unsigned depth = 0; depth < kCallDepth; ++depth) {
    if (findFileLocation(current->getLoc()))
      return current->getLoc();
    auto function = current->getParentOfType<func::FuncOp>();
    if (!function)
      break;
    llvm::ArrayRef<CallSites::Entry> calls =
        walk.getCallSites().of(function.getSymNameAttr());
    if (calls.empty())
      break;
    current = calls.front().call;
  }
  return op->getLoc();
}

constexpr llvm::StringLiteral kMoveFirst =
    "fix: move the tensor to device memory before slicing it (in JAX: "
    "jax.device_put(x, jax.memory.Space.Device), then slice), or compute on "
    "the slice in host memory";

/// Checks the slice `op` of host memory, which XLA reads into device memory.
void checkAsyncSlice(const Walk &walk, Operation *op,
                     std::vector<Finding> &findings, WarningList &warnings) {
  Location loc = getUserLoc(walk, op);
  auto source = llvm::dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!source || !result || !source.hasStaticShape() ||
      !result.hasStaticShape() || source.getRank() != result.getRank())
    return;
  bool dynamic = op->getName().getStringRef() == names::kDynamicSliceOp;
  llvm::ArrayRef<int64_t> starts;
  if (!dynamic) {
    auto startAttr = op->getAttrOfType<DenseI64ArrayAttr>("start_indices");
    auto strides = op->getAttrOfType<DenseI64ArrayAttr>("strides");
    if (!startAttr || !strides ||
        llvm::any_of(strides.asArrayRef(), [](int64_t s) { return s != 1; }))
      return;
    starts = startAttr.asArrayRef();
  }
  llvm::SmallVector<int64_t> sliced;
  for (int64_t dim = 0, rank = source.getRank(); dim < rank; ++dim)
    if (result.getDimSize(dim) != source.getDimSize(dim))
      sliced.push_back(dim);
  std::string tensor = printed(source);
  if (sliced.size() > 1) {
    std::string dims;
    for (int64_t dim : sliced)
      dims += (dims.empty() ? "" : ", ") + std::to_string(dim);
    findings.push_back(makeFinding(
        FindingCode::AsyncSliceUnimplemented, loc,
        "XLA:TPU reads this slice of host memory into device memory with an "
        "asynchronous slice, which slices dimensions " +
            dims + " of " + tensor +
            ": XLA:TPU cannot compile an asynchronous slice in more than one "
            "dimension (\"Async slice only supports slicing in 1 dimension\")",
        "fix: slice one dimension in host memory and the others once in "
        "device memory, or move the tensor to device memory before slicing "
        "it"));
    return;
  }
  int64_t lane = source.getRank() - 1;
  std::optional<int64_t> chunk = getChunkElements(source);
  if (sliced.empty() || sliced.front() != lane || !chunk)
    return;
  int64_t length = result.getDimSize(lane);
  std::string where = "the lane dimension (dimension " + std::to_string(lane) +
                      " of " + tensor + ")";
  std::string chunkText = std::to_string(*chunk) + " elements (" +
                          std::to_string(kChunkBytes) + " bytes)";
  std::string halts =
      ": XLA compiles it, but the TPU core halts when the program runs";
  // Elements narrower than 32 bits have chunks of more than 128 of them.
  bool narrow = *chunk > kChunkBytes / 4;
  if (source.getRank() == 1 && narrow && length % *chunk != 0) {
    findings.push_back(makeFinding(
        FindingCode::AsyncSliceHalts, loc,
        "XLA:TPU reads this slice of host memory into device memory with an "
        "asynchronous slice " +
            std::to_string(length) + " elements long in " + where +
            ", which is not a multiple of " + chunkText + halts +
            " (\"The DMA stride is invalid\")",
        kMoveFirst.str()));
    return;
  }
  if (!dynamic) {
    int64_t start = starts[lane];
    if (start % *chunk == 0)
      return;
    findings.push_back(makeFinding(
        FindingCode::AsyncSliceHalts, loc,
        "XLA:TPU reads this slice of host memory into device memory with an "
        "asynchronous slice starting at element " +
            std::to_string(start) + " of " + where +
            ", which is not a multiple of " + chunkText + halts +
            " (\"Async slices in the lane dimension must start on chunk "
            "boundaries\")",
        kMoveFirst.str()));
    return;
  }
  // A dynamic start is clamped to [0, size - length].
  int64_t lastStart = source.getDimSize(lane) - length;
  std::string runs = lastStart < *chunk
                         ? "unless its start is 0, the only multiple of " +
                               chunkText + " it can take"
                         : "unless its start is a multiple of " + chunkText;
  warnings.add(makeFinding(
      FindingCode::AsyncSliceMayHalt, loc,
      "XLA:TPU reads this dynamic slice of host memory into device memory "
      "with an asynchronous slice in " +
          where + ", whose start is known only when the program runs; the " +
          "TPU core halts then " + runs,
      kMoveFirst.str()));
}

} // namespace

OpOperand *findLoopInitInDeviceMemory(const Walk &walk, Value output) {
  auto result = llvm::dyn_cast<OpResult>(output);
  if (!result || result.getOwner()->getName().getStringRef() != names::kWhileOp)
    return nullptr;
  std::optional<unsigned> node = walk.findHostNode(output);
  OpOperand &init = result.getOwner()->getOpOperand(result.getResultNumber());
  if (!node || walk.findHostNode(init.get()))
    return nullptr;
  // Host compute made the carry host memory, not a write into a buffer, which
  // XLA allocates in host memory from the start (measured: scan_offload_ys
  // compiles).
  const NodeTable &nodes = walk.getNodes();
  for (int id = static_cast<int>(*node); id >= 0; id = nodes[id].parent) {
    const Node &step = nodes[id];
    if (step.via &&
        step.via->getName().getStringRef() == names::kDynamicUpdateSliceOp)
      return nullptr;
    if (step.step == StepKind::HostCompute)
      return &init;
  }
  return nullptr;
}

void reportTpuLimits(const Walk &walk, func::FuncOp entry,
                     const std::vector<DeclaredMemoryKind> &resultKinds,
                     XlaRelease xlaRelease, std::vector<Finding> &findings,
                     WarningList &warnings) {
  // A gather or a sort computing on host memory that stays there is host
  // compute, once per op.
  llvm::DenseSet<Operation *> reported;
  const NodeTable &nodes = walk.getNodes();
  for (unsigned id = 0, e = nodes.size(); id < e; ++id) {
    const Node &node = nodes[id];
    if (node.step != StepKind::HostCompute || node.parent < 0 || !node.via)
      continue;
    llvm::StringRef name = node.via->getName().getStringRef();
    bool gather = name == names::kGatherOp;
    bool sort =
        name == names::kSortOp && xlaRelease < XlaRelease::September2026;
    unsigned parent = static_cast<unsigned>(node.parent);
    if ((!gather && !sort) ||
        (gather && nodes[parent].value != node.via->getOperand(0)) ||
        !walk.isHost(parent) || !reported.insert(node.via).second)
      continue;
    if (gather) {
      findings.push_back(makeFinding(
          FindingCode::HostGatherFails, getUserLoc(walk, node.via),
          "this gather computes on host memory, which XLA turns into host "
          "compute, but XLA:TPU cannot compile a gather on the host "
          "(\"RET_CHECK failure ... Fusion must have backend config\")",
          "fix: move the tensor to device memory before the gather (in JAX: "
          "jax.device_put(x, jax.memory.Space.Device)[indices])"));
      continue;
    }
    findings.push_back(makeFinding(
        FindingCode::HostSortAborts, getUserLoc(walk, node.via),
        "this sort computes on host memory, which XLA turns into host "
        "compute; libtpu aborts on it in XLA release " +
            getXlaReleaseInfo(xlaRelease).name.str() + " (" +
            describeLibtpuReleases(xlaRelease) +
            ": \"Check failed: !tmp_shape_index.empty() Expected shape index "
            "to be non-empty\"), and compiles it from XLA release 2026-09 "
            "(libtpu 0.0.49)",
        "fix: move the tensor to device memory before the sort (in JAX: "
        "jax.device_put(x, jax.memory.Space.Device)), or compile with libtpu "
        "0.0.49 or later"));
  }
  // A slice of host memory nothing computes on is read into device memory;
  // XLA folds a slice of such a slice into it, so only a slice of host memory
  // itself is one XLA makes.
  for (unsigned slice = 0, e = walk.getSliceCount(); slice < e; ++slice) {
    Operation *op = walk.getSliceOp(slice);
    if (walk.getSliceComputedOnBy(slice) || op->getNumResults() != 1)
      continue;
    std::optional<unsigned> host = walk.findHostNode(op->getOperand(0));
    if (!host || walk.isMadeOfSlicesOnly(*host))
      continue;
    checkAsyncSlice(walk, op, findings, warnings);
  }
  // A loop carry declared in host memory at the output, from device memory.
  Operation *terminator = entry.getBody().front().getTerminator();
  for (auto [index, declared] : llvm::enumerate(resultKinds)) {
    if (declared.kind != names::kPinnedHost)
      continue;
    OpOperand *init =
        findLoopInitInDeviceMemory(walk, terminator->getOperand(index));
    if (!init)
      continue;
    Operation *loop = init->getOwner();
    findings.push_back(makeFinding(
        FindingCode::HostCarryFromDevice, getUserLoc(walk, loop),
        "output " + std::to_string(index) + " is declared \"pinned_host\" " +
            "and is carry " + std::to_string(init->getOperandNumber()) +
            " of this loop, which starts in device memory and becomes host " +
            "memory in the loop: libtpu aborts compiling it (\"Expect host " +
            "execute operand subshape to be the same as the output " +
            "subshape\")",
        "fix: move the carry's initial value to host memory before the loop "
        "(in JAX: jax.device_put(init, jax.memory.Space.Host)), or bring the "
        "output back to device memory"));
  }
}

} // namespace hostoffload
