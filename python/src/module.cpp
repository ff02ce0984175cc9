// ampscope._core: the bindings of analysis_handle.h. Type conversion only; the Python layer
// (ampscope/*.py) turns the JSON and CSV texts into dicts and DataFrames.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/analysis_handle.h"

namespace nb = nanobind;
using ampscope::python::Analysis;

namespace {

ampscope::python::Table tableOf(const std::string& name) {
  const auto table = ampscope::python::tableNamed(name);
  if (!table) throw std::invalid_argument("no table \"" + name + "\"; tables: " + ampscope::python::tableNames());
  return *table;
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "The C++ analyzer behind the ampscope package (use the ampscope module, not this one).";
  nb::exception<ampscope::python::InputError>(m, "TraceError");
  using release_gil = nb::call_guard<nb::gil_scoped_release>;

  nb::class_<Analysis>(m, "Analysis", "One analysis of a run or a job, as `ampscope analyze` makes it.")
      .def_prop_ro("is_job", &Analysis::isJob, "True for a job of several ranks.")
      .def("json", &Analysis::json, nb::arg("top") = 10, release_gil(), "The `analyze --json` document (text).")
      .def(
          "table_csv", [](const Analysis& analysis, const std::string& name) { return analysis.tableCsv(tableOf(name)); },
          nb::arg("name"), release_gil(), "The report's CSV of that name (layers, operators, ...), as text.")
      .def("write_report", &Analysis::writeReport, nb::arg("out_dir"), nb::arg("top") = 20, release_gil(),
           "Writes `report --out DIR`; returns the names of the files written.")
      .def("rank", &Analysis::rank, nb::arg("rank"), release_gil(), "One rank's complete analysis.")
      .def("rank_result_json", &Analysis::rankResultJson, release_gil(),
           "The compact result `merge` reads back (text).");

  m.def("analyze", &Analysis::analyze, nb::arg("paths"), nb::arg("gpu") = "", nb::arg("rank") = nb::none(),
        nb::arg("threads") = 0, release_gil(), "`ampscope analyze PATHS`.");
  m.def(
      "merge",
      [](const std::vector<std::pair<std::string, std::string>>& documents) {
        std::vector<ampscope::cli::ResultDocument> inputs;
        for (const auto& [text, source] : documents) inputs.push_back({text, source});
        return Analysis::merge(inputs);
      },
      nb::arg("documents"), release_gil(), "`ampscope merge`: documents are (json_text, source_name) pairs.");
  m.def("diff_json", &ampscope::python::diffJson, nb::arg("baseline"), nb::arg("candidate"), nb::arg("gpu") = "",
        release_gil(), "`ampscope diff A B --json` (text).");
  m.def("run_command_line", &ampscope::python::runCommandLine, nb::arg("argv"), release_gil(),
        "`ampscope analyze|report|diff|merge ...`; returns the exit code.");
}
