#include "analyzer/job/job_analysis.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analyzer/core/rule_ids.h"
#include "analyzer/job/job_findings.h"
#include "base/median.h"

namespace ampscope::analyzer {

namespace {

std::string ms(std::int64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }

// Collectives every rank of their group joins: what late arrivals are measured at. Send/recv
// pairs two ranks, unless every rank ran the same sends and receives and they all ended together:
// the all-to-all NCCL builds from grouped send/recv (measureWaits checks that per call).
bool isGroupCollective(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce: return true;
    case CollectiveKind::kSendRecv:
    case CollectiveKind::kOther: break;
  }
  return false;
}

// The collectives clocks are aligned on: they end on all their ranks together (broadcast and
// reduce end at the root before the others; send/recv may pair two ranks).
bool alignsClocks(CollectiveKind kind) {
  return isGroupCollective(kind) && kind != CollectiveKind::kBroadcast && kind != CollectiveKind::kReduce;
}

trace::Status numberRanks(std::vector<RankResult>& ranks) {
  std::map<std::int32_t, const RankResult*> taken;
  for (const RankResult& r : ranks) {
    if (r.rank < 0) continue;
    auto [at, fresh] = taken.emplace(r.rank, &r);
    if (!fresh) {
      return trace::Error{fmt::format("{} and {} both say they are rank {}: give each rank's trace once",
                                      at->second->source, r.source, r.rank)};
    }
  }
  std::int32_t next = 0;
  for (RankResult& r : ranks) {
    if (r.rank >= 0) continue;
    while (taken.contains(next)) ++next;
    r.rank = next;
    taken.emplace(next, &r);
  }
  std::stable_sort(ranks.begin(), ranks.end(), [](const RankResult& a, const RankResult& b) { return a.rank < b.rank; });
  return {};
}

// One collective series: the calls of one kind in one process group (by its recorded name; ""
// where the trace does not name groups), on every rank that ran any. The i-th call of each
// participant is one collective where they all ran the same number; a series whose counts differ
// (other groups not named, traces of different windows) is not matched.
struct CollectiveSeries {
  std::vector<std::size_t> ranks;                          // participants, indices into the job's ranks
  std::vector<std::vector<const CollectiveCall*>> calls;   // [participant][i]
};
using SeriesKey = std::pair<CollectiveKind, std::string>;  // kind, process group

std::map<SeriesKey, CollectiveSeries> matchCollectives(const std::vector<RankResult>& ranks) {
  std::map<SeriesKey, std::map<std::size_t, std::vector<const CollectiveCall*>>> by_key;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    for (const CollectiveCall& c : ranks[r].calls) {
      if (c.kind != CollectiveKind::kOther) by_key[{c.kind, c.group}][r].push_back(&c);
    }
  }
  std::map<SeriesKey, CollectiveSeries> out;
  for (auto& [key, per_rank] : by_key) {
    if (per_rank.size() < 2) continue;  // nothing to match a rank's calls with
    const std::size_t count = per_rank.begin()->second.size();
    if (!std::all_of(per_rank.begin(), per_rank.end(), [&](const auto& entry) { return entry.second.size() == count; })) {
      continue;
    }
    CollectiveSeries series;
    for (auto& [rank, calls] : per_rank) {
      series.ranks.push_back(rank);
      series.calls.push_back(std::move(calls));
    }
    out.emplace(key, std::move(series));
  }
  return out;
}

struct Offset {
  std::int64_t offset_ns = 0;
  bool consistent = false;
};

// Per rank: the shift that makes its collectives end with the reference rank's (index 0), the
// median over the collectives both ran that end together; consistent when the collectives agree
// on it within kClockToleranceNs. nullopt for a rank that shares no such collective with it.
std::vector<std::optional<Offset>> collectiveOffsets(const std::map<SeriesKey, CollectiveSeries>& matched,
                                                     std::size_t ranks) {
  std::vector<std::vector<std::int64_t>> differences(ranks);
  for (const auto& [key, series] : matched) {
    if (!alignsClocks(key.first) || series.ranks.front() != 0) continue;  // participants are sorted
    const auto& reference = series.calls.front();
    for (std::size_t p = 1; p < series.ranks.size(); ++p) {
      for (std::size_t i = 0; i < reference.size(); ++i) {
        differences[series.ranks[p]].push_back(reference[i]->end_ns - series.calls[p][i]->end_ns);
      }
    }
  }
  std::vector<std::optional<Offset>> out(ranks);
  for (std::size_t r = 1; r < ranks; ++r) {
    if (differences[r].empty()) continue;
    const std::int64_t mid = median(differences[r]);
    std::vector<std::int64_t> deviations;
    for (std::int64_t d : differences[r]) deviations.push_back(std::abs(d - mid));
    out[r] = Offset{mid, median(deviations) <= kClockToleranceNs};
  }
  return out;
}

std::set<std::int64_t> commonStepNumbers(const std::vector<RankResult>& ranks) {
  std::set<std::int64_t> common;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    std::set<std::int64_t> numbers;
    for (const StepSplit& s : ranks[i].steps) numbers.insert(s.number);
    if (i == 0) {
      common = std::move(numbers);
    } else {
      std::set<std::int64_t> both;
      std::set_intersection(common.begin(), common.end(), numbers.begin(), numbers.end(),
                            std::inserter(both, both.begin()));
      common = std::move(both);
    }
  }
  return common;
}

void alignClocks(const std::vector<RankResult>& ranks, const std::map<SeriesKey, CollectiveSeries>& matched,
                 const std::set<std::int64_t>& common_steps, JobAnalysis& job) {
  const std::vector<std::optional<Offset>> offsets = collectiveOffsets(matched, ranks.size());
  const auto firstCommonStart = [&](const RankResult& r) -> std::optional<std::int64_t> {
    for (const StepSplit& s : r.steps) {
      if (common_steps.contains(s.number)) return s.start_ns;
    }
    return std::nullopt;
  };
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    RankRow& row = job.ranks[i];
    const bool same_clock = ranks[i].clock == ranks[0].clock;
    const std::optional<Offset>& offset = offsets[i];
    if (offset && offset->consistent && (!same_clock || std::abs(offset->offset_ns) > kClockToleranceNs)) {
      row.alignment = ClockAlignment::kCollectives;
      row.clock_offset_ns = offset->offset_ns;
      continue;
    }
    if (same_clock) continue;  // kRecordedClock
    const auto reference_start = firstCommonStart(ranks[0]);
    const auto own_start = firstCommonStart(ranks[i]);
    if (reference_start && own_start) {
      row.alignment = ClockAlignment::kStepStarts;
      row.clock_offset_ns = *reference_start - *own_start;
    } else {
      row.alignment = ClockAlignment::kNone;
    }
  }
  const auto count = [&](ClockAlignment a) {
    return std::count_if(job.ranks.begin(), job.ranks.end(), [&](const RankRow& r) { return r.alignment == a; });
  };
  if (count(ClockAlignment::kStepStarts) > 0) {
    job.notes.push_back(fmt::format("{} rank(s) recorded on another clock with no collectives to match were aligned on "
                                    "their first common step's start: their step starts are not measured against the others",
                                    count(ClockAlignment::kStepStarts)));
  }
  if (count(ClockAlignment::kNone) > 0) {
    job.notes.push_back(fmt::format("{} rank(s) recorded on another clock share no collective or step number with "
                                    "rank {}: they stay on their own clock, and waits at collectives are unknown",
                                    count(ClockAlignment::kNone), job.ranks.front().rank));
  }
}

// The steady steps a rank's means cover: its steady steps that every rank ran, or, where the
// ranks share no step number, its own steady steps.
std::vector<const StepSplit*> steadySteps(const RankResult& r, const std::set<std::int64_t>& common) {
  std::vector<const StepSplit*> out;
  for (const StepSplit& s : r.steps) {
    if (!s.warmup && (common.empty() || common.contains(s.number))) out.push_back(&s);
  }
  // Results read back by merge may list them in any order; inSteps searches them by start.
  std::stable_sort(out.begin(), out.end(), [](const StepSplit* a, const StepSplit* b) { return a->start_ns < b->start_ns; });
  return out;
}

// Whether time_ns falls in one of steps (in time order, not overlapping): a binary search, as a
// job has a collective call for every kernel of every rank.
bool inSteps(const std::vector<const StepSplit*>& steps, std::int64_t time_ns) {
  const auto after = std::upper_bound(steps.begin(), steps.end(), time_ns,
                                      [](std::int64_t t, const StepSplit* s) { return t < s->start_ns; });
  return after != steps.begin() && time_ns < (*std::prev(after))->end_ns;
}

// Whether the i-th calls of a series ended on all its aligned participants within
// kClockToleranceNs of each other.
bool endTogether(const CollectiveSeries& series, std::size_t i, const JobAnalysis& job) {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  for (std::size_t p = 0; p < series.ranks.size(); ++p) {
    const RankRow& row = job.ranks[series.ranks[p]];
    if (row.alignment == ClockAlignment::kNone) continue;
    const std::int64_t end = series.calls[p][i]->end_ns + row.clock_offset_ns;
    first = std::min(first, end);
    last = std::max(last, end);
  }
  return last - first <= kClockToleranceNs;
}

// steady_of_rank: each rank's steady steps (steadySteps), computed once.
void measureWaits(const std::vector<RankResult>& ranks, const std::map<SeriesKey, CollectiveSeries>& matched,
                  const std::vector<std::vector<const StepSplit*>>& steady_of_rank, JobAnalysis& job) {
  std::vector<std::int64_t> wait(ranks.size(), 0);
  std::vector<std::int64_t> late(ranks.size(), 0);
  std::vector<bool> measured(ranks.size(), false);
  std::uint64_t pairs_left_out = 0;
  std::size_t steady_steps = 1;  // the steps the series' waits are per: the most any rank covers
  for (const RankRow& row : job.ranks) steady_steps = std::max(steady_steps, row.steady_steps);
  for (const auto& [key, series] : matched) {
    CollectiveWait summary{.kind = key.first, .group = key.second, .ranks = series.ranks.size(), .calls = 0,
                           .wait_ns = 0, .last_rank = -1, .last_rank_calls = 0};
    std::map<std::int32_t, std::size_t> last_counts;
    for (std::size_t i = 0; i < series.calls.front().size(); ++i) {
      if (!isGroupCollective(key.first) && !endTogether(series, i, job)) {
        ++pairs_left_out;
        continue;
      }
      std::int64_t last = std::numeric_limits<std::int64_t>::min();
      std::int32_t last_rank = -1;
      std::vector<std::int64_t> arrivals;
      for (std::size_t p = 0; p < series.ranks.size(); ++p) {
        const RankRow& row = job.ranks[series.ranks[p]];
        if (row.alignment == ClockAlignment::kNone) continue;
        const std::int64_t arrival = series.calls[p][i]->start_ns + row.clock_offset_ns;
        arrivals.push_back(arrival);
        if (arrival > last) {
          last = arrival;
          last_rank = row.rank;
        }
      }
      // The last rank held the collective up by its lead over the next-latest one: what the job
      // would gain if it came with that one (several late together hold it up as a group).
      std::sort(arrivals.begin(), arrivals.end());
      const std::int64_t held_up = arrivals.size() >= 2 ? arrivals.back() - arrivals[arrivals.size() - 2] : 0;
      bool steady = false;
      for (std::size_t p = 0; p < series.ranks.size(); ++p) {
        const std::size_t r = series.ranks[p];
        const RankRow& row = job.ranks[r];
        if (row.alignment == ClockAlignment::kNone) continue;
        measured[r] = true;
        const CollectiveCall& c = *series.calls[p][i];
        if (!inSteps(steady_of_rank[r], c.start_ns)) continue;
        steady = true;
        const std::int64_t waited = std::max<std::int64_t>(0, std::min(last - (c.start_ns + row.clock_offset_ns),
                                                                        c.end_ns - c.start_ns));
        wait[r] += waited;
        summary.wait_ns += waited;
        if (row.rank == last_rank) late[r] += held_up;
      }
      if (steady) {
        ++summary.calls;
        ++last_counts[last_rank];
      }
    }
    for (const auto& [rank, count] : last_counts) {
      if (count > summary.last_rank_calls) {
        summary.last_rank = rank;
        summary.last_rank_calls = count;
      }
    }
    summary.wait_ns /= static_cast<std::int64_t>(steady_steps);
    if (summary.calls > 0) job.collective_waits.push_back(std::move(summary));
  }
  std::stable_sort(job.collective_waits.begin(), job.collective_waits.end(),
                   [](const CollectiveWait& a, const CollectiveWait& b) { return a.wait_ns > b.wait_ns; });
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    RankRow& row = job.ranks[r];
    const auto per_step = static_cast<std::int64_t>(std::max<std::size_t>(1, row.steady_steps));
    if (measured[r]) {
      row.wait_ns = wait[r] / per_step;
      row.late_ns = late[r] / per_step;
    } else if (ranks[r].calls.empty()) {
      row.wait_ns = 0;  // no collective to wait at
    }
  }
  const bool unmatched = std::any_of(ranks.begin(), ranks.end(), [&](const RankResult& r) {
    return std::any_of(r.calls.begin(), r.calls.end(), [&](const CollectiveCall& c) {
      return c.kind == CollectiveKind::kOther || !matched.contains({c.kind, c.group});
    });
  });
  if (pairs_left_out > 0 || unmatched) {
    job.notes.push_back(fmt::format(
        "waits are measured at collectives every participant ran alike ({} send/recv call(s) that did not end "
        "together pair ranks the trace does not name; a kind whose count differs between ranks of one process group "
        "(or between ranks, where the trace names no groups) is not matched): their time counts as communication, "
        "not wait", pairs_left_out));
  }
  if (std::any_of(job.ranks.begin(), job.ranks.end(), [](const RankRow& r) { return !r.wait_ns; })) {
    job.notes.push_back("some ranks' collectives could not be matched with the others': their waits are unknown");
  }
}

void findSlowest(JobAnalysis& job) {
  if (job.ranks.size() < 2) return;
  std::vector<std::int64_t> busy;
  std::vector<std::int64_t> steps;
  for (const RankRow& r : job.ranks) {
    busy.push_back(r.busy_ns);
    steps.push_back(r.steady_step_ns);
  }
  long double total_busy = 0;  // long double: no overflow from absurd results read back by merge
  for (std::int64_t b : busy) total_busy += static_cast<long double>(b);
  const double mean = static_cast<double>(total_busy / static_cast<long double>(busy.size()));
  const std::int64_t mid = median(busy);
  const auto busiest = std::max_element(job.ranks.begin(), job.ranks.end(),
                                        [](const RankRow& a, const RankRow& b) { return a.busy_ns < b.busy_ns; });
  job.imbalance = mean > 0 ? static_cast<double>(busiest->busy_ns) / mean : 1.0;
  // The rank the others wait for shows where they wait: at the collectives it reaches last. Step
  // ranges are each host's own and may start at different points of the GPU's work, so busy time
  // (step - wait) is only the fallback.
  const auto latest = std::max_element(job.ranks.begin(), job.ranks.end(), [](const RankRow& a, const RankRow& b) {
    return a.late_ns.value_or(0) < b.late_ns.value_or(0);
  });
  const bool by_arrival = latest->late_ns.value_or(0) > 0;
  job.slowest_basis = by_arrival ? SlowestBasis::kArrivals : SlowestBasis::kBusyTime;
  const auto slowest = by_arrival ? latest : busiest;
  if (!by_arrival && slowest->busy_ns <= 0) return;
  job.slowest_rank = slowest->rank;
  const double late_limit = kStragglerMargin * static_cast<double>(median(steps));
  for (RankRow& r : job.ranks) {
    r.straggler = by_arrival ? static_cast<double>(r.late_ns.value_or(0)) > late_limit
                             : static_cast<double>(r.busy_ns) > static_cast<double>(mid) * (1.0 + kStragglerMargin);
    if (r.straggler) job.stragglers.push_back(r.rank);
  }
  // Its parts against the other ranks' mean: the largest excess is the reason.
  struct Part {
    SlowReason reason;
    std::int64_t RankRow::*field;
  };
  const auto communicationAlone = [](const RankRow& r) { return r.exposed_communication_ns - r.wait_ns.value_or(0); };
  const std::size_t others = job.ranks.size() - 1;
  const auto othersMean = [&](auto value) {
    long double total = 0;
    for (const RankRow& r : job.ranks) {
      if (&r != &*slowest) total += static_cast<long double>(value(r));
    }
    return static_cast<std::int64_t>(total / static_cast<long double>(others));
  };
  const std::string behind =
      by_arrival ? fmt::format("rank {} holds the collectives up {} per step, arriving last", slowest->rank,
                               ms(*slowest->late_ns))
                 : fmt::format("rank {} is busy {} per step, the median rank {}", slowest->rank, ms(slowest->busy_ns),
                               ms(mid));
  if (!slowest->straggler) {
    job.slowest_why = fmt::format("{}: within {:.0f}% of {}, the ranks are even", behind, 100.0 * kStragglerMargin,
                                  by_arrival ? "the median step" : "it");
    return;
  }
  std::vector<std::pair<SlowReason, std::int64_t>> excess;
  for (const Part part : {Part{SlowReason::kCompute, &RankRow::compute_ns}, Part{SlowReason::kDataLoading, &RankRow::data_ns},
                          Part{SlowReason::kIdle, &RankRow::idle_ns}}) {
    excess.emplace_back(part.reason, (*slowest).*part.field - othersMean([&](const RankRow& r) { return r.*part.field; }));
  }
  excess.emplace_back(SlowReason::kCommunication, communicationAlone(*slowest) - othersMean(communicationAlone));
  const auto largest = std::max_element(excess.begin(), excess.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
  if (largest->second <= 0) {
    job.slowest_why = behind + "; no part of its step exceeds the other ranks' (it starts its steps later)";
    return;
  }
  job.slowest_reason = largest->first;
  job.slowest_why = fmt::format("{}; its {} is {} above the other ranks' mean", behind, slowReasonName(largest->first),
                                ms(largest->second));
}

void recommendForJob(JobAnalysis& job) {
  if (!job.slowest_rank || job.stragglers.empty()) return;
  std::vector<std::int64_t> busy;
  std::int64_t job_step = 0;
  for (const RankRow& r : job.ranks) {
    busy.push_back(r.busy_ns);
    job_step = std::max(job_step, r.steady_step_ns);
  }
  const RankRow& slowest = *std::find_if(job.ranks.begin(), job.ranks.end(),
                                         [&](const RankRow& r) { return r.rank == *job.slowest_rank; });
  Recommendation rec;
  // The job steps at its slowest rank's pace: bringing it in line gives back what the others wait
  // for it alone (by arrivals: its lead at the collectives it reaches last; else its busy time over
  // the median's).
  rec.estimated_gain_ns = job.slowest_basis == SlowestBasis::kArrivals ? slowest.late_ns.value_or(0)
                                                                        : slowest.busy_ns - median(busy);
  rec.estimated_gain_pct = job_step > 0 ? 100.0 * static_cast<double>(rec.estimated_gain_ns) / static_cast<double>(job_step) : 0.0;
  rec.severity = rec.estimated_gain_pct >= 10 ? Severity::kHigh : rec.estimated_gain_pct >= 3 ? Severity::kMedium : Severity::kLow;
  std::string stragglers;
  for (std::int32_t r : job.stragglers) stragglers += fmt::format("{}{}", stragglers.empty() ? "" : ", ", r);
  const char* fix = "";
  switch (job.slowest_reason) {
    case SlowReason::kNone:
      fix = "no part of its step is larger than the others': it starts its steps late, so look at what it does "
            "between steps (checkpointing, logging, evaluation, a slower host) against another rank's timeline";
      break;
    case SlowReason::kCompute:
      fix = "it computes more than the others: balance the work per rank (uneven shards, sequence lengths or embedding "
            "tables), or check its GPU's clocks and temperature";
      break;
    case SlowReason::kDataLoading:
      fix = "its GPU waits for data: give its data loader more workers, pin memory, or check its node's storage";
      break;
    case SlowReason::kCommunication:
      fix = "its communication alone takes longer: check its network link and NCCL's topology for that node";
      break;
    case SlowReason::kIdle:
      fix = "its GPU idles between kernels: its host is slower (CPU contention, Python overhead, launch gaps): "
            "pin its threads, check other load on that node";
      break;
  }
  if (job.stragglers.size() == 1) {
    rec.rule = std::string(rule_ids::kFixStraggler);
    rec.target = fmt::format("rank {}", slowest.rank);
    rec.action = fmt::format("The other ranks wait for rank {} at each collective; {}.", slowest.rank, fix);
  } else {
    rec.rule = std::string(rule_ids::kBalanceRanks);
    rec.target = fmt::format("ranks {}", stragglers);
    rec.action = fmt::format("Ranks {} are more than {:.0f}% of a step behind the others; the slowest, rank {}: {}.",
                             stragglers, 100.0 * kStragglerMargin, slowest.rank, fix);
  }
  rec.evidence = job.slowest_why + fmt::format("; the job's step is {}", ms(job_step));
  rec.ranks = job.stragglers;
  job.recommendations.push_back(std::move(rec));
}

std::vector<CollectiveRow> jobCollectives(const std::vector<RankResult>& ranks, std::int32_t world_size) {
  std::map<std::pair<std::string, std::int32_t>, CollectiveRow> rows;  // by family and group size
  for (const RankResult& r : ranks) {
    for (const CollectiveRow& c : r.collectives) {
      CollectiveRow& row = rows[{c.name, c.group_size}];
      row.name = c.name;
      row.kind = c.kind;
      row.element = c.element;
      row.group_size = c.group_size;
      row.calls += c.calls;
      row.time_ns += c.time_ns;
      row.calls_with_bytes += c.calls_with_bytes;
      row.bytes += c.bytes;
      row.time_with_bytes_ns += c.time_with_bytes_ns;
    }
  }
  std::vector<CollectiveRow> out;
  for (auto& [key, row] : rows) {
    if (row.calls_with_bytes > 0 && row.time_with_bytes_ns > 0) {
      row.algbw_gbps = static_cast<double>(row.bytes) / static_cast<double>(row.time_with_bytes_ns);
      // The group's size where the ops recorded it, else the job's.
      row.busbw_gbps = *row.algbw_gbps * busBandwidthFactor(row.kind, row.group_size > 0 ? row.group_size : world_size);
    }
    out.push_back(std::move(row));
  }
  std::stable_sort(out.begin(), out.end(), [](const CollectiveRow& a, const CollectiveRow& b) { return a.time_ns > b.time_ns; });
  return out;
}

}  // namespace

const char* clockAlignmentName(ClockAlignment alignment) {
  switch (alignment) {
    case ClockAlignment::kRecordedClock: return "recorded_clock";
    case ClockAlignment::kCollectives: return "collectives";
    case ClockAlignment::kStepStarts: return "step_starts";
    case ClockAlignment::kNone: break;
  }
  return "none";
}

const char* slowestBasisName(SlowestBasis basis) {
  return basis == SlowestBasis::kArrivals ? "arrivals" : "busy_time";
}

const char* slowReasonName(SlowReason reason) {
  switch (reason) {
    case SlowReason::kNone: return "none";
    case SlowReason::kCompute: return "compute";
    case SlowReason::kDataLoading: return "data_loading";
    case SlowReason::kCommunication: return "communication";
    case SlowReason::kIdle: break;
  }
  return "idle";
}

trace::Result<JobAnalysis> analyzeJob(std::vector<RankResult> ranks) {
  if (ranks.empty()) return trace::Error{"no rank to analyze"};
  if (trace::Status numbered = numberRanks(ranks); !numbered) return numbered.error();
  JobAnalysis job;
  for (const RankResult& r : ranks) job.world_size = std::max(job.world_size, r.recorded_world_size);
  if (job.world_size == 0) job.world_size = static_cast<std::int32_t>(ranks.size());
  if (static_cast<std::int32_t>(ranks.size()) < job.world_size) {
    job.notes.push_back(fmt::format("{} of the job's {} ranks were given: figures cover those", ranks.size(), job.world_size));
  }
  if (std::any_of(ranks.begin(), ranks.end(), [](const RankResult& r) { return r.origin == RankOrigin::kFileOrder; })) {
    job.notes.push_back("some traces do not say their rank: those are numbered in the order the files were given");
  }
  const auto windows = std::count_if(ranks.begin(), ranks.end(), [](const RankResult& r) {
    return !r.steps.empty() && r.steps.front().whole_window;
  });
  if (windows > 0) {
    job.notes.push_back(fmt::format("{} rank(s) have no training steps in their trace: their figures cover one window, "
                                    "from their first to their last GPU record", windows));
  }
  const std::set<std::int64_t> common = commonStepNumbers(ranks);
  if (common.empty() && ranks.size() > 1) {
    job.notes.push_back("the ranks share no step number: each rank's figures cover its own steady steps, unmatched");
  }
  std::vector<std::vector<const StepSplit*>> steady_of_rank;
  for (const RankResult& r : ranks) {
    RankRow row;
    row.rank = r.rank;
    row.origin = r.origin;
    row.source = r.source;
    row.device = r.device;
    row.steps = r.steps.size();
    const std::vector<const StepSplit*>& steady = steady_of_rank.emplace_back(steadySteps(r, common));
    row.steady_steps = steady.size();
    // Summed in long double: exact for any sum below 2^64, and no overflow from absurd results
    // read back by merge.
    const auto mean = [&](auto field) {
      long double total = 0;
      for (const StepSplit* s : steady) total += static_cast<long double>(field(*s));
      return static_cast<std::int64_t>(total / static_cast<long double>(std::max<std::size_t>(1, steady.size())));
    };
    row.steady_step_ns = mean([](const StepSplit& s) { return s.durationNs(); });
    row.compute_ns = mean([](const StepSplit& s) { return s.compute_ns; });
    row.communication_ns = mean([](const StepSplit& s) { return s.communication_ns; });
    row.exposed_communication_ns = mean([](const StepSplit& s) { return s.exposed_communication_ns; });
    row.data_ns = mean([](const StepSplit& s) { return s.data_ns; });
    row.idle_ns = mean([](const StepSplit& s) { return s.idle_ns; });
    job.ranks.push_back(std::move(row));
  }
  const std::map<SeriesKey, CollectiveSeries> matched = matchCollectives(ranks);
  alignClocks(ranks, matched, common, job);
  measureWaits(ranks, matched, steady_of_rank, job);
  for (RankRow& r : job.ranks) r.busy_ns = r.steady_step_ns - r.wait_ns.value_or(0);

  for (std::int64_t number : common) {
    if (number < 0) continue;  // a window of GPU work, not a step (traces without steps)
    JobStep step{.number = number, .start_ns = std::numeric_limits<std::int64_t>::max(),
                 .end_ns = std::numeric_limits<std::int64_t>::min(), .longest_rank = -1};
    std::int64_t longest = -1;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      for (const StepSplit& s : ranks[r].steps) {
        if (s.number != number) continue;
        step.start_ns = std::min(step.start_ns, s.start_ns + job.ranks[r].clock_offset_ns);
        step.end_ns = std::max(step.end_ns, s.end_ns + job.ranks[r].clock_offset_ns);
        if (s.durationNs() > longest) {
          longest = s.durationNs();
          step.longest_rank = ranks[r].rank;
        }
        break;
      }
    }
    job.steps.push_back(step);
  }
  findSlowest(job);
  recommendForJob(job);
  // The ranks' own findings, merged: a fix's gain for the job is what it takes off the slowest step.
  std::int64_t job_step = 0;
  for (const RankRow& r : job.ranks) job_step = std::max(job_step, r.steady_step_ns);
  for (Recommendation& r : mergeRankFindings(ranks, job.ranks, job_step)) job.recommendations.push_back(std::move(r));
  std::stable_sort(job.recommendations.begin(), job.recommendations.end(),
                   [](const Recommendation& a, const Recommendation& b) { return a.estimated_gain_ns > b.estimated_gain_ns; });
  job.collectives = jobCollectives(ranks, job.world_size);
  job.rank_results = std::move(ranks);
  return job;
}

}  // namespace ampscope::analyzer
