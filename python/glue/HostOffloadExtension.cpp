//===- HostOffloadExtension.cpp - the analysis for Python -----------------===//
//
// Hands the host-offload analysis to Python as data: the report as the
// objects of hostoffload.report's classes, as the objects json.loads would
// make of its JSON, or as that JSON text; the table of finding codes and the
// path-split constant come with it.
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
#include <unordered_map>
#include <utility>
#include <vector>

namespace nb = nanobind;

static void appendToString(MlirStringRef chunk, void *userData) {
  static_cast<std::string *>(userData)->append(chunk.data, chunk.length);
}

static std::string toString(MlirStringRef text) {
  return std::string(text.data, text.length);
}

/// How the objects of a plain dataclass (every field given to the `__init__`
/// dataclasses wrote, no default factory, no `__post_init__`, no `__new__` of
/// its own) are made: their fields set in order, as that `__init__` sets
/// them, without a call that parses a dozen keyword arguments in Python for
/// each object.
struct FieldSetter {
  /// The fields (names interned) and their defaults (null if required).
  std::vector<std::pair<PyObject *, PyObject *>> fields;

  /// The setter of `cls` if it is a plain dataclass, else null (asked again
  /// for each object: only tests pass other callables). Found once per
  /// process and kept, with a reference to the class, so that no other class
  /// takes its address: the report's classes live as long as the
  /// process, and `dataclasses.fields`, asked once per report, would leave a
  /// tuple in Python's free lists each time. Sets `failed` when Python
  /// failed.
  static const FieldSetter *of(PyObject *cls, bool &failed) {
    // Never destroyed: the interpreter may be gone by the time it would be.
    // Its entries stay where they are as it grows.
    static auto &setters = *new std::unordered_map<PyObject *, FieldSetter>();
    auto found = setters.find(cls);
    if (found != setters.end())
      return &found->second;
    try {
      nb::handle type(cls);
      if (!PyType_Check(cls) ||
          reinterpret_cast<PyTypeObject *>(cls)->tp_new !=
              PyBaseObject_Type.tp_new ||
          !nb::hasattr(type, "__dataclass_fields__") ||
          nb::hasattr(type, "__post_init__"))
        return nullptr;
      nb::module_ dataclasses = nb::module_::import_("dataclasses");
      nb::object missing = dataclasses.attr("MISSING");
      nb::object fields = dataclasses.attr("fields")(type);
      // InitVar and ClassVar pseudo-fields are not fields.
      if (nb::len(fields) !=
          nb::len(nb::object(type.attr("__dataclass_fields__"))))
        return nullptr;
      FieldSetter setter;
      for (nb::handle field : fields) {
        nb::object name = field.attr("name");
        if (!nb::cast<bool>(field.attr("init")) ||
            !field.attr("default_factory").is(missing) ||
            !PyUnicode_CheckExact(name.ptr()))
          return nullptr;
        nb::object fallback = field.attr("default");
        setter.fields.emplace_back(
            name.ptr(), fallback.is(missing) ? nullptr : fallback.ptr());
      }
      // Kept: the class, its fields' names and defaults.
      Py_INCREF(cls);
      for (auto &[name, fallback] : setter.fields) {
        Py_INCREF(name);
        PyUnicode_InternInPlace(&name);
        Py_XINCREF(fallback);
      }
      return &setters.try_emplace(cls, std::move(setter)).first->second;
    } catch (nb::python_error &error) {
      error.restore();
      failed = true;
      return nullptr;
    }
  }
};

/// Makes of the values a HostoffloadValueSink receives the objects json.loads
/// makes of their text: dicts, lists, str, int, bool and None. Or, given
/// `classes` (a dict from member names to callables) and `makeLocations`,
/// the report's own objects, each made whole as it comes (see `analyze_data`).
/// A container joins its parent when it ends. Should Python fail to make an
/// object, the rest is ignored and `take` raises Python's error.
class PythonValueBuilder {
public:
  PythonValueBuilder(PyObject *classes, PyObject *makeLocations)
      : classes(classes), makeLocations(makeLocations) {}
  PythonValueBuilder(const PythonValueBuilder &) = delete;
  PythonValueBuilder &operator=(const PythonValueBuilder &) = delete;
  ~PythonValueBuilder() {
    for (Open &frame : open) {
      Py_DECREF(frame.container);
      Py_XDECREF(frame.key);
    }
    Py_XDECREF(root);
    Py_XDECREF(key);
    Py_XDECREF(locations);
    Py_XDECREF(starts);
    for (PyObject *location : madeLocations)
      Py_XDECREF(location);
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
  /// A container begun and not yet ended.
  struct Open {
    /// A dict or a list, owned.
    PyObject *container;
    /// The member it is the value of (owned), or null in a list.
    PyObject *key;
    /// What makes this object of its members (a class of `classes`), or
    /// null.
    PyObject *maker = nullptr;
    /// What makes the objects of this list, or null.
    PyObject *elementMaker = nullptr;
    /// In a made object (or one): its lists are tuples, and its integers
    /// that refer to locations or starts are those objects.
    bool inMade = false;
    /// This list's integers are indices of the report's starts.
    bool refersToStarts = false;
    /// The report's "locations" or "starts", which later objects refer to.
    bool isLocations = false;
    bool isStarts = false;
  };

  static PythonValueBuilder &of(void *self) {
    return *static_cast<PythonValueBuilder *>(self);
  }

  /// Python's error is set: the rest is ignored.
  void fail() { failed = true; }

  /// Adds `value` (a new reference, or null for Python's failure) to the
  /// innermost open container under `member` (owned, null in a list), or
  /// makes it the document.
  void add(PyObject *value, PyObject *member) {
    if (!value) {
      Py_XDECREF(member);
      return fail();
    }
    if (open.empty()) {
      Py_XDECREF(member);
      root = value;
      return;
    }
    PyObject *container = open.back().container;
    int status = member ? PyDict_SetItem(container, member, value)
                        : PyList_Append(container, value);
    Py_DECREF(value);
    Py_XDECREF(member);
    if (status != 0)
      fail();
  }

  void beginObject() {
    if (failed)
      return;
    Open *parent = open.empty() ? nullptr : &open.back();
    PyObject *dict = PyDict_New();
    if (!dict)
      return fail();
    Open frame{dict, std::exchange(key, nullptr)};
    frame.maker = parent ? parent->elementMaker : nullptr;
    frame.inMade = frame.maker || (parent && parent->inMade);
    open.push_back(frame);
  }

  void beginArray() {
    if (failed)
      return;
    Open *parent = open.empty() ? nullptr : &open.back();
    PyObject *list = PyList_New(0);
    if (!list)
      return fail();
    Open frame{list, std::exchange(key, nullptr)};
    frame.inMade = parent && parent->inMade;
    // A list of the report's: a member of the document or of a made object.
    bool ofDocument = open.size() == 1;
    if (classes && frame.key && (ofDocument || frame.inMade)) {
      frame.elementMaker = PyDict_GetItemWithError(classes, frame.key);
      if (!frame.elementMaker && PyErr_Occurred()) {
        open.push_back(frame);
        return fail();
      }
      frame.refersToStarts = frame.inMade && keyName == "starts";
      frame.isLocations = ofDocument && keyName == "locations";
      frame.isStarts = ofDocument && keyName == "starts";
    }
    open.push_back(frame);
  }

  void end() {
    if (failed)
      return;
    Open frame = open.back();
    open.pop_back();
    PyObject *value = frame.container;
    if (frame.maker) {
      value = makeObject(frame.maker, frame.container);
      Py_DECREF(frame.container);
    } else if (frame.isLocations) {
      value = PyObject_CallOneArg(makeLocations, frame.container);
      Py_DECREF(frame.container);
      if (value) {
        Py_ssize_t size = PySequence_Size(value);
        if (size < 0) {
          Py_DECREF(value);
          value = nullptr;
        } else {
          locations = Py_NewRef(value);
          madeLocations.assign(size, nullptr);
        }
      }
    } else if (PyList_Check(frame.container) &&
               (frame.inMade || frame.elementMaker)) {
      value = PyList_AsTuple(frame.container);
      Py_DECREF(frame.container);
      if (value && frame.isStarts)
        starts = Py_NewRef(value);
    }
    add(value, frame.key);
  }

  /// Adds `made` (a new reference, or null) as the value of the member whose
  /// key came last, or to the innermost list.
  void value(PyObject *made) { add(made, std::exchange(key, nullptr)); }

  void integer(int64_t number) {
    if (failed)
      return;
    const Open *current = open.empty() ? nullptr : &open.back();
    if (current && current->inMade && key && keyName == "location")
      return value(location(number));
    if (current && current->refersToStarts)
      return value(start(number));
    value(PyLong_FromLongLong(number));
  }

  /// The location of index `index` of the table (a new reference), made
  /// once.
  PyObject *location(int64_t index) {
    if (!locations || index < 0 ||
        index >= static_cast<int64_t>(madeLocations.size())) {
      PyErr_Format(PyExc_ValueError,
                   "the report refers to location %lld, which its table "
                   "does not hold",
                   static_cast<long long>(index));
      return nullptr;
    }
    PyObject *&made = madeLocations[index];
    if (!made)
      made = PySequence_GetItem(locations, index);
    return Py_XNewRef(made);
  }

  /// Start `index` of the report (a new reference).
  PyObject *start(int64_t index) {
    if (!starts || index < 0 || index >= PyTuple_GET_SIZE(starts)) {
      PyErr_Format(PyExc_ValueError,
                   "the report refers to start %lld, which it does not hold",
                   static_cast<long long>(index));
      return nullptr;
    }
    return Py_NewRef(PyTuple_GET_ITEM(starts, index));
  }

  /// An object of `cls` of the members in `members` (a dict), a new
  /// reference; null when Python failed, as calling the class would: on a
  /// member that is no field, or a required field without a member.
  PyObject *makeObject(PyObject *cls, PyObject *members) {
    bool failedHere = false;
    const FieldSetter *maker = FieldSetter::of(cls, failedHere);
    if (failedHere)
      return nullptr;
    if (!maker)
      return PyObject_Call(cls, emptyTuple(), members);
    auto *type = reinterpret_cast<PyTypeObject *>(cls);
    PyObject *object = type->tp_new(type, emptyTuple(), nullptr);
    if (!object)
      return nullptr;
    Py_ssize_t given = 0;
    for (auto [name, fallback] : maker->fields) {
      PyObject *member = PyDict_GetItemWithError(members, name);
      if (member) {
        ++given;
      } else if (PyErr_Occurred()) {
        Py_DECREF(object);
        return nullptr;
      } else if (!fallback) {
        PyErr_Format(PyExc_TypeError, "%s: the report gives no '%U'",
                     type->tp_name, name);
        Py_DECREF(object);
        return nullptr;
      } else {
        member = fallback;
      }
      if (PyObject_GenericSetAttr(object, name, member) < 0) {
        Py_DECREF(object);
        return nullptr;
      }
    }
    if (given != PyDict_GET_SIZE(members)) {
      PyErr_Format(PyExc_TypeError,
                   "%s: the report gives members that are not its fields: %R",
                   type->tp_name, members);
      Py_DECREF(object);
      return nullptr;
    }
    return object;
  }

  static PyObject *emptyTuple() {
    static PyObject *empty = PyTuple_New(0);
    return empty;
  }

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
        return fail();
      }
      PyUnicode_InternInPlace(&entry->second);
    }
    keyName = entry->first();
    key = Py_NewRef(entry->second);
  }

  /// Borrowed from the caller, or null.
  PyObject *classes;
  PyObject *makeLocations;
  PyObject *root = nullptr;
  /// The key of the member whose value comes next, and its text.
  PyObject *key = nullptr;
  llvm::StringRef keyName;
  std::vector<Open> open;
  llvm::StringMap<PyObject *> keys;
  /// The table made by `makeLocations`, and the locations taken from it.
  PyObject *locations = nullptr;
  std::vector<PyObject *> madeLocations;
  /// The report's starts, made.
  PyObject *starts = nullptr;
  bool failed = false;
};

const HostoffloadValueSink PythonValueBuilder::sink = {
    [](void *self) { of(self).beginObject(); },
    [](void *self) { of(self).end(); },
    [](void *self) { of(self).beginArray(); },
    [](void *self) { of(self).end(); },
    [](MlirStringRef name, void *self) { of(self).setKey(name); },
    [](MlirStringRef text, void *self) {
      if (!of(self).failed)
        of(self).value(PyUnicode_DecodeUTF8(text.data, text.length, nullptr));
    },
    [](int64_t number, void *self) { of(self).integer(number); },
    [](bool flag, void *self) {
      if (!of(self).failed)
        of(self).value(flag ? Py_NewRef(Py_True) : Py_NewRef(Py_False));
    },
    [](void *self) {
      if (!of(self).failed)
        of(self).value(Py_NewRef(Py_None));
    },
};

NB_MODULE(_hostoffload, m) {
  m.doc() = "The host-offload analysis of hostoffload, reporting as JSON.";
  m.def(
      "analyze",
      [](MlirOperation module, const std::string &entry, bool strict,
         bool verified, bool allowH2hCopy, const std::string &xlaRelease,
         bool trace, const std::string &platform) {
        std::string json;
        MlirLogicalResult result = hostoffloadAnalyzeToJson(
            module, mlirStringRefCreate(entry.data(), entry.size()), strict,
            verified, allowH2hCopy,
            mlirStringRefCreate(xlaRelease.data(), xlaRelease.size()),
            mlirStringRefCreate(platform.data(), platform.size()), trace,
            appendToString, &json);
        return std::make_pair(mlirLogicalResultIsSuccess(result), json);
      },
      nb::arg("module"), nb::arg("entry") = "", nb::arg("strict") = false,
      nb::arg("verified") = false, nb::arg("allow_h2h_copy") = false,
      nb::arg("xla_release") = "", nb::arg("trace") = false,
      nb::arg("platform") = "",
      "Analyses a builtin.module; returns (succeeded, report as JSON text). "
      "Never changes the module. `verified`: the module passed the verifier "
      "and has not changed since (as one `parse` returned); else it is "
      "verified first. `strict`, `allow_h2h_copy`, `xla_release` (\"\": "
      "the newest) and `platform` (\"\": tpu) are the options of "
      "host-offload-check; with `trace`, the "
      "report has the trace of every start.");
  m.def(
      "analyze_data",
      [](MlirOperation module, const std::string &entry, bool strict,
         bool verified, bool allowH2hCopy, bool report,
         std::optional<nb::dict> classes, std::optional<nb::callable> locations,
         const std::string &xlaRelease, bool trace,
         const std::string &platform) {
        if (classes.has_value() != locations.has_value())
          throw nb::value_error(
              "classes and locations are given together or not at all");
        PythonValueBuilder builder(classes ? classes->ptr() : nullptr,
                                   locations ? locations->ptr() : nullptr);
        MlirLogicalResult result = hostoffloadAnalyzeToValues(
            module, mlirStringRefCreate(entry.data(), entry.size()), strict,
            verified, allowH2hCopy,
            mlirStringRefCreate(xlaRelease.data(), xlaRelease.size()),
            mlirStringRefCreate(platform.data(), platform.size()), trace,
            report ? &PythonValueBuilder::sink : nullptr, &builder);
        return nb::make_tuple(mlirLogicalResultIsSuccess(result),
                              report ? builder.take() : nb::none());
      },
      nb::arg("module"), nb::arg("entry") = "", nb::arg("strict") = false,
      nb::arg("verified") = false, nb::arg("allow_h2h_copy") = false,
      nb::arg("report") = true, nb::arg("classes") = nb::none(),
      nb::arg("locations") = nb::none(), nb::arg("xla_release") = "",
      nb::arg("trace") = false, nb::arg("platform") = "",
      "As `analyze`, but returns (succeeded, report) with the report as the "
      "dict json.loads makes of the JSON text `analyze` returns, built "
      "without that text; with `report` false, only analyses and gives None "
      "(to time the analysis alone). With `classes` (a dict from member "
      "names to callables) and `locations` (a callable), the report's own "
      "objects instead: the top-level `locations` list is made into a table "
      "by `locations`; each object of a list named in `classes`, at the top "
      "level or in such an object, is made by that callable with its members "
      "as keyword arguments (a plain dataclass has them set as the fields "
      "its generated __init__ would set), in which lists are tuples, a "
      "`location` integer is that entry of the table and the integers of "
      "`starts` are the top-level starts made (tuples too). Python's cyclic "
      "collector had better be off while a report is built: thousands of "
      "findings are many containers.");
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
      "fast_path_enabled",
      [](const std::string &name) {
        return hostoffloadFastPathEnabled(
            mlirStringRefCreate(name.data(), name.size()));
      },
      nb::arg("name"),
      "Whether this process takes the fast path `name` (one of "
      "`fast_path_names()`): built with it and not turned off by "
      "HOSTOFFLOAD_PLAIN, which the library reads once.");
  m.def(
      "fast_path_names",
      [] {
        std::vector<std::string> names;
        for (intptr_t i = 0, e = hostoffloadGetNumFastPaths(); i < e; ++i)
          names.push_back(toString(hostoffloadGetFastPathName(i)));
        return names;
      },
      "The fast paths HOSTOFFLOAD_PLAIN can name, comma-separated; \"1\" "
      "turns every one off.");
  m.def(
      "parser_wraps_called",
      [] {
        nb::dict called;
        for (intptr_t i = 0, e = hostoffloadGetNumParserWraps(); i < e; ++i)
          called[nb::str(toString(hostoffloadGetParserWrapName(i)).c_str())] =
              hostoffloadWasParserWrapCalled(i);
        return called;
      },
      "For each MLIR function the extension's link wraps (a fast path of the "
      "parser), whether a call of it has reached the library's function in "
      "this process.");
  m.def(
      "describe_fast_paths",
      [] {
        std::string description;
        hostoffloadDescribeFastPaths(appendToString, &description);
        return description;
      },
      "How the library decided on its fast paths: \"on\", \"off "
      "(HOSTOFFLOAD_PLAIN)\", \"off (built without)\", or \"on but NAMES "
      "(HOSTOFFLOAD_PLAIN)\".");
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
  m.def(
      "xla_releases",
      [] {
        std::vector<std::pair<std::string, std::string>> rows;
        for (intptr_t i = 0, e = hostoffloadGetNumXlaReleases(); i < e; ++i) {
          HostoffloadXlaRelease row = hostoffloadGetXlaRelease(i);
          rows.emplace_back(toString(row.name), toString(row.sources));
        }
        return rows;
      },
      "The XLA releases the check can model, oldest first (the last is the "
      "default): a list of (name, sources).");
  m.def(
      "libtpu_releases",
      [] {
        std::vector<std::tuple<std::string, std::string, std::string>> rows;
        for (intptr_t i = 0, e = hostoffloadGetNumLibtpuReleases(); i < e;
             ++i) {
          HostoffloadLibtpuRelease row = hostoffloadGetLibtpuRelease(i);
          rows.emplace_back(toString(row.version), toString(row.buildLine),
                            toString(row.xlaRelease));
        }
        return rows;
      },
      "The libtpu releases known, in the order of their numbers: a list of "
      "(version, the end of its platform_version, the XLA release it "
      "carries).");
  m.attr("PATH_STEPS_AT_EACH_END") = hostoffloadGetPathStepsAtEachEnd();
}
