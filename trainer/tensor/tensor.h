#pragma once
// A dense, row-major tensor whose memory belongs to a backend. On the CPU every dtype is held as
// float values already rounded to the dtype: every FP16/BF16 value is exactly representable in
// FP32, so this is a faithful emulation of low-precision storage while the CPU code needs one
// element type. On the GPU the memory holds the dtype's own bits (half, bfloat16 or float).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trainer/numerics/dtype.h"

namespace ampscope::trainer {

enum class DeviceKind { kCpu, kCuda };
const char* deviceName(DeviceKind device);

using Shape = std::vector<std::int64_t>;
std::int64_t elementCount(const Shape& shape);
std::string shapeText(const Shape& shape);  // "[64,1,28,28]"
std::size_t bytesPerElement(DType dtype, DeviceKind device);

class Tensor {
 public:
  Tensor() = default;
  // memory must hold elementCount(shape) elements of the dtype as the device stores it.
  Tensor(Shape shape, DType dtype, DeviceKind device, std::shared_ptr<void> memory);

  const Shape& shape() const { return shape_; }
  std::int64_t dim(std::size_t axis) const { return shape_.at(axis); }
  std::size_t rank() const { return shape_.size(); }
  std::int64_t numel() const { return numel_; }
  DType dtype() const { return dtype_; }
  DeviceKind device() const { return device_; }
  bool defined() const { return memory_ != nullptr; }

  void* raw() { return memory_.get(); }
  const void* raw() const { return memory_.get(); }
  // CPU tensors only: the float values (already rounded to the dtype).
  float* cpuData() { return static_cast<float*>(memory_.get()); }
  const float* cpuData() const { return static_cast<const float*>(memory_.get()); }

  // The same memory seen with another shape of the same element count (flatten).
  Tensor reshaped(Shape shape) const;

 private:
  Shape shape_;
  std::int64_t numel_ = 0;
  DType dtype_ = DType::kFp32;
  DeviceKind device_ = DeviceKind::kCpu;
  std::shared_ptr<void> memory_;
};

}  // namespace ampscope::trainer
