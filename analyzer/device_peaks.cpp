#include "analyzer/device_peaks.h"

namespace ampscope::analyzer {

DevicePeaks peaksFor(const trace::Device& device) {
  const int cc = device.compute_major * 10 + device.compute_minor;
  // Data-centre parts of each generation; consumer parts of the same compute capability have
  // different absolute rates but similar ratios, which is what the projection uses.
  switch (cc) {
    case 70: case 72: return {"V100 SXM2", 15.7, 0, 125};
    case 75: return {"T4", 8.1, 0, 65};
    case 80: return {"A100 SXM", 19.5, 156, 312};
    case 86: case 87: return {"A10", 31.2, 62.5, 125};
    case 89: return {"L4", 30.3, 60, 121};
    case 90: return {"H100 SXM", 67, 494.7, 989.4};
    case 100: case 103: return {"B200", 80, 1100, 2250};
    default: return {};
  }
}

}  // namespace ampscope::analyzer
