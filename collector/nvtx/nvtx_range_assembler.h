#pragma once
// Turns the NVTX records of each thread's log into ranges: pushes matched with pops per thread
// and domain, starts matched with ends by id across threads, marks as zero-length ranges. Ranges
// in the host-op domain (kHostOpDomain) are the CPU backend's ops: they become host activity
// (a kernel on the CPU device) instead of annotations. What cannot be matched is counted as
// lost, never guessed.

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collector/activity_sink.h"
#include "collector/nvtx/nvtx_record.h"
#include "trace/trace_model.h"

namespace ampscope::collector {

// The NVTX domain whose ranges are ops run on the host (the trainer's CPU backend).
inline constexpr std::string_view kHostOpDomain = "ampscope.host";

class NvtxRangeAssembler {
 public:
  class Output {
   public:
    virtual ~Output() = default;
    virtual void range(const trace::Range& range) = 0;
    virtual void hostOp(std::int64_t start_ns, std::int64_t end_ns, trace::Index thread, trace::StringId name) = 0;
  };

  // domain_name(index) names NVTX domains by the registry's index.
  using DomainName = std::string (*)(std::uint32_t domain);
  NvtxRangeAssembler(ActivitySink& sink, Output& out, DomainName domain_name);

  void add(std::int64_t pid, std::int64_t tid, const NvtxRecord& record, std::string_view text);
  // Counts the ranges still open (the program ended or the recording stopped inside them).
  void finish();

 private:
  struct Open {
    std::int64_t start_ns = 0;
    trace::StringId name = trace::StringTable::kEmpty;
    trace::StringId payload = trace::StringTable::kEmpty;
    std::uint32_t domain = 0;
    std::uint32_t category = 0;
    trace::Index thread = trace::kNone;
  };
  struct DomainInfo {
    trace::StringId name = trace::StringTable::kEmpty;
    bool host_ops = false;
  };

  Open open(trace::Index thread, const NvtxRecord& record, std::string_view text);
  void close(const Open& open, std::int64_t end_ns, trace::RangeKind kind);
  const DomainInfo& domain(std::uint32_t index);
  trace::StringId payloadText(const NvtxRecord& record);

  ActivitySink& sink_;
  Output& out_;
  DomainName domain_name_;
  std::unordered_map<std::uint32_t, DomainInfo> domains_;
  std::unordered_map<const void*, trace::StringId> registered_names_;
  // Push stacks per (thread, domain); open start/end ranges by id.
  std::unordered_map<std::uint64_t, std::vector<Open>> stacks_;
  std::unordered_map<std::uint64_t, Open> started_;
  std::unordered_map<std::uint64_t, std::int64_t> ended_first_;  // range id -> end_ns
};

}  // namespace ampscope::collector
