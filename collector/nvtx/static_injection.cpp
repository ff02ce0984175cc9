// NVTX's static injection hook for programs that link the collector (ampscope itself): NVTX's
// weak symbol InitializeInjectionNvtx2_fnptr binds to this definition, and NVTX calls it at the
// first NVTX call. The tool attaches only when a recording is running then, so `ampscope train`
// without --profile keeps NVTX's no-op entry points and pays nothing.

#include <cstdint>

#include "collector/nvtx/nvtx_tool.h"
#include "collector/profile_recorder.h"

namespace {

int attachIfRecording(const void* (*get_export_table)(std::uint32_t export_table_id)) {
  if (ampscope::collector::ProfileRecorder::active() == nullptr) return 0;
  return ampscope::collector::attachNvtxTool(get_export_table);
}

}  // namespace

extern "C" {
// NVTX declares it as NvtxInitializeInjectionNvtxFunc_t, a pointer to this signature.
int (*InitializeInjectionNvtx2_fnptr)(const void* (*)(std::uint32_t)) = &attachIfRecording;
}
