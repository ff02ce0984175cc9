#include "gui/timeline/timeline_row.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace ampscope::gui {
namespace {

TimelineEvent event(std::int64_t start, std::int64_t end, trace::Index source = 0) {
  TimelineEvent e;
  e.start_ns = start;
  e.end_ns = end;
  e.source = source;
  return e;
}

std::vector<TimelineItem> query(const TimelineRow& row, std::int64_t start, std::int64_t end,
                                double ns_per_px) {
  std::vector<TimelineItem> items;
  row.query(start, end, ns_per_px, items);
  return items;
}

// A row as traces have them: bursts of short kernels, long ones, idle gaps, zero-length markers.
std::vector<TimelineEvent> randomEvents(std::mt19937_64& rng, std::size_t n) {
  std::vector<TimelineEvent> events;
  std::uniform_int_distribution<int> pick(0, 99);
  std::int64_t t = 1'000;
  for (std::size_t i = 0; i < n; ++i) {
    const int p = pick(rng);
    const std::int64_t gap = p < 60 ? p % 3 : p < 90 ? 10 + p * 7 : 5'000 + p * 300;
    const std::int64_t duration = p % 17 == 0 ? 0 : p % 5 == 0 ? 2'000 + p * 50 : 1 + (p * 13) % 40;
    t += gap;
    events.push_back(event(t, t + duration, static_cast<trace::Index>(i)));
    events.back().shade = static_cast<std::uint8_t>(pick(rng) < 80 ? 0 : 1);  // mostly one colour
    t += duration;
  }
  return events;
}

bool visible(const TimelineEvent& e, std::int64_t start, std::int64_t end) {
  if (e.start_ns == e.end_ns) return e.start_ns >= start && e.start_ns < end;
  return e.end_ns > start && e.start_ns < end;
}

// Checks one query against the events it was asked about, item by item.
void expectItemsCoverExactlyTheVisibleEvents(const std::vector<TimelineEvent>& events, std::int64_t start,
                                             std::int64_t end, double ns_per_px) {
  const TimelineRow row(events);
  const std::vector<TimelineItem> items = query(row, start, end, ns_per_px);
  std::vector<std::int32_t> expected;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (visible(events[i], start, end)) expected.push_back(static_cast<std::int32_t>(i));
  }
  std::vector<std::int32_t> covered;
  for (const TimelineItem& item : items) {
    ASSERT_GE(item.count, 1);
    std::int64_t run_end = 0;
    std::int64_t busy = 0;
    std::int32_t longest = item.first;
    for (std::int32_t i = item.first; i < item.first + item.count; ++i) {
      const TimelineEvent& e = events[static_cast<std::size_t>(i)];
      covered.push_back(i);
      run_end = std::max(run_end, e.end_ns);
      busy += e.durationNs();
      if (e.durationNs() > events[static_cast<std::size_t>(longest)].durationNs()) longest = i;
      // An event a pixel wide or more is never hidden inside a run.
      if (item.count > 1) {
        EXPECT_LT(static_cast<double>(e.durationNs()), ns_per_px) << "event " << i;
      }
    }
    EXPECT_EQ(item.start_ns, events[static_cast<std::size_t>(item.first)].start_ns);
    EXPECT_EQ(item.end_ns, run_end);
    EXPECT_EQ(item.dominant, longest);
    EXPECT_EQ(item.busy_ns, busy);
  }
  EXPECT_EQ(covered, expected) << "window [" << start << ", " << end << ") at " << ns_per_px << " ns/px";
  for (const std::int32_t i : expected) {
    if (static_cast<double>(events[static_cast<std::size_t>(i)].durationNs()) < ns_per_px) continue;
    const bool alone = std::any_of(items.begin(), items.end(), [&](const TimelineItem& item) {
      return item.first == i && item.count == 1;
    });
    EXPECT_TRUE(alone) << "wide event " << i << " is not an item of its own";
  }
  // Items never outnumber what the pixels can show: a run and a wide event per column at most.
  const double pixels = static_cast<double>(end - start) / ns_per_px;
  EXPECT_LE(static_cast<double>(items.size()), 2.0 * pixels + 4.0);
}

TEST(TimelineRowTest, EventsAtLeastAPixelWideComeBackOneByOne) {
  const TimelineRow row({event(0, 100), event(100, 300), event(400, 1000)});
  const auto items = query(row, 0, 1000, 10.0);
  ASSERT_EQ(items.size(), 3U);
  for (std::size_t i = 0; i < items.size(); ++i) {
    EXPECT_EQ(items[i].first, static_cast<std::int32_t>(i));
    EXPECT_TRUE(items[i].single());
    EXPECT_EQ(items[i].start_ns, row[i].start_ns);
    EXPECT_EQ(items[i].end_ns, row[i].end_ns);
  }
}

TEST(TimelineRowTest, NarrowNeighboursMergeIntoOneRunWithTheLongestAsItsFace) {
  // Ten 3 ns events 1 ns apart at 100 ns per pixel: one pixel, one item.
  std::vector<TimelineEvent> events;
  for (int i = 0; i < 10; ++i) events.push_back(event(i * 4, i * 4 + (i == 6 ? 4 : 3)));
  const TimelineRow row(events);
  const auto items = query(row, 0, 10'000, 100.0);
  ASSERT_EQ(items.size(), 1U);
  EXPECT_EQ(items[0].count, 10);
  EXPECT_EQ(items[0].start_ns, 0);
  EXPECT_EQ(items[0].end_ns, 39);
  EXPECT_EQ(items[0].dominant, 6);
  EXPECT_EQ(items[0].busy_ns, 31);  // nine events of 3 ns and one of 4
}

TEST(TimelineRowTest, RunsStopAtAGapOfAPixelAndAtAWideEvent) {
  const TimelineRow row({event(0, 2), event(3, 5),         // a run
                         event(300, 302),                   // a gap of 3 px: a new run
                         event(303, 500),                   // wide: alone, ends the run
                         event(500, 501)});                 // narrow after it
  const auto items = query(row, 0, 1000, 100.0);
  ASSERT_EQ(items.size(), 4U);
  EXPECT_EQ(items[0].count, 2);
  EXPECT_EQ(items[1].first, 2);
  EXPECT_EQ(items[1].count, 1);
  EXPECT_EQ(items[2].first, 3);
  EXPECT_TRUE(items[2].single());
  EXPECT_EQ(items[3].first, 4);
}

TEST(TimelineRowTest, EventsCrossingTheWindowEdgesAreKeptAndThoseOutsideAreNot) {
  const TimelineRow row({event(0, 100), event(100, 250), event(900, 1100), event(1100, 1200),
                         event(1200, 1200)});
  const auto items = query(row, 100, 1100, 1.0);
  ASSERT_EQ(items.size(), 2U);
  EXPECT_EQ(items[0].first, 1);  // [0, 100) ends where the window starts: not drawn
  EXPECT_EQ(items[1].first, 2);  // crosses the right edge
  const auto at_end = query(row, 1100, 1200, 1.0);
  ASSERT_EQ(at_end.size(), 1U);  // the zero-length event at 1200 is outside [1100, 1200)
  EXPECT_EQ(at_end[0].first, 3);
  const auto marker = query(row, 1200, 1300, 1.0);
  ASSERT_EQ(marker.size(), 1U);  // a zero-length event at the window's start is inside it
  EXPECT_EQ(marker[0].first, 4);
}

TEST(TimelineRowTest, EveryVisibleEventLiesInExactlyOneItemForRandomRowsAndWindows) {
  std::mt19937_64 rng(7);
  const std::vector<TimelineEvent> events = randomEvents(rng, 5'000);
  const std::int64_t first = events.front().start_ns;
  const std::int64_t last = events.back().end_ns;
  std::uniform_int_distribution<std::int64_t> at(first - 1'000, last + 1'000);
  std::uniform_real_distribution<double> scale(-1.0, 4.0);
  for (int round = 0; round < 200; ++round) {
    std::int64_t a = at(rng);
    std::int64_t b = at(rng);
    if (a == b) continue;
    if (a > b) std::swap(a, b);
    expectItemsCoverExactlyTheVisibleEvents(events, a, b, std::pow(10.0, scale(rng)));
    if (HasFatalFailure() || HasNonfatalFailure()) return;
  }
  expectItemsCoverExactlyTheVisibleEvents(events, first, last, static_cast<double>(last - first) / 1920.0);
}

TEST(TimelineRowTest, AMillionEventsFittedIntoAThousandPixelsGiveAtMostTwoItemsPerPixel) {
  std::vector<TimelineEvent> events;
  events.reserve(1'000'000);
  std::int64_t t = 0;
  for (std::int64_t i = 0; i < 1'000'000; ++i) {
    // 1 µs kernels 1 µs apart, and a 5 ms one every 10,000 events.
    const std::int64_t duration = i % 10'000 == 5'000 ? 5'000'000 : 1'000;
    events.push_back(event(t, t + duration));
    t += duration + 1'000;
  }
  const TimelineRow row(std::move(events));
  const std::int64_t span = row[row.size() - 1].end_ns;
  const auto items = query(row, 0, span, static_cast<double>(span) / 1000.0);
  EXPECT_LE(items.size(), 2'004U);
  std::size_t events_covered = 0;
  std::size_t alone = 0;
  for (const auto& item : items) {
    events_covered += static_cast<std::size_t>(item.count);
    if (item.single() && row[static_cast<std::size_t>(item.first)].durationNs() == 5'000'000) ++alone;
  }
  EXPECT_EQ(events_covered, row.size());
  EXPECT_EQ(alone, 100U);  // every long kernel stands out on its own
}

TEST(TimelineRowTest, FindsTheNextLongEventAndTheLongestInARangeLikeAScanWould) {
  std::mt19937_64 rng(11);
  const std::vector<TimelineEvent> events = randomEvents(rng, 3'000);
  const TimelineRow row(events);
  std::uniform_int_distribution<std::size_t> at(0, events.size());
  for (int round = 0; round < 500; ++round) {
    const std::size_t from = at(rng);
    const std::int64_t min_duration = static_cast<std::int64_t>(at(rng) % 3'000);
    std::size_t expected = from;
    while (expected < events.size() && events[expected].durationNs() < min_duration) ++expected;
    ASSERT_EQ(row.firstAtLeast(from, min_duration), expected) << from << " " << min_duration;

    std::size_t lo = at(rng);
    std::size_t hi = at(rng);
    if (lo > hi) std::swap(lo, hi);
    std::size_t longest = lo;
    for (std::size_t i = lo; i < hi; ++i) {
      if (events[i].durationNs() > events[longest].durationNs()) longest = i;
    }
    ASSERT_EQ(row.longestIn(lo, hi), longest) << lo << " " << hi;
  }
}

TEST(TimelineRowTest, HitTestFindsTheEventUnderTheTimeOrTheNearestWithinTolerance) {
  const TimelineRow row({event(100, 200), event(300, 400), event(1000, 1000)});
  EXPECT_EQ(row.hitTest(150, 0), 0);
  EXPECT_EQ(row.hitTest(100, 0), 0);
  EXPECT_EQ(row.hitTest(201, 0), -1);
  EXPECT_EQ(row.hitTest(210, 20), 0);   // 10 ns after the first, 90 before the second
  EXPECT_EQ(row.hitTest(290, 20), 1);
  EXPECT_EQ(row.hitTest(250, 20), -1);  // nothing within 20 ns
  EXPECT_EQ(row.hitTest(1003, 5), 2);   // a zero-length marker is hit within tolerance
  EXPECT_EQ(row.hitTest(50, 100), 0);
  EXPECT_EQ(TimelineRow().hitTest(0, 1'000), -1);
}

}  // namespace
}  // namespace ampscope::gui
