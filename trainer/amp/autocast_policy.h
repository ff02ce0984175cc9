#pragma once
// Which precision each op computes in under autocast, as torch.amp does it: matrix ops run in the
// low precision (they gain most and tolerate it); ops whose range or accumulation suffers
// (softmax, losses, exp/log/pow, sums and means, layer and group norm) run in FP32; the rest,
// batch norm among them (its statistics are FP32 whatever its input), follow their inputs. The lists can be extended by the user (--autocast-allow / --autocast-deny).

#include <set>
#include <string>
#include <string_view>

#include "trainer/numerics/dtype.h"

namespace ampscope::trainer {

enum class CastList { kAllow, kDeny, kFollowInputs };

class AutocastPolicy {
 public:
  AutocastPolicy();

  void allow(std::string op);  // compute op in the low precision
  void deny(std::string op);   // compute op in FP32

  CastList listOf(std::string_view op) const;
  // The dtype op computes in, given autocast's low precision (kFp32: autocast off) and the
  // dtype of its inputs.
  DType computeType(std::string_view op, DType low_precision, DType input) const;

 private:
  std::set<std::string, std::less<>> allow_;
  std::set<std::string, std::less<>> deny_;
};

}  // namespace ampscope::trainer
