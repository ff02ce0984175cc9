#include "analyzer/steps/collectives.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analyzer/core/gemm_shapes.h"
#include "analyzer/core/intervals.h"
#include "analyzer/normalise/range_values_reader.h"

namespace ampscope::analyzer {

namespace {

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// The kernel family without its argument list: "ncclKernel_AllReduce_RING_LL_Sum_float".
std::string familyOf(std::string_view name) {
  const std::size_t paren = name.find('(');
  if (paren != std::string_view::npos) name = name.substr(0, paren);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  return std::string(name);
}

bool isCommunicationOp(std::string_view op) {
  return op == "record_param_comms" || op.starts_with("c10d::") || op.starts_with("nccl:");
}

// What the communication op that launched a kernel recorded of its message.
struct CallMessage {
  std::optional<std::uint64_t> bytes;  // nccl-tests' count for the collective, where known
  bool bytes_are_gathered = false;     // bytes already count an all-gather's output
  std::int32_t group_size = 0;         // 0: not recorded
  std::string group;                   // the process group's name; "" not recorded
};

// A message larger than any GPU's memory (2^50 elements) is a corrupt record, not a size.
constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 50;

// An element's size: a tensor dtype as Kineto's "Input type" names it, or (a communication
// message's "dtype") PyTorch's ScalarType name. In "Input type", "Int" and "Bool" name Python
// scalars, so dtypeBytes does not read ScalarType names; a message's dtype is always a tensor's.
int elementBytes(std::string_view dtype, bool scalar_type_name) {
  if (scalar_type_name) {
    struct Size {
      std::string_view name;
      int bytes;
    };
    static constexpr Size kScalarTypes[] = {{"Double", 8}, {"Long", 8}, {"Int", 4}, {"Short", 2},
                                            {"Char", 1},   {"Byte", 1}, {"Bool", 1}};
    for (const Size& size : kScalarTypes) {
      if (size.name == dtype) return size.bytes;
    }
  }
  return import::dtypeBytes(dtype);
}

std::optional<std::uint64_t> bytesOf(std::uint64_t elements, std::string_view dtype, bool scalar_type_name) {
  const int element = elementBytes(dtype, scalar_type_name);
  if (element <= 0 || elements > kMaxElements) return std::nullopt;
  return elements * static_cast<std::uint64_t>(element);
}

// From the op's recorded message (PyTorch 2.1+: elements in and out, dtype, group), else from its
// first tensor input's shape and dtype; nothing where it recorded no sized tensor (a TensorList).
// nccl-tests counts the larger side: an all-gather's output, a reduce-scatter's input.
CallMessage callMessage(const trace::Trace& trace, trace::Index op_range) {
  CallMessage out;
  for (trace::Index r = op_range; r != trace::kNone; r = trace.ranges[static_cast<std::size_t>(r)].parent) {
    const trace::Range& range = trace.ranges[static_cast<std::size_t>(r)];
    if (!isCommunicationOp(trace.str(range.op))) continue;
    if (const trace::CommunicationMessage* m = trace.messageOf(range)) {
      out.group_size = m->group_size;
      out.group = std::string(trace.str(m->group));
      const std::int64_t elements = std::max(m->in_elements, m->out_elements);
      if (elements >= 0 && m->dtype != trace::StringTable::kEmpty) {
        out.bytes = bytesOf(static_cast<std::uint64_t>(elements), trace.str(m->dtype), true);
        out.bytes_are_gathered = true;
        return out;
      }
    }
    const std::optional<Shapes> shapes = parseShapes(trace.str(range.shapes));
    const std::vector<std::string>& dtypes = trace.range_values.dtypes(range.dtypes).names;
    if (!shapes || shapes->empty() || (*shapes)[0].empty() || dtypes.empty()) return out;
    std::uint64_t elements = 1;
    for (std::int64_t d : (*shapes)[0]) {
      if (d < 0 || (d > 0 && elements > kMaxElements / static_cast<std::uint64_t>(d))) return out;
      elements *= static_cast<std::uint64_t>(d);
    }
    out.bytes = bytesOf(elements, dtypes[0], false);
    return out;
  }
  return out;
}

}  // namespace

const char* collectiveKindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return "all_reduce";
    case CollectiveKind::kAllGather: return "all_gather";
    case CollectiveKind::kReduceScatter: return "reduce_scatter";
    case CollectiveKind::kBroadcast: return "broadcast";
    case CollectiveKind::kReduce: return "reduce";
    case CollectiveKind::kSendRecv: return "send_recv";
    case CollectiveKind::kAllToAll: return "all_to_all";
    case CollectiveKind::kOther: break;
  }
  return "other";
}

std::optional<CollectiveKind> collectiveKindOfKernel(std::string_view name) {
  const bool nccl = name.starts_with("nccl") || contains(name, "ncclKernel") || contains(name, "ncclDevKernel");
  if (nccl) {
    // The collective follows the prefix; longer names first ("ReduceScatter" before "Reduce").
    static constexpr std::array<std::pair<std::string_view, CollectiveKind>, 8> kNames = {{
        {"AllReduce", CollectiveKind::kAllReduce},
        {"AllGather", CollectiveKind::kAllGather},
        {"ReduceScatter", CollectiveKind::kReduceScatter},
        {"Broadcast", CollectiveKind::kBroadcast},
        {"AllToAll", CollectiveKind::kAllToAll},
        {"SendRecv", CollectiveKind::kSendRecv},
        {"Send", CollectiveKind::kSendRecv},
        {"Recv", CollectiveKind::kSendRecv},
    }};
    for (const auto& [token, kind] : kNames) {
      if (contains(name, "_" + std::string(token) + "_") || contains(name, "_" + std::string(token) + "(")) return kind;
    }
    if (contains(name, "_Reduce_") || contains(name, "_Reduce(")) return CollectiveKind::kReduce;
    return CollectiveKind::kOther;
  }
  // MoE expert-parallel exchanges: DeepEP's dispatch/combine kernels are all-to-alls over NVSHMEM.
  if (contains(name, "deep_ep::") && (contains(name, "dispatch") || contains(name, "combine"))) {
    return CollectiveKind::kAllToAll;
  }
  if (contains(name, "nvshmem")) return CollectiveKind::kOther;
  return std::nullopt;
}

MathPrecision collectiveElementType(std::string_view name) {
  const std::size_t paren = name.find('(');
  const std::string_view family = paren == std::string_view::npos ? name : name.substr(0, paren);
  const auto has = [&](std::string_view token) {
    for (std::size_t at = family.find(token); at != std::string_view::npos; at = family.find(token, at + 1)) {
      const std::size_t end = at + token.size();
      if (at > 0 && family[at - 1] == '_' && (end == family.size() || family[end] == '_')) return true;
    }
    return false;
  };
  if (has("bf16") || has("_nv_bfloat16") || has("bfloat16")) return MathPrecision::kBf16;
  if (has("half") || has("f16")) return MathPrecision::kFp16;
  if (has("float") || has("f32")) return MathPrecision::kFp32;
  return MathPrecision::kUnknown;
}

double busBandwidthFactor(CollectiveKind kind, int ranks) {
  const double n = static_cast<double>(ranks);
  switch (kind) {
    case CollectiveKind::kAllReduce: return ranks >= 2 ? 2.0 * (n - 1.0) / n : 1.0;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll: return ranks >= 2 ? (n - 1.0) / n : 1.0;
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce:
    case CollectiveKind::kSendRecv:
    case CollectiveKind::kOther: break;
  }
  return 1.0;
}

Communication measureCommunication(const trace::Trace& trace, const IterationSummary& iterations) {
  Communication out;
  out.ranks = trace.distributed.worldSizeKnown() ? trace.distributed.world_size : 0;
  std::int64_t from = std::numeric_limits<std::int64_t>::max();
  std::int64_t to = std::numeric_limits<std::int64_t>::min();
  const auto steady = iterations.steadyWindow(StepClock::kTimeline);
  if (steady) std::tie(from, to) = *steady;
  out.per_step = steady.has_value();
  if (!out.per_step) {
    for (const trace::Kernel& k : trace.kernels) {
      from = std::min(from, k.start_ns);
      to = std::max(to, k.end_ns);
    }
  }
  if (from >= to) return out;
  out.window_ns = to - from;

  std::unordered_map<trace::StringId, std::optional<CollectiveKind>> kind_of_name;
  std::map<std::pair<std::string, std::int32_t>, CollectiveRow> rows;  // by family and group size
  std::map<std::uint32_t, std::pair<std::vector<Interval>, std::vector<Interval>>> by_device;  // (comm, compute)
  for (const trace::Kernel& k : trace.kernels) {
    auto [cached, fresh] = kind_of_name.try_emplace(k.name);
    if (fresh) cached->second = collectiveKindOfKernel(trace.str(k.name));
    const Interval in_window{std::max(k.start_ns, from), std::min(k.end_ns, to)};
    auto& [comm, compute] = by_device[k.device];
    if (!cached->second) {
      if (in_window.first < in_window.second) compute.push_back(in_window);
      continue;
    }
    if (in_window.first < in_window.second) comm.push_back(in_window);
    const CallMessage message = k.op_range == trace::kNone ? CallMessage{} : callMessage(trace, k.op_range);
    out.calls.push_back({*cached->second, k.start_ns, k.end_ns, message.group});
    const std::string family = familyOf(trace.str(k.name));
    CollectiveRow& row = rows[{family, message.group_size}];
    row.kind = *cached->second;
    row.element = collectiveElementType(trace.str(k.name));
    row.group_size = message.group_size;
    ++row.calls;
    row.time_ns += k.end_ns - k.start_ns;
    std::optional<std::uint64_t> bytes = message.bytes;
    // nccl-tests counts an all-gather by its output: every rank's input.
    if (bytes && row.kind == CollectiveKind::kAllGather && !message.bytes_are_gathered) {
      const int n = message.group_size > 0 ? message.group_size : out.ranks;
      bytes = n > 0 ? std::optional<std::uint64_t>(*bytes * static_cast<std::uint64_t>(n)) : std::nullopt;
    }
    if (bytes) {
      ++row.calls_with_bytes;
      row.bytes += *bytes;
      row.time_with_bytes_ns += k.end_ns - k.start_ns;
    }
  }
  std::int64_t time = 0;
  std::int64_t overlapped = 0;
  for (auto& [device, intervals] : by_device) {
    const std::vector<Interval> comm = unite(std::move(intervals.first));
    const std::vector<Interval> compute = unite(std::move(intervals.second));
    time += length(comm);
    overlapped += shared(comm, compute);
  }
  const auto per = static_cast<std::int64_t>(out.per_step ? std::max<std::size_t>(1, iterations.steadyCount()) : 1);
  out.time_ns = time / per;
  out.overlapped_ns = overlapped / per;
  out.exposed_ns = out.time_ns - out.overlapped_ns;

  bool some_without_bytes = false;
  for (auto& [key, row] : rows) {
    row.name = key.first;
    some_without_bytes |= row.calls_with_bytes < row.calls;
    if (row.calls_with_bytes > 0 && row.time_with_bytes_ns > 0) {
      row.algbw_gbps = static_cast<double>(row.bytes) / static_cast<double>(row.time_with_bytes_ns);  // B/ns = GB/s
      // The group's size where the op recorded it (a tensor-parallel group is not the world).
      const int n = row.group_size > 0 ? row.group_size : out.ranks;
      const bool needs_ranks = busBandwidthFactor(row.kind, 8) != 1.0;
      if (!needs_ranks || n > 0) row.busbw_gbps = *row.algbw_gbps * busBandwidthFactor(row.kind, n);
    }
    out.collectives.push_back(std::move(row));
  }
  std::stable_sort(out.collectives.begin(), out.collectives.end(),
                   [](const CollectiveRow& a, const CollectiveRow& b) { return a.time_ns > b.time_ns; });
  if (some_without_bytes) {
    out.note = "bandwidths cover only the calls whose communication op recorded a sized tensor (record_param_comms "
               "with a TensorList, or no shapes, gives none)";
  }
  if (out.ranks == 0 && !out.collectives.empty()) {
    out.note += std::string(out.note.empty() ? "" : "; ") +
                "the job's rank count is not in the trace, so bus bandwidths that depend on it are not given";
  }
  return out;
}

}  // namespace ampscope::analyzer
