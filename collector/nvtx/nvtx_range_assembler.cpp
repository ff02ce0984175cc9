#include "collector/nvtx/nvtx_range_assembler.h"

#include <cstring>
#include <string>

#include <fmt/format.h>

#include "collector/nvtx/nvtx_registry.h"

namespace ampscope::collector {

namespace {

template <typename T>
T payloadAs(std::uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

std::uint64_t stackKey(trace::Index thread, std::uint32_t domain) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(thread)) << 32) | domain;
}

}  // namespace

NvtxRangeAssembler::NvtxRangeAssembler(ActivitySink& sink, Output& out, DomainName domain_name)
    : sink_(sink), out_(out), domain_name_(domain_name) {}

const NvtxRangeAssembler::DomainInfo& NvtxRangeAssembler::domain(std::uint32_t index) {
  auto [found, inserted] = domains_.try_emplace(index);
  if (inserted) {
    const std::string name = domain_name_(index);
    found->second.name = sink_.intern(name);
    found->second.host_ops = name == kHostOpDomain;
  }
  return found->second;
}

trace::StringId NvtxRangeAssembler::payloadText(const NvtxRecord& record) {
  // Numbers in their shortest exact decimal form, so the stored text reads back to the value.
  switch (record.payload_type) {
    case NvtxPayloadType::kNone: return trace::StringTable::kEmpty;
    case NvtxPayloadType::kUint64: return sink_.intern(fmt::format("{}", record.payload_bits));
    case NvtxPayloadType::kInt64: return sink_.intern(fmt::format("{}", payloadAs<std::int64_t>(record.payload_bits)));
    case NvtxPayloadType::kDouble: return sink_.intern(fmt::format("{}", payloadAs<double>(record.payload_bits)));
    case NvtxPayloadType::kUint32: return sink_.intern(fmt::format("{}", payloadAs<std::uint32_t>(record.payload_bits)));
    case NvtxPayloadType::kInt32: return sink_.intern(fmt::format("{}", payloadAs<std::int32_t>(record.payload_bits)));
    case NvtxPayloadType::kFloat: return sink_.intern(fmt::format("{}", payloadAs<float>(record.payload_bits)));
  }
  return trace::StringTable::kEmpty;
}

NvtxRangeAssembler::Open NvtxRangeAssembler::open(trace::Index thread, const NvtxRecord& record, std::string_view text) {
  Open opened;
  opened.start_ns = record.time_ns;
  opened.thread = thread;
  opened.domain = record.domain;
  opened.category = record.category;
  opened.payload = payloadText(record);
  if (record.registered != nullptr) {
    auto [found, inserted] = registered_names_.try_emplace(record.registered);
    if (inserted) found->second = sink_.intern(record.registered->text);
    opened.name = found->second;
  } else {
    opened.name = sink_.intern(text);
  }
  return opened;
}

void NvtxRangeAssembler::close(const Open& opened, std::int64_t end_ns, trace::RangeKind kind) {
  const DomainInfo& info = domain(opened.domain);
  if (info.host_ops) {
    out_.hostOp(opened.start_ns, end_ns, opened.thread, opened.name);
    return;
  }
  trace::Range range;
  range.start_ns = opened.start_ns;
  range.end_ns = end_ns;
  range.name = opened.name;
  range.thread = opened.thread;
  range.kind = kind;
  range.domain = info.name;
  range.category = opened.category;
  range.payload = opened.payload;
  out_.range(range);
}

void NvtxRangeAssembler::add(std::int64_t pid, std::int64_t tid, const NvtxRecord& record, std::string_view text) {
  const trace::Index thread = sink_.thread(pid, tid);
  switch (record.kind) {
    case NvtxRecordKind::kPush:
      stacks_[stackKey(thread, record.domain)].push_back(open(thread, record, text));
      return;
    case NvtxRecordKind::kPop: {
      auto found = stacks_.find(stackKey(thread, record.domain));
      if (found == stacks_.end() || found->second.empty()) {
        sink_.lost("NVTX pops without a matching push", 1);
        return;
      }
      const Open opened = found->second.back();
      found->second.pop_back();
      close(opened, record.time_ns, trace::RangeKind::kAnnotation);
      return;
    }
    case NvtxRecordKind::kStart: {
      // Logs are drained thread by thread, so an end on another thread may come first.
      const Open opened = open(thread, record, text);
      if (auto ended = ended_first_.find(record.range_id); ended != ended_first_.end()) {
        close(opened, ended->second, trace::RangeKind::kAnnotation);
        ended_first_.erase(ended);
      } else {
        started_[record.range_id] = opened;
      }
      return;
    }
    case NvtxRecordKind::kEnd: {
      auto found = started_.find(record.range_id);
      if (found == started_.end()) {
        ended_first_[record.range_id] = record.time_ns;
        return;
      }
      close(found->second, record.time_ns, trace::RangeKind::kAnnotation);
      started_.erase(found);
      return;
    }
    case NvtxRecordKind::kMark:
      close(open(thread, record, text), record.time_ns, trace::RangeKind::kAnnotation);
      return;
    case NvtxRecordKind::kGap: {
      // Records of this thread were dropped: which pushes their pops closed is unknown, so the
      // ranges open on it are given up rather than closed by the wrong pop.
      std::uint64_t cut = 0;
      for (auto& [key, stack] : stacks_) {
        if (static_cast<trace::Index>(key >> 32) != thread) continue;
        cut += stack.size();
        stack.clear();
      }
      sink_.lost("NVTX ranges cut short by records dropped for want of memory", cut);
      return;
    }
  }
}

void NvtxRangeAssembler::finish() {
  std::uint64_t still_open = started_.size();
  for (const auto& [key, stack] : stacks_) still_open += stack.size();
  if (still_open > 0) sink_.lost("NVTX ranges still open when the recording ended", still_open);
  if (!ended_first_.empty()) sink_.lost("NVTX range ends without a matching start", ended_first_.size());
  stacks_.clear();
  started_.clear();
  ended_first_.clear();
}

}  // namespace ampscope::collector
