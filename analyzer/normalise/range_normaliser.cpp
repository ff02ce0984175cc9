#include "analyzer/normalise/range_normaliser.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyzer/normalise/phase_rules.h"
#include "analyzer/normalise/pyprof_marker.h"
#include "analyzer/normalise/range_values_reader.h"
#include "analyzer/normalise/torch_nvtx_text.h"
#include "analyzer/normalise/trainer_range_text.h"
#include "base/parallel_parts.h"

namespace ampscope::analyzer::import {

namespace {

using trace::Range;
using trace::RangeKind;
using trace::RangeTextForm;
using trace::StringTable;

constexpr std::string_view kTrainerNotUnderstood =
    "ampscope trainer layer ranges whose text is not understood (kept as annotations)";

bool startsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// One frame of a PyProf funcStack: "Linear::_call_impl[4]" is class "Linear", method
// "_call_impl", call suffix "[4]". PyProf and DLProf tell calls of one frame name from different
// call sites apart with "[N]" or "(N)" after the name; a frame without a class has an empty class.
struct StackFrame {
  std::string_view cls;
  std::string_view method;
  std::string_view suffix;
};

StackFrame frameOf(std::string_view frame) {
  const std::size_t colons = frame.find("::");
  std::string_view method = colons == std::string_view::npos ? frame : frame.substr(colons + 2);
  const std::size_t bracket = method.find_first_of("[(");
  const std::string_view suffix = bracket == std::string_view::npos ? std::string_view() : method.substr(bracket);
  method = method.substr(0, bracket);
  return {colons == std::string_view::npos ? std::string_view() : frame.substr(0, colons), method, suffix};
}

// nn.Module.__call__ runs _call_impl (PyTorch 1.x) or _wrapped_call_impl (2.x): a frame of one of
// them is a module being entered.
bool entersModule(const StackFrame& frame) {
  return frame.method == "_call_impl" || frame.method == "_wrapped_call_impl" || frame.method == "__call__";
}

// Strings a text reader makes that the trace did not have yet are its own until the ranges are put
// in order: their ids carry this bit, and the rest are the id in the reader's own table.
constexpr trace::StringId kReaderString = 0x80000000u;

// Reads the text of a trace's ranges into their normalised fields. Alone, it adds the strings it
// makes to the trace's table (`adds_to`). One of several reading contiguous parts side by side
// (adds_to null), it only looks at the trace's strings: a string the trace lacks goes into the
// reader's own table, and the ranges' ids for it are made the trace's afterwards
// (StringsInOrder), in the ranges' order, so that the trace numbers its strings as the lone
// reader would.
class RangeTextReader {
 public:
  RangeTextReader(const trace::Trace& trace, trace::StringTable* adds_to) : trace_(trace), adds_to_(adds_to) {}

  void read(Range& range) {
    if (range.text_form == RangeTextForm::kPlain) readText(range);
  }

  const StringTable& ownStrings() const { return own_; }
  std::uint64_t trainerNotUnderstood() const { return trainer_not_understood_; }

 private:
  trace::StringId intern(std::string_view text) {
    // Millions of ranges each name an op and its shapes: hashed once for both tables.
    const std::uint32_t hash = StringTable::hashOf(text);
    if (adds_to_ != nullptr) return adds_to_->intern(text, hash);
    trace::StringId id = StringTable::kEmpty;
    if (trace_.strings.find(text, hash, id)) return id;
    return kReaderString | own_.intern(text, hash);
  }
  std::string_view str(trace::StringId id) const {
    return (id & kReaderString) != 0 ? own_.view(id & ~kReaderString) : trace_.str(id);
  }

  // The layer a TorchScript module path names (empty: none), found once per path.
  trace::StringId layerOfModulePath(trace::StringId module_path) {
    const auto [known, inserted] = layer_of_module_path_.try_emplace(module_path, StringTable::kEmpty);
    if (inserted) {
      const std::string layer = layerFromModuleHierarchy(str(module_path));
      if (!layer.empty()) known->second = intern(layer);
    }
    return known->second;
  }

  void readText(Range& range) {
    switch (range.kind) {
      case RangeKind::kOperator: readFrameworkOperator(range); return;
      case RangeKind::kPython: readPythonFrame(range); return;
      case RangeKind::kAnnotation: readAnnotation(range); return;
      case RangeKind::kGpuAnnotation: return;
    }
  }

  // A profiler's operator event (Kineto cpu_op): the name is the op; a TorchScript module path
  // gives the layer.
  void readFrameworkOperator(Range& range) {
    range.text_form = RangeTextForm::kFrameworkOperator;
    if (range.op == StringTable::kEmpty) range.op = range.name;
    if (range.layer == StringTable::kEmpty && range.module_path != StringTable::kEmpty) {
      range.layer = layerOfModulePath(range.module_path);
    }
  }

  // "nn.Module: Linear_3": PyTorch numbers each class's instances, so the name is the instance.
  // Kineto writes these as Python frames; the same text pushed as an NVTX range (by module hooks,
  // as Nsight users add them) reads the same way.
  bool readModuleFrame(Range& range) {
    const std::string_view module = moduleFromPythonFrame(str(range.name));
    if (module.empty()) return false;
    range.text_form = RangeTextForm::kModuleFrame;
    range.layer = intern(module);
    range.module_path = range.layer;
    return true;
  }

  void readPythonFrame(Range& range) { readModuleFrame(range); }

  // NVTX text: the trainer's, PyProf's or PyTorch's, else a user's annotation.
  void readAnnotation(Range& range) {
    const std::string_view text = str(range.name);
    if (isTrainerLayerOpText(str(range.domain), text)) {
      readTrainerLayerOp(range, text);
      return;
    }
    if (startsWith(text, "{")) {
      readPyProfMarker(range, parsePyProfMarker(text));
      return;
    }
    if (readModuleFrame(range)) return;
    if (auto torch = parseTorchNvtxText(text)) {
      range.kind = RangeKind::kOperator;
      range.text_form = RangeTextForm::kTorchNvtx;
      range.op = intern(torch->op);
      range.sequence_number = torch->sequence_number;
      range.op_id = torch->op_id;
      if (!torch->shapes_json.empty()) range.shapes = intern(torch->shapes_json);
    }
  }

  void readTrainerLayerOp(Range& range, std::string_view text) {
    const trace::Result<TrainerRangeText> parsed = parseTrainerRangeText(text);
    if (!parsed) {
      ++trainer_not_understood_;
      return;
    }
    range.kind = RangeKind::kOperator;
    range.text_form = RangeTextForm::kTrainerLayerOp;
    range.layer = intern(parsed->layer);
    range.module_path = range.layer;
    range.op = intern(parsed->op);
    range.phase = parsed->phase;
    range.shapes = intern(parsed->shapesJson());
    range.dtypes = intern(parsed->dtypesJson());
    range.arguments = intern(parsed->argumentsJson());
  }

  void readPyProfMarker(Range& range, const PyProfMarker& marker) {
    switch (marker.kind) {
      case PyProfMarker::Kind::kOperator:
        range.kind = RangeKind::kOperator;
        range.text_form = RangeTextForm::kPyProfOperator;
        // "torch.nn.functional.linear": the module tells torch.mm from Tensor.mm.
        range.op = intern(marker.module.empty() ? marker.op : marker.module + "." + marker.op);
        range.shapes = intern(marker.shapes_json);
        range.dtypes = intern(marker.dtypes_json);
        range.arguments = intern(marker.arguments_json);
        return;
      case PyProfMarker::Kind::kTraceMarker: {
        range.text_form = RangeTextForm::kPyProfCallStack;
        if (marker.func_stack.empty()) return;
        range.module_path = intern(marker.func_stack);
        const std::string layer = layerFromFunctionStack(marker.func_stack);
        if (!layer.empty()) range.layer = intern(layer);
        return;
      }
      case PyProfMarker::Kind::kModule:
        // Pushed around an nn.Module's forward (RNNs): the module, not its caller, is the layer.
        range.text_form = RangeTextForm::kPyProfModule;
        range.layer = intern(marker.module);
        return;
      case PyProfMarker::Kind::kText:
        return;
    }
  }

  const trace::Trace& trace_;
  trace::StringTable* adds_to_;
  StringTable own_;
  std::uint64_t trainer_not_understood_ = 0;
  std::unordered_map<trace::StringId, trace::StringId> layer_of_module_path_;
};

// Gives a reader's own strings their ids in the trace, range by range in the trace's order. Within
// a range, the strings new to the reader were added to its table in the order the range's text
// named them, so their own ids ascend in that order: the trace adds them in it too.
class StringsInOrder {
 public:
  StringsInOrder(trace::Trace& trace, const StringTable& own) : trace_(trace), own_(own), in_trace_(own.size(), kNotYet) {}

  void give(Range& range) {
    // The fields that hold one of the reader's strings (one or two, as a rule), in the order of
    // their own ids: an insertion sort of a few.
    std::array<trace::StringId*, 6> fields{};
    std::size_t count = 0;
    for (trace::StringId* field : {&range.module_path, &range.layer, &range.op, &range.shapes, &range.dtypes,
                                   &range.arguments}) {
      if ((*field & kReaderString) == 0) continue;
      std::size_t at = count++;
      for (; at > 0 && *fields[at - 1] > *field; --at) fields[at] = fields[at - 1];
      fields[at] = field;
    }
    for (std::size_t i = 0; i < count; ++i) {
      trace::StringId* field = fields[i];
      const trace::StringId own = *field & ~kReaderString;
      trace::StringId& id = in_trace_[own];
      if (id == kNotYet) id = trace_.strings.intern(own_.view(own), own_.hashAt(own));
      *field = id;
    }
  }

 private:
  static constexpr trace::StringId kNotYet = 0xFFFFFFFFu;
  trace::Trace& trace_;
  const StringTable& own_;
  std::vector<trace::StringId> in_trace_;  // by own id
};

// Fewer ranges than this a part: a thread would cost more than it saves.
constexpr std::size_t kRangesPerPartAtLeast = 16384;

class RangeNormaliser {
 public:
  RangeNormaliser(trace::Trace& trace, unsigned threads) : trace_(trace), values_(trace), threads_(threads) {}

  void run() {
    std::vector<Range>& ranges = trace_.ranges;
    const std::size_t parts = partsFor(ranges.size(), threads_, kRangesPerPartAtLeast);
    std::vector<std::unique_ptr<RangeTextReader>> readers;
    for (std::size_t part = 0; part < parts; ++part) {
      readers.push_back(std::make_unique<RangeTextReader>(trace_, parts == 1 ? &trace_.strings : nullptr));
    }
    forEachPart(ranges.size(), parts, [&](std::size_t part, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) readers[part]->read(ranges[i]);
    });
    std::uint64_t trainer_not_understood = 0;
    for (std::size_t part = 0; part < parts; ++part) {
      StringsInOrder strings(trace_, readers[part]->ownStrings());
      const std::size_t end = ranges.size() * (part + 1) / parts;
      for (std::size_t i = ranges.size() * part / parts; i < end; ++i) {
        strings.give(ranges[i]);
        Range& range = ranges[i];
        if (range.phase == trace::Phase::kUnknown) range.phase = phaseOf(range.op != StringTable::kEmpty ? range.op : range.name);
        values_.read(range);
      }
      trainer_not_understood += readers[part]->trainerNotUnderstood();
    }
    // Assigned, not added: the count describes the trace, however often it is read.
    if (trainer_not_understood > 0) {
      trace_.import_stats.not_understood[std::string(kTrainerNotUnderstood)] = trainer_not_understood;
    }
  }

 private:
  // A trace names its ranges with a few thousand strings: each string's phase is found once.
  trace::Phase phaseOf(trace::StringId name) {
    if (name >= phase_of_string_.size()) phase_of_string_.resize(trace_.strings.size(), kPhaseNotYetRead);
    std::uint8_t& phase = phase_of_string_[name];
    if (phase == kPhaseNotYetRead) phase = static_cast<std::uint8_t>(phaseFromName(trace_.str(name)));
    return static_cast<trace::Phase>(phase);
  }

  static constexpr std::uint8_t kPhaseNotYetRead = 0xff;

  trace::Trace& trace_;
  RangeValuesReader values_;
  unsigned threads_;
  std::vector<std::uint8_t> phase_of_string_;  // a trace::Phase, or kPhaseNotYetRead
};

}  // namespace

void normaliseRanges(trace::Trace& trace, unsigned threads) { RangeNormaliser(trace, threads).run(); }

std::string layerFromFunctionStack(std::string_view func_stack) {
  // Each module instance on the stack, outermost first: its class and the call suffix that tells
  // it from another instance of the class called from elsewhere in the same parent.
  std::string path;
  std::string_view current_class;
  bool suffix_written = false;
  std::size_t at = 0;
  while (at < func_stack.size()) {
    std::size_t end = func_stack.find('/', at);
    if (end == std::string_view::npos) end = func_stack.size();
    const StackFrame frame = frameOf(func_stack.substr(at, end - at));
    at = end + 1;
    if (frame.cls.empty() || (frame.method != "forward" && !entersModule(frame))) continue;
    const bool same_instance = frame.cls == current_class && !entersModule(frame);
    if (!same_instance) {
      if (!path.empty()) path += '/';
      path += frame.cls;
      current_class = frame.cls;
      suffix_written = false;
    }
    if (!suffix_written && !frame.suffix.empty()) {
      path += frame.suffix;
      suffix_written = true;
    }
  }
  return path;
}

std::string layerFromModuleHierarchy(std::string_view hierarchy) {
  // Split at the dots outside parentheses: a type may be qualified ("__torch__.models.Net").
  std::vector<std::string_view> segments;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= hierarchy.size(); ++i) {
    if (i < hierarchy.size() && hierarchy[i] == '(') ++depth;
    if (i < hierarchy.size() && hierarchy[i] == ')') --depth;
    if (i == hierarchy.size() || (hierarchy[i] == '.' && depth == 0)) {
      if (i > start) segments.push_back(hierarchy.substr(start, i - start));
      start = i + 1;
    }
  }
  std::string path;
  std::string_view top_type;
  for (std::string_view segment : segments) {
    const std::size_t open = segment.find('(');
    const std::string_view instance = segment.substr(0, open);
    if (instance == "TOP" || instance == "SELF") {
      if (top_type.empty() && open != std::string_view::npos) {
        const std::size_t close = segment.find(')', open);
        top_type = segment.substr(open + 1, close == std::string_view::npos ? std::string_view::npos : close - open - 1);
      }
      continue;
    }
    if (instance.empty()) continue;
    if (!path.empty()) path += '.';
    path += instance;
  }
  if (!path.empty() || top_type.empty()) return path;
  const std::size_t dot = top_type.rfind('.');
  return std::string(dot == std::string_view::npos ? top_type : top_type.substr(dot + 1));
}

}  // namespace ampscope::analyzer::import
