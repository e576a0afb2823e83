//===- CAPI.cpp - C API of hostoffload ------------------------------------===//

#include "hostoffload/CAPI.h"

#include "hostoffload/FastPaths.h"
#include "hostoffload/HostOffloadAnalysis.h"
#include "hostoffload/ModuleVerifier.h"
#include "hostoffload/Parse.h"
#include "hostoffload/ParserWraps.h"
#include "hostoffload/Passes.h"

#include "../Analysis/ModuleOps.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
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

namespace {

/// An error that stops the analysis, with its notes.
struct CapturedError {
  std::string message;
  Location loc;
  llvm::SmallVector<std::pair<std::string, Location>> notes;
};

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

std::string printLocation(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

/// A source position (see `findSourcePosition`) as the attributes `file`,
/// `line` and `column` of the object being written, null where there is none.
template <typename Stream>
void writeSourcePosition(
    Stream &json, const std::optional<hostoffload::SourcePosition> &position) {
  if (!position) {
    json.attribute("file", nullptr);
    json.attribute("line", nullptr);
    json.attribute("column", nullptr);
    return;
  }
  json.attribute("file", hostoffload::toValidUTF8(position->file));
  json.attribute("line", position->line);
  json.attribute("column", position->column);
}

/// A location as the file, line and column a user can open, plus MLIR's own
/// spelling of it.
template <typename Stream> void writeLocation(Stream &json, Location loc) {
  json.object([&] {
    writeSourcePosition(json, hostoffload::findSourcePosition(loc));
    json.attribute("mlir", hostoffload::toValidUTF8(printLocation(loc)));
  });
}

/// The distinct locations of a report, each written once: starts, findings,
/// notes and path steps refer to them by index. A call site refers to its
/// callee and caller, a name location to its child, by index too, so the
/// frames of a call stack that many locations share are written once. The
/// table holds every location of the report before any is written, and is
/// written first: a reader then makes each object whole as it comes.
class LocationTable {
public:
  explicit LocationTable(const hostoffload::HostOffloadReport &report) {
    for (const hostoffload::TraceStart &start : report.starts)
      add(start.loc);
    for (const hostoffload::Finding &finding : report.findings) {
      add(finding.loc);
      for (const hostoffload::FindingNote &note : finding.notes)
        add(note.loc);
      for (const hostoffload::PathStep &step : finding.path)
        add(step.loc);
    }
    for (const hostoffload::StartTrace &trace : report.trace) {
      for (const hostoffload::PathStep &step : trace.through)
        add(step.loc);
      for (const hostoffload::TraceFate &fate : trace.fates) {
        add(fate.at.loc);
        for (const hostoffload::PathStep &step : fate.path)
          add(step.loc);
      }
    }
  }

  /// The index of `loc`, one of the report's.
  unsigned indexOf(Location loc) const {
    auto found = indices.find(loc);
    assert(found != indices.end() && "a location the table was not made with");
    return found->second;
  }

  /// Writes the table as the "locations" attribute of the object being
  /// written.
  template <typename Stream> void write(Stream &json) const {
    json.attributeArray("locations", [&] {
      for (auto [loc, position] : llvm::zip_equal(locations, positions))
        json.object([&] { writeEntry(json, loc, position); });
    });
  }

private:
  /// Adds `loc`, after its parts, if it is new. Parts are followed with a
  /// stack of our own, not by recursion: a location can nest as deep as its
  /// maker likes.
  void add(Location loc) {
    if (indices.contains(loc))
      return;
    // Each entry is a location and whether its parts have been pushed.
    llvm::SmallVector<std::pair<Location, bool>> pending{{loc, false}};
    while (!pending.empty()) {
      auto &[current, partsPushed] = pending.back();
      if (indices.contains(current)) {
        pending.pop_back();
        continue;
      }
      if (!partsPushed) {
        partsPushed = true;
        Location at = current;
        if (auto callSite = llvm::dyn_cast<CallSiteLoc>(at)) {
          // The callee is added first, as the spelling reads.
          pending.push_back({callSite.getCaller(), false});
          pending.push_back({callSite.getCallee(), false});
        } else if (auto name = llvm::dyn_cast<NameLoc>(at)) {
          if (!llvm::isa<UnknownLoc>(name.getChildLoc()))
            pending.push_back({name.getChildLoc(), false});
        }
        continue;
      }
      indices.try_emplace(current, static_cast<unsigned>(locations.size()));
      locations.push_back(current);
      positions.push_back(positionFromParts(current));
      pending.pop_back();
    }
  }

  /// What `findSourcePosition(loc)` gives, from the positions of its parts,
  /// which are in the table already: finding it anew for every entry would
  /// take time quadratic in how deep locations nest.
  std::optional<hostoffload::SourcePosition>
  positionFromParts(Location loc) const {
    if (auto callSite = llvm::dyn_cast<CallSiteLoc>(loc)) {
      // The callee is the innermost frame; the caller counts without one.
      const auto &callee = positions[indices.lookup(callSite.getCallee())];
      return callee ? callee : positions[indices.lookup(callSite.getCaller())];
    }
    auto name = llvm::dyn_cast<NameLoc>(loc);
    // A file directly inside a name is a Python frame, whose column
    // findSourcePosition shifts: it is found from the name.
    if (!name || llvm::isa<UnknownLoc, FileLineColRange>(name.getChildLoc()))
      return hostoffload::findSourcePosition(loc);
    return positions[indices.lookup(name.getChildLoc())];
  }

  /// A location as the file, line and column a user can open (the innermost
  /// Python frame for JAX input), plus MLIR's spelling of it: whole, or as
  /// `callsite(callee at caller)` and `"name"(child)` by the indices of the
  /// parts.
  template <typename Stream>
  void
  writeEntry(Stream &json, Location loc,
             const std::optional<hostoffload::SourcePosition> &position) const {
    writeSourcePosition(json, position);
    if (auto callSite = llvm::dyn_cast<CallSiteLoc>(loc)) {
      json.attribute("callee", indices.lookup(callSite.getCallee()));
      json.attribute("caller", indices.lookup(callSite.getCaller()));
      return;
    }
    auto name = llvm::dyn_cast<NameLoc>(loc);
    if (name && !llvm::isa<UnknownLoc>(name.getChildLoc())) {
      // MLIR's spelling of the name alone: `loc("name")` without `loc(`.
      std::string spelling = printLocation(NameLoc::get(name.getName()));
      json.attribute("name",
                     hostoffload::toValidUTF8(
                         llvm::StringRef(spelling).drop_front(4).drop_back(1)));
      json.attribute("child", indices.lookup(name.getChildLoc()));
      return;
    }
    json.attribute("mlir", hostoffload::toValidUTF8(printLocation(loc)));
  }

  llvm::DenseMap<Location, unsigned> indices;
  std::vector<Location> locations;
  /// The source position of each entry of `locations`.
  std::vector<std::optional<hostoffload::SourcePosition>> positions;
};

template <typename Stream>
void writeStart(Stream &json, const hostoffload::TraceStart &start,
                const LocationTable &locations) {
  json.object([&] {
    json.attribute("kind", start.kind == hostoffload::TraceStart::Kind::Argument
                               ? "argument"
                               : "annotation");
    if (start.kind == hostoffload::TraceStart::Kind::Argument)
      json.attribute("argument_index", start.argumentNumber);
    else
      json.attribute("argument_index", nullptr);
    json.attribute("name", hostoffload::toValidUTF8(start.name));
    json.attribute("reason", hostoffload::toValidUTF8(start.reason));
    json.attribute("location", locations.indexOf(start.loc));
    if (!start.xlaName.empty())
      json.attribute("xla_name", hostoffload::toValidUTF8(start.xlaName));
  });
}

/// Writes `steps` as the list `key` of the object being written.
template <typename Stream>
void writeSteps(Stream &json, llvm::StringRef key,
                llvm::ArrayRef<hostoffload::PathStep> steps,
                const LocationTable &locations) {
  json.attributeArray(key, [&] {
    for (const hostoffload::PathStep &step : steps)
      json.object([&] {
        json.attribute("what", hostoffload::toValidUTF8(step.what));
        json.attribute("location", locations.indexOf(step.loc));
      });
  });
}

/// Writes `tensor` as the members "type", "shape", "dtype" and "bytes" of
/// the object being written; each null without a tensor.
template <typename Stream>
void writeTensor(Stream &json,
                 const std::optional<hostoffload::TensorInfo> &tensor) {
  if (!tensor) {
    for (llvm::StringRef key : {"type", "shape", "dtype", "bytes"})
      json.attribute(key, nullptr);
    return;
  }
  json.attribute("type", hostoffload::toValidUTF8(tensor->type));
  if (tensor->shape)
    json.attributeArray("shape", [&] {
      for (int64_t size : *tensor->shape)
        json.value(size);
    });
  else
    json.attribute("shape", nullptr);
  if (tensor->dtype.empty())
    json.attribute("dtype", nullptr);
  else
    json.attribute("dtype", hostoffload::toValidUTF8(tensor->dtype));
  if (tensor->bytes)
    json.attribute("bytes", static_cast<int64_t>(*tensor->bytes));
  else
    json.attribute("bytes", nullptr);
}

/// Writes the trace of start `index`.
template <typename Stream>
void writeStartTrace(Stream &json, unsigned index,
                     const hostoffload::StartTrace &trace,
                     const LocationTable &locations) {
  json.object([&] {
    json.attribute("index", index);
    writeTensor(json, trace.tensor);
    json.attribute("already_in_host", trace.alreadyInHost);
    json.attributeArray("fates", [&] {
      for (const hostoffload::TraceFate &fate : trace.fates)
        json.object([&] {
          json.attribute("kind",
                         hostoffload::TraceFate::getKindName(fate.kind));
          json.attribute("what", hostoffload::toValidUTF8(fate.at.what));
          json.attribute("location", locations.indexOf(fate.at.loc));
          if (fate.outputIndex)
            json.attribute("output_index", *fate.outputIndex);
          else
            json.attribute("output_index", nullptr);
          writeTensor(json, fate.tensor);
          if (fate.fromStart)
            json.attribute("from_start", *fate.fromStart);
          else
            json.attribute("from_start", nullptr);
          writeSteps(json, "path", fate.path, locations);
          json.attribute("path_steps_omitted",
                         static_cast<int64_t>(fate.omittedPathSteps));
        });
    });
    json.attribute("host_compute_ops",
                   static_cast<int64_t>(trace.hostComputeOps));
    json.attribute("first_host_compute_ops",
                   static_cast<int64_t>(trace.firstHostComputeOps));
    writeSteps(json, "through", trace.through, locations);
  });
}

template <typename Stream>
void writeFinding(Stream &json, const hostoffload::Finding &finding,
                  bool strict, const LocationTable &locations) {
  json.object([&] {
    // A strict row names only errors: under allow-h2h-copy, host compute
    // that is only copies stays a warning of its lenient code.
    bool strictRow = strict && finding.severity == hostoffload::Severity::Error;
    json.attribute("code",
                   hostoffload::getFindingCodeName(finding.code, strictRow));
    json.attribute("severity", hostoffload::getSeverityName(finding.severity));
    json.attribute("message", hostoffload::toValidUTF8(finding.message));
    json.attribute("location", locations.indexOf(finding.loc));
    json.attributeArray("notes", [&] {
      for (const hostoffload::FindingNote &note : finding.notes)
        json.object([&] {
          json.attribute("message", hostoffload::toValidUTF8(note.message));
          json.attribute("location", locations.indexOf(note.loc));
        });
    });
    if (finding.outputIndex)
      json.attribute("output_index", *finding.outputIndex);
    else
      json.attribute("output_index", nullptr);
    json.attributeArray("tuple_index", [&] {
      for (int64_t index : finding.tupleIndex)
        json.value(index);
    });
    json.attribute("result_info", hostoffload::toValidUTF8(finding.resultInfo));
    json.attribute("declared_memory_kind",
                   hostoffload::toValidUTF8(finding.declaredMemoryKind));
    json.attributeArray("starts", [&] {
      for (unsigned index : finding.startIndices)
        json.value(index);
    });
    json.attribute("more_starts", finding.moreStarts);
    writeSteps(json, "path", finding.path, locations);
    json.attribute("path_steps_omitted",
                   static_cast<int64_t>(finding.omittedPathSteps));
    json.attributeArray("fixes", [&] {
      for (const hostoffload::Fix &fix : finding.fixes)
        json.object([&] {
          json.attribute("strategy",
                         hostoffload::Fix::getStrategyName(fix.strategy));
          json.attribute("module_change",
                         hostoffload::toValidUTF8(fix.moduleChange));
          json.attribute("jax_change", hostoffload::toValidUTF8(fix.jaxChange));
        });
    });
  });
}

/// Writes the "errors" list of the JSON object being written.
template <typename Stream>
void writeErrors(Stream &json, llvm::ArrayRef<CapturedError> errors) {
  json.attributeArray("errors", [&] {
    for (const CapturedError &error : errors)
      json.object([&] {
        json.attribute("message", hostoffload::toValidUTF8(error.message));
        json.attributeBegin("location");
        writeLocation(json, error.loc);
        json.attributeEnd();
        json.attributeArray("notes", [&] {
          for (const auto &[message, loc] : error.notes)
            json.object([&] {
              json.attribute("message", hostoffload::toValidUTF8(message));
              json.attributeBegin("location");
              writeLocation(json, loc);
              json.attributeEnd();
            });
        });
      });
  });
}

} // namespace

void hostoffloadRegisterPasses(void) {
  hostoffload::registerHostOffloadPasses();
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
    if (parsed && verify && failed(hostoffload::verifyModule(*module)))
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
                        MlirStringRef xlaRelease, bool trace) {
  Operation *op = unwrap(module);
  Analysis analysis;
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
  // The verifier's walk, when it runs, finds the ops the analysis looks up.
  std::optional<hostoffload::ModuleOps> collected;
  bool valid = verified;
  if (!verified)
    valid = succeeded(hostoffload::verifyModule(moduleOp, &collected));
  if (valid)
    analysis.report = hostoffload::analyzeHostOffload(
        moduleOp,
        hostoffload::HostOffloadOptions{unwrap(entry).str(), strict,
                                        allowH2hCopy, *release, trace},
        {}, collected ? &*collected : nullptr);
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
    verified = succeeded(hostoffload::verifyModule(unwrap(op)));
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

MlirLogicalResult hostoffloadAnalyzeToJson(MlirOperation module,
                                           MlirStringRef entry, bool strict,
                                           bool verified, bool allowH2hCopy,
                                           MlirStringRef xlaRelease, bool trace,
                                           MlirStringCallback callback,
                                           void *userData) {
  Analysis analysis =
      analyze(module, entry, strict, verified, allowH2hCopy, xlaRelease, trace);
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

MlirLogicalResult
hostoffloadAnalyzeToValues(MlirOperation module, MlirStringRef entry,
                           bool strict, bool verified, bool allowH2hCopy,
                           MlirStringRef xlaRelease, bool trace,
                           const HostoffloadValueSink *sink, void *userData) {
  Analysis analysis =
      analyze(module, entry, strict, verified, allowH2hCopy, xlaRelease, trace);
  if (sink) {
    ValueSinkStream stream(*sink, userData);
    writeAnalysis(stream, analysis, strict, trace);
  }
  return wrap(success(succeeded(analysis.report)));
}
