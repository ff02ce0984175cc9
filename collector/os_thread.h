#pragma once
// The calling thread's system thread id (gettid()), the id every record of a recording names a
// thread by: NVTX ranges, CUPTI's API records (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) and the
// trainer's allocations. pthread_self() is another number, which no other record could match.

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace ampscope::collector {

inline std::int64_t osThreadId() { return static_cast<std::int64_t>(syscall(SYS_gettid)); }

}  // namespace ampscope::collector
