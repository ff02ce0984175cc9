#include "bench/synthetic_trace_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace ampscope::bench {

namespace {

// Name shapes seen in real mixed-precision traces; each is expanded with numbers into variants.
constexpr std::array<const char*, 8> kNameShapes = {
    "void at::native::vectorized_elementwise_kernel<{}, at::native::CUDAFunctor_add<c10::Half>, "
    "at::detail::Array<char*, {}> >(int, at::native::CUDAFunctor_add<c10::Half>, "
    "at::detail::Array<char*, {}>)",
    "ampere_fp16_s16816gemm_fp16_{}x{}_ldg8_f2f_stages_32x{}_nn",
    "sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize{}x{}x64_stage{}_"
    "warpsize2x2x1_g1_tensor16x8x16_kernel",
    "void cudnn::bn_fw_tr_1C11_kernel_NHWC<__half, float, {}, {}, true, {}>(cudnnTensorStruct, "
    "__half const*, cudnnTensorStruct, __half*, float const*, float const*, float, float, float*, "
    "float*, float*, float*, float, float)",
    "void at::native::reduce_kernel<{}, {}, at::native::ReduceOp<float, "
    "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()"
    "(at::TensorIterator&)::{{lambda(float, float)#1}}>, unsigned int, float, {}> >"
    "(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<"
    "float, float, float>::operator()(at::TensorIterator&)::{{lambda(float, float)#1}}>, "
    "unsigned int, float, 4>)",
    "void multi_tensor_apply_kernel<TensorListMetadata<{}>, AdamFunctor<c10::Half, {}>, float, "
    "float, float, float, float, float, adamMode_t, float>(long, int volatile*, "
    "TensorListMetadata<{}>, AdamFunctor<c10::Half, 4>, float, float, float, float, float, float, "
    "adamMode_t, float)",
    "void cutlass::Kernel<cutlass_80_tensorop_f16_s16816gemm_relu_f16_{}x{}_32x{}_tn_align8>"
    "(cutlass_80_tensorop_f16_s16816gemm_relu_f16_128x128_32x3_tn_align8::Params)",
    "void (anonymous namespace)::softmax_warp_forward<c10::Half, c10::Half, float, {}, {}, {}>"
    "(c10::Half*, c10::Half const*, int, int, int)",
};

std::vector<std::string> kernelNames(std::uint32_t count) {
  std::vector<std::string> names;
  names.reserve(count);
  for (std::uint32_t i = 0; names.size() < count; ++i) {
    const char* shape = kNameShapes[i % kNameShapes.size()];
    const std::uint32_t variant = i / static_cast<std::uint32_t>(kNameShapes.size());
    names.push_back(fmt::format(fmt::runtime(shape), 32u << (variant % 4), 64u << (variant % 3),
                                variant + 1));
  }
  return names;
}

}  // namespace

trace::Trace SyntheticTraceModel::build() const {
  trace::Trace out;
  out.format = trace::TraceFormat::kAmpscope;
  out.source_format = trace::TraceFormat::kKineto;
  out.format_detail = "synthetic benchmark trace";

  trace::Device& device = out.devices.emplace_back();
  device.id = 0;
  device.name = out.strings.intern("NVIDIA A100-SXM4-80GB");
  device.compute_major = 8;
  device.sm_count = 108;
  device.total_memory_bytes = 85'899'345'920;
  const trace::Index main_thread = out.threadIndex(4242, 4242);
  out.threads[static_cast<std::size_t>(main_thread)].name = out.strings.intern("python");

  std::vector<trace::StringId> name_ids;
  for (const std::string& name : kernelNames(kernel_names)) {
    name_ids.push_back(out.strings.intern(name));
  }
  const trace::StringId runtime_launch = out.strings.intern("cudaLaunchKernel");
  const trace::StringId driver_launch = out.strings.intern("cuLaunchKernel");

  out.kernels.reserve(kernels);
  if (launches) out.launches.reserve(kernels);

  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  constexpr std::array<std::uint32_t, 3> kStreams = {7, 13, 14};
  constexpr std::array<std::uint32_t, 4> kBlocks = {128, 256, 512, 1024};
  std::array<std::int64_t, kStreams.size()> stream_free_ns{};
  std::int64_t host_ns = 1'700'000'000'000'000'000;  // an epoch time, like a real trace
  for (std::uint64_t i = 0; i < kernels; ++i) {
    const double u = unit(random);
    // Skewed mix: a few kernels (elementwise, GEMM) dominate, as in real training steps.
    const auto name_index =
        static_cast<std::size_t>(std::pow(u, 3.0) * static_cast<double>(kernel_names));
    const std::uint64_t correlation = i + 1;
    const std::int64_t launch_ns = 2'000 + static_cast<std::int64_t>(random() % 6'000);
    if (launches) {
      trace::LaunchCall& l = out.launches.emplace_back();
      l.start_ns = host_ns;
      l.end_ns = host_ns + launch_ns;
      l.correlation_id = correlation;
      const bool driver = random() % 20 == 0;
      l.name = driver ? driver_launch : runtime_launch;
      l.thread = main_thread;
      l.cbid = driver ? 307 : 211;
      l.api = driver ? trace::ApiKind::kDriver : trace::ApiKind::kRuntime;
    }
    const std::size_t stream = random() % 10 < 8 ? 0 : 1 + random() % 2;
    trace::Kernel& k = out.kernels.emplace_back();
    k.start_ns = std::max(host_ns + launch_ns + 3'000, stream_free_ns[stream]);
    k.end_ns = k.start_ns + 1'500 + static_cast<std::int64_t>(std::pow(unit(random), 4.0) * 2e6);
    stream_free_ns[stream] = k.end_ns;
    k.correlation_id = correlation;
    k.name = name_ids[name_index];
    k.device = 0;
    k.stream = kStreams[stream];
    // A kernel's launch configuration follows from its name and the input shape; a model has
    // few shapes, so configurations repeat every step (2-6 % distinct in the shared traces).
    const auto shape = static_cast<std::uint32_t>(random() % 4);
    const auto config_seed = static_cast<std::uint32_t>(name_index * 7919u + shape * 104729u);
    k.grid = {1u + config_seed % 4096, 1u + shape, 1};
    k.block = {kBlocks[config_seed % kBlocks.size()], 1, 1};
    k.registers_per_thread = 16 + config_seed % 240;
    k.shared_memory_bytes = (config_seed / 7 % 4) * 16384;
    host_ns += launch_ns + static_cast<std::int64_t>(random() % 20'000);
  }
  out.import_stats.events_read = out.eventCount();
  out.import_stats.events_imported = out.eventCount();
  return out;
}

}  // namespace ampscope::bench
