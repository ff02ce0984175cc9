// Kineto / Chrome trace JSON through the public entry point, importTrace: the content sniffing,
// the streaming JSON reader (chrome_trace_stream.cpp), the event and value parsers, the range
// normaliser and the demangler all see the bytes.
//
// Then the same bytes through the Kineto importer three ways: mapped in small batches, where the
// events array is cut at guessed boundaries and parsed chunk by chunk; mapped in one batch,
// element by element; and through a read buffer, element by element. A guess taken for right
// when it is not would make the first differ from the second: they must give the same trace or
// the same error. The read buffer must agree on whether the file imports, and on its trace.
// (Its errors may word a malformed element differently: simdjson's on-demand parser reads past
// an element into the padding, which is the file's next bytes in a mapping and the next copied
// element in a buffer.)

#include <cstddef>
#include <cstdint>

#include "analyzer/import/byte_source.h"
#include "analyzer/import/kineto/kineto_importer.h"
#include "analyzer/import/trace_importer.h"
#include "fuzz_support.h"

namespace {

using ampscope::analyzer::import::ByteSource;

ampscope::trace::Result<ampscope::trace::Trace> importKinetoThrough(const std::string& path,
                                                                    ByteSource::PlainFileAccess access,
                                                                    std::size_t batch_bytes) {
  auto source = ByteSource::open(path, access);
  if (!source) return source.error();
  return ampscope::analyzer::import::importKineto(**source, {.progress = {}, .threads = 1}, batch_bytes);
}

void expectChunkedReadingAgrees(const std::string& path, std::size_t size, std::size_t batch_bytes) {
  using ampscope::fuzz::ScratchFile;
  const auto chunked = importKinetoThrough(path, ByteSource::PlainFileAccess::kMapWhereAllowed, batch_bytes);
  const auto whole = importKinetoThrough(path, ByteSource::PlainFileAccess::kMapWhereAllowed, size + 1);
  const auto buffered = importKinetoThrough(path, ByteSource::PlainFileAccess::kReadOnly, batch_bytes);
  if (chunked.ok() != whole.ok() || chunked.ok() != buffered.ok()) {
    ScratchFile::fail(std::string("the file imports ") + (chunked.ok() ? "" : "not ") + "in chunks, " +
                      (whole.ok() ? "" : "not ") + "in one batch, " + (buffered.ok() ? "" : "not ") +
                      "through a buffer");
  }
  if (!chunked.ok()) {
    if (chunked.error().message != whole.error().message) {
      ScratchFile::fail("read in chunks and in one batch, the file fails with different errors:\n" +
                        chunked.error().message + "\n" + whole.error().message);
    }
    return;
  }
  if (!ampscope::fuzz::sameTrace(*chunked, *whole) || !ampscope::fuzz::sameTrace(*chunked, *buffered)) {
    ScratchFile::fail("read in chunks, in one batch and through a buffer, the file gives different traces");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ampscope::fuzz::ScratchFile scratch(".json");
  const std::string& path = scratch.write(data, size);
  auto trace = ampscope::analyzer::import::importTrace(path);
  if (trace) ampscope::fuzz::checkTrace(*trace);
  // Chunks of a few elements, ending wherever the input's first byte puts them.
  const std::size_t batch_bytes = size == 0 ? 1 : 1 + data[0] % 97;
  expectChunkedReadingAgrees(path, size, batch_bytes);
  return 0;
}
