#pragma once
// The per-element and per-row arithmetic of both backends, written once: activations, the loss,
// normalisation rows, pooling windows, the optimizers' updates and the gradient checks. The CPU
// backend loops over these; the CUDA kernels call them per thread. Inputs arrive as float (read
// from the storage type), results are returned as float and rounded by the caller where they are
// stored, so both backends round at the same points.

#include <cmath>
#include <cstdint>

#include "trainer/numerics/host_device.h"

namespace ampscope::trainer::math {

AMPSCOPE_HD bool isFinite(float x) { return x - x == 0.0f; }  // false for Inf and NaN

AMPSCOPE_HD float reluForward(float x) { return x > 0.0f ? x : 0.0f; }
AMPSCOPE_HD float reluBackward(float x, float dy) { return x > 0.0f ? dy : 0.0f; }

// GELU with the exact erf form (PyTorch's default approximate="none").
AMPSCOPE_HD float geluForward(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }
AMPSCOPE_HD float geluBackward(float x, float dy) {
  const float cdf = 0.5f * (1.0f + erff(x * 0.70710678118654752f));
  const float pdf = 0.39894228040143268f * expf(-0.5f * x * x);
  return dy * (cdf + x * pdf);
}

// Softmax cross-entropy of one row of logits against its label. Writes
// d(loss * scale / batch)/dlogit into grad (when not null) and returns the row's loss.
AMPSCOPE_HD float softmaxCrossEntropyRow(const float* logits, std::int64_t classes, std::int64_t label,
                                         float grad_factor, float* grad) {
  float max_logit = logits[0];
  for (std::int64_t i = 1; i < classes; ++i) max_logit = logits[i] > max_logit ? logits[i] : max_logit;
  float sum = 0.0f;
  for (std::int64_t i = 0; i < classes; ++i) sum += expf(logits[i] - max_logit);
  const float log_sum = logf(sum);
  if (grad != nullptr) {
    for (std::int64_t i = 0; i < classes; ++i) {
      const float p = expf(logits[i] - max_logit - log_sum);
      grad[i] = grad_factor * (p - (i == label ? 1.0f : 0.0f));
    }
  }
  return log_sum - (logits[label] - max_logit);
}

AMPSCOPE_HD std::int64_t argmaxRow(const float* values, std::int64_t count) {
  std::int64_t best = 0;
  for (std::int64_t i = 1; i < count; ++i) best = values[i] > values[best] ? i : best;
  return best;
}

// Where a plane (one image's one channel) of a [n, c, h, w] activation lies: channels first, its
// pixels are consecutive (a row's pitch w, a column's 1); channels last, a pixel's channels are,
// so the plane's pixels lie c apart (a row's pitch w * c).
struct PlanePitch {
  std::int64_t row = 0;
  std::int64_t column = 1;
};

// The activation's element (image, channel, y, x) as an offset, channels first or last.
struct ActivationIndex {
  std::int64_t c = 0, h = 0, w = 0;
  bool channels_last = false;

  AMPSCOPE_HD std::int64_t planeBase(std::int64_t image, std::int64_t channel) const {
    return channels_last ? image * h * w * c + channel : (image * c + channel) * h * w;
  }
  AMPSCOPE_HD PlanePitch pitch() const { return channels_last ? PlanePitch{w * c, c} : PlanePitch{w, 1}; }
  AMPSCOPE_HD std::int64_t at(std::int64_t image, std::int64_t channel, std::int64_t y, std::int64_t x) const {
    const PlanePitch p = pitch();
    return planeBase(image, channel) + y * p.row + x * p.column;
  }
};

// The offset in the plane (row * pitch.row + column * pitch.column) of the largest value in the
// window x window block at (top, left); the first one on ties.
AMPSCOPE_HD std::int64_t poolArgmax(const float* plane, PlanePitch pitch, std::int64_t top, std::int64_t left,
                                    std::int64_t window) {
  std::int64_t best = top * pitch.row + left * pitch.column;
  for (std::int64_t i = 0; i < window; ++i) {
    for (std::int64_t j = 0; j < window; ++j) {
      const std::int64_t at = (top + i) * pitch.row + (left + j) * pitch.column;
      best = plane[at] > plane[best] ? at : best;
    }
  }
  return best;
}

// Max or mean of the window x window block at (top, left).
AMPSCOPE_HD float poolWindow(bool max, const float* plane, PlanePitch pitch, std::int64_t top, std::int64_t left,
                             std::int64_t window) {
  if (max) return plane[poolArgmax(plane, pitch, top, left, window)];
  float sum = 0.0f;
  for (std::int64_t i = 0; i < window; ++i) {
    for (std::int64_t j = 0; j < window; ++j) sum += plane[(top + i) * pitch.row + (left + j) * pitch.column];
  }
  return sum / static_cast<float>(window * window);
}

// dx of a normalisation (batch or layer norm) for one element, given the sums over its group:
// dx = inv_std / count * (count * dy*gamma - sum(dy*gamma) - xhat * sum(dy*gamma*xhat)).
AMPSCOPE_HD float normBackwardElement(float dy_gamma, float xhat, float inv_std, float count, float sum_dy_gamma,
                                      float sum_dy_gamma_xhat) {
  return inv_std / count * (count * dy_gamma - sum_dy_gamma - xhat * sum_dy_gamma_xhat);
}

// SGD with momentum and coupled weight decay, as torch.optim.SGD (dampening 0, no Nesterov):
// buf = momentum * buf + (g + wd * p); p -= lr * buf. Returns the new parameter.
AMPSCOPE_HD float sgdUpdate(float param, float grad, float& momentum_buf, float lr, float momentum, float weight_decay) {
  const float g = grad + weight_decay * param;
  momentum_buf = momentum * momentum_buf + g;
  return param - lr * momentum_buf;
}

// AdamW (decoupled weight decay), as torch.optim.AdamW; step counts from 1.
AMPSCOPE_HD float adamWUpdate(float param, float grad, float& m, float& v, float lr, float beta1, float beta2,
                              float eps, float weight_decay, float bias_correction1, float bias_correction2) {
  param -= lr * weight_decay * param;
  m = beta1 * m + (1.0f - beta1) * grad;
  v = beta2 * v + (1.0f - beta2) * grad * grad;
  const float m_hat = m / bias_correction1;
  const float v_hat = v / bias_correction2;
  return param - lr * m_hat / (sqrtf(v_hat) + eps);
}

// The power-of-two exponent of |g| (|g| in [2^e, 2^(e+1))), for finite non-zero g.
AMPSCOPE_HD int binaryExponent(float g) {
  int exponent = 0;
  frexpf(g, &exponent);  // |g| = m * 2^exponent, m in [0.5, 1)
  return exponent - 1;
}

// FP16's smallest subnormal is 2^-24; anything up to half of it (2^-25, a tie that rounds to the
// even zero) is lost.
AMPSCOPE_HD bool underflowsHalf(float value) { return value != 0.0f && fabsf(value) <= 2.98023223876953125e-8f; }

}  // namespace ampscope::trainer::math
