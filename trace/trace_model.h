#pragma once
// The trace model shared by every part of ampscope: plain value types, flat vectors sorted by
// start time, interned strings. Importers fill it; the correlator fills the derived link fields;
// the analyzer and the reports read it. No CUDA, Qt, SQLite or JSON here.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trace/range_values.h"
#include "trace/string_table.h"

namespace ampscope::trace {

// Index into one of Trace's vectors; kNone where there is no such element.
using Index = std::int32_t;
inline constexpr Index kNone = -1;

// The process a GPU record belongs to when the file does not say. Correlation ids, threads and
// streams are numbered per process (CUPTI counts per process), so GPU records carry the process
// that launched them where the format records it (Nsight's globalPid) or where the file is one
// process's (a Kineto or nvprof file); the correlator links records of an unknown process only
// by a correlation id that a single process used.
inline constexpr std::int64_t kUnknownPid = -1;

enum class TraceFormat : std::uint8_t { kUnknown, kKineto, kNsightSystems, kNvprof, kAmpscope };
const char* formatName(TraceFormat format);

// Where the work of a device ran: a GPU, or the host CPU standing in for one (the trainer's CPU
// backend records its ops as host activity, so the per-layer and iteration views work without a
// GPU; Tensor Core figures need a GPU run).
enum class DeviceKind : std::uint8_t { kGpu, kCpu };
const char* deviceKindName(DeviceKind kind);

struct Device {
  std::uint32_t id = 0;  // the device ordinal as the trace numbers it
  StringId name = StringTable::kEmpty;
  std::int32_t compute_major = 0;  // 0 when the trace does not say
  std::int32_t compute_minor = 0;
  std::int32_t sm_count = 0;
  std::uint64_t total_memory_bytes = 0;
  DeviceKind kind = DeviceKind::kGpu;
  // The SM clock the device reports as its peak (cudaDeviceProp::clockRate, CUPTI coreClockRate,
  // Nsight's clockRate) and its DRAM bandwidth (CUPTI globalMemoryBandwidth, Nsight's
  // memoryBandwidth); 0 when the trace does not say (Kineto records neither).
  std::int64_t sm_clock_khz = 0;
  std::uint64_t memory_bandwidth_bytes_per_s = 0;

  bool operator==(const Device&) const = default;
};

struct Thread {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  StringId name = StringTable::kEmpty;

  bool operator==(const Thread&) const = default;
};

enum class ApiKind : std::uint8_t { kRuntime, kDriver };

// A host-side CUDA API call (cudaLaunchKernel, cuLaunchKernel, cudaMemcpyAsync, ...).
struct LaunchCall {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint64_t correlation_id = 0;
  StringId name = StringTable::kEmpty;
  Index thread = kNone;  // into Trace::threads
  std::int32_t cbid = 0;  // CUPTI callback id, 0 when unknown
  ApiKind api = ApiKind::kRuntime;
  // Derived by the correlator: innermost operator range enclosing the call on its thread.
  Index op_range = kNone;

  bool operator==(const LaunchCall&) const = default;
};

struct Kernel {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint64_t correlation_id = 0;
  StringId name = StringTable::kEmpty;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  std::array<std::uint32_t, 3> grid{};
  std::array<std::uint32_t, 3> block{};
  std::uint32_t registers_per_thread = 0;
  std::uint32_t shared_memory_bytes = 0;  // static + dynamic
  std::int64_t pid = kUnknownPid;          // the launching process (its stream and correlation id are its own)
  // Derived by the correlator.
  Index launch = kNone;    // into Trace::launches
  Index op_range = kNone;  // into Trace::ranges: the operator that launched it

  bool operator==(const Kernel&) const = default;
};

enum class MemoryOpKind : std::uint8_t { kMemcpy, kMemset };
enum class CopyDirection : std::uint8_t { kUnknown, kHostToDevice, kDeviceToHost, kDeviceToDevice, kHostToHost, kPeerToPeer };
enum class MemoryKind : std::uint8_t { kUnknown, kPageable, kPinned, kDevice, kArray, kManaged };
const char* copyDirectionName(CopyDirection direction);
const char* memoryKindName(MemoryKind kind);

struct MemoryOp {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint64_t correlation_id = 0;
  std::uint64_t bytes = 0;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  MemoryOpKind kind = MemoryOpKind::kMemcpy;
  CopyDirection direction = CopyDirection::kUnknown;
  MemoryKind src_kind = MemoryKind::kUnknown;
  MemoryKind dst_kind = MemoryKind::kUnknown;
  std::int64_t pid = kUnknownPid;  // the launching process
  // Derived by the correlator.
  Index launch = kNone;
  Index op_range = kNone;

  bool operator==(const MemoryOp&) const = default;
};

enum class SyncKind : std::uint8_t { kUnknown, kEventSynchronize, kStreamWaitEvent, kStreamSynchronize, kContextSynchronize };

struct Synchronization {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint64_t correlation_id = 0;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  SyncKind kind = SyncKind::kUnknown;
  std::int64_t pid = kUnknownPid;  // the process that synchronised

  bool operator==(const Synchronization&) const = default;
};

// What a host range is: a framework operator, a user/NVTX annotation, a Python frame.
enum class RangeKind : std::uint8_t { kOperator, kAnnotation, kPython, kGpuAnnotation };
// Which framework's text the range normaliser read the range's name as (analyzer/import/
// range_normaliser.h). kPlain: nothing it knows; the name is kept as it is.
enum class RangeTextForm : std::uint8_t {
  kPlain,
  kTrainerLayerOp,     // ampscope's trainer: "fc1 linear forward in=[64,784] ..."
  kTorchNvtx,          // PyTorch emit_nvtx: "aten::mm, op_id = 7, sizes = [[64, 784], [784, 100]]"
  kPyProfOperator,     // PyProf: {'mod': 'torch.nn.functional', 'op': 'linear', 'args': [...]}
  kPyProfCallStack,    // PyProf: {'traceMarker': [...], 'funcStack': '/Net::forward/Linear::forward'}
  kPyProfModule,       // PyProf: {'mod': 'Linear', 'strRepr': 'in_features=...'}
  kFrameworkOperator,  // an operator event of a profiler (Kineto cpu_op): its name is the op
  kModuleFrame,        // a Python frame of an nn.Module call (Kineto "nn.Module: Linear_0")
};
// Which part of a training step a range belongs to, where the trace says so.
enum class Phase : std::uint8_t { kUnknown, kStep, kData, kForward, kBackward, kOptimizer, kLossScale };
const char* rangeKindName(RangeKind kind);
const char* phaseName(Phase phase);

// A host time range: a PyTorch operator, an NVTX push/pop or start/end range, a profiler step.
// Millions of these are held at once: members are ordered so that no padding is left between
// them (the four one-byte fields share one 4-byte slot) and the struct stays at 96 bytes.
struct Range {
  // Deeper nesting is stored as this depth rather than wrapping round to a shallow one.
  static constexpr std::uint8_t kMaxDepth = 255;

  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  StringId name = StringTable::kEmpty;
  Index thread = kNone;
  RangeKind kind = RangeKind::kOperator;
  Phase phase = Phase::kUnknown;  // as recorded; the correlator fills it where it can tell
  // Which text form the range normaliser read the name as (see the normalised fields below).
  RangeTextForm text_form = RangeTextForm::kPlain;
  // Derived by the correlator: nesting depth on the thread, 0 for a top-level range, saturating
  // at kMaxDepth.
  std::uint8_t depth = 0;
  // What the name says, normalised once at import by analyzer/normalise/range_normaliser.h;
  // consumers read these fields and never parse `name` (which stays what the file said).
  // Shapes and dtypes are JSON arrays as text, e.g. "[[32,3,224,224],[64,3,7,7]]" and
  // "[\"float\",\"float\"]" (empty when not recorded).
  StringId op = StringTable::kEmpty;      // the operator: "aten::mm", "linear"; empty: not one
  StringId shapes = StringTable::kEmpty;
  // Each input's strides in elements, in the form of Kineto's "Input Strides" (PyTorch 2.1 and
  // later record them with the shapes): "[[784, 1], [1, 784]]". They tell which dimension of a
  // matrix operand is contiguous, and so which are leading dimensions. Empty when not recorded.
  StringId strides = StringTable::kEmpty;
  StringId dtypes = StringTable::kEmpty;
  // The positional arguments' values as a JSON array of strings, one per argument, in the form
  // of Kineto's "Concrete Inputs": "" for a tensor (or an absent optional), scalars and int lists
  // as text. aten::conv2d: ["","","","[2, 2]","[3, 3]","[1, 1]","1"] (input, weight, bias,
  // stride, padding, dilation, groups). Empty when not recorded. Dtypes and arguments are read
  // once per distinct string into Trace::range_values, which the analysis reads instead.
  StringId arguments = StringTable::kEmpty;
  StringId layer = StringTable::kEmpty;   // module / layer name
  StringId module_path = StringTable::kEmpty;  // where the file gives one: "/Net::forward/Linear::forward"
  // NVTX attributes as given: the domain ("" for the default one), the category (0: none) and
  // the payload as text ("" when none; numbers in their shortest exact decimal form).
  StringId domain = StringTable::kEmpty;
  std::uint32_t category = 0;
  StringId payload = StringTable::kEmpty;
  std::int64_t sequence_number = -1;      // autograd sequence number, -1 when absent
  std::int64_t op_id = -1;                // PyTorch's record-function id (emit_nvtx op_id), -1 when absent
  std::int64_t fwd_thread_tid = 0;        // Kineto "Fwd thread id": set on backward ops
  // Derived by the correlator.
  Index parent = kNone;
  Index forward_range = kNone;  // for a backward op: the forward op with its sequence number

  bool operator==(const Range&) const = default;
};

// The message a framework's communication op recorded (PyTorch's record_param_comms in Kineto
// traces since 2.1: "Collective name", "dtype", "In/Out msg nelems", "Group size", "Process Group
// Name", "Process Group Ranks"). Few per step, so it is held beside the ranges, not in every one:
// it belongs to the range on `thread` that starts at `start_ns` (a key that survives sorting).
struct CommunicationMessage {
  Index thread = kNone;
  std::int64_t start_ns = 0;
  StringId collective = StringTable::kEmpty;  // "allreduce", "_allgather_base", ...
  StringId dtype = StringTable::kEmpty;       // PyTorch's scalar type name: "Float", "BFloat16"
  std::int64_t in_elements = -1;              // -1: not recorded
  std::int64_t out_elements = -1;
  std::int32_t group_size = 0;                // 0: not recorded
  StringId group = StringTable::kEmpty;        // the process group's name, the same on every rank
  StringId group_ranks = StringTable::kEmpty;  // its ranks as recorded: "[0, 1, 2, 3]" (long lists are cut)

  bool operator==(const CommunicationMessage&) const = default;
};

// One allocation (bytes > 0) or free (bytes < 0) of device or host memory as the recording tool
// saw it: Kineto's "[memory]" instant events (both forms), Nsight Systems' CUDA memory usage
// events, CUPTI memory activity, the trainer's allocator. What a field's tool did not record is
// left at its "not recorded" value; docs/memory.md says what each source gives.
struct MemoryEvent {
  static constexpr std::int64_t kNotRecorded = -1;

  std::int64_t time_ns = 0;
  std::int64_t bytes = 0;      // > 0: allocated; < 0: freed (Kineto's sign)
  std::uint64_t address = 0;   // the block's address; 0: not recorded
  // The allocator's totals on the device just after this event (PyTorch's caching allocator:
  // bytes in live tensors, bytes reserved from the driver); kNotRecorded where the form lacks
  // them (Kineto's 2021 form has Bytes only).
  std::int64_t total_allocated = kNotRecorded;
  std::int64_t total_reserved = kNotRecorded;
  DeviceKind device_kind = DeviceKind::kGpu;
  std::uint32_t device = 0;    // the ordinal among devices of its kind (the host: 0)
  Index thread = kNone;        // the allocating thread, where recorded
  std::int64_t pid = kUnknownPid;
  // Derived by the correlator: the innermost operator range on the thread enclosing the event.
  Index op_range = kNone;

  bool operator==(const MemoryEvent&) const = default;
};

// One hardware metric's value, under the name the recording tool gave it: a CUPTI/Perfworks metric
// ("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
// "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") or a tool's own label (Nsight Systems'
// "Tensor Active [Throughput %]"). What a name measures is read by analyzer/counters/.
struct MetricValue {
  StringId metric = StringTable::kEmpty;
  double value = 0.0;

  bool operator==(const MetricValue&) const = default;
};

// The hardware metrics of one profiled range around one kernel launch, as a range profiler
// records them: Kineto's CUPTI-profiler mode ("cuda_profiler_range" events), ampscope's collector
// with `--metrics tensor:per-kernel`. docs/hardware_counters.md says what each source gives.
struct KernelMetrics {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  StringId kernel_name = StringTable::kEmpty;  // as recorded; empty where the tool did not know it
  std::uint64_t correlation_id = 0;            // of the kernel's launch; 0 where not recorded
  std::uint32_t device = 0;
  std::int64_t pid = kUnknownPid;  // the launching process, where recorded
  // False where the times are not the kernel's: Kineto's range profiler spreads its ranges evenly
  // over the trace, one per launch in launch order. Such ranges are matched to launches by order.
  bool times_measured = true;
  std::vector<MetricValue> values;
  // Derived by the correlator: the launch and the kernel this range measured (kNone: not found).
  Index launch = kNone;
  Index kernel = kNone;

  bool operator==(const KernelMetrics&) const = default;
};

// One device-wide sample of a hardware metric over [start_ns, end_ns): CUPTI PM sampling (Kineto's
// "hardware_counters" counter events, ampscope's collector with `--metrics tensor`), Nsight
// Systems' GPU metrics. Where a tool records one time per sample, the importer closes each
// sample's interval at the next sample of the same device and metric (closeSampleIntervals).
struct MetricSample {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t device = 0;
  StringId metric = StringTable::kEmpty;
  double value = 0.0;

  bool operator==(const MetricSample&) const = default;
};

// Gives each sample that has no end (end_ns <= start_ns) the start of the next sample of the same
// device and metric; the last of each series lasts the series' first gap (or `last_period_ns`
// where it has one sample). Leaves `samples` sorted by start. `end_at_start`: for a tool that
// stamps each sample at the end of its period, a sample covers [previous sample, its time)
// instead. (Kineto's PM sampling and Nsight Systems' GPU metrics both stamp the start:
// docs/formats/.)
void closeSampleIntervals(std::vector<MetricSample>& samples, bool end_at_start = false,
                          std::int64_t last_period_ns = 0);

// A sampled value over time: loss scale, skipped steps, gradient statistics.
struct Counter {
  std::int64_t time_ns = 0;
  StringId name = StringTable::kEmpty;
  std::int64_t step = -1;
  double value = 0.0;

  bool operator==(const Counter&) const = default;
};

// One bin of a gradient tensor's histogram of magnitudes at one training step: `count` values
// with |g| in [2^exponent, 2^(exponent+1)), before loss scaling. Zeros and non-finite values are
// counters ("gradient_zeros", "gradient_non_finite"), not bins.
struct GradientBin {
  std::int64_t step = 0;
  std::int64_t time_ns = 0;
  StringId tensor = StringTable::kEmpty;  // the parameter's name, "fc1.weight"
  std::int32_t exponent = 0;
  std::uint64_t count = 0;

  bool operator==(const GradientBin&) const = default;
};

// What the importer dropped or did not understand, so nothing is lost silently.
struct ImportStats {
  std::uint64_t events_read = 0;
  std::uint64_t events_imported = 0;
  // Recognised records that ampscope does not model (flow arrows, memory samples, ...), by kind.
  std::map<std::string, std::uint64_t> skipped;
  // Records or values that could not be understood (unknown categories, missing fields, a value
  // of another type than the format documents), by reason. The record is kept wherever the
  // analysis can do without what was not understood; the reason says which.
  std::map<std::string, std::uint64_t> not_understood;
  // Where each reason of not_understood was first met in the file ("traceEvents element at
  // byte offset 1234", "NVTX_EVENTS row 17"), so that a user can look at it. Absent where the
  // importer cannot say.
  std::map<std::string, std::string> first_place;
  std::uint64_t gpu_records_without_launch = 0;  // filled by the correlator
  std::uint64_t dropped_by_collector = 0;        // records the recording tool reports it lost
  // Records the collector lost or could not complete, by reason (CUPTI's dropped records, ranges
  // still open when the program ended, ...).
  std::map<std::string, std::uint64_t> lost;

  // Counts one record not understood for `reason`, first met at `place` (empty: unknown).
  void notUnderstood(const std::string& reason, std::string_view place);
  // Adds another part's counts (a batch of the same file, read later in it): its first places
  // count where this one has none.
  void add(const ImportStats& later);

  bool operator==(const ImportStats&) const = default;
};

// Where the file sits in a distributed job, as the recording tool says (Kineto's
// "distributedInfo"); rank -1 and world size 0 where it does not. Many PyTorch versions write a
// rank without a world size: the job's files then tell how many ranks there are.
struct DistributedInfo {
  std::int32_t rank = -1;
  std::int32_t world_size = 0;
  std::string backend;  // "nccl", "gloo", ...

  bool rankKnown() const { return rank >= 0; }
  bool worldSizeKnown() const { return world_size > 0; }
  bool operator==(const DistributedInfo&) const = default;
};

// The part of a recording that was read where the user asked for one (ampscope --window): what
// lies outside it was not read. Times on the trace's clock.
struct ReadSpan {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::string asked;  // as the user wrote it: "2.5:4", "step:3-5"

  bool operator==(const ReadSpan&) const = default;
};

struct Trace {
  TraceFormat format = TraceFormat::kUnknown;         // the file this Trace was read from
  TraceFormat source_format = TraceFormat::kUnknown;  // the tool that recorded the events
  std::string format_detail;  // e.g. "PyTorch profiler (Kineto), 2021 schema"
  StringTable strings;
  std::vector<Device> devices;
  std::vector<Thread> threads;
  std::vector<LaunchCall> launches;
  std::vector<Kernel> kernels;
  std::vector<MemoryOp> memory_ops;
  std::vector<Synchronization> synchronizations;
  std::vector<Range> ranges;
  std::vector<MemoryEvent> memory_events;  // by time_ns
  std::vector<KernelMetrics> kernel_metrics;  // by start_ns (for placeholder times: launch order)
  std::vector<MetricSample> metric_samples;   // by start_ns
  std::vector<Counter> counters;
  std::vector<GradientBin> gradient_bins;
  std::vector<CommunicationMessage> communication_messages;  // by (start_ns, thread)
  // Range::arguments and Range::dtypes read, by string id: filled by the range normaliser at
  // import (derived, never stored in a profile).
  RangeValues range_values;
  // Kernel names an importer demangled: (the name kernels carry, the mangled symbol the file gave).
  std::vector<std::pair<StringId, StringId>> mangled_names;
  ImportStats import_stats;
  DistributedInfo distributed;
  // What to add to this trace's timestamps to count from the Unix epoch, where the file says it
  // (an Nsight Systems export: its session's start, TARGET_INFO_SESSION_START_TIME). nullopt where
  // the file does not say; Kineto and CUPTI timestamps already count from the epoch.
  std::optional<std::int64_t> epoch_offset_ns;
  // Where only part of the recording was read (--window); nullopt: all of it.
  std::optional<ReadSpan> read_window;

  std::string_view str(StringId id) const { return strings.view(id); }
  // The communication message recorded with a range; nullptr where it has none.
  const CommunicationMessage* messageOf(const Range& range) const;
  // The mangled symbol a demangled kernel name came from; nullopt where the file gave it readable.
  std::optional<std::string_view> mangledName(StringId name) const;
  // Index of the thread (pid, tid), added when new.
  Index threadIndex(std::int64_t pid, std::int64_t tid);
  // The process of a thread index; kUnknownPid for kNone (an event without a thread).
  std::int64_t pidOfThread(Index thread) const {
    return thread == kNone ? kUnknownPid : threads[static_cast<std::size_t>(thread)].pid;
  }
  // Sorts every event vector by start time (stable, so equal starts keep import order).
  // Call once after import; derived indices are invalid afterwards. thread_count > 1 lets a large
  // trace's ranges be sorted on a thread of their own while the other vectors are; the order is
  // the same either way.
  void sortByTime(unsigned thread_count = 1);
  // For a file of one recording session (a Kineto or nvprof file, an ampscope profile), whose
  // correlation ids are unique in it: gives each GPU record of unknown process the process of the
  // API call with its correlation id, or, when one process launched everything, that process.
  void assignLaunchingProcesses();
  std::size_t eventCount() const;
  // Bytes held by the events and strings (capacity, not size): the memory budget's measure.
  std::size_t memoryBytes() const;
};

}  // namespace ampscope::trace
