#pragma once
// Every CUPTI call the collector makes, behind one interface: RealCuptiApi forwards to libcupti,
// and the tests put a fake in its place that hands back buffers of records the test built. That
// is what lets the decoder and the buffer pool be tested on machines without a GPU.
//
// This header includes CUPTI and is meant for the CUDA sub-folder (collector/cupti and its
// tests). The recorder reaches this part through gpu_activity_source.h and real_cupti_api.h,
// which include no CUDA headers.

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "trace/result.h"

namespace ampscope::collector {

// The record layouts of the CUDA 13 headers. CUPTI versions its structs by name (Kernel9 became
// Kernel10); a toolkit that renames them again fails to build here, where the change is visible,
// rather than decoding a record with the wrong layout.
using KernelRecord = CUpti_ActivityKernel10;
using MemcpyRecord = CUpti_ActivityMemcpy6;
using PeerCopyRecord = CUpti_ActivityMemcpyPtoP4;
using MemsetRecord = CUpti_ActivityMemset4;
using ApiRecord = CUpti_ActivityAPI;
using SyncRecord = CUpti_ActivitySynchronization2;
using DeviceRecord = CUpti_ActivityDevice5;
using ContextRecord = CUpti_ActivityContext3;
using MemoryRecord = CUpti_ActivityMemory4;  // CUPTI_ACTIVITY_KIND_MEMORY2: allocations and frees

class CuptiApi {
 public:
  virtual ~CuptiApi() = default;

  // cuptiActivityRegisterCallbacks. CUPTI keeps the two functions for the life of the process:
  // there is no way to unregister them.
  virtual trace::Status registerBufferCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                                CUpti_BuffersCallbackCompleteFunc completed) = 0;
  // cuptiActivityRegisterTimestampCallback: CUPTI stamps its records with this clock. Must come
  // before the first kind is enabled, or earlier records keep CUPTI's own clock.
  virtual trace::Status registerTimestampCallback(CUpti_TimestampCallbackFunc timestamp) = 0;
  // cuptiSetThreadIdType: which thread id API records carry.
  virtual trace::Status setThreadIdType(CUpti_ActivityThreadIdType type) = 0;
  virtual trace::Status enableKind(CUpti_ActivityKind kind) = 0;   // cuptiActivityEnable
  virtual trace::Status disableKind(CUpti_ActivityKind kind) = 0;  // cuptiActivityDisable
  // cuptiActivityFlushAll: hands every buffer holding completed records to the completion
  // callback; forced also hands over buffers with records still incomplete.
  virtual trace::Status flushAll(bool forced) = 0;
  // cuptiActivityGetNumDroppedRecords: records dropped since the last call (CUPTI resets the
  // count when read). A null context asks about the global queue.
  virtual trace::Result<std::size_t> droppedRecords(CUcontext context, std::uint32_t stream_id) = 0;
  // cuptiActivityGetNextRecord: the record after `previous` (nullptr: the first) in a completed
  // buffer of valid_bytes, or nullptr past the last one. An error means the rest of the buffer
  // cannot be read (CUPTI_ERROR_INVALID_KIND: an incomplete or invalid record).
  virtual trace::Result<CUpti_Activity*> nextRecord(std::uint8_t* buffer, std::size_t valid_bytes,
                                                    CUpti_Activity* previous) = 0;
  // cuptiGetCallbackName for the runtime and driver API domains, e.g. (runtime, 211) gives
  // "cudaLaunchKernel_v7000"; "" where CUPTI has no name for the id.
  virtual std::string callbackName(CUpti_CallbackDomain domain, std::uint32_t cbid) = 0;
  // cuptiGetResultString, e.g. "CUPTI_ERROR_NOT_INITIALIZED".
  virtual std::string resultString(CUptiResult result) = 0;
  // Why the CUDA driver cannot be used ("libcuda.so.1 cannot be loaded: ...", "the driver sees
  // no GPU"), or "" when nothing is visibly wrong. Not a CUPTI call: it explains a failed start,
  // because CUPTI's own error for a missing driver is often just CUPTI_ERROR_UNKNOWN.
  virtual std::string driverDiagnosis() = 0;
};

}  // namespace ampscope::collector
