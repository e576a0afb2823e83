//===- HostOffloadExtension.cpp - the analysis for Python -----------------===//
//
// Hands the host-offload analysis to Python as data: the report as the
// objects json.loads would make of its JSON (or as that JSON text), which
// hostoffload.report turns into typed findings; the table of finding codes
// and the path-split constant come with it.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/CAPI.h"

#include "mlir-c/IR.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"
#include "llvm/ADT/StringMap.h"

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

/// Makes of the values a HostoffloadValueSink receives the objects json.loads
/// makes of their text: dicts, lists, str, int, bool and None. Each container
/// joins its parent when it begins, so a member's key is never kept past its
/// value. Should Python fail to make an object, the rest is ignored and
/// `take` raises Python's error.
class PythonValueBuilder {
public:
  PythonValueBuilder() = default;
  PythonValueBuilder(const PythonValueBuilder &) = delete;
  PythonValueBuilder &operator=(const PythonValueBuilder &) = delete;
  ~PythonValueBuilder() {
    Py_XDECREF(root);
    Py_XDECREF(key);
    for (auto &entry : keys)
      Py_DECREF(entry.second);
  }

  /// The sink whose `userData` is a builder.
  static const HostoffloadValueSink sink;

  /// The document; raises Python's error if an object could not be made.
  nb::object take() {
    if (failed)
      throw nb::python_error();
    return nb::steal(std::exchange(root, nullptr));
  }

private:
  static PythonValueBuilder &of(void *self) {
    return *static_cast<PythonValueBuilder *>(self);
  }

  /// Adds `value` (a new reference, or null for Python's failure) to the
  /// innermost open container, or makes it the document.
  void add(PyObject *value) {
    if (failed || !value) {
      failed = true;
      Py_XDECREF(value);
      return;
    }
    if (open.empty()) {
      root = value;
      return;
    }
    PyObject *container = open.back();
    int status = PyList_Check(container)
                     ? PyList_Append(container, value)
                     : PyDict_SetItem(container, key, value);
    Py_DECREF(value);
    Py_CLEAR(key);
    failed = status != 0;
  }

  void begin(PyObject *container) {
    add(container);
    // Held by its parent, or as the document.
    open.push_back(failed ? nullptr : container);
  }

  void end() { open.pop_back(); }

  /// Keys are few and repeated: each is made once, and interned as a
  /// literal in Python code is, so that lookups by literals are cheap.
  void setKey(MlirStringRef name) {
    if (failed)
      return;
    auto [entry, inserted] =
        keys.try_emplace(llvm::StringRef(name.data, name.length), nullptr);
    if (inserted) {
      entry->second = PyUnicode_DecodeUTF8(name.data, name.length, nullptr);
      if (!entry->second) {
        keys.erase(entry);
        failed = true;
        return;
      }
      PyUnicode_InternInPlace(&entry->second);
    }
    key = Py_NewRef(entry->second);
  }

  PyObject *root = nullptr;
  PyObject *key = nullptr;
  std::vector<PyObject *> open;
  llvm::StringMap<PyObject *> keys;
  bool failed = false;
};

const HostoffloadValueSink PythonValueBuilder::sink = {
    [](void *self) { of(self).begin(PyDict_New()); },
    [](void *self) { of(self).end(); },
    [](void *self) { of(self).begin(PyList_New(0)); },
    [](void *self) { of(self).end(); },
    [](MlirStringRef name, void *self) { of(self).setKey(name); },
    [](MlirStringRef text, void *self) {
      of(self).add(PyUnicode_DecodeUTF8(text.data, text.length, nullptr));
    },
    [](int64_t number, void *self) {
      of(self).add(PyLong_FromLongLong(number));
    },
    [](bool flag, void *self) {
      of(self).add(flag ? Py_NewRef(Py_True) : Py_NewRef(Py_False));
    },
    [](void *self) { of(self).add(Py_NewRef(Py_None)); },
};

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
      "analyze_data",
      [](MlirOperation module, const std::string &entry, bool strict,
         bool verified, bool allowH2hCopy, bool report) {
        PythonValueBuilder builder;
        MlirLogicalResult result = hostoffloadAnalyzeToValues(
            module, mlirStringRefCreate(entry.data(), entry.size()), strict,
            verified, allowH2hCopy,
            report ? &PythonValueBuilder::sink : nullptr, &builder);
        return nb::make_tuple(mlirLogicalResultIsSuccess(result),
                              report ? builder.take() : nb::none());
      },
      nb::arg("module"), nb::arg("entry") = "", nb::arg("strict") = false,
      nb::arg("verified") = false, nb::arg("allow_h2h_copy") = false,
      nb::arg("report") = true,
      "As `analyze`, but returns (succeeded, report) with the report as the "
      "dict json.loads makes of the JSON text `analyze` returns, built "
      "without that text; with `report` false, only analyses and gives None "
      "(to time the analysis alone). Python's cyclic collector had better be "
      "off while a report is built: thousands of findings are many "
      "containers.");
  m.def(
      "parse",
      [](MlirContext context, nb::bytes text, nb::bytes name, bool verify,
         intptr_t parallelBodyBytes, bool reportParts,
         bool lexerPositions) -> nb::object {
        std::string json;
        bool inParts = false;
        MlirModule module = hostoffloadParseModule(
            context, mlirStringRefCreate(text.c_str(), text.size()),
            mlirStringRefCreate(name.c_str(), name.size()), verify,
            parallelBodyBytes, lexerPositions, &inParts, appendToString, &json);
        nb::object parsed =
            mlirModuleIsNull(module) ? nb::none() : nb::cast(module);
        if (reportParts)
          return nb::make_tuple(parsed, json, inParts);
        return nb::make_tuple(parsed, json);
      },
      nb::arg("context"), nb::arg("text"), nb::arg("name") = nb::bytes("-"),
      nb::arg("verify") = true, nb::arg("parallel_body_bytes") = -1,
      nb::arg("report_parts") = false, nb::arg("lexer_positions") = false,
      "Parses MLIR text or bytecode into a new module of `context`, naming it "
      "`name` (bytes, a file name) in the locations the parser makes, and "
      "verifies it unless `verify` is false; returns (module, \"\"), or "
      "(None, the errors as JSON text). A function body of at least "
      "`parallel_body_bytes` of text is parsed on two threads (negative: the "
      "library's default, `default_parallel_body_bytes()`); with "
      "`report_parts`, a third item tells whether it was. With "
      "`lexer_positions`, every op's position is made into a location before "
      "its own `loc(...)` replaces it, as MLIR's parser does (else not, "
      "where every op has one; for comparing).");
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
