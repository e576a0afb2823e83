//===- HostOffloadExtension.cpp - the analysis for Python -----------------===//
//
// Hands the host-offload analysis to Python as data: the C API writes the
// report as JSON, which hostoffload.report turns into typed findings.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/CAPI.h"

#include "mlir-c/IR.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

#include <string>
#include <utility>

namespace nb = nanobind;

static void appendToString(MlirStringRef chunk, void *userData) {
  static_cast<std::string *>(userData)->append(chunk.data, chunk.length);
}

NB_MODULE(_hostoffload, m) {
  m.doc() = "The host-offload analysis of hostoffload, reporting as JSON.";
  m.def(
      "analyze",
      [](MlirOperation module, const std::string &entry, bool strict,
         bool verified) {
        std::string json;
        MlirLogicalResult result = hostoffloadAnalyzeToJson(
            module, mlirStringRefCreate(entry.data(), entry.size()), strict,
            verified, appendToString, &json);
        return std::make_pair(mlirLogicalResultIsSuccess(result), json);
      },
      nb::arg("module"), nb::arg("entry") = "", nb::arg("strict") = false,
      nb::arg("verified") = false,
      "Analyses a builtin.module; returns (succeeded, report as JSON text). "
      "Never changes the module. `verified`: the module passed the verifier "
      "and has not changed since (as one `parse` returned); else it is "
      "verified first.");
  m.def(
      "parse",
      [](MlirContext context, nb::bytes text) {
        std::string json;
        MlirModule module = hostoffloadParseModule(
            context, mlirStringRefCreate(text.c_str(), text.size()),
            appendToString, &json);
        nb::object parsed =
            mlirModuleIsNull(module) ? nb::none() : nb::cast(module);
        return std::make_pair(parsed, json);
      },
      nb::arg("context"), nb::arg("text"),
      "Parses MLIR text or bytecode into a new module of `context`; returns "
      "(module, \"\"), or (None, the errors as JSON text).");
}
