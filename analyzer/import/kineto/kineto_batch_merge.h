#pragma once
// Appends parsed batches to the trace in document order, turning each parser's string ids and
// thread indices into the trace's. Strings and threads are added to the trace in the order the
// document first names them, so the trace is the same however many parsers made the batches.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analyzer/import/kineto/kineto_event_parser.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

class KinetoBatchMerge {
 public:
  KinetoBatchMerge(trace::Trace& out, std::size_t parsers);

  // The uncompressed document's size, when known before the end: the record vectors then grow
  // once to what the whole document will need rather than doubling as they go.
  void expectDocumentBytes(std::uint64_t bytes) { document_bytes_ = bytes; }
  // batch: the next batch in document order, made by parser number `parser`.
  void append(ParsedBatch&& batch, std::size_t parser);
  // Every parser starts again with tables of its own that are empty (KinetoParallelParse drops
  // batches after a wrong guess, and the tables their parsers grew with them).
  void restartParsers() { std::fill(ids_.begin(), ids_.end(), ParserIds{}); }
  // Names the threads that thread_name metadata named (the last name given wins).
  void nameThreads();
  bool saw2021Categories() const { return saw_2021_categories_; }

 private:
  // A parser's ids in the trace's terms.
  struct ParserIds {
    std::vector<trace::StringId> strings{trace::StringTable::kEmpty};  // its id 0 is "" too
    std::vector<trace::Index> threads;
  };

  // How many times its present size a record vector will need by the document's end.
  double growthToDocumentEnd(std::uint64_t merged_up_to) const;

  trace::Trace& out_;
  std::uint64_t document_bytes_ = 0;  // 0: not known
  std::vector<ParserIds> ids_;
  std::map<ThreadKey, std::string> thread_names_;
  bool saw_2021_categories_ = false;
};

}  // namespace ampscope::analyzer::import
