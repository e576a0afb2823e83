/*===- CAPI.h - C API of hostoffload ------------------------------*- C -*-===*/
/* The Python extensions are built with RTTI and exceptions, the passes
 * without; they meet only through this C interface. */

#ifndef HOSTOFFLOAD_CAPI_H
#define HOSTOFFLOAD_CAPI_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Registers the host-offload passes with MLIR's global pass registry, so
/// that pass pipelines parsed from text can name them.
MLIR_CAPI_EXPORTED void hostoffloadRegisterPasses(void);

/// Inserts the dialects of hostoffload/Dialects.h into `registry`: the func
/// dialect, and the namespaces of JAX's dialects as dialects of unknown ops.
MLIR_CAPI_EXPORTED void
hostoffloadRegisterDialects(MlirDialectRegistry registry);

/// Analyses `module` (a builtin.module) like the host-offload-check pass, and
/// calls `callback` once with the report as a JSON object
/// (python/hostoffload/report.schema.json describes it). Never changes the
/// module. `verified` tells that the module passed the verifier and has not
/// changed since (as one that hostoffloadParseModule returned); otherwise it is
/// verified first. When it fails the verifier or the entry function cannot be
/// determined, the object has an "errors" list with the located errors and the
/// result is failure; diagnostics are then not sent to the context's handlers.
/// `strict`, `allowH2hCopy`, `xlaRelease` and `platform` are the options of
/// the pass (an empty `xlaRelease` is the newest, an empty `platform` TPU);
/// a release or platform it does not know is an error of the "errors" list.
/// With `trace`, the object has a "trace" list: for each start, its tensor, the
/// ops its host memory passes through and its fates.
MLIR_CAPI_EXPORTED MlirLogicalResult hostoffloadAnalyzeToJson(
    MlirOperation module, MlirStringRef entry, bool strict, bool verified,
    bool allowH2hCopy, MlirStringRef xlaRelease, MlirStringRef platform,
    bool trace, MlirStringCallback callback, void *userData);

/// Receives the values of a JSON document one by one, in the order of its
/// text: an object or an array as its begin and end calls around its members,
/// each member of an object after a `key` call. Strings are UTF-8 and live
/// only for the call.
typedef struct {
  void (*beginObject)(void *userData);
  void (*endObject)(void *userData);
  void (*beginArray)(void *userData);
  void (*endArray)(void *userData);
  void (*key)(MlirStringRef key, void *userData);
  void (*string)(MlirStringRef value, void *userData);
  void (*integer)(int64_t value, void *userData);
  void (*boolean)(bool value, void *userData);
  void (*null)(void *userData);
} HostoffloadValueSink;

/// Analyses `module` as hostoffloadAnalyzeToJson does, and gives `sink` the
/// values of the JSON object that function would write, in the same order,
/// on the caller's thread: a caller that builds its own objects from them
/// need not write and read the text. With a null `sink`, only analyses (to
/// time the analysis without its report).
MLIR_CAPI_EXPORTED MlirLogicalResult hostoffloadAnalyzeToValues(
    MlirOperation module, MlirStringRef entry, bool strict, bool verified,
    bool allowH2hCopy, MlirStringRef xlaRelease, MlirStringRef platform,
    bool trace, const HostoffloadValueSink *sink, void *userData);

/// Parses `text` (MLIR assembly or bytecode) into a new builtin.module of
/// `context`, and verifies it unless `verify` is false (for text printed from
/// a module that was verified, as JAX verifies what it lowers). The text is
/// named `bufferName` in locations
/// the parser makes (as a file name; MLIR's tools name standard input "-").
/// On failure, returns a null module and calls `callback` once with a JSON
/// object whose "errors" list holds the errors of the parser or of the
/// verifier as hostoffloadAnalyzeToJson writes them: located, in UTF-8,
/// without the failing op printed; "parsed" is true when the verifier rejected
/// it. Either way diagnostics are not sent to the context's handlers (MLIR's
/// Python bindings abort on some messages that are not UTF-8). A function body
/// of at least `minParallelBodyBytes` of text is parsed on two threads
/// (hostoffload/ParallelParse.h); a negative value takes the library's
/// default, hostoffloadGetDefaultParallelBodyBytes. `parsedInParts`, unless
/// null, is set to whether it was. Where every op carries its own location,
/// the lexer's position of each is not made unless `lexerPositions` is set
/// (the parse is then MLIR's own, for comparing; hostoffload/Parse.h).
MLIR_CAPI_EXPORTED MlirModule hostoffloadParseModule(
    MlirContext context, MlirStringRef text, MlirStringRef bufferName,
    bool verify, intptr_t minParallelBodyBytes, bool lexerPositions,
    bool *parsedInParts, MlirStringCallback callback, void *userData);

/// The smallest function body, in bytes of text, that hostoffloadParseModule
/// parses on two threads by default.
MLIR_CAPI_EXPORTED intptr_t hostoffloadGetDefaultParallelBodyBytes(void);

/// Whether this process takes the fast path `name` (one of
/// hostoffload/FastPaths.def): built with it and not turned off by
/// HOSTOFFLOAD_PLAIN. False for a name that is no fast path's.
MLIR_CAPI_EXPORTED bool hostoffloadFastPathEnabled(MlirStringRef name);

/// How many fast paths HOSTOFFLOAD_PLAIN can name, and the name of each.
MLIR_CAPI_EXPORTED intptr_t hostoffloadGetNumFastPaths(void);
MLIR_CAPI_EXPORTED MlirStringRef hostoffloadGetFastPathName(intptr_t index);

/// How many MLIR functions the links wrap (hostoffload/ParserWraps.h), the
/// name of each, and whether a call of it has reached the library's function
/// in this process.
MLIR_CAPI_EXPORTED intptr_t hostoffloadGetNumParserWraps(void);
MLIR_CAPI_EXPORTED MlirStringRef hostoffloadGetParserWrapName(intptr_t index);
MLIR_CAPI_EXPORTED bool hostoffloadWasParserWrapCalled(intptr_t index);

/// Calls `callback` once with how the fast paths were decided
/// (hostoffload::describeFastPaths()).
MLIR_CAPI_EXPORTED void
hostoffloadDescribeFastPaths(MlirStringCallback callback, void *userData);

/// Verifies `op` with MLIR's verifier. On failure,
/// calls `callback` once with a JSON object whose "errors" list is written as
/// hostoffloadParseModule writes it; diagnostics are not sent to the context's
/// handlers.
MLIR_CAPI_EXPORTED MlirLogicalResult hostoffloadVerify(
    MlirOperation op, MlirStringCallback callback, void *userData);

/// One row of the table of finding codes (FindingCodes.def). The strings
/// live as long as the program.
typedef struct {
  /// The code as reports print it, e.g. "E1200".
  MlirStringRef code;
  /// "error" or "warning".
  MlirStringRef severity;
  /// One line for users.
  MlirStringRef description;
  /// The code this one replaces under `strict` (HOE101 replaces HOW101);
  /// empty for a code reported without `strict`.
  MlirStringRef strictFormOf;
} HostoffloadFindingCode;

/// The number of rows of the table of finding codes.
MLIR_CAPI_EXPORTED intptr_t hostoffloadGetNumFindingCodes(void);

/// Row `index` of the table of finding codes, in the order of
/// docs/diagnostics.md.
MLIR_CAPI_EXPORTED HostoffloadFindingCode
hostoffloadGetFindingCode(intptr_t index);

/// A code of ours as it was printed before it got the `HO` prefix
/// (FindingCodes.def). The strings live as long as the program.
typedef struct {
  MlirStringRef former;
  /// The code printed now, e.g. "HOW101" for "W1201".
  MlirStringRef code;
} HostoffloadFormerFindingCode;

/// The number of former codes.
MLIR_CAPI_EXPORTED intptr_t hostoffloadGetNumFormerFindingCodes(void);

/// Former code `index`, in the order of FindingCodes.def.
MLIR_CAPI_EXPORTED HostoffloadFormerFindingCode
hostoffloadGetFormerFindingCode(intptr_t index);

/// One XLA release of XlaReleases.def. The strings live as long as the
/// program.
typedef struct {
  /// The name `xla-release=` takes, e.g. "2026-07".
  MlirStringRef name;
  /// Which of XLA's sources it is.
  MlirStringRef sources;
} HostoffloadXlaRelease;

/// The number of XLA releases; the last is the newest, the default.
MLIR_CAPI_EXPORTED intptr_t hostoffloadGetNumXlaReleases(void);

/// XLA release `index`, oldest first.
MLIR_CAPI_EXPORTED HostoffloadXlaRelease
hostoffloadGetXlaRelease(intptr_t index);

/// One libtpu release of XlaReleases.def. The strings live as long as the
/// program.
typedef struct {
  /// Its version, e.g. "0.0.42.1".
  MlirStringRef version;
  /// The end of its `platform_version`, e.g. "Built on ... cl/933746096".
  MlirStringRef buildLine;
  /// The name of the XLA release it carries.
  MlirStringRef xlaRelease;
} HostoffloadLibtpuRelease;

/// The number of libtpu releases.
MLIR_CAPI_EXPORTED intptr_t hostoffloadGetNumLibtpuReleases(void);

/// Libtpu release `index`, in the order of their numbers.
MLIR_CAPI_EXPORTED HostoffloadLibtpuRelease
hostoffloadGetLibtpuRelease(intptr_t index);

/// A finding's path with more than twice this many steps lists this many at
/// each end, and "path_steps_omitted" counts the steps between.
MLIR_CAPI_EXPORTED unsigned hostoffloadGetPathStepsAtEachEnd(void);

#ifdef __cplusplus
}
#endif

#endif /* HOSTOFFLOAD_CAPI_H */
