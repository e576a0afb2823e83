//===- HostOffloadExtension.cpp - the analysis for Python -----------------===//
//
// Hands the host-offload analysis to Python as data: the C API writes the
// report as JSON, which hostoffload.report turns into typed findings; the
// table of finding codes and the path-split constant come with it.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/CAPI.h"

#include "mlir-c/IR.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

#include <mutex>
#include <optional>
#include <pthread.h>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace nb = nanobind;

static void appendToString(MlirStringRef chunk, void *userData) {
  static_cast<std::string *>(userData)->append(chunk.data, chunk.length);
}

static std::string toString(MlirStringRef text) {
  return std::string(text.data, text.length);
}

// The contexts of modules whose bodies the library's thread has destroyed,
// each still referenced for that thread: their references are dropped by the
// interpreter, which that thread must not enter.
static std::mutex destroyedMutex;
static std::vector<PyObject *> destroyedContexts;

/// Drops the references; called by the interpreter, with the GIL.
static int releaseDestroyedContexts(void *) {
  std::vector<PyObject *> contexts;
  {
    std::lock_guard<std::mutex> lock(destroyedMutex);
    contexts.swap(destroyedContexts);
  }
  for (PyObject *context : contexts)
    Py_DECREF(context);
  return 0;
}

/// Called on the library's thread once a body is destroyed. Should the
/// interpreter's queue of pending calls be full, the next release takes it.
static void onBodyDestroyed(void *context) {
  {
    std::lock_guard<std::mutex> lock(destroyedMutex);
    destroyedContexts.push_back(static_cast<PyObject *>(context));
  }
  Py_AddPendingCall(releaseDestroyedContexts, nullptr);
}

// No thread holds the lock while the process is copied by a fork; the child's
// only thread, the forking one, holds it and lets it go.
static void lockDestroyedContexts() { destroyedMutex.lock(); }
static void unlockDestroyedContexts() { destroyedMutex.unlock(); }

NB_MODULE(_hostoffload, m) {
  m.doc() = "The host-offload analysis of hostoffload, reporting as JSON.";
  pthread_atfork(lockDestroyedContexts, unlockDestroyedContexts,
                 unlockDestroyedContexts);
  m.def(
      "analyze",
      [](MlirOperation module, const std::string &entry, bool strict,
         bool verified, bool allowH2hCopy) {
        std::string json;
        MlirLogicalResult result = hostoffloadAnalyzeToJson(
            module, mlirStringRefCreate(entry.data(), entry.size()), strict,
            verified, allowH2hCopy, appendToString, &json);
        return std::make_pair(mlirLogicalResultIsSuccess(result), json);
      },
      nb::arg("module"), nb::arg("entry") = "", nb::arg("strict") = false,
      nb::arg("verified") = false, nb::arg("allow_h2h_copy") = false,
      "Analyses a builtin.module; returns (succeeded, report as JSON text). "
      "Never changes the module. `verified`: the module passed the verifier "
      "and has not changed since (as one `parse` returned); else it is "
      "verified first. `strict` and `allow_h2h_copy` are the options of "
      "host-offload-check.");
  m.def(
      "parse",
      [](MlirContext context, nb::bytes text, nb::bytes name, bool verify,
         intptr_t parallelBodyBytes, bool reportParts) -> nb::object {
        std::string json;
        bool inParts = false;
        MlirModule module = hostoffloadParseModule(
            context, mlirStringRefCreate(text.c_str(), text.size()),
            mlirStringRefCreate(name.c_str(), name.size()), verify,
            parallelBodyBytes, &inParts, appendToString, &json);
        nb::object parsed =
            mlirModuleIsNull(module) ? nb::none() : nb::cast(module);
        if (reportParts)
          return nb::make_tuple(parsed, json, inParts);
        return nb::make_tuple(parsed, json);
      },
      nb::arg("context"), nb::arg("text"), nb::arg("name") = nb::bytes("-"),
      nb::arg("verify") = true, nb::arg("parallel_body_bytes") = -1,
      nb::arg("report_parts") = false,
      "Parses MLIR text or bytecode into a new module of `context`, naming it "
      "`name` (bytes, a file name) in the locations the parser makes, and "
      "verifies it unless `verify` is false; returns (module, \"\"), or "
      "(None, the errors as JSON text). A function body of at least "
      "`parallel_body_bytes` of text is parsed on two threads (negative: the "
      "library's default, `default_parallel_body_bytes()`); with "
      "`report_parts`, a third item tells whether it was.");
  m.def("default_parallel_body_bytes", &hostoffloadGetDefaultParallelBodyBytes,
        "The smallest function body, in bytes of text, that `parse` parses "
        "on two threads by default.");
  m.def(
      "destroy_body_in_background",
      [](MlirOperation module, nb::object context) {
        hostoffloadDestroyBodyInBackground(module, onBodyDestroyed,
                                           context.release().ptr());
      },
      nb::arg("module"), nb::arg("context"),
      "Empties `module` (a builtin.module of `context` that nothing else "
      "refers into) and destroys its operations on a thread of the library's "
      "own, holding `context` until they are gone.");
  m.def(
      "wait_for_background_destruction",
      [] {
        {
          nb::gil_scoped_release released;
          hostoffloadWaitForBackgroundDestruction();
        }
        releaseDestroyedContexts(nullptr);
      },
      "Returns once every destruction begun has ended and its context been "
      "released; before the interpreter finalizes, it must.");
  m.def(
      "verify",
      [](MlirOperation op) {
        std::string json;
        MlirLogicalResult result = hostoffloadVerify(op, appendToString, &json);
        return std::make_pair(mlirLogicalResultIsSuccess(result), json);
      },
      nb::arg("op"),
      "Verifies an op as MLIR's verifier does, resolving a module's calls in "
      "the module even inside Shardy regions; returns (succeeded, \"\") or "
      "(False, the errors as JSON text).");
  m.def(
      "finding_codes",
      [] {
        std::vector<std::tuple<std::string, std::string, std::string,
                               std::optional<std::string>>>
            rows;
        for (intptr_t i = 0, e = hostoffloadGetNumFindingCodes(); i < e; ++i) {
          HostoffloadFindingCode row = hostoffloadGetFindingCode(i);
          std::optional<std::string> strictFormOf;
          if (row.strictFormOf.length != 0)
            strictFormOf = toString(row.strictFormOf);
          rows.emplace_back(toString(row.code), toString(row.severity),
                            toString(row.description), strictFormOf);
        }
        return rows;
      },
      "Every code the analysis reports, in the order of docs/diagnostics.md: "
      "a list of (code, severity, description, strict_form_of), where "
      "severity is \"error\" or \"warning\" and strict_form_of names the "
      "code this one replaces under strict=True (else None).");
  m.def(
      "former_finding_codes",
      [] {
        std::vector<std::pair<std::string, std::string>> rows;
        for (intptr_t i = 0, e = hostoffloadGetNumFormerFindingCodes(); i < e;
             ++i) {
          HostoffloadFormerFindingCode row = hostoffloadGetFormerFindingCode(i);
          rows.emplace_back(toString(row.former), toString(row.code));
        }
        return rows;
      },
      "Our codes as they were printed before the HO prefix: a list of "
      "(former, code).");
  m.attr("PATH_STEPS_AT_EACH_END") = hostoffloadGetPathStepsAtEachEnd();
}
