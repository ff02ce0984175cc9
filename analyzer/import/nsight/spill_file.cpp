#include "analyzer/import/nsight/spill_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace ampscope::analyzer::import {

std::unique_ptr<SpillFile> SpillFile::make() {
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string directory = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  std::string name = directory + "/ampscope-rows-XXXXXX";
  std::vector<char> path(name.begin(), name.end());
  path.push_back('\0');
  const int fd = mkstemp(path.data());
  if (fd < 0) return nullptr;
  unlink(path.data());  // the open descriptor keeps it until closed
  return std::unique_ptr<SpillFile>(new SpillFile(fd, directory));
}

SpillFile::~SpillFile() { close(fd_); }

bool SpillFile::write(const void* data, std::size_t bytes, Extent& at) {
  // Each write takes its own range of the file first, so writers never wait for each other.
  at = {.offset = end_.fetch_add(bytes), .bytes = bytes};
  const auto* from = static_cast<const char*>(data);
  for (std::size_t done = 0; done < bytes;) {
    const ssize_t wrote = pwrite(fd_, from + done, bytes - done, static_cast<off_t>(at.offset + done));
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    done += static_cast<std::size_t>(wrote);
  }
  return true;
}

trace::Status SpillFile::read(const Extent& at, void* into) const {
  auto* to = static_cast<char*>(into);
  for (std::size_t done = 0; done < at.bytes;) {
    const ssize_t got = pread(fd_, to + done, at.bytes - done, static_cast<off_t>(at.offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      return trace::Error{fmt::format("{}: reading back rows held in a temporary file failed: {}", directory_,
                                      got < 0 ? std::strerror(errno) : "the file is shorter than was written")};
    }
    done += static_cast<std::size_t>(got);
  }
  return {};
}

}  // namespace ampscope::analyzer::import
