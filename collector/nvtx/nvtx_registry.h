#pragma once
// What NVTX calls create once and refer to by handle afterwards: domains, registered strings,
// category and thread names, and each thread's event log. Handles given to the program stay
// valid for the life of the process, across recordings, so the registry is never destroyed.
// Creation takes a lock (it is rare); the per-event hot path never does.

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collector/thread_event_log.h"

namespace ampscope::collector {

struct RegisteredString {
  std::uint32_t domain = 0;
  std::string text;
};

struct NamedCategory {
  std::uint32_t domain = 0;
  std::uint32_t category = 0;
  std::string name;
};

class NvtxRegistry {
 public:
  static NvtxRegistry& instance();

  // Index of the domain called name, created when new; 0 is NVTX's default domain.
  std::uint32_t domain(std::string_view name);
  std::string domainName(std::uint32_t domain) const;
  const RegisteredString* registerString(std::uint32_t domain, std::string_view text);
  void nameCategory(std::uint32_t domain, std::uint32_t category, std::string_view name);
  void nameThread(std::int64_t tid, std::string_view name);

  // The calling thread's log, created (and registered for draining) on first use.
  ThreadEventLog& threadLog();
  // Every log created so far, for the writer thread to drain.
  std::vector<std::shared_ptr<ThreadEventLog>> threadLogs() const;
  // Forgets logs of threads that have ended and whose records were drained. A log's thread has
  // ended when the registry and the drainer's copy hold its only references (use_count() == 2
  // in the vector threadLogs returned), checked before the drain.
  void dropLogs(const std::vector<const ThreadEventLog*>& finished);
  std::vector<NamedCategory> categories() const;
  std::map<std::int64_t, std::string> threadNames() const;

 private:
  NvtxRegistry();
  mutable std::mutex mutex_;
  std::vector<std::string> domains_;
  std::deque<RegisteredString> strings_;  // a deque keeps handed-out pointers valid
  std::map<std::pair<std::uint32_t, std::string>, const RegisteredString*, std::less<>> string_index_;
  std::vector<NamedCategory> categories_;
  std::map<std::int64_t, std::string> thread_names_;
  std::vector<std::shared_ptr<ThreadEventLog>> logs_;
};

}  // namespace ampscope::collector
