#pragma once
// What the layers, the loss and the optimizers ask of a device. Two implementations: the CPU
// reference (OpenBLAS SGEMM on values rounded to the storage type, FP32 accumulation, results
// rounded back) and CUDA (cuBLAS/cuBLASLt, cuDNN, kernels). Every op writes its output in the
// output tensor's dtype, rounding where the GPU would; the element-wise arithmetic of both comes
// from the same host-device functions (trainer/numerics/).
//
// Shapes are checked by the layers that call these; a mismatch here is a programming error.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "trainer/backend/allocation_observer.h"
#include "trainer/numerics/step_state.h"
#include "trainer/tensor/tensor.h"

namespace ampscope::trainer {

// C[m,n] = alpha * op(A) * op(B) + beta * C, row-major; op(A) is [m,k], op(B) is [k,n]. A and B
// share a dtype; products accumulate in FP32. With batch > 1, A, B and C hold `batch` matrices
// one after another.
struct GemmCall {
  bool transpose_a = false;
  bool transpose_b = false;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t batch = 1;
  float alpha = 1.0f;
  float beta = 0.0f;
};

// How a 4-D activation lies in memory. Its shape is always given as [n, c, h, w]; channels first
// stores it so (NCHW), channels last as [n, h, w, c] (NHWC: what cuDNN's Tensor Core convolutions
// take without transposing, PyTorch's torch.channels_last). A convolution's filter [k, c, r, s]
// follows its activations: KCRS or KRSC.
enum class MemoryLayout { kChannelsFirst, kChannelsLast };

// The values per channel in a layout's [outer, channels, inner] view of an activation, as bias,
// batch norm and their gradients take it: the pixels of a plane channels first, one channels last.
inline std::int64_t valuesPerChannel(MemoryLayout layout, std::int64_t plane_pixels) {
  return layout == MemoryLayout::kChannelsLast ? 1 : plane_pixels;
}

// Input [n,c,h,w], filter [k,c,r,s], output [n,k,p,q], laid out as `layout` says.
struct ConvGeometry {
  std::int64_t n = 0, c = 0, h = 0, w = 0;
  std::int64_t k = 0, r = 0, s = 0;
  std::int64_t stride = 1, pad = 0;
  MemoryLayout layout = MemoryLayout::kChannelsFirst;
  std::int64_t p() const { return (h + 2 * pad - r) / stride + 1; }
  std::int64_t q() const { return (w + 2 * pad - s) / stride + 1; }
};

// Pooling over [n,c,h,w] (laid out as `layout` says) with a square window.
enum class PoolKind { kMax, kAverage };
struct PoolGeometry {
  std::int64_t n = 0, c = 0, h = 0, w = 0;
  std::int64_t window = 2, stride = 2;
  MemoryLayout layout = MemoryLayout::kChannelsFirst;
  std::int64_t p() const { return (h - window) / stride + 1; }
  std::int64_t q() const { return (w - window) / stride + 1; }
};

enum class Activation { kRelu, kGelu };

// Powers of two of |gradient|: bin i counts values with exponent kHistogramMinExponent + i
// (|g| in [2^e, 2^(e+1))); the first bin also takes anything smaller, the last anything larger;
// zeros are counted apart.
inline constexpr int kHistogramMinExponent = -40;
inline constexpr int kHistogramBins = 56;  // exponents -40 .. 15
struct GradientHistogram {
  std::array<std::uint64_t, kHistogramBins> bins{};
  std::uint64_t zeros = 0;
  std::uint64_t non_finite = 0;
  // Values that would round to zero in FP16 once multiplied by `scale` (|g * scale| < 2^-25).
  std::uint64_t underflow_at_scale = 0;
  std::uint64_t count = 0;
};

// The optimizers' settings but the learning rate, which lives in the step state
// (ScalerState::learning_rate) so that it can change from step to step under a CUDA graph.
struct SgdSettings {
  float momentum = 0.9f;
  float weight_decay = 0.0f;  // coupled (added to the gradient), as torch.optim.SGD
};

struct AdamWSettings {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 0.01f;  // decoupled
};

// What an optimizer update touches of one parameter: the tensor it updates (the FP32 master where
// there is one), its gradient, the optimizer's state (state2: AdamW only), and, where the update
// goes to a master, the low-precision weights the forward reads, written from it in the same pass.
struct ParameterTensors {
  Tensor* param = nullptr;
  const Tensor* grad = nullptr;
  Tensor* state1 = nullptr;
  Tensor* state2 = nullptr;
  Tensor* low_precision_copy = nullptr;
};

// A run's StepState block (trainer/numerics/step_state.h) in a backend's memory.
// The points of a step whose device times the log keeps (Backend::markStepPoint): the step's
// start, then the end of each of its phases (the first five RunPhases: data, forward, backward,
// loss_scale, optimizer).
inline constexpr int kStepPhases = 5;
inline constexpr int kStepPoints = kStepPhases + 1;

struct StepStateMemory {
  StepStateLayout layout;
  DeviceKind device = DeviceKind::kCpu;
  std::shared_ptr<void> memory;
  std::shared_ptr<void> timing;  // the backend's own record of the step points, per slot
  bool defined() const { return memory != nullptr; }
  StepStateView view() const { return stepStateView(memory.get(), layout); }
};

// Whether a scaler starting as `initial` fits a log laid out as `layout`: the ops index the entries
// by the scaler's slot, so a slot past the log would write past it. Backends refuse what does not.
inline bool stepStateFits(const StepStateLayout& layout, const ScalerState& initial) {
  return layout.slots >= 1 && layout.max_rows >= 0 && initial.slots >= 1 && initial.slots <= layout.slots &&
         initial.slot >= 0 && initial.slot < initial.slots;
}

// The phases' durations from the times of a step's points, each -1 where either end is unknown
// (-1) or the end comes before the start.
inline std::array<std::int64_t, kStepPhases> phaseDurations(const std::array<std::int64_t, kStepPoints>& point_ns) {
  std::array<std::int64_t, kStepPhases> out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t start = point_ns[i], end = point_ns[i + 1];
    out[i] = start >= 0 && end >= start ? end - start : -1;
  }
  return out;
}

// The whole step's duration from its first point to its last, -1 where either is unknown.
inline std::int64_t stepDuration(const std::array<std::int64_t, kStepPoints>& point_ns) {
  const std::int64_t start = point_ns.front(), end = point_ns.back();
  return start >= 0 && end >= start ? end - start : -1;
}

// What the host reads of it.
struct StepLogRead {
  ScalerState scaler;
  std::vector<StepLogEntry> entries;
  std::vector<std::vector<float>> row_losses;  // per entry, its rows' losses
  // Per entry, the device time of each phase in nanoseconds: between the step points the run
  // marked; -1 where a point was not marked or the device cannot say.
  std::vector<std::array<std::int64_t, kStepPhases>> phase_ns;
  std::vector<std::int64_t> step_ns;  // per entry, the whole step (stepDuration), -1 unknown
};

// A training step captured once and queued again as a whole (a CUDA graph on the GPU).
class StepGraph {
 public:
  virtual ~StepGraph() = default;
  // Queues the captured work again, as it was captured (the same tensors); no wait.
  virtual void replay() = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual DeviceKind device() const = 0;
  virtual std::string description() const = 0;  // "CPU (OpenBLAS, 2 threads)", "NVIDIA H100 ..."

  // TF32 Tensor Core math for FP32 GEMMs and convolutions (the tf32 precision mode).
  virtual void setTf32(bool enabled) = 0;

  // Reports every tensor allocated from now on, and its release, to observer (nullptr: none,
  // from the moment this returns). The observer must stay alive until it is replaced.
  virtual void setAllocationObserver(AllocationObserver* observer) = 0;
  virtual Tensor allocate(const Shape& shape, DType dtype) = 0;
  virtual void upload(std::span<const float> values, Tensor& dst) = 0;  // rounds to dst's dtype
  virtual std::vector<float> download(const Tensor& src) = 0;
  virtual void fill(Tensor& dst, float value) = 0;
  virtual void copy(const Tensor& src, Tensor& dst) = 0;  // converts (rounds) between dtypes
  virtual void scale(Tensor& x, float factor) = 0;        // x *= factor, rounded to x's dtype
  // Waits for queued work (a no-op on the CPU).
  virtual void synchronize() = 0;

  virtual void gemm(const GemmCall& call, const Tensor& a, const Tensor& b, Tensor& c) = 0;

  virtual void convForward(const ConvGeometry& g, const Tensor& x, const Tensor& filter, Tensor& y) = 0;
  virtual void convBackwardData(const ConvGeometry& g, const Tensor& dy, const Tensor& filter, Tensor& dx) = 0;
  virtual void convBackwardFilter(const ConvGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dfilter) = 0;

  // y[n, c, i] += bias[c] for y viewed as [outer, channels, inner].
  virtual void addBias(Tensor& y, const Tensor& bias, std::int64_t channels, std::int64_t inner) = 0;
  // dbias[c] = sum of dy[n, c, i], accumulated in FP32.
  virtual void biasGradient(const Tensor& dy, Tensor& dbias, std::int64_t channels, std::int64_t inner) = 0;

  virtual void activationForward(Activation kind, const Tensor& x, Tensor& y) = 0;
  virtual void activationBackward(Activation kind, const Tensor& x, const Tensor& dy, Tensor& dx) = 0;

  // Batch norm over [n, c, inner] per channel, statistics in FP32 whatever x's dtype; gamma,
  // beta, running stats and the saved mean / inverse std are FP32.
  virtual void batchNormForward(const Tensor& x, std::int64_t channels, std::int64_t inner, const Tensor& gamma,
                                const Tensor& beta, Tensor& running_mean, Tensor& running_var, float momentum,
                                float eps, bool training, Tensor& y, Tensor& saved_mean, Tensor& saved_inv_std) = 0;
  virtual void batchNormBackward(const Tensor& x, const Tensor& dy, std::int64_t channels, std::int64_t inner,
                                 const Tensor& gamma, const Tensor& saved_mean, const Tensor& saved_inv_std,
                                 Tensor& dx, Tensor& dgamma, Tensor& dbeta) = 0;
  // Layer norm over the last `features` values of each row, statistics in FP32.
  virtual void layerNormForward(const Tensor& x, std::int64_t features, const Tensor& gamma, const Tensor& beta,
                                float eps, Tensor& y, Tensor& saved_mean, Tensor& saved_inv_std) = 0;
  virtual void layerNormBackward(const Tensor& x, const Tensor& dy, std::int64_t features, const Tensor& gamma,
                                 const Tensor& saved_mean, const Tensor& saved_inv_std, Tensor& dx, Tensor& dgamma,
                                 Tensor& dbeta) = 0;

  virtual void poolForward(PoolKind kind, const PoolGeometry& g, const Tensor& x, Tensor& y) = 0;
  virtual void poolBackward(PoolKind kind, const PoolGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dx) = 0;

  // The run's loss scaling and step log (trainer/numerics/step_state.h) in the backend's memory,
  // starting from `initial`; its log entries and row losses zeroed.
  virtual StepStateMemory allocateStepState(const StepStateLayout& layout, const ScalerState& initial) = 0;
  // A host read: waits for the queued work, then copies the scaler state and `count` log entries
  // from slot `first` on (wrapping around), each with its rows' losses and phase times.
  virtual StepLogRead readStepLog(const StepStateMemory& state, std::int32_t first, std::int32_t count) = 0;
  // Notes when the device reaches this point of the step in `slot` (0 .. kStepPoints - 1): queued
  // like a kernel, it neither launches one nor waits (a CUDA event on the GPU; the host's clock on
  // the CPU, whose ops run as they are called).
  virtual void markStepPoint(StepStateMemory& state, std::int32_t slot, std::int32_t point) = 0;

  // Softmax cross-entropy over logits [batch, classes] (computed in FP32) against labels (class
  // indices held as floats). Writes d(mean loss * scale)/dlogits into dlogits (in its dtype) at
  // the state's scale, and each row's loss and how many rows the argmax got right into the
  // state's current log entry; nothing comes back to the host.
  virtual void softmaxCrossEntropy(const Tensor& logits, const Tensor& labels, StepStateMemory& state,
                                   Tensor& dlogits) = 0;
  // Only the prediction (evaluation): how many rows the argmax got right. A host read.
  virtual std::int64_t countCorrect(const Tensor& logits, const Tensor& labels) = 0;

  // The multi-tensor ops of a step's end (trainer/numerics/multi_tensor.h): one op over all
  // gradients or parameters, whatever their number.
  // dst[i] = src[i] converted to dst[i]'s dtype (FP16 gradients into FP32 master gradients).
  virtual void copyAll(std::span<const Tensor* const> sources, std::span<Tensor* const> destinations) = 0;
  // Multiplies each gradient by 1/scale in place; sets the state's found_inf when any value was
  // Inf or NaN.
  virtual void unscaleGradients(std::span<Tensor* const> gradients, StepStateMemory& state) = 0;
  // Unless the step is skipped: the gradients' global norm (summed in FP64, tensor by tensor, in
  // order) into the current log entry, and, when max_norm > 0 and the norm exceeds it, every
  // gradient scaled down to it (torch.nn.utils.clip_grad_norm_).
  virtual void clipGradients(std::span<Tensor* const> gradients, float max_norm, StepStateMemory& state) = 0;
  // A host read: each gradient's histogram, with underflow judged at the state's scale.
  virtual std::vector<GradientHistogram> gradientHistograms(std::span<const Tensor* const> gradients,
                                                            const StepStateMemory& state) = 0;
  // The optimizer's update of every parameter, masked out when the step is skipped; AdamW counts
  // its step from the state's applied steps.
  virtual void sgdStep(const SgdSettings& s, std::span<const ParameterTensors> parameters,
                       const StepStateMemory& state) = 0;
  virtual void adamWStep(const AdamWSettings& s, std::span<const ParameterTensors> parameters,
                         const StepStateMemory& state) = 0;
  // Captures what `step` queues, without running it, as a graph to replay (the captured step's
  // work too is done only by a replay). What `step` calls must read nothing back; the tensors it
  // makes must be freed before it returns, but for those of the graph's own. Null where the
  // backend cannot capture (the CPU backend: a decorator over it records the ops instead).
  // Throws BackendError when the capture fails; the backend then goes on as before it.
  virtual std::unique_ptr<StepGraph> captureStep(const std::function<void()>& step) = 0;
  // The learning rate the next update uses, into the state: queued, no wait.
  virtual void setLearningRate(StepStateMemory& state, float learning_rate) = 0;
  // The step's end (math::finishStep): its scale and skip into its log entry, the scale updated
  // by the rule, the next slot.
  virtual void finishStep(StepStateMemory& state) = 0;
};

// x in dtype: x itself when it already is, else a converted copy (autocast's cast).
inline Tensor castTensor(Backend& backend, const Tensor& x, DType dtype) {
  if (x.dtype() == dtype) return x;
  Tensor out = backend.allocate(x.shape(), dtype);
  backend.copy(x, out);
  return out;
}

// The CPU reference backend; always available.
std::unique_ptr<Backend> makeCpuBackend();

}  // namespace ampscope::trainer
