#include "trainer/tensor/tensor.h"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ampscope::trainer {

const char* dtypeName(DType dtype) {
  switch (dtype) {
    case DType::kFp16: return "float16";
    case DType::kBf16: return "bfloat16";
    case DType::kFp32: break;
  }
  return "float32";
}

const char* deviceName(DeviceKind device) { return device == DeviceKind::kCuda ? "cuda" : "cpu"; }

std::int64_t elementCount(const Shape& shape) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  return count;
}

std::string shapeText(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ",")); }

std::size_t bytesPerElement(DType dtype, DeviceKind device) {
  if (device == DeviceKind::kCpu || dtype == DType::kFp32) return 4;
  return 2;
}

Tensor::Tensor(Shape shape, DType dtype, DeviceKind device, std::shared_ptr<void> memory)
    : shape_(std::move(shape)), numel_(elementCount(shape_)), dtype_(dtype), device_(device), memory_(std::move(memory)) {}

Tensor Tensor::reshaped(Shape shape) const {
  // A programming error, not bad input: layers know their shapes.
  if (elementCount(shape) != numel_) {
    throw std::logic_error(fmt::format("reshape {} -> {} changes the element count", shapeText(shape_), shapeText(shape)));
  }
  return Tensor(std::move(shape), dtype_, device_, memory_);
}

}  // namespace ampscope::trainer
