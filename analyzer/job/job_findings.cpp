#include "analyzer/job/job_findings.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace ampscope::analyzer {

namespace {

std::string ms(std::int64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }

// One fix, as the ranks that found it each estimated it.
struct MergedFinding {
  std::vector<std::size_t> rank_index;            // into the job's ranks, ascending
  std::vector<const Recommendation*> per_rank;    // the rank's own finding, same order
};

}  // namespace

std::string rankSetText(std::vector<std::int32_t> ranks) {
  if (ranks.empty()) return "no rank";
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (ranks.size() == 1) return fmt::format("rank {}", ranks.front());
  std::string text = "ranks ";
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t end = i;
    while (end + 1 < ranks.size() && ranks[end + 1] == ranks[end] + 1) ++end;
    if (i > 0) text += ", ";
    if (end - i >= 2) {
      text += fmt::format("{}\u2013{}", ranks[i], ranks[end]);
    } else {
      text += std::to_string(ranks[i]);
      if (end > i) text += fmt::format(", {}", ranks[end]);
    }
    i = end + 1;
  }
  return text;
}

std::int64_t jobGainNs(const std::vector<RankRow>& rows, const std::vector<std::int64_t>& gain_ns) {
  std::int64_t before = 0;
  std::int64_t after = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::int64_t busy = std::max<std::int64_t>(0, rows[i].busy_ns);
    const std::int64_t gain = i < gain_ns.size() ? std::clamp<std::int64_t>(gain_ns[i], 0, busy) : 0;
    before = std::max(before, busy);
    after = std::max(after, busy - gain);
  }
  return before - after;
}

std::vector<Recommendation> mergeRankFindings(const std::vector<RankResult>& ranks, const std::vector<RankRow>& rows,
                                              std::int64_t job_step_ns) {
  // By rule and target, in the order the lowest rank that has each lists them.
  std::map<std::pair<std::string, std::string>, MergedFinding> by_fix;
  std::vector<std::pair<std::string, std::string>> order;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    for (const Recommendation& rec : ranks[r].findings.recommendations) {
      const auto key = std::make_pair(rec.rule, rec.target);
      auto [at, fresh] = by_fix.try_emplace(key);
      if (fresh) order.push_back(key);
      // A rank that lists one fix twice keeps its larger estimate.
      if (!at->second.rank_index.empty() && at->second.rank_index.back() == r) {
        if (rec.estimated_gain_ns > at->second.per_rank.back()->estimated_gain_ns) at->second.per_rank.back() = &rec;
        continue;
      }
      at->second.rank_index.push_back(r);
      at->second.per_rank.push_back(&rec);
    }
  }
  std::vector<Recommendation> out;
  for (const auto& key : order) {
    const MergedFinding& found = by_fix.at(key);
    std::vector<std::int64_t> gains(rows.size(), 0);
    Recommendation merged;
    const Recommendation* largest = found.per_rank.front();
    std::size_t largest_at = found.rank_index.front();
    const Recommendation* smallest = largest;
    std::size_t smallest_at = largest_at;
    for (std::size_t i = 0; i < found.rank_index.size(); ++i) {
      const Recommendation* rec = found.per_rank[i];
      const std::size_t r = found.rank_index[i];
      gains[r] = rec->estimated_gain_ns;
      merged.ranks.push_back(ranks[r].rank);
      if (rec->estimated_gain_ns > largest->estimated_gain_ns) {
        largest = rec;
        largest_at = r;
      }
      if (rec->estimated_gain_ns < smallest->estimated_gain_ns) {
        smallest = rec;
        smallest_at = r;
      }
    }
    merged.rule = key.first;
    merged.target = key.second;
    merged.action = largest->action;
    merged.estimated_gain_ns = jobGainNs(rows, gains);
    merged.estimated_gain_pct = job_step_ns > 0 ? 100.0 * static_cast<double>(merged.estimated_gain_ns) /
                                                      static_cast<double>(job_step_ns)
                                                : 0.0;
    merged.severity = severityOfGain(merged.estimated_gain_pct);
    std::int64_t slowest_before = 0;
    std::int64_t slowest_after = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const std::int64_t busy = std::max<std::int64_t>(0, rows[r].busy_ns);
      slowest_before = std::max(slowest_before, busy);
      slowest_after = std::max(slowest_after, busy - std::clamp<std::int64_t>(gains[r], 0, busy));
    }
    const std::string named = rankSetText(merged.ranks);
    if (rows.size() == 1) {
      merged.evidence = largest->evidence;
    } else {
      const std::string estimates =
          found.rank_index.size() == 1
              ? fmt::format("its own estimate {} per step", ms(largest->estimated_gain_ns))
              : fmt::format("each rank's own estimate {} (rank {}) to {} (rank {}) per step",
                            ms(smallest->estimated_gain_ns), ranks[smallest_at].rank, ms(largest->estimated_gain_ns),
                            ranks[largest_at].rank);
      merged.evidence = fmt::format(
          "{} ({} of {} ranks); {}; the job steps at its slowest rank's pace: with the fix on {}, the longest step a "
          "rank takes alone (busy: its step less its wait at collectives) goes from {} to {}. Rank {}: {}",
          named, found.rank_index.size(), rows.size(), estimates,
          found.rank_index.size() == rows.size() ? std::string("every rank") : named, ms(slowest_before),
          ms(slowest_after), ranks[largest_at].rank, largest->evidence);
      if (merged.estimated_gain_ns == 0 && largest->estimated_gain_ns > 0) {
        const auto busiest = std::max_element(rows.begin(), rows.end(), [](const RankRow& a, const RankRow& b) {
          return a.busy_ns < b.busy_ns;
        });
        merged.evidence = fmt::format("the job gains nothing from it until rank {}, the busiest, gains too: ", busiest->rank) +
                          merged.evidence;
      }
    }
    out.push_back(std::move(merged));
  }
  std::stable_sort(out.begin(), out.end(), [](const Recommendation& a, const Recommendation& b) {
    return a.estimated_gain_ns > b.estimated_gain_ns;
  });
  return out;
}

}  // namespace ampscope::analyzer
