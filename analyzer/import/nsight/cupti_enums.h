#pragma once
// CUPTI's activity enumerations as stored in nvprof and Nsight Systems exports, mapped to the
// trace model. The numbers are CUPTI's (cupti_activity.h, cupti_runtime_cbid.h); they are
// repeated here because importers must not include CUDA headers.

#include <cstdint>
#include <string>

#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

trace::CopyDirection copyDirectionFromCupti(std::int64_t copy_kind);   // CUpti_ActivityMemcpyKind
trace::MemoryKind memoryKindFromCupti(std::int64_t memory_kind);       // CUpti_ActivityMemoryKind
trace::SyncKind syncKindFromCupti(std::int64_t sync_type);             // CUpti_ActivitySynchronizationType
// The API name of a runtime callback id, e.g. 211 -> "cudaLaunchKernel"; unknown ids give
// "cudaRuntime#<cbid>" so they stay distinguishable.
std::string runtimeApiName(std::int64_t cbid);
std::string driverApiName(std::int64_t cbid);

// CUPTI marker flags (CUpti_ActivityFlag) for CUPTI_ACTIVITY_KIND_MARKER rows.
inline constexpr std::int64_t kMarkerInstantaneous = 1 << 0;
inline constexpr std::int64_t kMarkerStart = 1 << 1;
inline constexpr std::int64_t kMarkerEnd = 1 << 2;

}  // namespace ampscope::analyzer::import
