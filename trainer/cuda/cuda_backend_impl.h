#pragma once
// The CUDA backend's class, for the files that implement it (inside trainer/cuda/ only; the rest
// of the trainer sees cuda_backend.h). The class is split over files by kind of op:
//   cuda_backend.cpp       device, handles, memory, upload/download, fill/copy/scale
//   cuda_gemm.cpp          gemm (cuBLAS)
//   cuda_conv.cpp          convolutions (cuDNN), with conv_plan.* caching descriptors
//   cuda_layer_ops.cpp     bias, activations, normalisation, pooling (our kernels)
//   cuda_step_state.cpp    the step state (loss scaling, step log) in device memory, finishStep
//   cuda_training_ops.cpp  loss, the multi-tensor ops of a step's end, histograms (our kernels)
// All work is queued on one stream; only calls that return host values wait for it, and a steady
// training step returns none (the host reads the step log every few steps).

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <array>
#include <memory>
#include <string>

#include "trainer/backend/allocation_tracker.h"
#include "trainer/backend/backend.h"
#include "trainer/cuda/cuda_check.h"
#include "trainer/cuda/device_buffer.h"
#include "trainer/cuda/device_view.h"

namespace ampscope::trainer::cuda {

class ConvPlanCache;

class CudaBackend final : public Backend {
 public:
  // Takes the given device and starts cuBLAS and cuDNN on it; throws BackendError naming
  // what failed.
  explicit CudaBackend(int device);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  DeviceKind device() const override { return DeviceKind::kCuda; }
  std::string description() const override { return description_; }
  void setTf32(bool enabled) override { tf32_ = enabled; }

  void setAllocationObserver(AllocationObserver* observer) override { tracker_->setObserver(observer); }
  Tensor allocate(const Shape& shape, DType dtype) override;
  void upload(std::span<const float> values, Tensor& dst) override;
  std::vector<float> download(const Tensor& src) override;
  void fill(Tensor& dst, float value) override;
  void copy(const Tensor& src, Tensor& dst) override;
  void scale(Tensor& x, float factor) override;
  void synchronize() override;

  void gemm(const GemmCall& call, const Tensor& a, const Tensor& b, Tensor& c) override;

  void convForward(const ConvGeometry& g, const Tensor& x, const Tensor& filter, Tensor& y) override;
  void convBackwardData(const ConvGeometry& g, const Tensor& dy, const Tensor& filter, Tensor& dx) override;
  void convBackwardFilter(const ConvGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dfilter) override;

  void addBias(Tensor& y, const Tensor& bias, std::int64_t channels, std::int64_t inner) override;
  void biasGradient(const Tensor& dy, Tensor& dbias, std::int64_t channels, std::int64_t inner) override;
  void activationForward(Activation kind, const Tensor& x, Tensor& y) override;
  void activationBackward(Activation kind, const Tensor& x, const Tensor& dy, Tensor& dx) override;

  void batchNormForward(const Tensor& x, std::int64_t channels, std::int64_t inner, const Tensor& gamma,
                        const Tensor& beta, Tensor& running_mean, Tensor& running_var, float momentum, float eps,
                        bool training, Tensor& y, Tensor& saved_mean, Tensor& saved_inv_std) override;
  void batchNormBackward(const Tensor& x, const Tensor& dy, std::int64_t channels, std::int64_t inner,
                         const Tensor& gamma, const Tensor& saved_mean, const Tensor& saved_inv_std, Tensor& dx,
                         Tensor& dgamma, Tensor& dbeta) override;
  void layerNormForward(const Tensor& x, std::int64_t features, const Tensor& gamma, const Tensor& beta, float eps,
                        Tensor& y, Tensor& saved_mean, Tensor& saved_inv_std) override;
  void layerNormBackward(const Tensor& x, const Tensor& dy, std::int64_t features, const Tensor& gamma,
                         const Tensor& saved_mean, const Tensor& saved_inv_std, Tensor& dx, Tensor& dgamma,
                         Tensor& dbeta) override;
  void poolForward(PoolKind kind, const PoolGeometry& g, const Tensor& x, Tensor& y) override;
  void poolBackward(PoolKind kind, const PoolGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dx) override;

  StepStateMemory allocateStepState(const StepStateLayout& layout, const ScalerState& initial) override;
  StepLogRead readStepLog(const StepStateMemory& state, std::int32_t first, std::int32_t count) override;
  void softmaxCrossEntropy(const Tensor& logits, const Tensor& labels, StepStateMemory& state,
                           Tensor& dlogits) override;
  std::int64_t countCorrect(const Tensor& logits, const Tensor& labels) override;

  void copyAll(std::span<const Tensor* const> sources, std::span<Tensor* const> destinations) override;
  void unscaleGradients(std::span<Tensor* const> gradients, StepStateMemory& state) override;
  void clipGradients(std::span<Tensor* const> gradients, float max_norm, StepStateMemory& state) override;
  std::vector<GradientHistogram> gradientHistograms(std::span<const Tensor* const> gradients,
                                                    const StepStateMemory& state) override;
  void sgdStep(const SgdSettings& s, std::span<const ParameterTensors> parameters,
               const StepStateMemory& state) override;
  void adamWStep(const AdamWSettings& s, std::span<const ParameterTensors> parameters,
                 const StepStateMemory& state) override;
  void finishStep(StepStateMemory& state) override;
  void markStepPoint(StepStateMemory& state, std::int32_t slot, std::int32_t point) override;
  void setLearningRate(StepStateMemory& state, float learning_rate) override;
  std::unique_ptr<StepGraph> captureStep(const std::function<void()>& step) override;

 private:
  // A CPU tensor here is a programming error that would otherwise fault on the device.
  static ReadView readView(const Tensor& t);
  static WriteView writeView(Tensor& t);

  cudaStream_t stream() const { return stream_.get(); }
  // Device scratch for the current op; valid until the next op asks for scratch.
  void* scratch(const ScratchLayout& layout) { return scratch_.reserve(layout.bytes(), stream()); }
  // Device memory for a tensor, stream-ordered where the device has memory pools (no wait for
  // the device when it is freed); see allocate().
  void* deviceMemory(std::size_t bytes);
  // Pinned host memory to stage an upload in: the next of kUploadSlots buffers, once the copy
  // out of it, kUploadSlots uploads ago, has finished. The host thus waits for the device only
  // when it is that far ahead; uploadQueued() marks the copy just queued out of it.
  void* uploadStaging(std::size_t bytes);
  void uploadQueued();
  // Pinned host memory a read lands in; reads wait for their copy, so one buffer serves them.
  void* readStaging(std::size_t bytes) { return read_staging_.reserve(std::max<std::size_t>(bytes, 1)); }
  // Copies `bytes` of device memory to `host` (any host memory) and waits for it.
  void fetch(void* host, const void* device, std::size_t bytes);
  // The times of a slot's step points, in ns from its first (-1 where not recorded), and the
  // slot's points forgotten for its next step.
  static std::array<std::int64_t, kStepPoints> pointTimes(const StepStateMemory& state, std::int32_t slot);
  // The view of a step state this backend allocated; another backend's is a programming error.
  static StepStateView deviceState(const StepStateMemory& state);

  int device_ = 0;
  bool tf32_ = false;
  std::string description_;
  // Declared in creation order: members are destroyed in reverse. The stream is shared with every
  // tensor's deleter, which frees its memory in stream order and may run after the backend is gone.
  std::shared_ptr<CUstream_st> stream_;
  // The device's default memory pool, keeping freed memory for the next tensor; null where the
  // device has no memory pools (tensors then use cudaMalloc and cudaFree, which waits).
  cudaMemPool_t pool_ = nullptr;
  struct UploadSlot {
    PinnedBuffer buffer;
    UniqueHandle<cudaEvent_t, &cudaEventDestroy> copied;  // recorded after the copy out of it
  };
  // A step uploads its images, its labels and its learning rate: eight slots let the host run
  // two steps ahead before it waits.
  static constexpr std::size_t kUploadSlots = 8;
  std::array<UploadSlot, kUploadSlots> upload_slots_;
  std::size_t next_upload_ = 0;
  UniqueHandle<cublasHandle_t, &cublasDestroy> cublas_;
  UniqueHandle<cudnnHandle_t, &cudnnDestroy> cudnn_;
  // Device memory the backend holds beyond tensors (scratch, workspace): the "reserved" part of
  // the allocation totals. Shared with the tracker, which tensors may keep after the backend.
  std::shared_ptr<std::atomic<std::int64_t>> buffer_bytes_ = std::make_shared<std::atomic<std::int64_t>>(0);
  // The pool too: what it keeps for reuse counts as reserved.
  std::shared_ptr<std::atomic<cudaMemPool_t>> pool_for_totals_ = std::make_shared<std::atomic<cudaMemPool_t>>(nullptr);
  std::shared_ptr<AllocationTracker> tracker_;
  DeviceBuffer scratch_;
  DeviceBuffer workspace_;  // cuDNN's
  PinnedBuffer read_staging_;
  std::unique_ptr<ConvPlanCache> conv_plans_;
};

}  // namespace ampscope::trainer::cuda
