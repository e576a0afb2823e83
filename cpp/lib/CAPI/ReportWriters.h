//===- ReportWriters.h - the analysis as JSON values ------------*- C++ -*-===//
//
// Writes a report, its trace and the errors that kept a module from one as
// the JSON of report.schema.json, to a stream with the members of
// llvm::json::OStream the writers use: that stream itself, or one that hands
// each value to a HostoffloadValueSink (CAPI.cpp), so that both forms hold the
// same members in the same order.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_CAPI_REPORTWRITERS_H
#define HOSTOFFLOAD_LIB_CAPI_REPORTWRITERS_H

#include "hostoffload/HostOffloadAnalysis.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hostoffload::capi {

using mlir::Location;

/// An error that stops the analysis, with its notes.
struct CapturedError {
  std::string message;
  Location loc;
  llvm::SmallVector<std::pair<std::string, Location>> notes;
};

inline std::string printLocation(Location loc) {
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
        if (auto callSite = llvm::dyn_cast<mlir::CallSiteLoc>(at)) {
          // The callee is added first, as the spelling reads.
          pending.push_back({callSite.getCaller(), false});
          pending.push_back({callSite.getCallee(), false});
        } else if (auto name = llvm::dyn_cast<mlir::NameLoc>(at)) {
          if (!llvm::isa<mlir::UnknownLoc>(name.getChildLoc()))
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
    if (auto callSite = llvm::dyn_cast<mlir::CallSiteLoc>(loc)) {
      // The callee is the innermost frame; the caller counts without one.
      const auto &callee = positions[indices.lookup(callSite.getCallee())];
      return callee ? callee : positions[indices.lookup(callSite.getCaller())];
    }
    auto name = llvm::dyn_cast<mlir::NameLoc>(loc);
    // A file directly inside a name is a Python frame, whose column
    // findSourcePosition shifts: it is found from the name.
    if (!name ||
        llvm::isa<mlir::UnknownLoc, mlir::FileLineColRange>(name.getChildLoc()))
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
    if (auto callSite = llvm::dyn_cast<mlir::CallSiteLoc>(loc)) {
      json.attribute("callee", indices.lookup(callSite.getCallee()));
      json.attribute("caller", indices.lookup(callSite.getCaller()));
      return;
    }
    auto name = llvm::dyn_cast<mlir::NameLoc>(loc);
    if (name && !llvm::isa<mlir::UnknownLoc>(name.getChildLoc())) {
      // MLIR's spelling of the name alone: `loc("name")` without `loc(`.
      std::string spelling = printLocation(mlir::NameLoc::get(name.getName()));
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

} // namespace hostoffload::capi

#endif // HOSTOFFLOAD_LIB_CAPI_REPORTWRITERS_H
