#pragma once
// When the GPU is busy: the union of kernel, memcpy and memset intervals over all streams and
// devices, for "how much of this host interval had no GPU work behind it" questions.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

class GpuActivity {
 public:
  enum class Work { kKernelsAndCopies, kKernelsOnly };
  // Of every device, or of one (its kernels and copies, whoever queued them: a record with no
  // launch call in the trace, queued before the recording began, kept the device busy too).
  explicit GpuActivity(const trace::Trace& trace, Work work = Work::kKernelsAndCopies,
                       std::optional<std::uint32_t> device = std::nullopt);

  // Nanoseconds of [start_ns, end_ns) during which some GPU work ran.
  std::int64_t busyWithin(std::int64_t start_ns, std::int64_t end_ns) const;
  std::int64_t busyTotal() const;

 private:
  std::vector<std::pair<std::int64_t, std::int64_t>> busy_;  // disjoint, sorted intervals
  std::vector<std::int64_t> busy_before_;                    // prefix sums of their lengths
};

}  // namespace ampscope::analyzer
