#pragma once
// What the harnesses share. Most input surfaces are read from files (importTrace, ByteSource,
// SQLite), so each run writes the bytes to this process's scratch file and hands its path to the
// real code path; and a trace an importer returned is checked for ids that point nowhere.
//
// A harness lets everything but an Error through: a crash, a sanitizer report, a leak or an
// exception from our code on bad input is a bug (the contract is Result/Error), never caught here.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

#include "trace/trace_model.h"

namespace ampscope::fuzz {

// The scratch file of this process (one per suffix), removed when the process exits normally.
class ScratchFile {
 public:
  explicit ScratchFile(std::string_view suffix)
      : path_((std::filesystem::temp_directory_path() /
               ("ampscope_fuzz_" + std::to_string(getpid()) + std::string(suffix)))
                  .string()) {}
  ~ScratchFile() { removeAll(); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  // Replaces the file's content with the input. SQLite's side files of the previous run go too,
  // so that every run sees only its own bytes (a stale -wal would make runs depend on history).
  const std::string& write(const std::uint8_t* data, std::size_t size) {
    removeAll();
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) fail("cannot write the scratch file " + path_);
    return path_;
  }

  [[noreturn]] static void fail(const std::string& what) {
    std::fprintf(stderr, "ampscope fuzz harness: %s\n", what.c_str());
    std::abort();
  }

 private:
  void removeAll() const {
    std::error_code ignored;
    for (const char* side : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path_ + side, ignored);
  }

  std::string path_;
};

// Every string id and thread index of what an importer returned resolves: an id past the table
// would make every later view read out of bounds.
inline void checkTrace(const trace::Trace& t) {
  const std::size_t strings = t.strings.size();
  const auto string_ok = [&](trace::StringId id) { return id < strings; };
  const auto thread_ok = [&](trace::Index index) {
    return index == trace::kNone || (index >= 0 && static_cast<std::size_t>(index) < t.threads.size());
  };
  for (const trace::Kernel& k : t.kernels) {
    if (!string_ok(k.name)) ScratchFile::fail("a kernel's name id is past the string table");
  }
  for (const trace::LaunchCall& l : t.launches) {
    if (!string_ok(l.name)) ScratchFile::fail("a launch call's name id is past the string table");
    if (!thread_ok(l.thread)) ScratchFile::fail("a launch call's thread index is past the threads");
  }
  for (const trace::Range& r : t.ranges) {
    for (trace::StringId id : {r.name, r.op, r.shapes, r.dtypes, r.arguments, r.layer, r.module_path, r.domain, r.payload}) {
      if (!string_ok(id)) ScratchFile::fail("a range's string id is past the string table");
    }
    if (!thread_ok(r.thread)) ScratchFile::fail("a range's thread index is past the threads");
  }
}

// Whether two imports of the same bytes gave the same trace: records, strings by value, threads,
// devices, statistics and the format's description.
inline bool sameTrace(const trace::Trace& a, const trace::Trace& b) {
  if (a.strings.size() != b.strings.size()) return false;
  for (trace::StringId id = 0; id < a.strings.size(); ++id) {
    if (a.str(id) != b.str(id)) return false;
  }
  return a.threads == b.threads && a.devices == b.devices && a.kernels == b.kernels && a.launches == b.launches &&
         a.memory_ops == b.memory_ops && a.synchronizations == b.synchronizations && a.ranges == b.ranges &&
         a.communication_messages == b.communication_messages && a.import_stats == b.import_stats &&
         a.format_detail == b.format_detail;
}

}  // namespace ampscope::fuzz
