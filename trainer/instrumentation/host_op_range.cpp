#include "trainer/instrumentation/host_op_range.h"

#include <array>
#include <string>

#include "trainer/instrumentation/range_marker.h"

namespace ampscope::trainer {

namespace {

constexpr std::array<const char*, static_cast<std::size_t>(HostOp::kCount)> kOpNames = {
    "gemm", "conv2d forward", "conv2d backward data", "conv2d backward filter", "add bias", "bias gradient",
    "activation forward", "activation backward", "batch norm forward", "batch norm backward",
    "layer norm forward", "layer norm backward", "pool forward", "pool backward", "softmax cross entropy",
    "count correct", "unscale gradients", "clip gradients", "gradient histograms", "sgd step", "adamw step",
    "loss scale update", "copy", "copy all", "fill", "scale", "upload", "download",
};
constexpr DType kDtypes[] = {DType::kFp32, DType::kFp16, DType::kBf16};

using HandleTable = std::array<std::array<RangeMarker::Handle, 3>, static_cast<std::size_t>(HostOp::kCount)>;

const HandleTable& handles() {
  static const HandleTable table = [] {
    HandleTable t{};
    for (std::size_t op = 0; op < kOpNames.size(); ++op) {
      for (DType dtype : kDtypes) {
        t[op][static_cast<std::size_t>(dtype)] = RangeMarker::registerText(
            std::string("cpu ") + kOpNames[op] + " " + dtypeName(dtype), RangeDomain::kHostOps);
      }
    }
    return t;
  }();
  return table;
}

}  // namespace

ScopedHostOp::ScopedHostOp(HostOp op, DType dtype) {
  RangeMarker::push(handles()[static_cast<std::size_t>(op)][static_cast<std::size_t>(dtype)]);
}

ScopedHostOp::~ScopedHostOp() { RangeMarker::pop(RangeDomain::kHostOps); }

}  // namespace ampscope::trainer
