#include "collector/nvtx/nvtx_registry.h"

#include "collector/os_thread.h"

#include <algorithm>

#include <unistd.h>

namespace ampscope::collector {

NvtxRegistry& NvtxRegistry::instance() {
  // Leaked on purpose: NVTX handles and thread logs may be used until the very end of the
  // process, after static destructors have run.
  static NvtxRegistry* registry = new NvtxRegistry;
  return *registry;
}

NvtxRegistry::NvtxRegistry() : domains_{""} {}

std::uint32_t NvtxRegistry::domain(std::string_view name) {
  const std::lock_guard lock(mutex_);
  for (std::size_t i = 1; i < domains_.size(); ++i) {
    if (domains_[i] == name) return static_cast<std::uint32_t>(i);
  }
  // Logs store the domain in 16 bits; a program creating more domains than that has its further
  // ones recorded as the default domain.
  if (domains_.size() > 0xFFFF) return 0;
  domains_.emplace_back(name);
  return static_cast<std::uint32_t>(domains_.size() - 1);
}

std::string NvtxRegistry::domainName(std::uint32_t domain) const {
  const std::lock_guard lock(mutex_);
  return domain < domains_.size() ? domains_[domain] : std::string();
}

const RegisteredString* NvtxRegistry::registerString(std::uint32_t domain, std::string_view text) {
  const std::lock_guard lock(mutex_);
  std::pair<std::uint32_t, std::string> key{domain, std::string(text)};
  if (auto found = string_index_.find(key); found != string_index_.end()) return found->second;
  const RegisteredString* stored = &strings_.emplace_back(RegisteredString{domain, key.second});
  string_index_.emplace(std::move(key), stored);
  return stored;
}

void NvtxRegistry::nameCategory(std::uint32_t domain, std::uint32_t category, std::string_view name) {
  const std::lock_guard lock(mutex_);
  for (NamedCategory& named : categories_) {
    if (named.domain == domain && named.category == category) {
      named.name = name;
      return;
    }
  }
  categories_.push_back({domain, category, std::string(name)});
}

void NvtxRegistry::nameThread(std::int64_t tid, std::string_view name) {
  const std::lock_guard lock(mutex_);
  thread_names_[tid] = name;
}

ThreadEventLog& NvtxRegistry::threadLog() {
  // The thread holds one reference and the registry another; when the thread ends, the
  // registry's is the last, and the drainer may drop the log once it is drained.
  thread_local std::shared_ptr<ThreadEventLog> log;
  if (!log) {
    log = std::make_shared<ThreadEventLog>(static_cast<std::int64_t>(getpid()),
                                           osThreadId());
    const std::lock_guard lock(mutex_);
    logs_.push_back(log);
  }
  return *log;
}

std::vector<std::shared_ptr<ThreadEventLog>> NvtxRegistry::threadLogs() const {
  const std::lock_guard lock(mutex_);
  return logs_;
}

void NvtxRegistry::dropLogs(const std::vector<const ThreadEventLog*>& finished) {
  const std::lock_guard lock(mutex_);
  std::erase_if(logs_, [&](const std::shared_ptr<ThreadEventLog>& log) {
    return std::find(finished.begin(), finished.end(), log.get()) != finished.end();
  });
}

std::vector<NamedCategory> NvtxRegistry::categories() const {
  const std::lock_guard lock(mutex_);
  return categories_;
}

std::map<std::int64_t, std::string> NvtxRegistry::threadNames() const {
  const std::lock_guard lock(mutex_);
  return thread_names_;
}

}  // namespace ampscope::collector
