#include "trainer/engine/run_support.h"

#include <numeric>

#include <fmt/format.h>

#if defined(AMPSCOPE_TRAINER_CUDA)
#include "trainer/cuda/cuda_backend.h"
#endif

namespace ampscope::trainer {

std::int64_t DeviceDemand::totalLaunches() const {
  return std::accumulate(launches.begin(), launches.end(), std::int64_t{0});
}

DeviceDemand DeviceDemand::operator-(const DeviceDemand& earlier) const {
  DeviceDemand out;
  for (std::size_t i = 0; i < launches.size(); ++i) out.launches[i] = launches[i] - earlier.launches[i];
  out.host_reads = host_reads - earlier.host_reads;
  return out;
}

void CountingBackend::arrive(BackendOp op, std::int64_t launches) {
  counted_.launches[static_cast<std::size_t>(phase_)] += launches;
  if (backendOpInfo(op).demand == OpDemand::kHostRead) ++counted_.host_reads;
}

void OpTracker::beginLayer(Layer& layer, Pass pass, const Shape& input_shape, DType input_dtype) {
  layer_ = &layer;
  pass_ = pass;
  if (next_ != nullptr) next_->beginLayer(layer, pass, input_shape, input_dtype);
}

void OpTracker::endLayer(Layer& layer, Pass pass) {
  if (next_ != nullptr) next_->endLayer(layer, pass);
  layer_ = nullptr;
}

std::string OpTracker::describe() const {
  if (layer_ == nullptr) return phase_;
  return fmt::format("{} {} {}", layer_->name(), layer_->op(), pass_ == Pass::kForward ? "forward" : "backward");
}

namespace {

std::unique_ptr<Backend> tryCuda(std::string& why_not) {
#if defined(AMPSCOPE_TRAINER_CUDA)
  return makeCudaBackend(&why_not);
#else
  why_not = "this build has no CUDA backend (the CUDA toolkit was not found when it was configured)";
  return nullptr;
#endif
}

}  // namespace

Result<SelectedBackend> selectBackend(std::string_view device) {
  SelectedBackend out;
  if (device == "cpu") {
    out.backend = makeCpuBackend();
    return out;
  }
  if (device != "cuda" && device != "auto") {
    return Error{fmt::format("--device: unknown device '{}' (expected auto, cpu or cuda)", device)};
  }
  std::string why_not;
  out.backend = tryCuda(why_not);
  if (out.backend) return out;
  if (device == "cuda") return Error{fmt::format("--device cuda: {}", why_not)};
  out.backend = makeCpuBackend();
  out.note = fmt::format("using the CPU: {}", why_not);
  return out;
}

}  // namespace ampscope::trainer
