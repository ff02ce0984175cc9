#pragma once
// A gzip file's whole content, for tests that read a shared trace with another parser than
// ampscope's; "" where the file cannot be opened.

#include <zlib.h>

#include <string>

namespace ampscope::test {

inline std::string gunzipFile(const std::string& path) {
  gzFile gz = gzopen(path.c_str(), "rb");
  std::string out;
  if (gz == nullptr) return out;
  char buffer[1 << 16];
  int got = 0;
  while ((got = gzread(gz, buffer, sizeof(buffer))) > 0) out.append(buffer, static_cast<std::size_t>(got));
  gzclose(gz);
  return out;
}

}  // namespace ampscope::test
