//===- CAPI.cpp - C API of hostoffload ------------------------------------===//

#include "hostoffload/CAPI.h"

#include "hostoffload/Dialects.h"
#include "hostoffload/FastPaths.h"
#include "hostoffload/HostOffloadAnalysis.h"
#include "hostoffload/Parse.h"
#include "hostoffload/ParserWraps.h"
#include "hostoffload/Passes.h"

#include "ReportWriters.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <vector>

using namespace mlir;
using namespace hostoffload::capi;

namespace {

/// Collects the errors emitted in `context` while it lives, instead of the
/// context's handlers. They go to Python as data: a dump of the failing op
/// attached to each would be noise there (and may hold bytes that are not
/// UTF-8, on which MLIR's Python bindings abort), so ops are not printed.
class ErrorCollector {
public:
  explicit ErrorCollector(MLIRContext *context)
      : context(context),
        printedOpOnDiagnostic(context->shouldPrintOpOnDiagnostic()),
        handler(context, [this](Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
            return success();
          // Some of MLIR's messages end in a blank.
          CapturedError error{llvm::StringRef(diagnostic.str()).rtrim().str(),
                              diagnostic.getLocation(),
                              {}};
          for (Diagnostic &note : diagnostic.getNotes())
            error.notes.emplace_back(llvm::StringRef(note.str()).rtrim().str(),
                                     note.getLocation());
          errors.push_back(std::move(error));
          return success();
        }) {
    context->printOpOnDiagnostic(false);
  }
  ~ErrorCollector() { context->printOpOnDiagnostic(printedOpOnDiagnostic); }

  llvm::SmallVector<CapturedError> errors;

private:
  MLIRContext *context;
  bool printedOpOnDiagnostic;
  ScopedDiagnosticHandler handler;
};

/// Hands what the JSON writers below write to a HostoffloadValueSink, value
/// by value, with the members of llvm::json::OStream they use: the writers
/// are templates over the two, so a report reaches Python's objects with the
/// same members in the same order as its JSON text.
class ValueSinkStream {
public:
  ValueSinkStream(const HostoffloadValueSink &sink, void *userData)
      : sink(sink), userData(userData) {}

  template <typename Body> void object(Body body) {
    sink.beginObject(userData);
    body();
    sink.endObject(userData);
  }
  template <typename Body> void array(Body body) {
    sink.beginArray(userData);
    body();
    sink.endArray(userData);
  }
  void attributeBegin(llvm::StringRef key) { sink.key(wrap(key), userData); }
  void attributeEnd() {}
  template <typename Body> void attributeArray(llvm::StringRef key, Body body) {
    attributeBegin(key);
    array(body);
  }
  template <typename Value>
  void attribute(llvm::StringRef key, const Value &value) {
    attributeBegin(key);
    this->value(value);
  }

  void value(llvm::StringRef text) { sink.string(wrap(text), userData); }
  // A literal would otherwise take the conversion to bool.
  void value(const char *text) { value(llvm::StringRef(text)); }
  void value(bool flag) { sink.boolean(flag, userData); }
  void value(std::nullptr_t) { sink.null(userData); }
  template <typename Integer,
            std::enable_if_t<std::is_integral_v<Integer>, int> = 0>
  void value(Integer number) {
    sink.integer(static_cast<int64_t>(number), userData);
  }

private:
  const HostoffloadValueSink &sink;
  void *userData;
};

} // namespace

void hostoffloadRegisterPasses(void) {
  hostoffload::registerHostOffloadPasses();
}

void hostoffloadRegisterDialects(MlirDialectRegistry registry) {
  hostoffload::registerDialects(*unwrap(registry));
}

intptr_t hostoffloadGetNumFindingCodes(void) {
  return static_cast<intptr_t>(hostoffload::getFindingCodes().size());
}

HostoffloadFindingCode hostoffloadGetFindingCode(intptr_t index) {
  const hostoffload::FindingCodeInfo &info =
      hostoffload::getFindingCodes()[index];
  llvm::StringRef strictFormOf =
      info.strictOnly
          ? hostoffload::getFindingCodeName(info.code, /*strict=*/false)
          : llvm::StringRef();
  return {wrap(llvm::StringRef(info.name)),
          wrap(hostoffload::getSeverityName(info.severity)),
          wrap(llvm::StringRef(info.description)), wrap(strictFormOf)};
}

intptr_t hostoffloadGetNumFormerFindingCodes(void) {
  return static_cast<intptr_t>(hostoffload::getFormerFindingCodeNames().size());
}

HostoffloadFormerFindingCode hostoffloadGetFormerFindingCode(intptr_t index) {
  const hostoffload::FormerFindingCodeName &row =
      hostoffload::getFormerFindingCodeNames()[index];
  return {wrap(llvm::StringRef(row.former)), wrap(llvm::StringRef(row.name))};
}

intptr_t hostoffloadGetNumXlaReleases(void) {
  return static_cast<intptr_t>(hostoffload::getXlaReleases().size());
}

HostoffloadXlaRelease hostoffloadGetXlaRelease(intptr_t index) {
  const hostoffload::XlaReleaseInfo &info =
      hostoffload::getXlaReleases()[index];
  return {wrap(llvm::StringRef(info.name)),
          wrap(llvm::StringRef(info.sources))};
}

intptr_t hostoffloadGetNumLibtpuReleases(void) {
  return static_cast<intptr_t>(hostoffload::getLibtpuReleases().size());
}

HostoffloadLibtpuRelease hostoffloadGetLibtpuRelease(intptr_t index) {
  const hostoffload::LibtpuRelease &libtpu =
      hostoffload::getLibtpuReleases()[index];
  return {
      wrap(llvm::StringRef(libtpu.version)),
      wrap(llvm::StringRef(libtpu.buildLine)),
      wrap(llvm::StringRef(hostoffload::getXlaReleaseInfo(libtpu.xla).name))};
}

unsigned hostoffloadGetPathStepsAtEachEnd(void) {
  return hostoffload::kPathStepsAtEachEnd;
}

bool hostoffloadFastPathEnabled(MlirStringRef name) {
  std::optional<hostoffload::FastPath> path =
      hostoffload::parseFastPathName(unwrap(name));
  return path && hostoffload::fastPathEnabled(*path);
}

intptr_t hostoffloadGetNumFastPaths(void) {
  return static_cast<intptr_t>(hostoffload::getFastPathNames().size());
}

MlirStringRef hostoffloadGetFastPathName(intptr_t index) {
  return wrap(llvm::StringRef(hostoffload::getFastPathNames()[index]));
}

intptr_t hostoffloadGetNumParserWraps(void) {
  return static_cast<intptr_t>(hostoffload::getParserWrapNames().size());
}

MlirStringRef hostoffloadGetParserWrapName(intptr_t index) {
  return wrap(llvm::StringRef(hostoffload::getParserWrapNames()[index]));
}

bool hostoffloadWasParserWrapCalled(intptr_t index) {
  return hostoffload::wasParserWrapCalled(
      static_cast<hostoffload::ParserWrap>(index));
}

void hostoffloadDescribeFastPaths(MlirStringCallback callback, void *userData) {
  std::string description = hostoffload::describeFastPaths();
  callback(wrap(llvm::StringRef(description)), userData);
}

intptr_t hostoffloadGetDefaultParallelBodyBytes(void) {
  return static_cast<intptr_t>(hostoffload::kDefaultParallelBodyBytes);
}

MlirModule hostoffloadParseModule(MlirContext context, MlirStringRef text,
                                  MlirStringRef bufferName, bool verify,
                                  intptr_t minParallelBodyBytes,
                                  bool lexerPositions, bool *parsedInParts,
                                  MlirStringCallback callback, void *userData) {
  OwningOpRef<ModuleOp> module;
  bool parsed = false;
  llvm::SmallVector<CapturedError> errors;
  {
    ErrorCollector collector(unwrap(context));
    hostoffload::ParseOptions options;
    if (minParallelBodyBytes >= 0)
      options.minParallelBodyBytes = static_cast<size_t>(minParallelBodyBytes);
    options.withoutLexerPositions = !lexerPositions;
    module = hostoffload::parseModule(unwrap(text), unwrap(bufferName),
                                      unwrap(context), options, parsedInParts);
    parsed = static_cast<bool>(module);
    if (parsed && verify && failed(mlir::verify(*module)))
      module = nullptr;
    errors = std::move(collector.errors);
  }
  if (module)
    return wrap(module.release());
  std::string output;
  llvm::raw_string_ostream os(output);
  llvm::json::OStream json(os);
  json.object([&] {
    writeErrors(json, errors);
    json.attribute("parsed", parsed);
  });
  callback(wrap(llvm::StringRef(output)), userData);
  return MlirModule{nullptr};
}

/// The analysis of a module, or the errors that kept it from one.
struct Analysis {
  llvm::SmallVector<CapturedError> errors;
  FailureOr<hostoffload::HostOffloadReport> report = failure();
};

/// Analyses `module`; never changes it.
static Analysis analyze(MlirOperation module, MlirStringRef entry, bool strict,
                        bool verified, bool allowH2hCopy,
                        MlirStringRef xlaRelease, MlirStringRef platform,
                        bool trace) {
  Operation *op = unwrap(module);
  Analysis analysis;
  std::optional<hostoffload::Platform> compiledFor =
      hostoffload::parsePlatform(unwrap(platform));
  if (!compiledFor) {
    analysis.errors.push_back({"unknown platform '" +
                                   hostoffload::toValidUTF8(unwrap(platform)) +
                                   "'; use tpu (XLA:TPU) or cuda (XLA:GPU)",
                               op->getLoc(),
                               {}});
    return analysis;
  }
  std::optional<hostoffload::XlaRelease> release =
      hostoffload::parseXlaRelease(unwrap(xlaRelease));
  if (!release) {
    analysis.errors.push_back(
        {"unknown XLA release '" +
             hostoffload::toValidUTF8(unwrap(xlaRelease)) + "'; use " +
             hostoffload::describeXlaReleaseNames(),
         op->getLoc(),
         {}});
    return analysis;
  }
  auto moduleOp = llvm::dyn_cast<ModuleOp>(op);
  if (!moduleOp) {
    analysis.errors.push_back({"expected a builtin.module, got '" +
                                   op->getName().getStringRef().str() + "'",
                               op->getLoc(),
                               {}});
    return analysis;
  }
  ErrorCollector collector(op->getContext());
  // A module object of Python may have changed since it was last verified,
  // and the analysis relies on the verifier (one attribute dictionary per
  // result, return operands matching the results, ...).
  if (verified || succeeded(mlir::verify(moduleOp)))
    analysis.report = hostoffload::analyzeHostOffload(
        moduleOp, hostoffload::HostOffloadOptions{unwrap(entry).str(), strict,
                                                  allowH2hCopy, *release, trace,
                                                  *compiledFor});
  analysis.errors = std::move(collector.errors);
  return analysis;
}

/// Writes `analysis`, made with `strict` or without, as the report's JSON
/// object (report.schema.json), with its "trace" if `trace`.
template <typename Stream>
static void writeAnalysis(Stream &json, Analysis &analysis, bool strict,
                          bool trace) {
  json.object([&] {
    writeErrors(json, analysis.errors);
    if (failed(analysis.report))
      return;
    hostoffload::HostOffloadReport &report = *analysis.report;
    json.attribute("entry",
                   hostoffload::toValidUTF8(report.entry.getSymName()));
    json.attribute("xla_release",
                   hostoffload::getXlaReleaseInfo(report.xlaRelease).name);
    LocationTable locations(report);
    locations.write(json);
    json.attributeArray("starts", [&] {
      for (const hostoffload::TraceStart &start : report.starts)
        writeStart(json, start, locations);
    });
    json.attributeArray("findings", [&] {
      for (const hostoffload::Finding &finding : report.findings)
        writeFinding(json, finding, strict, locations);
    });
    if (!trace)
      return;
    json.attributeArray("trace", [&] {
      for (auto [index, startTrace] : llvm::enumerate(report.trace))
        writeStartTrace(json, index, startTrace, locations);
    });
  });
}

MlirLogicalResult hostoffloadVerify(MlirOperation op,
                                    MlirStringCallback callback,
                                    void *userData) {
  llvm::SmallVector<CapturedError> errors;
  bool verified;
  {
    ErrorCollector collector(unwrap(op)->getContext());
    verified = succeeded(mlir::verify(unwrap(op)));
    errors = std::move(collector.errors);
  }
  if (verified)
    return wrap(success());
  std::string output;
  llvm::raw_string_ostream os(output);
  llvm::json::OStream json(os);
  json.object([&] { writeErrors(json, errors); });
  callback(wrap(llvm::StringRef(output)), userData);
  return wrap(failure());
}

MlirLogicalResult hostoffloadAnalyzeToJson(
    MlirOperation module, MlirStringRef entry, bool strict, bool verified,
    bool allowH2hCopy, MlirStringRef xlaRelease, MlirStringRef platform,
    bool trace, MlirStringCallback callback, void *userData) {
  Analysis analysis = analyze(module, entry, strict, verified, allowH2hCopy,
                              xlaRelease, platform, trace);
  std::string text;
  llvm::raw_string_ostream os(text);
  // The JSON writer writes a character at a time: unbuffered, as a string's
  // stream is, each would be appended on its own.
  os.SetBufferSize(1 << 16);
  llvm::json::OStream json(os);
  writeAnalysis(json, analysis, strict, trace);
  os.flush();
  callback(wrap(llvm::StringRef(text)), userData);
  return wrap(success(succeeded(analysis.report)));
}

MlirLogicalResult hostoffloadAnalyzeToValues(
    MlirOperation module, MlirStringRef entry, bool strict, bool verified,
    bool allowH2hCopy, MlirStringRef xlaRelease, MlirStringRef platform,
    bool trace, const HostoffloadValueSink *sink, void *userData) {
  Analysis analysis = analyze(module, entry, strict, verified, allowH2hCopy,
                              xlaRelease, platform, trace);
  if (sink) {
    ValueSinkStream stream(*sink, userData);
    writeAnalysis(stream, analysis, strict, trace);
  }
  return wrap(success(succeeded(analysis.report)));
}
