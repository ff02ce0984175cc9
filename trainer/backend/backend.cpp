#include "trainer/backend/backend.h"

namespace ampscope::trainer {

Tensor castTensor(Backend& backend, const Tensor& x, DType dtype) {
  if (x.dtype() == dtype) return x;
  Tensor out = backend.allocate(x.shape(), dtype);
  backend.copy(x, out);
  return out;
}

}  // namespace ampscope::trainer
