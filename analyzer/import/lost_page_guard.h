#pragma once
// Keeps reads of a mapped file alive when the file loses pages under the mapping. Another program
// that shrinks a file while it is mapped (a profiler writing its trace again), or storage that
// fails, makes reading the lost pages raise SIGBUS, which ends the process. For the regions
// watched here, a SIGBUS handler puts zero pages in place of the lost ones, from the faulting page
// to the region's end, notes the lowest offset replaced, and lets the read go on; the reader
// then asks lostFrom() and reports the file as unreadable rather than what it read. A SIGBUS at
// any other address goes to the handler that was installed before (by default, the process ends).

#include <cstddef>
#include <cstdint>
#include <optional>

namespace ampscope::analyzer::import {

class LostPageGuard {
 public:
  // Watches [start, start + bytes), page-aligned, the whole reservation of one mapping, and
  // installs the handler where another has replaced it (a host process may install its own after
  // a first mapping). Returns a watch id, or -1 where every slot is taken (the region is then
  // unguarded: a SIGBUS in it ends the process as it would without this guard).
  static int watch(const char* start, std::size_t bytes);
  // Stops watching; before the region is unmapped.
  static void unwatch(int id);
  // The offset in the region from which its bytes read as zeros, because a read there or before
  // raised SIGBUS (the start of the lowest page that faulted), or nothing.
  static std::optional<std::uint64_t> lostFrom(int id);
};

}  // namespace ampscope::analyzer::import
