#include "analyzer/import/kineto/kineto_batch_merge.h"

#include <algorithm>
#include <cassert>
#include <iterator>

namespace ampscope::analyzer::import {

namespace {

// A tripwire: a record that grows may have gained a string id or thread index that append()
// must translate.
static_assert(sizeof(trace::Kernel) == 88 && sizeof(trace::LaunchCall) == 48 && sizeof(trace::Range) == 104 &&
                  sizeof(trace::CommunicationMessage) == 56 && sizeof(trace::MemoryEvent) == 72 &&
                  sizeof(trace::KernelMetrics) == 88 && sizeof(trace::MetricValue) == 16 &&
                  sizeof(trace::MetricSample) == 32,
              "a trace record changed: translate its new string ids and thread indices in append()");

// Grows `into` to `growth` times what it needs now: each growth moves every record and faults
// in fresh pages, and capacity never used is never touched, so it costs address space rather
// than memory. Without a projection (growth 1) it doubles, as a vector would; with one, it grows
// by at least a quarter, so that a projection that keeps falling short moves each record at most
// five times over, and one that holds ends within its tenth to spare.
template <typename Record>
void appendAll(std::vector<Record>& into, std::vector<Record>& from, double growth) {
  const std::size_t needed = into.size() + from.size();
  if (needed > into.capacity()) {
    const auto projected = static_cast<std::size_t>(static_cast<double>(needed) * growth);
    const std::size_t least = growth > 1.0 ? into.capacity() + into.capacity() / 4 : 2 * into.capacity();
    into.reserve(std::max({needed, projected, least}));
  }
  into.insert(into.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

}  // namespace

KinetoBatchMerge::KinetoBatchMerge(trace::Trace& out, std::size_t parsers) : out_(out), ids_(parsers) {}

double KinetoBatchMerge::growthToDocumentEnd(std::uint64_t merged_up_to) const {
  if (document_bytes_ == 0 || merged_up_to == 0 || merged_up_to >= document_bytes_) return 1.0;
  // The rest of the document holds records at the rate of the part read, give or take a tenth.
  constexpr double kSpare = 1.1;
  // Early on, the rate rests on a few batches (a file may open with thousands of one kind of
  // event and hold none after): growing at most eightfold at a time bounds the address space a
  // wrong guess reserves, at the cost of a few more moves.
  constexpr double kMostAtOnce = 8.0;
  return std::min(kMostAtOnce, kSpare * static_cast<double>(document_bytes_) / static_cast<double>(merged_up_to));
}

void KinetoBatchMerge::append(ParsedBatch&& batch, std::size_t parser) {
  ParserIds& ids = ids_[parser];
  // The parser's tables only grow, and every batch is merged: the new ids follow on.
  assert(ids.strings.size() == batch.first_new_string);
  assert(ids.threads.size() == batch.first_new_thread);
  for (const std::string& text : batch.new_strings) ids.strings.push_back(out_.strings.intern(text));
  for (const auto& [pid, tid] : batch.new_threads) ids.threads.push_back(out_.threadIndex(pid, tid));
  const auto string = [&](trace::StringId& id) { id = ids.strings[id]; };
  const auto thread = [&](trace::Index& index) {
    if (index != trace::kNone) index = ids.threads[static_cast<std::size_t>(index)];
  };

  for (trace::Kernel& k : batch.kernels) string(k.name);
  for (trace::LaunchCall& l : batch.launches) {
    string(l.name);
    thread(l.thread);
  }
  for (trace::Range& r : batch.ranges) {
    for (trace::StringId* id : {&r.name, &r.op, &r.shapes, &r.strides, &r.dtypes, &r.arguments, &r.layer, &r.module_path,
                                &r.domain, &r.payload}) {
      string(*id);
    }
    thread(r.thread);
  }
  for (trace::CommunicationMessage& m : batch.communication_messages) {
    for (trace::StringId* id : {&m.collective, &m.dtype, &m.group, &m.group_ranks}) string(*id);
    thread(m.thread);
  }
  for (trace::MemoryEvent& m : batch.memory_events) thread(m.thread);
  for (trace::KernelMetrics& m : batch.kernel_metrics) {
    string(m.kernel_name);
    for (trace::MetricValue& value : m.values) string(value.metric);
  }
  for (trace::MetricSample& m : batch.metric_samples) string(m.metric);
  const double growth = growthToDocumentEnd(batch.document_end);
  appendAll(out_.kernels, batch.kernels, growth);
  appendAll(out_.launches, batch.launches, growth);
  appendAll(out_.memory_ops, batch.memory_ops, growth);
  appendAll(out_.synchronizations, batch.synchronizations, growth);
  appendAll(out_.ranges, batch.ranges, growth);
  appendAll(out_.communication_messages, batch.communication_messages, growth);
  appendAll(out_.memory_events, batch.memory_events, growth);
  appendAll(out_.kernel_metrics, batch.kernel_metrics, growth);
  appendAll(out_.metric_samples, batch.metric_samples, growth);

  // Batches arrive in document order: a reason's first place is the first batch's that met it.
  out_.import_stats.add(batch.stats);
  for (auto& [key, name] : batch.thread_names) thread_names_[key] = std::move(name);
  saw_2021_categories_ = saw_2021_categories_ || batch.saw_2021_categories;
}

void KinetoBatchMerge::nameThreads() {
  for (trace::Thread& thread : out_.threads) {
    auto found = thread_names_.find({thread.pid, thread.tid});
    if (found != thread_names_.end()) thread.name = out_.strings.intern(found->second);
  }
}

}  // namespace ampscope::analyzer::import
