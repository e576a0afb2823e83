//===- CAPI.cpp - C API of hostoffload ------------------------------------===//

#include "hostoffload/CAPI.h"

#include "hostoffload/HostOffloadAnalysis.h"
#include "hostoffload/Passes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

/// An error that stops the analysis, with its notes.
struct CapturedError {
  std::string message;
  Location loc;
  llvm::SmallVector<std::pair<std::string, Location>> notes;
};

llvm::StringRef severityName(hostoffload::Severity severity) {
  return severity == hostoffload::Severity::Error ? "error" : "warning";
}

std::string printLocation(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

/// A location as the file, line and column a user can open (the innermost
/// Python frame for JAX input), plus MLIR's own spelling of it.
void writeLocation(llvm::json::OStream &json, Location loc) {
  json.object([&] {
    std::optional<FileLineColRange> file = hostoffload::findFileLocation(loc);
    if (file) {
      json.attribute("file", file->getFilename().getValue());
      json.attribute("line", file->getStartLine());
      json.attribute("column", file->getStartColumn());
    } else {
      json.attribute("file", nullptr);
      json.attribute("line", nullptr);
      json.attribute("column", nullptr);
    }
    json.attribute("mlir", printLocation(loc));
  });
}

void writeStart(llvm::json::OStream &json,
                const hostoffload::TraceStart &start) {
  json.object([&] {
    json.attribute("kind", start.kind == hostoffload::TraceStart::Kind::Argument
                               ? "argument"
                               : "annotation");
    if (start.kind == hostoffload::TraceStart::Kind::Argument)
      json.attribute("argument_index", start.argumentNumber);
    else
      json.attribute("argument_index", nullptr);
    json.attribute("name", start.name);
    json.attribute("reason", start.reason);
    json.attributeBegin("location");
    writeLocation(json, start.loc);
    json.attributeEnd();
  });
}

void writeFinding(llvm::json::OStream &json, const hostoffload::Finding &finding,
                  bool strict) {
  json.object([&] {
    json.attribute("code",
                   hostoffload::getFindingCodeName(finding.code, strict));
    json.attribute("severity", severityName(finding.severity));
    json.attribute("message", finding.message);
    json.attributeBegin("location");
    writeLocation(json, finding.loc);
    json.attributeEnd();
    json.attributeArray("notes", [&] {
      for (const hostoffload::FindingNote &note : finding.notes)
        json.object([&] {
          json.attribute("message", note.message);
          json.attributeBegin("location");
          writeLocation(json, note.loc);
          json.attributeEnd();
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
    json.attribute("result_info", finding.resultInfo);
    json.attribute("declared_memory_kind", finding.declaredMemoryKind);
    json.attributeArray("starts", [&] {
      for (unsigned index : finding.startIndices)
        json.value(index);
    });
    json.attribute("more_starts", finding.moreStarts);
    json.attributeArray("path", [&] {
      for (const hostoffload::PathStep &step : finding.path)
        json.object([&] {
          json.attribute("what", step.what);
          json.attributeBegin("location");
          writeLocation(json, step.loc);
          json.attributeEnd();
        });
    });
    json.attributeArray("fixes", [&] {
      for (const hostoffload::Fix &fix : finding.fixes)
        json.object([&] {
          json.attribute("strategy", fix.strategy == hostoffload::Fix::Strategy::Host
                                         ? "host"
                                         : "device");
          json.attribute("module_change", fix.moduleChange);
          json.attribute("jax_change", fix.jaxChange);
        });
    });
  });
}

} // namespace

void hostoffloadRegisterPasses(void) { hostoffload::registerHostOffloadPasses(); }

MlirLogicalResult hostoffloadAnalyzeToJson(MlirOperation module,
                                           MlirStringRef entry, bool strict,
                                           MlirStringCallback callback,
                                           void *userData) {
  Operation *op = unwrap(module);
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os);

  auto moduleOp = llvm::dyn_cast<ModuleOp>(op);
  llvm::SmallVector<CapturedError> errors;
  FailureOr<hostoffload::HostOffloadReport> report = failure();
  if (!moduleOp) {
    errors.push_back({"expected a builtin.module, got '" +
                          op->getName().getStringRef().str() + "'",
                      op->getLoc(),
                      {}});
  } else {
    // The errors go to Python as data; a dump of the whole module attached to
    // each would be noise there.
    MLIRContext *context = op->getContext();
    bool printedOpOnDiagnostic = context->shouldPrintOpOnDiagnostic();
    context->printOpOnDiagnostic(false);
    auto restorePrinting = llvm::make_scope_exit(
        [&] { context->printOpOnDiagnostic(printedOpOnDiagnostic); });
    ScopedDiagnosticHandler captureErrors(
        op->getContext(), [&](Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
            return success();
          CapturedError error{diagnostic.str(), diagnostic.getLocation(), {}};
          for (Diagnostic &note : diagnostic.getNotes())
            error.notes.emplace_back(note.str(), note.getLocation());
          errors.push_back(std::move(error));
          return success();
        });
    report = hostoffload::analyzeHostOffload(
        moduleOp, hostoffload::HostOffloadOptions{unwrap(entry).str(), strict});
  }

  json.object([&] {
    json.attributeArray("errors", [&] {
      for (const CapturedError &error : errors)
        json.object([&] {
          json.attribute("message", error.message);
          json.attributeBegin("location");
          writeLocation(json, error.loc);
          json.attributeEnd();
          json.attributeArray("notes", [&] {
            for (const auto &[message, loc] : error.notes)
              json.object([&] {
                json.attribute("message", message);
                json.attributeBegin("location");
                writeLocation(json, loc);
                json.attributeEnd();
              });
          });
        });
    });
    if (failed(report))
      return;
    json.attribute("entry", report->entry.getSymName());
    json.attributeArray("starts", [&] {
      for (const hostoffload::TraceStart &start : report->starts)
        writeStart(json, start);
    });
    json.attributeArray("findings", [&] {
      for (const hostoffload::Finding &finding : report->findings)
        writeFinding(json, finding, strict);
    });
  });
  callback(wrap(llvm::StringRef(text)), userData);
  return wrap(success(succeeded(report)));
}
