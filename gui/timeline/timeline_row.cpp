#include "gui/timeline/timeline_row.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "gui/timeline/block_levels.h"

namespace ampscope::gui {
namespace {

// Blocks of the max-duration levels: small enough that a block is scanned quickly, large enough
// that the levels stay a fraction of the events' memory.
constexpr std::size_t kBranching = 8;

}  // namespace

TimelineRow::TimelineRow(std::vector<TimelineEvent> events) : events_(std::move(events)) {
  for (std::size_t level = 0; levelSize(level) > kBranching; ++level) {
    const std::size_t below = levelSize(level);
    std::vector<Block> blocks((below + kBranching - 1) / kBranching);
    for (std::size_t block = 0; block < blocks.size(); ++block) {
      const std::size_t begin = block * kBranching;
      const std::size_t end = std::min(begin + kBranching, below);
      std::size_t best = begin;
      for (std::size_t i = begin + 1; i < end; ++i) {
        if (durationAt(level, i) > durationAt(level, best)) best = i;
      }
      blocks[block] = {durationAt(level, best), static_cast<std::int32_t>(eventAt(level, best))};
    }
    levels_.push_back(std::move(blocks));
  }
  block_starts_.resize((events_.size() + kBranching - 1) / kBranching);
  block_busy_before_.resize(block_starts_.size());
  std::int64_t busy = 0;
  for (std::size_t i = 0; i < events_.size(); ++i) {
    if (i % kBranching == 0) {
      block_starts_[i / kBranching] = events_[i].start_ns;
      block_busy_before_[i / kBranching] = busy;
    }
    busy += events_[i].durationNs();
  }
}

std::int64_t TimelineRow::busyBefore(std::size_t index) const {
  if (index == 0) return 0;
  const std::size_t block = (index - 1) / kBranching;
  std::int64_t busy = block_busy_before_[block];
  for (std::size_t i = block * kBranching; i < index; ++i) busy += events_[i].durationNs();
  return busy;
}

std::int64_t TimelineRow::busyIn(std::size_t first, std::size_t last) const {
  return last <= first ? 0 : busyBefore(last) - busyBefore(first);
}

std::size_t TimelineRow::firstStartingAt(std::size_t from, std::size_t to, std::int64_t time_ns) const {
  // Finish from's block event by event (its events share a few cache lines)...
  std::size_t i = from;
  const std::size_t block_end = std::min(to, (from / kBranching + 1) * kBranching);
  while (i < block_end && events_[i].start_ns < time_ns) ++i;
  if (i < block_end || i >= to) return i;
  // ...then gallop over the compact block starts, which is where the cache misses would be.
  const std::size_t block = i / kBranching;  // events_[i] is its first event
  const std::size_t last_block = (to - 1) / kBranching + 1;
  if (block_starts_[block] >= time_ns) return i;
  std::size_t done = 0;
  std::size_t step = 1;
  while (block + done + step < last_block && block_starts_[block + done + step] < time_ns) {
    done += step;
    step *= 2;
  }
  const auto first = block_starts_.begin() + static_cast<std::ptrdiff_t>(block + done + 1);
  const auto last = block_starts_.begin() + static_cast<std::ptrdiff_t>(std::min(block + done + step, last_block));
  const auto found = static_cast<std::size_t>(
      std::partition_point(first, last, [time_ns](std::int64_t start) { return start < time_ns; }) -
      block_starts_.begin());
  // The block before the first one starting at or after time_ns holds the answer, or it is next.
  i = (found - 1) * kBranching + 1;
  const std::size_t end = std::min(to, found * kBranching);
  while (i < end && events_[i].start_ns < time_ns) ++i;
  return i;
}

std::size_t TimelineRow::firstAtLeast(std::size_t from, std::int64_t min_duration_ns) const {
  const std::size_t n = events_.size();
  if (from >= n) return n;
  const std::size_t top = levels_.size();
  std::size_t level = 0;
  std::size_t i = from;
  // Climb: finish the current block at each level, then continue with the block above it.
  for (;;) {
    const std::size_t size = levelSize(level);
    if (level == top) {
      while (i < size && durationAt(level, i) < min_duration_ns) ++i;
      if (i == size) return n;
      break;
    }
    bool found = false;
    do {
      if (durationAt(level, i) >= min_duration_ns) {
        found = true;
        break;
      }
      ++i;
    } while (i < size && i % kBranching != 0);
    if (found) break;
    if (i >= size) return n;
    i /= kBranching;
    ++level;
  }
  // Descend: block i holds a long enough event; its first such child is the leftmost.
  while (level > 0) {
    --level;
    i *= kBranching;
    while (durationAt(level, i) < min_duration_ns) ++i;
  }
  return i;
}

std::size_t TimelineRow::longestIn(std::size_t first, std::size_t last) const {
  if (first >= last) return first;
  std::size_t best = first;
  std::int64_t best_duration = events_[first].durationNs();
  // A block's duration is stored with it: only a new best is looked up among the events.
  const auto consider = [&](std::size_t level, std::size_t i) {
    const std::int64_t duration = durationAt(level, i);
    if (duration < best_duration) return;
    const std::size_t candidate = eventAt(level, i);
    if (duration > best_duration || candidate < best) {
      best = candidate;
      best_duration = duration;
    }
  };
  visitBlockCover(first, last, levels_.size(), kBranching, consider);
  return best;
}

void TimelineRow::query(std::int64_t start_ns, std::int64_t end_ns, double ns_per_px,
                        std::vector<TimelineItem>& out) const {
  if (events_.empty() || end_ns <= start_ns || !(ns_per_px > 0.0)) return;
  // Ends are sorted too (events do not overlap), so "entirely before the window" is a prefix; a
  // zero-length event exactly at start_ns is inside.
  const auto before = [start_ns](const TimelineEvent& e) {
    return e.end_ns < start_ns || (e.end_ns == start_ns && e.start_ns < start_ns);
  };
  const std::size_t n = events_.size();
  std::size_t i = static_cast<std::size_t>(
      std::partition_point(events_.begin(), events_.end(), before) - events_.begin());
  // Durations are whole nanoseconds: at least ns_per_px long means at least its ceiling.
  const auto wide_ns = static_cast<std::int64_t>(std::ceil(ns_per_px));
  const auto sameColor = [this](std::size_t a, std::size_t b) {
    return events_[a].style == events_[b].style && events_[a].shade == events_[b].shade;
  };
  // Short ranges are cheaper to scan than to look up in the levels.
  const auto longest = [this](std::size_t first, std::size_t last) {
    if (last - first > 2 * kBranching) return longestIn(first, last);
    std::size_t best = first;
    for (std::size_t k = first + 1; k < last; ++k) {
      if (events_[k].durationNs() > events_[best].durationNs()) best = k;
    }
    return best;
  };
  std::size_t next_wide = i;  // the first wide event at or after i, once looked up

  while (i < n && events_[i].start_ns < end_ns) {
    const TimelineEvent& event = events_[i];
    const auto index = static_cast<std::int32_t>(i);
    if (event.durationNs() >= wide_ns) {
      out.push_back({event.start_ns, event.end_ns, index, 1, index, event.durationNs()});
      ++i;
      continue;
    }
    // A run of narrow events; it ends before the next wide event, which is drawn on its own.
    if (next_wide <= i) next_wide = firstAtLeast(i, wide_ns);
    // The run grows a pixel column at a time: the events that start before the end of the column
    // where it ends so far join it, found by one search, so the cost is per column, not per event.
    TimelineItem segment{event.start_ns, event.end_ns, index, 0, index};
    std::int64_t run_end = event.end_ns;
    std::size_t j = i;
    while (j < next_wide) {
      const double column = std::floor(static_cast<double>(run_end - start_ns) / ns_per_px);
      const auto boundary = std::min(
          end_ns, start_ns + static_cast<std::int64_t>(std::ceil((column + 1.0) * ns_per_px)));
      const std::size_t next = j == i ? firstStartingAt(i + 1, next_wide, boundary)
                                      : firstStartingAt(j, next_wide, boundary);
      if (next == j) break;
      const std::size_t group_longest = longest(j, next);
      const auto dominant = static_cast<std::size_t>(segment.dominant);
      if (segment.count > 0 && !sameColor(group_longest, dominant)) {
        segment.busy_ns = busyIn(static_cast<std::size_t>(segment.first), j);
        out.push_back(segment);
        segment = {events_[j].start_ns, events_[j].end_ns, static_cast<std::int32_t>(j), 0,
                   static_cast<std::int32_t>(group_longest)};
      } else if (segment.count == 0 || events_[group_longest].durationNs() > events_[dominant].durationNs()) {
        segment.dominant = static_cast<std::int32_t>(group_longest);
      }
      segment.count += static_cast<std::int32_t>(next - j);
      run_end = std::max(run_end, events_[next - 1].end_ns);
      segment.end_ns = std::max(segment.end_ns, run_end);
      j = next;
    }
    segment.busy_ns = busyIn(static_cast<std::size_t>(segment.first), j);
    out.push_back(segment);
    i = j;
  }
}

std::int32_t TimelineRow::hitTest(std::int64_t time_ns, std::int64_t tolerance_ns) const {
  // The last event starting at or before time_ns is the only one that can contain it, and the
  // one after it the only one that can start closer.
  const auto after = std::upper_bound(
      events_.begin(), events_.end(), time_ns,
      [](std::int64_t t, const TimelineEvent& e) { return t < e.start_ns; });
  const auto next = static_cast<std::int64_t>(after - events_.begin());
  std::int32_t best = -1;
  std::int64_t best_distance = tolerance_ns + 1;
  if (next > 0) {
    const TimelineEvent& event = events_[static_cast<std::size_t>(next - 1)];
    if (time_ns < event.end_ns) return static_cast<std::int32_t>(next - 1);
    const std::int64_t distance = time_ns - event.end_ns;
    if (distance <= tolerance_ns) {
      best = static_cast<std::int32_t>(next - 1);
      best_distance = distance;
    }
  }
  if (static_cast<std::size_t>(next) < events_.size()) {
    const std::int64_t distance = events_[static_cast<std::size_t>(next)].start_ns - time_ns;
    if (distance <= tolerance_ns && distance < best_distance) best = static_cast<std::int32_t>(next);
  }
  return best;
}

std::size_t TimelineRow::memoryBytes() const {
  std::size_t bytes = events_.capacity() * sizeof(TimelineEvent);
  for (const auto& level : levels_) bytes += level.capacity() * sizeof(Block);
  bytes += (block_starts_.capacity() + block_busy_before_.capacity()) * sizeof(std::int64_t);
  return bytes;
}

}  // namespace ampscope::gui
