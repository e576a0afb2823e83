//===- HostOffloadAnalysis.h - trace tensors moved to host ------*- C++ -*-===//
//
// The analysis behind every host-offload pass: it follows each tensor moved
// to host memory through the module the way XLA's HostOffloader does and
// reports, as data, every entry output that would fail with E1200 and every
// offloading pattern XLA accepts silently.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_HOSTOFFLOADANALYSIS_H
#define HOSTOFFLOAD_HOSTOFFLOADANALYSIS_H

#include "hostoffload/XlaReleases.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace hostoffload {

enum class Severity { Error, Warning };

/// The stable codes of the findings, one per row of FindingCodes.def;
/// docs/diagnostics.md documents each.
enum class FindingCode {
#define HOSTOFFLOAD_FINDING_CODE(Enumerator, Name, Severity, Description)      \
  Enumerator,
#include "hostoffload/FindingCodes.def"
};

/// One row of FindingCodes.def.
struct FindingCodeInfo {
  FindingCode code;
  /// The row tells how `code` is printed under `strict` only.
  bool strictOnly;
  /// The code printed, e.g. "E1200" or "HOW101".
  llvm::StringLiteral name;
  Severity severity;
  /// One line for users, e.g. for SARIF's rules.
  llvm::StringLiteral description;
};

/// Every row of FindingCodes.def, in its order.
llvm::ArrayRef<FindingCodeInfo> getFindingCodes();

/// A code as it was printed before our own codes got the `HO` prefix.
struct FormerFindingCodeName {
  llvm::StringLiteral former;
  /// The code printed now for the same finding.
  llvm::StringLiteral name;
};

/// Every former code of FindingCodes.def, in its order.
llvm::ArrayRef<FormerFindingCodeName> getFormerFindingCodeNames();

/// The row of `code` as printed with or without `strict`.
const FindingCodeInfo &getFindingCodeInfo(FindingCode code, bool strict);

/// Returns the code printed for `code`, e.g. "E1200" or "HOW101".
llvm::StringRef getFindingCodeName(FindingCode code, bool strict);

/// "error" or "warning".
llvm::StringRef getSeverityName(Severity severity);

/// A long path shows this many steps at each end; see Finding::path.
inline constexpr size_t kPathStepsAtEachEnd = 6;

/// A place where a tensor enters host memory.
struct TraceStart {
  enum class Kind { Argument, Annotation };
  Kind kind;
  /// The entry argument number, for Kind::Argument.
  unsigned argumentNumber = 0;
  /// How the start is named in messages, e.g. "argument 'opt_state'".
  std::string name;
  /// What moves the tensor, e.g. `_xla_buffer_placement = "pinned_host"`.
  std::string reason;
  mlir::Location loc;
  /// In a module converted from HLO, the instruction XLA's E1200 names for
  /// this start, e.g. "param.3"; empty when unknown.
  std::string xlaName = {};
};

/// One step of the way from a start to an output.
struct PathStep {
  /// What the tensor flows through, e.g. "stablehlo.add" or "call @f".
  std::string what;
  mlir::Location loc;
};

/// A way out of E1200.
struct Fix {
  enum class Strategy { Host, Device };
  /// The name of `strategy` in the fix pass's option and in reports: "host"
  /// or "device".
  static llvm::StringRef getStrategyName(Strategy strategy);
  /// The strategy named `name`, if any.
  static std::optional<Strategy> parseStrategy(llvm::StringRef name);
  Strategy strategy;
  /// The change in the module.
  std::string moduleChange;
  /// The same change in the JAX program.
  std::string jaxChange;
  /// For the host fix of an output that a loop carries from device memory
  /// into host memory: the loop's initial value of that carry, which the fix
  /// moves to host memory too (libtpu aborts otherwise: HOE109).
  mlir::OpOperand *loopInit = nullptr;
};

/// An additional remark attached to a finding.
struct FindingNote {
  mlir::Location loc;
  std::string message;
};

/// One diagnostic of the analysis, with everything needed to explain it.
struct Finding {
  FindingCode code;
  Severity severity;
  mlir::Location loc;
  std::string message;
  llvm::SmallVector<FindingNote> notes;

  // The fields below are set for E1200 findings only.
  std::optional<unsigned> outputIndex;
  /// The index path into a tuple-typed output; empty for a plain tensor.
  llvm::SmallVector<int64_t> tupleIndex;
  /// `jax.result_info` of the output, if any.
  std::string resultInfo;
  /// The output's declared memory kind; empty when none is declared.
  std::string declaredMemoryKind;
  /// The kind comes from the module's `out_memory_spaces`, as in modules
  /// converted from HLO, rather than from `mhlo.memory_kind`.
  bool declaredInModuleSpaces = false;
  /// Indices into HostOffloadReport::starts of every start reaching it.
  llvm::SmallVector<unsigned> startIndices;
  /// True when more starts reach the output than `startIndices` lists.
  bool moreStarts = false;
  /// The way from the first start to the output: whole when it has up to
  /// 2 * kPathStepsAtEachEnd steps, else its first and its last
  /// kPathStepsAtEachEnd steps.
  llvm::SmallVector<PathStep> path;
  /// How many steps between the first and the last kPathStepsAtEachEnd
  /// `path` leaves out.
  size_t omittedPathSteps = 0;
  llvm::SmallVector<Fix> fixes;

  /// For HOE102: the entry argument XLA finds in device memory.
  std::optional<unsigned> argumentIndex;
};

/// A tensor as the module types it, with its size where XLA's is known.
struct TensorInfo {
  /// MLIR's spelling of the type, e.g. "tensor<8x128xf32>".
  std::string type;
  /// The dimensions of a ranked tensor; none for another type.
  std::optional<llvm::SmallVector<int64_t>> shape;
  /// The element type of a ranked tensor, e.g. "bf16"; empty otherwise.
  std::string dtype;
  /// The bytes XLA gives the value (a tuple's are its elements' sum); none
  /// when a dimension is dynamic or an element type has no known size.
  std::optional<uint64_t> bytes;

  static TensorInfo of(mlir::Type type);
};

/// Where host memory of a start ends up.
struct TraceFate {
  enum class Kind { Device, HostCompute, Output, Mismatch, HostCall };
  /// The name of `kind` in reports: "device", "host_compute", "output",
  /// "mismatch" or "host_call".
  static llvm::StringRef getKindName(Kind kind);
  Kind kind;
  /// The op it ends at.
  PathStep at;
  /// For Output and Mismatch: the entry output.
  std::optional<unsigned> outputIndex;
  /// For Device, Output and Mismatch: the tensor that ends there.
  std::optional<TensorInfo> tensor;
  /// The start whose host memory reached `at` first, when it is another one:
  /// this start's joined it on the way. `path` begins there.
  std::optional<unsigned> fromStart;
  /// The way to `at`, as Finding::path shows a way.
  llvm::SmallVector<PathStep> path;
  size_t omittedPathSteps = 0;
};

/// Where the host memory of one start goes.
struct StartTrace {
  TensorInfo tensor;
  /// The tensor is in host memory already: another start's host memory
  /// reaches it (a move to host of a host tensor), or an earlier start is at
  /// the same value. XLA makes no buffer for it.
  bool alreadyInHost = false;
  /// Its ends, nearest first: every one but host compute, of which the first
  /// kTraceHostComputeFates.
  std::vector<TraceFate> fates;
  /// How many ops XLA computes on it, and how many of them its host memory
  /// reached first (each op of the module is first reached by one start).
  size_t hostComputeOps = 0;
  size_t firstHostComputeOps = 0;
  /// Every op its host memory passes through or ends at, in the order of the
  /// walk, the start first.
  std::vector<PathStep> through;
};

/// How many host compute ops a start's fates list.
inline constexpr size_t kTraceHostComputeFates = 5;

/// The result of analysing one module.
struct HostOffloadReport {
  mlir::func::FuncOp entry;
  /// The XLA whose behaviour the findings model.
  XlaRelease xlaRelease;
  std::vector<TraceStart> starts;
  /// E1200 errors in output order, then the other findings.
  std::vector<Finding> findings;
  /// The E1200 errors given to `analyzeHostOffload`'s `takeMismatch` instead
  /// of kept in `findings`.
  size_t numTakenMismatches = 0;
  /// The entry outputs of the E1200 errors, in order.
  llvm::SmallVector<unsigned> mismatchedOutputs;
  /// With HostOffloadOptions::trace, by start (the indices of `starts`).
  std::vector<StartTrace> trace;

  /// Whether any error was found, taken mismatches included.
  bool hasErrors() const;
};

struct HostOffloadOptions {
  /// The entry function; empty selects @main, else the only public function.
  std::string entry;
  /// Report implicit host compute as an error.
  bool strict = false;
  /// Under `strict`, allow a copy on host memory, as XLA does with
  /// xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled.
  bool allowH2hCopy = false;
  /// The XLA whose behaviour is modelled where releases differ
  /// (docs/semantics.md names each such rule).
  XlaRelease xlaRelease = getNewestXlaRelease();
  /// Fill HostOffloadReport::trace.
  bool trace = false;
  /// The compiler modelled where XLA:TPU and XLA:GPU differ.
  Platform platform = Platform::Tpu;
};

/// Analyses `module`. Fails, after emitting a located error, only when the
/// entry function cannot be determined. Never changes the IR. Runs in time
/// linear in the size of the module. With `takeMismatch`, each E1200 goes to
/// it as soon as it is made, in output order and before any other finding is
/// made, instead of into the report; it lives until `takeMismatch` returns,
/// and the next is made in its memory: a caller that only emits them keeps
/// the memory of one.
mlir::FailureOr<HostOffloadReport>
analyzeHostOffload(mlir::ModuleOp module, const HostOffloadOptions &options,
                   llvm::function_ref<void(const Finding &)> takeMismatch = {});

/// Emits findings as MLIR diagnostics with their notes, at locations whose
/// columns count from 1 (see `withEditorColumns`). A diagnostic refers to the
/// messages of its finding rather than copy them: a handler that keeps a
/// diagnostic must not keep it past the finding.
class FindingEmitter {
public:
  void emit(const Finding &finding);

private:
  mlir::Location getEditorLoc(mlir::Location loc);

  /// Findings share few locations (an E1200's notes are mostly at its
  /// output), and rewriting one walks its whole call stack: each is rewritten
  /// once.
  llvm::DenseMap<mlir::Location, mlir::Location> editorLocs;
  /// The messages repaired as UTF-8, which the diagnostics refer to.
  std::deque<std::string> repaired;
};

/// Returns the innermost file location inside `loc` (the Python frame a user
/// can open, for JAX locations), if there is one.
std::optional<mlir::FileLineColRange> findFileLocation(mlir::Location loc);

/// Returns the name `loc` gives: that of a name location, or of the name
/// location first in a fused location. JAX names a function argument so;
/// HLO input fuses a parameter's name with its line, and the HLO importer
/// names each op after its instruction.
std::optional<llvm::StringRef> findLocationName(mlir::Location loc);

/// Describes `argument` for a message: `argument 'x'` by its name (see
/// `findLocationName`), else `argument #<index>`.
std::string describeArgument(mlir::BlockArgument argument);

/// A place in a source file counted the way editors count it: lines and
/// columns from 1.
struct SourcePosition {
  llvm::StringRef file;
  unsigned line;
  unsigned column;
  /// Whether the position is a Python frame as JAX writes them (see
  /// `findSourcePosition`), rather than a line of the file given.
  bool isPythonFrame;
};

/// Returns the position of the innermost file location inside `loc`, if there
/// is one. JAX writes each Python frame as a file location directly inside a
/// name location, with the column of Python's code positions, which counts
/// from 0; such a column is given plus one. Any other file location (MLIR's
/// own, or one written by hand) already counts from 1.
std::optional<SourcePosition> findSourcePosition(mlir::Location loc);

/// Returns `loc` with the column of every Python frame in it plus one, by the
/// rule of `findSourcePosition`, so that a diagnostic printed at it points at
/// the character an editor shows there.
mlir::Location withEditorColumns(mlir::Location loc);

/// Returns `text` with each invalid UTF-8 sequence replaced by U+FFFD. Names
/// and strings in a module are bytes, but diagnostics and JSON must be UTF-8
/// for Python to read them (MLIR's bindings abort on a diagnostic that is not).
std::string toValidUTF8(llvm::StringRef text);

} // namespace hostoffload

#endif // HOSTOFFLOAD_HOSTOFFLOADANALYSIS_H
