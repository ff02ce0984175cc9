#include "analyzer/steps/queued_work.h"

#include <algorithm>
#include <map>
#include <utility>

#include "analyzer/core/sorted_runs.h"
#include "analyzer/steps/host_stalls.h"
#include "base/median.h"

namespace ampscope::analyzer {

namespace {

// Dense indices in key order for keys met in any order: numbered as met, then renumbered once all
// are known, so that an index's order is its key's (reports list queues and streams by key).
template <typename Key>
class SortedIndex {
 public:
  std::uint32_t provisional(const Key& key) {
    // GPU records come in time order, mostly on the queue and stream of the one before.
    if (last_ != nullptr && last_->first == key) return last_->second;
    last_ = &*met_.try_emplace(key, static_cast<std::uint32_t>(met_.size())).first;  // map nodes do not move
    return last_->second;
  }
  // The keys in order; renumber[provisional index] is the final one.
  std::vector<Key> finish(std::vector<std::uint32_t>& renumber) const {
    std::vector<Key> keys;
    keys.reserve(met_.size());
    renumber.assign(met_.size(), 0);
    for (const auto& [key, index] : met_) {
      renumber[index] = static_cast<std::uint32_t>(keys.size());
      keys.push_back(key);
    }
    return keys;
  }

 private:
  std::map<Key, std::uint32_t> met_;
  const std::pair<const Key, std::uint32_t>* last_ = nullptr;
};

// The typical duration of an asynchronous launch call that did not wait: the median over calls
// made while their queue was far from full (those cannot have waited on it). A run whose queue is
// always full has none; then the 5th percentile of all calls, since most of them waited. Either
// way no more than kMaxTypicalLaunchNs.
std::int64_t typicalLaunchCall(const trace::Trace& trace, const std::vector<QueuedItem>& items,
                               const std::vector<std::uint8_t>& waits_for_gpu) {
  std::vector<std::int64_t> shallow;
  std::vector<std::int64_t> all;
  std::vector<std::uint8_t> seen(trace.launches.size(), 0);
  for (const QueuedItem& item : items) {
    const auto index = static_cast<std::size_t>(item.launch);
    if (item.before_call || seen[index] || waits_for_gpu[index]) continue;
    seen[index] = 1;
    const trace::LaunchCall& call = trace.launches[index];
    all.push_back(call.end_ns - call.start_ns);
    if (item.depth_when_asked < kDeepQueueItems) shallow.push_back(all.back());
  }
  std::int64_t typical = 0;
  if (!shallow.empty()) {
    typical = median(std::move(shallow));
  } else if (!all.empty()) {
    const auto at = all.begin() + static_cast<std::ptrdiff_t>(all.size() / 20);
    std::nth_element(all.begin(), at, all.end());
    typical = *at;
  }
  return std::min(typical, kMaxTypicalLaunchNs);
}

}  // namespace

std::int32_t depthBefore(const std::vector<QueuePoint>& points, std::int64_t time_ns) {
  auto at = std::lower_bound(points.begin(), points.end(), time_ns,
                             [](const QueuePoint& p, std::int64_t t) { return p.time_ns < t; });
  return at == points.begin() ? 0 : (at - 1)->depth;
}

QueuedWork::QueuedWork(const trace::Trace& trace) {
  collectItems(trace);
  measureQueueDepths();
  findBlockedCalls(trace);
}

void QueuedWork::collectItems(const trace::Trace& trace) {
  items_.reserve(trace.kernels.size() + trace.memory_ops.size());
  SortedIndex<QueueKey> queues;
  SortedIndex<StreamKey> streams;
  const auto add = [&](const auto& record, std::size_t kernel) {
    if (record.launch == trace::kNone) return;
    const trace::LaunchCall& call = trace.launches[static_cast<std::size_t>(record.launch)];
    // A GPU record that names no process is its launch's thread's.
    const std::int64_t pid = record.pid != trace::kUnknownPid ? record.pid : trace.pidOfThread(call.thread);
    QueuedItem item;
    item.asked_ns = call.start_ns;
    item.start_ns = record.start_ns;
    item.end_ns = record.end_ns;
    item.launch = record.launch;
    item.kernel = kernel;
    item.queue = queues.provisional({pid, record.device});
    item.stream = streams.provisional({pid, record.device, record.stream});
    item.before_call = record.start_ns < call.start_ns;
    items_.push_back(item);
  };
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) add(trace.kernels[i], i);
  for (const trace::MemoryOp& op : trace.memory_ops) add(op, kNotAKernel);
  std::vector<std::uint32_t> queue_number;
  std::vector<std::uint32_t> stream_number;
  queues_ = queues.finish(queue_number);
  streams_ = streams.finish(stream_number);
  for (QueuedItem& item : items_) {
    item.queue = queue_number[item.queue];
    item.stream = stream_number[item.stream];
  }
}

void QueuedWork::measureQueueDepths() {
  // Per queue, when each item was asked for (with the item, to give it the depth it found) and
  // when each started, each sorted on its own (as recorded, each is nearly in order already; the
  // pairs are unique, so any sort gives the same order).
  std::vector<std::vector<std::pair<std::int64_t, std::size_t>>> asked(queues_.size());
  std::vector<std::vector<std::int64_t>> started(queues_.size());
  for (std::size_t i = 0; i < items_.size(); ++i) {
    const QueuedItem& item = items_[i];
    if (item.before_call) continue;
    asked[item.queue].emplace_back(item.asked_ns, i);
    started[item.queue].push_back(item.start_ns);
  }
  depths_.resize(queues_.size());
  std::vector<std::int64_t> asked_times;
  for (std::size_t q = 0; q < queues_.size(); ++q) {
    sortMostlySorted(asked[q]);
    sortMostlySorted(started[q]);
    asked_times.clear();
    for (const auto& [time, item] : asked[q]) asked_times.push_back(time);
    depths_[q] = depthSteps(asked_times, started[q], [&](std::size_t k, std::int32_t depth) {
      items_[asked[q][k].second].depth_when_asked = depth;
    });
  }
}

void QueuedWork::findBlockedCalls(const trace::Trace& trace) {
  blocking_.waits_for_gpu = hostBlockingCalls(trace);
  blocking_.typical_call_ns = typicalLaunchCall(trace, items_, blocking_.waits_for_gpu);
  blocking_.blocked_on_queue.assign(trace.launches.size(), 0);
  const std::int64_t threshold =
      std::max(blocking_.typical_call_ns + kBlockedLaunchExtraNs,
               static_cast<std::int64_t>(kBlockedLaunchFactor * static_cast<double>(blocking_.typical_call_ns)));
  for (const QueuedItem& item : items_) {
    const auto index = static_cast<std::size_t>(item.launch);
    const trace::LaunchCall& call = trace.launches[index];
    if (item.before_call || call.end_ns - call.start_ns <= threshold || blocking_.waits_for_gpu[index]) continue;
    if (item.depth_when_asked >= kDeepQueueItems) blocking_.blocked_on_queue[index] = 1;
  }
}

std::vector<std::vector<QueuePoint>> QueuedWork::streamDepths() const {
  std::vector<std::vector<std::int64_t>> asked(streams_.size());
  std::vector<std::vector<std::int64_t>> started(streams_.size());
  for (const QueuedItem& item : items_) {
    if (item.before_call) continue;
    asked[item.stream].push_back(item.asked_ns);
    started[item.stream].push_back(item.start_ns);
  }
  std::vector<std::vector<QueuePoint>> depths(streams_.size());
  for (std::size_t s = 0; s < streams_.size(); ++s) {
    sortMostlySorted(asked[s]);
    sortMostlySorted(started[s]);
    depths[s] = depthSteps(asked[s], started[s], [](std::size_t, std::int32_t) {});
  }
  return depths;
}

}  // namespace ampscope::analyzer
