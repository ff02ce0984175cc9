#include "trainer/cuda/cuda_backend.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "trainer/backend/backend_error.h"
#include "trainer/cuda/conv_plan.h"
#include "trainer/cuda/cuda_backend_impl.h"
#include "trainer/cuda/cuda_check.h"
#include "trainer/cuda/kernels.h"
#include "trainer/numerics/low_precision.h"

#ifndef AMPSCOPE_CUDA_ARCHITECTURES
#define AMPSCOPE_CUDA_ARCHITECTURES "unknown"
#endif

namespace ampscope::trainer {

namespace cuda {

namespace {

std::string versionText(int version, int major_unit, int minor_unit) {
  return fmt::format("{}.{}", version / major_unit, (version % major_unit) / minor_unit);
}

std::size_t storageBytes(const Tensor& t) {
  return static_cast<std::size_t>(t.numel()) * bytesPerElement(t.dtype(), DeviceKind::kCuda);
}

void requireSameCount(std::int64_t a, std::int64_t b, const char* what) {
  if (a != b) throw BackendError("CUDA backend", fmt::format("{}: {} values for a tensor of {}", what, a, b));
}

// What the pool holds for reuse beyond the memory in use, and what captured graphs hold for their
// steps' tensors: reserved, as a caching allocator's cache is (docs/memory.md). 0 without a pool,
// or when the pool cannot say.
std::int64_t poolCachedBytes(cudaMemPool_t pool, int device) {
  if (pool == nullptr) return 0;
  std::uint64_t reserved = 0, used = 0, graphs = 0;  // cuuint64_t, as the attributes take them
  if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess ||
      cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrReservedMemCurrent, &graphs) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    return 0;
  }
  return (reserved > used ? static_cast<std::int64_t>(reserved - used) : 0) + static_cast<std::int64_t>(graphs);
}

void requireCudaTensor(const Tensor& t) {
  if (t.device() != DeviceKind::kCuda) {
    throw BackendError("CUDA backend", fmt::format("a {} tensor {} reached it", deviceName(t.device()),
                                                   shapeText(t.shape())));
  }
}

}  // namespace

CudaBackend::CudaBackend(int device)
    : device_(device),
      tracker_(AllocationTracker::create(DeviceKind::kCuda, device, [held = buffer_bytes_, pool = pool_for_totals_, device] {
        return held->load(std::memory_order_relaxed) + poolCachedBytes(pool->load(std::memory_order_relaxed), device);
      })) {
  scratch_.countCapacityIn(buffer_bytes_);
  workspace_.countCapacityIn(buffer_bytes_);
  AMPSCOPE_CUDA_CHECK(cudaSetDevice(device_));
  cudaDeviceProp properties{};
  AMPSCOPE_CUDA_CHECK(cudaGetDeviceProperties(&properties, device_));
  if (const cudaError_t image = probeKernelImage(); image != cudaSuccess) {
    throw BackendError("CUDA", fmt::format("{} (compute capability {}.{}) cannot run this build's kernels, built for "
                                           "architectures {}: {}",
                                           properties.name, properties.major, properties.minor,
                                           AMPSCOPE_CUDA_ARCHITECTURES, cudaGetErrorString(image)));
  }

  cudaStream_t stream = nullptr;
  AMPSCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  stream_ = std::shared_ptr<CUstream_st>(stream, [](cudaStream_t s) { static_cast<void>(cudaStreamDestroy(s)); });
  for (UploadSlot& slot : upload_slots_) {
    cudaEvent_t event = nullptr;
    AMPSCOPE_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    slot.copied = decltype(slot.copied)(event);
  }
  // cudaFree waits for the whole device: freeing a step's tensors with it would stop the host at
  // every release. Stream-ordered allocation (cudaMallocAsync/cudaFreeAsync) from the device's
  // pool, which keeps what is freed for the next allocation, never waits (CUDA Programming Guide,
  // "Stream Ordered Memory Allocator").
  int pools_supported = 0;
  AMPSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&pools_supported, cudaDevAttrMemoryPoolsSupported, device_));
  if (pools_supported != 0) {
    AMPSCOPE_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool_, device_));
    std::uint64_t keep_everything = UINT64_MAX;
    AMPSCOPE_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep_everything));
    pool_for_totals_->store(pool_, std::memory_order_relaxed);
  }

  cublasHandle_t blas = nullptr;
  AMPSCOPE_CUBLAS_CHECK(cublasCreate(&blas));
  cublas_ = decltype(cublas_)(blas);
  AMPSCOPE_CUBLAS_CHECK(cublasSetStream(blas, stream));
  // Products accumulate in FP32 all the way: no FP16 split-K reductions, whatever C's type.
  AMPSCOPE_CUBLAS_CHECK(cublasSetMathMode(
      blas, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));

  cudnnHandle_t dnn = nullptr;
  AMPSCOPE_CUDNN_CHECK(cudnnCreate(&dnn));
  cudnn_ = decltype(cudnn_)(dnn);
  AMPSCOPE_CUDNN_CHECK(cudnnSetStream(dnn, stream));
  conv_plans_ = std::make_unique<ConvPlanCache>();

  int runtime_version = 0;
  AMPSCOPE_CUDA_CHECK(cudaRuntimeGetVersion(&runtime_version));
  int cublas_version = 0;
  AMPSCOPE_CUBLAS_CHECK(cublasGetVersion(blas, &cublas_version));
  description_ = fmt::format("{} (compute capability {}.{}, {} SMs, {:.0f} GiB; CUDA runtime {}, cuBLAS {}, cuDNN {})",
                             properties.name, properties.major, properties.minor, properties.multiProcessorCount,
                             static_cast<double>(properties.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0),
                             versionText(runtime_version, 1000, 10), versionText(cublas_version, 10000, 100),
                             versionText(static_cast<int>(cudnnGetVersion()), 10000, 100));
}

CudaBackend::~CudaBackend() {
  // Queued kernels may still use the scratch and workspace freed below.
  static_cast<void>(cudaStreamSynchronize(stream()));
}

ReadView CudaBackend::readView(const Tensor& t) {
  requireCudaTensor(t);
  return {t.raw(), t.dtype()};
}

WriteView CudaBackend::writeView(Tensor& t) {
  requireCudaTensor(t);
  return {t.raw(), t.dtype()};
}

void* CudaBackend::uploadStaging(std::size_t bytes) {
  UploadSlot& slot = upload_slots_[next_upload_ % kUploadSlots];
  AMPSCOPE_CUDA_CHECK(cudaEventSynchronize(slot.copied.get()));
  return slot.buffer.reserve(std::max<std::size_t>(bytes, 1));
}

void CudaBackend::uploadQueued() {
  AMPSCOPE_CUDA_CHECK(cudaEventRecord(upload_slots_[next_upload_ % kUploadSlots].copied.get(), stream()));
  ++next_upload_;
}

void CudaBackend::fetch(void* host, const void* device, std::size_t bytes) {
  if (bytes == 0) return;
  void* pinned = readStaging(bytes);
  AMPSCOPE_CUDA_CHECK(cudaMemcpyAsync(pinned, device, bytes, cudaMemcpyDeviceToHost, stream()));
  AMPSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream()));
  std::memcpy(host, pinned, bytes);
}

void CudaBackend::synchronize() { AMPSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream())); }

Tensor CudaBackend::allocate(const Shape& shape, DType dtype) {
  const std::size_t bytes = static_cast<std::size_t>(elementCount(shape)) * bytesPerElement(dtype, DeviceKind::kCuda);
  void* memory = deviceMemory(std::max<std::size_t>(bytes, 1));
  // The deleter may run after the backend is gone, so it holds the stream itself; it cannot
  // report a failure either.
  std::shared_ptr<void> owner;
  if (pool_ != nullptr) {
    owner = std::shared_ptr<void>(memory, [stream = stream_](void* p) {
      // A failed free (of memory a broken-off graph capture handed out) must not leave its error
      // for the next launch's check to report.
      if (cudaFreeAsync(p, stream.get()) != cudaSuccess) static_cast<void>(cudaGetLastError());
    });
  } else {
    owner = std::shared_ptr<void>(memory, [](void* p) { static_cast<void>(cudaFree(p)); });
  }
  if (tracker_->observed()) owner = AllocationTracker::track(tracker_, std::move(owner), static_cast<std::int64_t>(bytes));
  // Zeroed like the CPU backend's tensors (all-zero bits are 0 in every dtype).
  AMPSCOPE_CUDA_CHECK(cudaMemsetAsync(memory, 0, bytes, stream()));
  return Tensor(shape, dtype, DeviceKind::kCuda, std::move(owner));
}

void* CudaBackend::deviceMemory(std::size_t bytes) {
  void* memory = nullptr;
  if (pool_ == nullptr) {
    AMPSCOPE_CUDA_CHECK(cudaMalloc(&memory, bytes));
    return memory;
  }
  if (cudaMallocAsync(&memory, bytes, stream()) == cudaSuccess) return memory;
  // What the pool keeps for reuse goes back to the device, once the work that may still use it
  // is done, and the allocation is tried once more, as a caching allocator does before it reports
  // running out. A failure that is not the memory's is reported as it is, by the second try.
  static_cast<void>(cudaGetLastError());
  AMPSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream()));
  AMPSCOPE_CUDA_CHECK(cudaMemPoolTrimTo(pool_, 0));
  AMPSCOPE_CUDA_CHECK(cudaDeviceGraphMemTrim(device_));
  AMPSCOPE_CUDA_CHECK(cudaMallocAsync(&memory, bytes, stream()));
  return memory;
}

void CudaBackend::upload(std::span<const float> values, Tensor& dst) {
  requireSameCount(static_cast<std::int64_t>(values.size()), dst.numel(), "upload");
  const WriteView out = writeView(dst);
  const std::size_t bytes = storageBytes(dst);
  if (bytes == 0) return;
  // Rounded on the host with the CPU backend's own conversions, straight into pinned memory, so
  // the copy is one asynchronous DMA of the final bits.
  void* pinned = uploadStaging(bytes);
  switch (dst.dtype()) {
    case DType::kFp32: std::memcpy(pinned, values.data(), bytes); break;
    case DType::kFp16: {
      auto* bits = static_cast<std::uint16_t*>(pinned);
      for (std::size_t i = 0; i < values.size(); ++i) bits[i] = floatToHalfBits(values[i]);
      break;
    }
    case DType::kBf16: {
      auto* bits = static_cast<std::uint16_t*>(pinned);
      for (std::size_t i = 0; i < values.size(); ++i) bits[i] = floatToBf16Bits(values[i]);
      break;
    }
  }
  AMPSCOPE_CUDA_CHECK(cudaMemcpyAsync(out.data, pinned, bytes, cudaMemcpyHostToDevice, stream()));
  uploadQueued();
}

std::vector<float> CudaBackend::download(const Tensor& src) {
  const ReadView in = readView(src);
  std::vector<float> values(static_cast<std::size_t>(src.numel()));
  const std::size_t bytes = storageBytes(src);
  if (bytes == 0) return values;
  void* pinned = readStaging(bytes);
  AMPSCOPE_CUDA_CHECK(cudaMemcpyAsync(pinned, in.data, bytes, cudaMemcpyDeviceToHost, stream()));
  AMPSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream()));
  switch (src.dtype()) {
    case DType::kFp32: std::memcpy(values.data(), pinned, bytes); break;
    case DType::kFp16: {
      const auto* bits = static_cast<const std::uint16_t*>(pinned);
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = halfBitsToFloat(bits[i]);
      break;
    }
    case DType::kBf16: {
      const auto* bits = static_cast<const std::uint16_t*>(pinned);
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = bf16BitsToFloat(bits[i]);
      break;
    }
  }
  return values;
}

void CudaBackend::fill(Tensor& dst, float value) { launchFill(writeView(dst), dst.numel(), value, stream()); }

void CudaBackend::copy(const Tensor& src, Tensor& dst) {
  requireSameCount(src.numel(), dst.numel(), "copy");
  if (src.dtype() == dst.dtype()) {
    if (src.raw() == dst.raw()) return;
    AMPSCOPE_CUDA_CHECK(cudaMemcpyAsync(writeView(dst).data, readView(src).data, storageBytes(src),
                                        cudaMemcpyDeviceToDevice, stream()));
    return;
  }
  launchConvert(readView(src), writeView(dst), src.numel(), stream());
}

void CudaBackend::scale(Tensor& x, float factor) { launchScale(writeView(x), x.numel(), factor, stream()); }

}  // namespace cuda

std::unique_ptr<Backend> makeCudaBackend(std::string* why_not) {
  std::string reason;
  int count = 0;
  if (const cudaError_t status = cudaGetDeviceCount(&count); status != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    // cudart's words for "no driver" (cudaErrorInsufficientDriver: "CUDA driver version is
    // insufficient for CUDA runtime version") read like a broken install; on a machine without a
    // GPU they only mean that there is none.
    reason = status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice
                 ? fmt::format("no GPU: no NVIDIA driver or device here (cudaGetDeviceCount: {})", cudaGetErrorName(status))
                 : fmt::format("no usable GPU: cudaGetDeviceCount returned '{}'", cudaGetErrorString(status));
  } else if (count == 0) {
    reason = "no GPU: cudaGetDeviceCount found none";
  } else {
    int device = 0;
    try {
      AMPSCOPE_CUDA_CHECK(cudaGetDevice(&device));
      return std::make_unique<cuda::CudaBackend>(device);
    } catch (const std::exception& error) {
      reason = fmt::format("CUDA device {} is not usable: {}", device, error.what());
    }
  }
  if (why_not != nullptr) *why_not = std::move(reason);
  return nullptr;
}

int cudaDeviceCountOrZero() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    return 0;
  }
  return count;
}

}  // namespace ampscope::trainer
