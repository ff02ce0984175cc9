#pragma once
// NVTX ranges in the "ampscope" domain: steps, phases, layer ops and data work, readable by
// ampscope's collector and by Nsight Systems alike. Texts are registered with NVTX once and then
// pushed by handle, so a range costs an indirect call when no tool is attached (NVTX3 then
// points its entry points at no-ops) and no string work on the hot path. Built without the
// NVTX3 headers, every call is empty. The text format is in docs/trainer_ranges.md.

#include <string>
#include <string_view>

namespace ampscope::trainer {

// The trainer's own ranges are in domain "ampscope"; the CPU backend's ops in "ampscope.host",
// which the collector records as host activity rather than as annotations.
enum class RangeDomain { kTrainer, kHostOps };

class RangeMarker {
 public:
  // Registered text: push(handle) is the cheap path for texts that repeat every step.
  using Handle = const void*;
  static Handle registerText(const std::string& text, RangeDomain domain = RangeDomain::kTrainer);
  static void push(Handle text);
  static void push(const std::string& text);  // for texts used once (step numbers), domain "ampscope"
  static void pop(RangeDomain domain = RangeDomain::kTrainer);
  static bool compiledIn();
};

// Pushes on construction, pops on destruction.
class ScopedRange {
 public:
  explicit ScopedRange(RangeMarker::Handle text) { RangeMarker::push(text); }
  explicit ScopedRange(const std::string& text) { RangeMarker::push(text); }
  ~ScopedRange() { RangeMarker::pop(); }
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;
};

}  // namespace ampscope::trainer
