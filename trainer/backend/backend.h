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
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "trainer/backend/allocation_observer.h"
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

// NCHW input [n,c,h,w], KCRS filter [k,c,r,s], output [n,k,p,q].
struct ConvGeometry {
  std::int64_t n = 0, c = 0, h = 0, w = 0;
  std::int64_t k = 0, r = 0, s = 0;
  std::int64_t stride = 1, pad = 0;
  std::int64_t p() const { return (h + 2 * pad - r) / stride + 1; }
  std::int64_t q() const { return (w + 2 * pad - s) / stride + 1; }
};

// Pooling over NCHW with a square window.
enum class PoolKind { kMax, kAverage };
struct PoolGeometry {
  std::int64_t n = 0, c = 0, h = 0, w = 0;
  std::int64_t window = 2, stride = 2;
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

struct SgdSettings {
  float lr = 0.01f;
  float momentum = 0.9f;
  float weight_decay = 0.0f;  // coupled (added to the gradient), as torch.optim.SGD
};

struct AdamWSettings {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 0.01f;  // decoupled
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

  // Softmax cross-entropy over logits [batch, classes] (computed in FP32) against labels (class
  // indices held as floats). Writes d(mean loss * loss_scale)/dlogits into dlogits (in its
  // dtype), and returns the mean loss and how many rows the argmax got right.
  struct LossResult {
    double loss = 0.0;
    std::int64_t correct = 0;
  };
  virtual LossResult softmaxCrossEntropy(const Tensor& logits, const Tensor& labels, float loss_scale,
                                         Tensor& dlogits) = 0;
  // Only the prediction (evaluation): how many rows the argmax got right.
  virtual std::int64_t countCorrect(const Tensor& logits, const Tensor& labels) = 0;

  // Multiplies each gradient by inv_scale in place; true when any value is Inf or NaN.
  virtual bool unscaleAndCheck(std::span<Tensor* const> gradients, float inv_scale) = 0;
  virtual double squaredNorm(const Tensor& x) = 0;
  virtual GradientHistogram gradientHistogram(const Tensor& gradient, float scale) = 0;

  virtual void sgdStep(const SgdSettings& s, Tensor& param, const Tensor& grad, Tensor& momentum) = 0;
  virtual void adamWStep(const AdamWSettings& s, std::int64_t step, Tensor& param, const Tensor& grad,
                         Tensor& first_moment, Tensor& second_moment) = 0;
};

// x in dtype: x itself when it already is, else a converted copy (autocast's cast).
Tensor castTensor(Backend& backend, const Tensor& x, DType dtype);

// The CPU reference backend; always available.
std::unique_ptr<Backend> makeCpuBackend();

}  // namespace ampscope::trainer
