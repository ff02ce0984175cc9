#pragma once
// What every importer accepts besides the file: a progress callback, and how many threads it may
// use.

#include <cstdint>
#include <functional>
#include <optional>

#include "analyzer/core/read_window.h"
#include "base/thread_count.h"
#include "trace/process_trace.h"
#include "trace/result.h"

namespace ampscope::analyzer::import {

// Called now and then with (work done, total work), in the importer's own units.
using ProgressCallback = std::function<void(std::uint64_t done, std::uint64_t total)>;

// Takes one process's trace of a file read one process at a time; its error stops the reading
// and is the result.
using ProcessTraceSink = std::function<trace::Status(trace::ProcessTrace&&)>;

struct ImportOptions {
  ProgressCallback progress;
  // Threads that may parse one file's events at once; 0: every hardware thread. The trace is the
  // same whatever the number.
  unsigned threads = 0;
  // Only this part of the recording (analyzer/core/read_window.h); none: all of it.
  std::optional<ReadWindow> window{};
  // SQLite files: rows read straight from the file's pages where they can be read so
  // (trace/db/table_page_scan.h); false: every row through SQLite's statements, the reference the
  // pages are tested against. The trace is the same either way.
  bool read_pages = true;
};

}  // namespace ampscope::analyzer::import
