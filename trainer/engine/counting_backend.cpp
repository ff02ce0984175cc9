#include "trainer/engine/counting_backend.h"

#include <numeric>

namespace ampscope::trainer {

std::int64_t DeviceDemand::totalLaunches() const {
  return std::accumulate(launches.begin(), launches.end(), std::int64_t{0});
}

DeviceDemand DeviceDemand::operator-(const DeviceDemand& earlier) const {
  DeviceDemand out;
  for (std::size_t i = 0; i < launches.size(); ++i) out.launches[i] = launches[i] - earlier.launches[i];
  out.host_reads = host_reads - earlier.host_reads;
  return out;
}

void CountingBackend::arrive(BackendOp op, std::int64_t launches) {
  counted_.launches[static_cast<std::size_t>(phase_)] += launches;
  if (backendOpInfo(op).demand == OpDemand::kHostRead) ++counted_.host_reads;
}

}  // namespace ampscope::trainer
