#include "analyzer/tables/layer_table.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <unordered_set>
#include <utility>

#include "analyzer/core/operator_labels.h"
#include "analyzer/core/time_by_kind.h"
#include "analyzer/verdicts/kernel_verdicts.h"  // isMatrixKernel

namespace ampscope::analyzer {

namespace {

template <typename Key>
std::vector<Key> heaviestFirst(const std::map<Key, std::int64_t>& times) {
  std::vector<std::pair<Key, std::int64_t>> sorted(times.begin(), times.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<Key> out;
  out.reserve(sorted.size());
  for (auto& [key, ns] : sorted) out.push_back(std::move(key));
  return out;
}

// An eligible op's name, recorded shapes and strides: the key of the shape checks. Views of the
// trace's strings, the attribution's labels and the checks, which all outlive the table's building.
struct CallShape {
  std::string_view op;
  std::string_view shapes;
  std::string_view strides;
  auto operator<=>(const CallShape&) const = default;
};

struct Accumulated {
  LayerRow row;
  std::unordered_set<trace::Index> calls;
  std::map<std::string_view, std::int64_t> op_time;
  std::map<CallShape, std::int64_t> call_shape_time;
  PrecisionTimes matrix_precision_time;
  PrecisionTimes precision_time;
};

void finish(Accumulated& a, const std::map<CallShape, std::size_t>& check_of,
            const std::vector<ShapeCheck>& checks, bool on_cpu) {
  LayerRow& row = a.row;
  row.calls = a.calls.size();
  for (const std::string_view op : heaviestFirst(a.op_time)) row.ops.emplace_back(op);
  // The precision most of its matrix time ran in, else most of its time; an unknown precision's
  // time never outweighs a known one.
  row.precision = a.matrix_precision_time.heaviest(/*skip_first=*/true);
  if (row.precision == MathPrecision::kUnknown) row.precision = a.precision_time.heaviest(/*skip_first=*/true);
  for (const CallShape& call_shape : heaviestFirst(a.call_shape_time)) {
    row.shapes.emplace_back(call_shape.shapes);
    const auto check = check_of.find(call_shape);
    if (check == check_of.end() || checks[check->second].misaligned.empty()) continue;
    row.misaligned_checks.push_back(check->second);
    row.violation_count += static_cast<int>(checks[check->second].misaligned.size());
  }
  if (on_cpu) {
    row.state = LayerState::kHost;
  } else if (row.eligible_cuda_core_ns > row.eligible_tensor_core_ns) {
    row.state = LayerState::kEligibleNotTensorCore;
  } else if (row.violation_count > 0) {
    row.state = LayerState::kMisaligned;
  }
}

// Layers in the order the run first ran them, then each layer's passes in the order they ran.
void sortInModelOrder(std::vector<LayerRow>& rows) {
  std::map<std::string, std::int64_t> layer_start;
  for (const LayerRow& row : rows) {
    auto [start, fresh] = layer_start.try_emplace(row.layer, row.first_start_ns);
    if (!fresh) start->second = std::min(start->second, row.first_start_ns);
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const LayerRow& a, const LayerRow& b) {
    const std::int64_t sa = layer_start[a.layer];
    const std::int64_t sb = layer_start[b.layer];
    if (sa != sb) return sa < sb;
    if (a.layer != b.layer) return a.layer < b.layer;
    return a.first_start_ns < b.first_start_ns;
  });
}

}  // namespace

const char* layerStateName(LayerState state) {
  switch (state) {
    case LayerState::kMisaligned: return "misaligned";
    case LayerState::kEligibleNotTensorCore: return "eligible_not_tensor_core";
    case LayerState::kHost: return "host";
    case LayerState::kFine: break;
  }
  return "fine";
}

double LayerRow::tensorCoreShare() const {
  return time_ns > 0 ? static_cast<double>(tensor_core_time_ns) / static_cast<double>(time_ns) : 0.0;
}

LayerTable buildLayerTable(const trace::Trace& trace, const KernelAttribution& kernels,
                           const std::vector<ShapeCheck>& shape_checks, bool recorded_on_cpu) {
  LayerTable table;
  table.groups_operators = kernels.groupsOperators();
  std::map<std::pair<std::string_view, trace::Phase>, Accumulated> groups;
  // Where each op range's kernels add up, and the call it belongs to, found once per op range: a
  // step of a large model launches millions of kernels, a few to each op range. Map nodes do not
  // move.
  struct Slots {
    Accumulated* group = nullptr;
    std::int64_t* op_time = nullptr;
    std::int64_t* call_shape_time = nullptr;  // nullptr: no eligible op with shapes encloses it
  };
  // By op range, 1 + where its slots are (0: none yet). Most ranges of a large trace launch no
  // kernel: 4 bytes a range here, the slots (24 bytes) only for those that do.
  std::vector<std::uint32_t> slots_at(trace.ranges.size(), 0);
  std::vector<Slots> slots_of;
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const trace::Kernel& kernel = trace.kernels[k];
    const KernelOrigin& origin = kernels.originOf(k);
    if (origin.group < 0) continue;
    std::uint32_t& at = slots_at[static_cast<std::size_t>(kernel.op_range)];
    if (at == 0) {
      slots_of.emplace_back();
      at = static_cast<std::uint32_t>(slots_of.size());
    }
    Slots& slots = slots_of[at - 1];
    if (!slots.group) {
      slots.group = &groups[{kernels.origins.label(origin.group), origin.phase}];
      slots.op_time = &slots.group->op_time[kernels.origins.label(origin.op)];
      if (origin.shaped_op != trace::kNone) {
        const trace::Range& shaped = trace.ranges[static_cast<std::size_t>(origin.shaped_op)];
        slots.call_shape_time =
            &slots.group->call_shape_time[{opName(trace, shaped), trace.str(shaped.shapes), trace.str(shaped.strides)}];
      }
      // The call is the op range's: counted and dated once per op range, not per kernel.
      Accumulated& a = *slots.group;
      const trace::Range& call = trace.ranges[static_cast<std::size_t>(origin.call)];
      if (a.calls.empty()) a.row.first_start_ns = call.start_ns;
      a.calls.insert(origin.call);
      a.row.first_start_ns = std::min(a.row.first_start_ns, call.start_ns);
    }
    Accumulated& a = *slots.group;
    const TensorCoreVerdict& v = kernels.verdictOf(k);
    const std::int64_t ns = kernel.end_ns - kernel.start_ns;
    ++a.row.kernels;
    a.row.time_ns += ns;
    if (v.tensor_core) a.row.tensor_core_time_ns += ns;
    *slots.op_time += ns;
    a.precision_time.add(v.precision, ns);
    const bool eligible = origin.eligible_op != trace::kNone;
    a.row.eligible = a.row.eligible || eligible;
    if (isMatrixKernel(v, eligible)) {
      a.matrix_precision_time.add(v.precision, ns);
      if (eligible && v.tensor_core) a.row.eligible_tensor_core_ns += ns;
      // Unknown verdicts are neither: counting them as CUDA-core time would claim a miss.
      if (eligible && v.tensor_core == TensorCoreUse::kNo) a.row.eligible_cuda_core_ns += ns;
    }
    if (slots.call_shape_time) *slots.call_shape_time += ns;
  }

  std::map<CallShape, std::size_t> check_of;
  for (std::size_t i = 0; i < shape_checks.size(); ++i) {
    check_of.emplace(CallShape{shape_checks[i].op, shape_checks[i].shapes, shape_checks[i].strides}, i);
  }
  table.rows.reserve(groups.size());
  for (auto& [key, a] : groups) {
    a.row.layer = std::string(key.first);
    a.row.pass = key.second;
    finish(a, check_of, shape_checks, recorded_on_cpu);
    table.rows.push_back(std::move(a.row));
  }
  sortInModelOrder(table.rows);
  return table;
}

}  // namespace ampscope::analyzer
