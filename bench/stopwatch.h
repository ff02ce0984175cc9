#pragma once
// Wall-clock time of one benchmark phase (steady clock, so NTP steps do not skew it).

#include <chrono>

namespace ampscope::bench {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ampscope::bench
