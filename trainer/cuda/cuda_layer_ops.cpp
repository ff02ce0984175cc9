// The layers' element-wise, normalisation and pooling ops: argument plumbing from tensors to the
// kernels' launchers; the arithmetic lives in the .cu files and trainer/numerics/.
#include "trainer/cuda/cuda_backend_impl.h"
#include "trainer/cuda/kernels.h"

namespace ampscope::trainer::cuda {

namespace {

PoolShape poolShape(const PoolGeometry& g) {
  return {.n = g.n, .c = g.c, .h = g.h, .w = g.w, .window = g.window, .stride = g.stride, .p = g.p(), .q = g.q(),
          .channels_last = g.layout == MemoryLayout::kChannelsLast};
}

// The leading extent of a tensor viewed as [outer, channels, inner]; 0 for an empty view.
std::int64_t outerOf(const Tensor& t, std::int64_t channels, std::int64_t inner) {
  return channels * inner == 0 ? 0 : t.numel() / (channels * inner);
}

}  // namespace

void CudaBackend::addBias(Tensor& y, const Tensor& bias, std::int64_t channels, std::int64_t inner) {
  launchAddBias(writeView(y), readView(bias), y.numel(), channels, inner, stream());
}

void CudaBackend::biasGradient(const Tensor& dy, Tensor& dbias, std::int64_t channels, std::int64_t inner) {
  launchBiasGradient(readView(dy), writeView(dbias), outerOf(dy, channels, inner), channels, inner, stream());
}

void CudaBackend::activationForward(Activation kind, const Tensor& x, Tensor& y) {
  launchActivationForward(kind, readView(x), writeView(y), x.numel(), stream());
}

void CudaBackend::activationBackward(Activation kind, const Tensor& x, const Tensor& dy, Tensor& dx) {
  launchActivationBackward(kind, readView(x), readView(dy), writeView(dx), x.numel(), stream());
}

void CudaBackend::batchNormForward(const Tensor& x, std::int64_t channels, std::int64_t inner, const Tensor& gamma,
                                   const Tensor& beta, Tensor& running_mean, Tensor& running_var, float momentum,
                                   float eps, bool training, Tensor& y, Tensor& saved_mean, Tensor& saved_inv_std) {
  BatchNormForwardArgs args;
  args.x = readView(x);
  args.outer = outerOf(x, channels, inner);
  args.channels = channels;
  args.inner = inner;
  args.gamma = readView(gamma);
  args.beta = readView(beta);
  args.running_mean = writeView(running_mean);
  args.running_var = writeView(running_var);
  args.momentum = momentum;
  args.eps = eps;
  args.training = training;
  args.y = writeView(y);
  args.saved_mean = writeView(saved_mean);
  args.saved_inv_std = writeView(saved_inv_std);
  launchBatchNormForward(args, stream());
}

void CudaBackend::batchNormBackward(const Tensor& x, const Tensor& dy, std::int64_t channels, std::int64_t inner,
                                    const Tensor& gamma, const Tensor& saved_mean, const Tensor& saved_inv_std,
                                    Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
  BatchNormBackwardArgs args;
  args.x = readView(x);
  args.dy = readView(dy);
  args.outer = outerOf(x, channels, inner);
  args.channels = channels;
  args.inner = inner;
  args.gamma = readView(gamma);
  args.saved_mean = readView(saved_mean);
  args.saved_inv_std = readView(saved_inv_std);
  args.dx = writeView(dx);
  args.dgamma = writeView(dgamma);
  args.dbeta = writeView(dbeta);
  launchBatchNormBackward(args, stream());
}

void CudaBackend::layerNormForward(const Tensor& x, std::int64_t features, const Tensor& gamma, const Tensor& beta,
                                   float eps, Tensor& y, Tensor& saved_mean, Tensor& saved_inv_std) {
  LayerNormForwardArgs args;
  args.x = readView(x);
  args.rows = features == 0 ? 0 : x.numel() / features;
  args.features = features;
  args.gamma = readView(gamma);
  args.beta = readView(beta);
  args.eps = eps;
  args.y = writeView(y);
  args.saved_mean = writeView(saved_mean);
  args.saved_inv_std = writeView(saved_inv_std);
  launchLayerNormForward(args, stream());
}

void CudaBackend::layerNormBackward(const Tensor& x, const Tensor& dy, std::int64_t features, const Tensor& gamma,
                                    const Tensor& saved_mean, const Tensor& saved_inv_std, Tensor& dx, Tensor& dgamma,
                                    Tensor& dbeta) {
  LayerNormBackwardArgs args;
  args.x = readView(x);
  args.dy = readView(dy);
  args.rows = features == 0 ? 0 : x.numel() / features;
  args.features = features;
  args.gamma = readView(gamma);
  args.saved_mean = readView(saved_mean);
  args.saved_inv_std = readView(saved_inv_std);
  args.dx = writeView(dx);
  args.dgamma = writeView(dgamma);
  args.dbeta = writeView(dbeta);
  launchLayerNormBackward(args, stream());
}

void CudaBackend::poolForward(PoolKind kind, const PoolGeometry& g, const Tensor& x, Tensor& y) {
  launchPoolForward(kind == PoolKind::kMax, poolShape(g), readView(x), writeView(y), stream());
}

void CudaBackend::poolBackward(PoolKind kind, const PoolGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dx) {
  launchPoolBackward(kind == PoolKind::kMax, poolShape(g), readView(x), readView(dy), writeView(dx), stream());
}

}  // namespace ampscope::trainer::cuda
