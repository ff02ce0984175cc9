#pragma once
// The small tables an event parser keeps from batch to batch: the string ids of shape and dtype
// texts it compacted, and the counts of events it skipped or did not understand. Included by
// kineto_event_parser.cpp alone.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

#include "analyzer/import/kineto/kineto_values.h"
#include "trace/string_table.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {
namespace {

// Hashes a string map's keys and the views it is searched with alike, so that a lookup by
// view builds no std::string.
struct ViewHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

// The string id of a JSON array's compacted text (compactJson), looked up by its text as written:
// an operator's shapes and dtypes repeat from step to step, so most are found without compacting
// and hashing them again. Holds at most kMaxTexts texts, so a file of ever-new texts costs no
// more than a bounded copy of some of them.
class CompactTextIds {
 public:
  trace::StringId intern(std::string_view written, trace::StringTable& strings) {
    if (const auto found = ids_.find(written); found != ids_.end()) return found->second;
    const trace::StringId id = strings.intern(compactJson(written, scratch_));
    if (ids_.size() < kMaxTexts) ids_.emplace(std::string(written), id);
    return id;
  }

 private:
  static constexpr std::size_t kMaxTexts = 1 << 16;
  std::unordered_map<std::string, trace::StringId, ViewHash, std::equal_to<>> ids_;
  std::string scratch_;
};

// How many events a batch skipped or did not understand, by reason, and where each reason was
// first met. Skipped events (flow, instant and metadata events) are some 40 % of a Kineto file:
// each adds to a counter found by hashing its reason rather than by walking the stats' ordered
// map, and the counts join the stats once per batch.
class ReasonCounts {
 public:
  void add(std::string_view reason) { add(reason, [] { return std::string(); }); }
  // place() is asked only when the batch meets the reason for the first time.
  template <typename Place>
  void add(std::string_view reason, const Place& place) {
    const auto found = counts_.find(reason);
    if (found != counts_.end()) ++found->second.count;
    else counts_.emplace(std::string(reason), Count{1, place()});
  }
  void moveCountsInto(std::map<std::string, std::uint64_t>& stats) {
    for (const auto& [reason, count] : counts_) stats[reason] += count.count;
    counts_.clear();
  }
  void moveNotUnderstoodInto(trace::ImportStats& stats) {
    for (auto& [reason, count] : counts_) {
      stats.not_understood[reason] += count.count;
      if (!count.place.empty()) stats.first_place.try_emplace(reason, std::move(count.place));
    }
    counts_.clear();
  }

 private:
  struct Count {
    std::uint64_t count = 0;
    std::string place;
  };
  std::unordered_map<std::string, Count, ViewHash, std::equal_to<>> counts_;
};

}  // namespace
}  // namespace ampscope::analyzer::import
