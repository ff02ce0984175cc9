// The device table file parser (analyzer/core/device_rows_file.cpp): the bytes are a device table file.
// A file that parses has rows with every field set as the analysis reads them.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "analyzer/core/device_rows_file.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto rows = ampscope::analyzer::parseDeviceRows(text, "fuzz.tsv");
  if (!rows) return 0;
  for (const auto& row : *rows) {
    // What the parser promises of every row it returns.
    if (row.spec.name.empty() || row.spec.sources.empty() || row.family.empty() || row.spec.sm_count <= 0 ||
        !(row.spec.memory_gbs > 0) || !(row.spec.fp32_tflops > 0) || row.deviceMemoryGb() < 0) {
      std::abort();
    }
  }
  return 0;
}
