#pragma once
// ampscope's NVTX tool: fills NVTX's function tables with callbacks that append each push/pop,
// start/end and mark to the calling thread's log (collector/thread_event_log.h). Attached once
// per process, by the injection library (NVTX_INJECTION64_PATH) or, linked into ampscope itself,
// by NVTX's static injection hook; what is recorded is switched on and off per recording.

#include <cstdint>

namespace ampscope::collector {

// NVTX's init call: nvtxGetExportTable as NVTX passes it (NvtxGetExportTableFunc_t). Returns
// NVTX's success value (1), or 0 when NVTX's tables could not be read.
int attachNvtxTool(const void* (*get_export_table)(std::uint32_t export_table_id));

// Records NVTX calls while on; events on threads while off are not recorded.
void setNvtxCapture(bool on);
bool nvtxCaptureOn();
// True once NVTX has called attachNvtxTool in this process.
bool nvtxToolAttached();

}  // namespace ampscope::collector
