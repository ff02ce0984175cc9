// The run's step state (trainer/numerics/step_state.h) in device memory: the loss scaler and the
// step log the step's kernels write, and the step's end, run on the device. The host reads the
// state only through readStepLog, every few steps.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "trainer/backend/backend_error.h"
#include "trainer/cuda/cuda_backend_impl.h"
#include "trainer/cuda/cuda_check.h"
#include "trainer/cuda/kernels.h"

namespace ampscope::trainer::cuda {

namespace {

// The step points of every slot as CUDA events (with timing), and which were recorded since the
// slot's last read.
struct StepEvents {
  std::vector<UniqueHandle<cudaEvent_t, &cudaEventDestroy>> events;  // slot * kStepPoints + point
  std::vector<bool> recorded;
};

StepEvents& stepEvents(const StepStateMemory& state) { return *static_cast<StepEvents*>(state.timing.get()); }

// A captured step: the instantiated graph, launched on the backend's stream (held here too, as
// the tensors' deleters hold it).
class CudaStepGraph final : public StepGraph {
 public:
  CudaStepGraph(cudaGraphExec_t graph, std::shared_ptr<CUstream_st> stream)
      : graph_(graph), stream_(std::move(stream)) {}
  void replay() override { AMPSCOPE_CUDA_CHECK(cudaGraphLaunch(graph_.get(), stream_.get())); }

 private:
  UniqueHandle<cudaGraphExec_t, &cudaGraphExecDestroy> graph_;
  std::shared_ptr<CUstream_st> stream_;
};

}  // namespace

StepStateView CudaBackend::deviceState(const StepStateMemory& state) {
  if (!state.defined() || state.device != DeviceKind::kCuda) {
    const char* what = state.defined() ? "in another backend's memory" : "never allocated";
    throw BackendError("CUDA backend", fmt::format("a step state {} reached it", what));
  }
  return state.view();
}

StepStateMemory CudaBackend::allocateStepState(const StepStateLayout& layout, const ScalerState& initial) {
  if (!stepStateFits(layout, initial)) {
    throw BackendError("CUDA backend",
                       fmt::format("a step log of {} slots of {} rows for a scaler at slot {} of {} slots",
                                   layout.slots, layout.max_rows, initial.slot, initial.slots));
  }
  const std::size_t bytes = layout.bytes();
  void* memory = nullptr;
  AMPSCOPE_CUDA_CHECK(cudaMalloc(&memory, bytes));
  // Counted with the backend's other reserved memory; the deleter may run after the backend is
  // gone, so it holds the counter itself.
  std::shared_ptr<void> owner(memory, [held = buffer_bytes_, bytes](void* p) {
    static_cast<void>(cudaFree(p));
    held->fetch_sub(static_cast<std::int64_t>(bytes));
  });
  buffer_bytes_->fetch_add(static_cast<std::int64_t>(bytes));

  // The scaler and the entries as the CPU starts them (an entry's defaults are not all zero
  // bits), in one copy from pinned staging; the row losses zeroed on the device.
  const std::size_t head_bytes = layout.lossesOffset();
  void* pinned = uploadStaging(head_bytes);
  std::memset(pinned, 0, head_bytes);
  const StepStateView head = stepStateView(pinned, layout);
  *head.scaler = initial;
  for (std::int32_t i = 0; i < layout.slots; ++i) head.entries[i] = StepLogEntry{};
  AMPSCOPE_CUDA_CHECK(cudaMemcpyAsync(memory, pinned, head_bytes, cudaMemcpyHostToDevice, stream()));
  uploadQueued();
  AMPSCOPE_CUDA_CHECK(
      cudaMemsetAsync(static_cast<unsigned char*>(memory) + head_bytes, 0, bytes - head_bytes, stream()));
  auto events = std::make_shared<StepEvents>();
  const std::size_t points = static_cast<std::size_t>(layout.slots) * kStepPoints;
  events->recorded.assign(points, false);
  for (std::size_t i = 0; i < points; ++i) {
    cudaEvent_t event = nullptr;
    AMPSCOPE_CUDA_CHECK(cudaEventCreate(&event));
    events->events.emplace_back(event);
  }
  return {layout, DeviceKind::kCuda, std::move(owner), std::move(events)};
}

void CudaBackend::setLearningRate(StepStateMemory& state, float learning_rate) {
  // Staged like an upload: queued behind the step before, waited for by nothing.
  void* pinned = uploadStaging(sizeof(float));
  std::memcpy(pinned, &learning_rate, sizeof(float));
  AMPSCOPE_CUDA_CHECK(cudaMemcpyAsync(&deviceState(state).scaler->learning_rate, pinned, sizeof(float),
                                      cudaMemcpyHostToDevice, stream()));
  uploadQueued();
}

std::unique_ptr<StepGraph> CudaBackend::captureStep(const std::function<void()>& step) {
  // Stream capture records what the step queues, allocations and frees from the stream-ordered
  // pool included (as graph memory nodes), without running it (CUDA Programming Guide, "CUDA
  // Graphs"). A call that waits or syncs inside ends the capture with an error: the step is then
  // not captured and the backend goes on as before.
  // The graph holds the addresses of the scratch and the workspace as they are now.
  scratch_.keepRetiredBlocks();
  workspace_.keepRetiredBlocks();
  AMPSCOPE_CUDA_CHECK(cudaStreamBeginCapture(stream(), cudaStreamCaptureModeThreadLocal));
  try {
    step();
  } catch (...) {
    cudaGraph_t broken = nullptr;
    static_cast<void>(cudaStreamEndCapture(stream(), &broken));
    if (broken != nullptr) static_cast<void>(cudaGraphDestroy(broken));
    static_cast<void>(cudaGetLastError());
    throw;
  }
  cudaGraph_t captured = nullptr;
  AMPSCOPE_CUDA_CHECK(cudaStreamEndCapture(stream(), &captured));
  const UniqueHandle<cudaGraph_t, &cudaGraphDestroy> graph(captured);
  cudaGraphExec_t instance = nullptr;
  // Memory the graph allocates and does not free is freed at its next launch.
  AMPSCOPE_CUDA_CHECK(cudaGraphInstantiateWithFlags(&instance, graph.get(), cudaGraphInstantiateFlagAutoFreeOnLaunch));
  // The graph's tensors live in the graphs' own pool from now on: what the eager steps left cached
  // in the default pool goes back to the device.
  if (pool_ != nullptr) AMPSCOPE_CUDA_CHECK(cudaMemPoolTrimTo(pool_, 0));
  return std::make_unique<CudaStepGraph>(instance, stream_);
}

void CudaBackend::markStepPoint(StepStateMemory& state, std::int32_t slot, std::int32_t point) {
  StepEvents& events = stepEvents(state);
  const std::size_t at = static_cast<std::size_t>(slot) * kStepPoints + static_cast<std::size_t>(point);
  AMPSCOPE_CUDA_CHECK(cudaEventRecord(events.events.at(at).get(), stream()));
  events.recorded[at] = true;
}

StepLogRead CudaBackend::readStepLog(const StepStateMemory& state, std::int32_t first, std::int32_t count) {
  const StepStateView device = deviceState(state);
  const StepStateLayout& layout = state.layout;
  // One copy from the block's start through the last slot read: the scaler, the entries and the
  // row losses up to it (all of them once the slots read wrap around).
  std::int32_t last_slot = -1;
  for (std::int32_t i = 0; i < count; ++i) last_slot = std::max(last_slot, (first + i) % layout.slots);
  const std::size_t bytes =
      last_slot < 0 ? sizeof(ScalerState)
                    : layout.lossesOffset() + static_cast<std::size_t>(last_slot + 1) *
                                                  static_cast<std::size_t>(layout.max_rows) * sizeof(float);
  void* pinned = readStaging(bytes);
  AMPSCOPE_CUDA_CHECK(cudaMemcpyAsync(pinned, device.scaler, bytes, cudaMemcpyDeviceToHost, stream()));
  AMPSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream()));

  const StepStateView host = stepStateView(pinned, layout);
  StepLogRead read;
  read.scaler = *host.scaler;
  for (std::int32_t i = 0; i < count; ++i) {
    const std::int32_t slot = (first + i) % layout.slots;
    const StepLogEntry& entry = host.entries[slot];
    read.entries.push_back(entry);
    const float* losses = host.row_losses + static_cast<std::int64_t>(slot) * layout.max_rows;
    // rows came from the device; never read past the slot's rows whatever it says.
    read.row_losses.emplace_back(losses, losses + std::clamp(entry.rows, 0, layout.max_rows));
    const std::array<std::int64_t, kStepPoints> points = pointTimes(state, slot);
    read.phase_ns.push_back(phaseDurations(points));
    read.step_ns.push_back(stepDuration(points));
  }
  return read;
}

std::array<std::int64_t, kStepPoints> CudaBackend::pointTimes(const StepStateMemory& state, std::int32_t slot) {
  // Read after the stream was synchronized: every recorded event has completed. Times are from
  // the slot's first point, with the events' resolution of about half a microsecond.
  StepEvents& events = stepEvents(state);
  std::array<std::int64_t, kStepPoints> times;
  times.fill(-1);
  const std::size_t first = static_cast<std::size_t>(slot) * kStepPoints;
  if (!events.recorded[first]) return times;
  for (std::size_t p = 0; p < kStepPoints; ++p) {
    if (!events.recorded[first + p]) continue;
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, events.events[first].get(), events.events[first + p].get()) != cudaSuccess) {
      static_cast<void>(cudaGetLastError());
      continue;
    }
    times[p] = static_cast<std::int64_t>(static_cast<double>(ms) * 1e6);
  }
  for (std::size_t p = 0; p < kStepPoints; ++p) events.recorded[first + p] = false;
  return times;
}

void CudaBackend::finishStep(StepStateMemory& state) { launchFinishStep(deviceState(state), stream()); }

}  // namespace ampscope::trainer::cuda
