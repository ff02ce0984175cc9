// Kineto / Chrome trace JSON through the public entry point, importTrace: the content sniffing,
// the streaming JSON reader (chrome_trace_stream.cpp), the event and value parsers, the range
// normaliser and the demangler all see the bytes.

#include <cstddef>
#include <cstdint>

#include "analyzer/import/trace_importer.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ampscope::fuzz::ScratchFile scratch(".json");
  auto trace = ampscope::analyzer::import::importTrace(scratch.write(data, size));
  if (trace) ampscope::fuzz::checkTrace(*trace);
  return 0;
}
