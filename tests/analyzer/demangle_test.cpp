// Kernel names as people read them: importers demangle mangled symbols once and keep the symbol.

#include "analyzer/import/demangle.h"

#include <gtest/gtest.h>

#include "../test_support.h"
#include "analyzer/run_analysis.h"

namespace ampscope::analyzer::import {
namespace {

TEST(DemangleTest, MangledSymbolsAreDemangledAndOthersLeftAlone) {
  EXPECT_EQ(demangle("_ZN2at6native6kernelEv"), "at::native::kernel()");
  EXPECT_FALSE(demangle("volta_sgemm_128x64_nn").has_value());
  EXPECT_FALSE(demangle("_Znot-a-symbol").has_value());
  EXPECT_FALSE(demangle("").has_value());
}

TEST(DemangleTest, TheTraceKeepsTheMangledNameOfEachDemangledKernel) {
  trace::Trace trace;
  trace::Kernel k;
  k.name = trace.strings.intern("_ZN2at6native6kernelEv");
  trace.kernels.push_back(k);
  k.name = trace.strings.intern("volta_sgemm_128x64_nn");
  trace.kernels.push_back(k);
  demangleKernelNames(trace);
  EXPECT_EQ(trace.str(trace.kernels[0].name), "at::native::kernel()");
  EXPECT_EQ(trace.mangledName(trace.kernels[0].name), "_ZN2at6native6kernelEv");
  EXPECT_EQ(trace.str(trace.kernels[1].name), "volta_sgemm_128x64_nn");
  EXPECT_FALSE(trace.mangledName(trace.kernels[1].name).has_value());
}

// The shared nvprof trace names its kernels by mangled symbols (SOURCES.md): none is left mangled,
// and the kernel table keeps the symbol.
TEST(DemangleTest, NvprofKernelNamesAreReadable) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nvprof-v100-transformer-lm/net.sql");
  auto run = analyzeFile(path);
  ASSERT_TRUE(run) << run.error().message;
  std::size_t kept = 0;
  for (const KernelRow& row : run->summary.kernels) {
    EXPECT_FALSE(row.name.starts_with("_Z")) << row.name;
    if (!row.mangled_name.empty()) {
      EXPECT_TRUE(row.mangled_name.starts_with("_Z")) << row.mangled_name;
      ++kept;
    }
  }
  EXPECT_GT(kept, 0u);
}

}  // namespace
}  // namespace ampscope::analyzer::import
