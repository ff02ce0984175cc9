#include "analyzer/import/nsight/cupti_enums.h"

#include <fmt/format.h>

namespace ampscope::analyzer::import {

trace::CopyDirection copyDirectionFromCupti(std::int64_t copy_kind) {
  using trace::CopyDirection;
  switch (copy_kind) {
    case 1: case 3: return CopyDirection::kHostToDevice;   // HTOD, HTOA
    case 2: case 4: return CopyDirection::kDeviceToHost;   // DTOH, ATOH
    case 5: case 6: case 7: case 8: return CopyDirection::kDeviceToDevice;  // ATOA ATOD DTOA DTOD
    case 9: return CopyDirection::kHostToHost;
    case 10: return CopyDirection::kPeerToPeer;
    default: return CopyDirection::kUnknown;
  }
}

trace::MemoryKind memoryKindFromCupti(std::int64_t memory_kind) {
  using trace::MemoryKind;
  switch (memory_kind) {
    case 1: return MemoryKind::kPageable;
    case 2: return MemoryKind::kPinned;
    case 3: case 6: return MemoryKind::kDevice;   // DEVICE, DEVICE_STATIC
    case 4: return MemoryKind::kArray;
    case 5: case 7: return MemoryKind::kManaged;  // MANAGED, MANAGED_STATIC
    default: return MemoryKind::kUnknown;
  }
}

trace::SyncKind syncKindFromCupti(std::int64_t sync_type) {
  using trace::SyncKind;
  switch (sync_type) {
    case 1: return SyncKind::kEventSynchronize;
    case 2: return SyncKind::kStreamWaitEvent;
    case 3: return SyncKind::kStreamSynchronize;
    case 4: return SyncKind::kContextSynchronize;
    default: return SyncKind::kUnknown;
  }
}

std::string runtimeApiName(std::int64_t cbid) {
  // The calls that matter for attribution and synchronisation; the rest keep their number.
  switch (cbid) {
    case 3: return "cudaGetDeviceCount";
    case 8: return "cudaConfigureCall";
    case 9: return "cudaSetupArgument";
    case 10: return "cudaGetLastError";
    case 11: return "cudaPeekAtLastError";
    case 13: return "cudaLaunch";
    case 15: return "cudaFuncGetAttributes";
    case 16: return "cudaSetDevice";
    case 17: return "cudaGetDevice";
    case 20: return "cudaMalloc";
    case 22: return "cudaFree";
    case 25: return "cudaMallocHost";
    case 27: return "cudaHostAlloc";
    case 31: return "cudaMemcpy";
    case 41: return "cudaMemcpyAsync";
    case 44: return "cudaMemcpy2DAsync";
    case 49: return "cudaMemset";
    case 51: return "cudaMemsetAsync";
    case 126: return "cudaThreadSynchronize";
    case 131: return "cudaStreamSynchronize";
    case 134: return "cudaEventCreateWithFlags";
    case 135: return "cudaEventRecord";
    case 137: return "cudaEventSynchronize";
    case 138: return "cudaEventQuery";
    case 147: return "cudaStreamWaitEvent";
    case 151: return "cudaPointerGetAttributes";
    case 165: return "cudaDeviceSynchronize";
    case 207: case 210: return "cudaOccupancyMaxActiveBlocksPerMultiprocessor";
    case 211: return "cudaLaunchKernel";
    case 269: return "cudaLaunchCooperativeKernel";
    case 273: return "cudaFuncSetAttribute";
    case 311: return "cudaGraphLaunch";
    case 317: return "cudaStreamIsCapturing";
    case 409: return "cudaStreamGetCaptureInfo_v2";
    case 430: return "cudaLaunchKernelExC";
    case 505: return "__cudaLaunchKernel";
    default: return fmt::format("cudaRuntime#{}", cbid);
  }
}

std::string driverApiName(std::int64_t cbid) {
  switch (cbid) {
    case 277: case 421: return "cuMemcpyHtoDAsync_v2";
    case 307: case 442: return "cuLaunchKernel";
    case 477: case 478: return "cuLaunchCooperativeKernel";
    case 514: case 515: return "cuGraphLaunch";
    case 652: case 653: return "cuLaunchKernelEx";
    default: return fmt::format("cudaDriver#{}", cbid);
  }
}

}  // namespace ampscope::analyzer::import
