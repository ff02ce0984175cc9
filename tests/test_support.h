#pragma once
// Shared test plumbing: where the real traces and the fixtures are, and scratch files.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <unistd.h>

namespace ampscope::test {

// The path of a file under ../shared/traces, or "" when the folder is absent (tests then skip).
inline std::string sharedTrace(const std::string& relative) {
  const std::filesystem::path path = std::filesystem::path(AMPSCOPE_SHARED_TRACES) / relative;
  return std::filesystem::exists(path) ? path.string() : std::string();
}

#define AMPSCOPE_REQUIRE_SHARED_TRACE(var, relative)                                         \
  const std::string var = ::ampscope::test::sharedTrace(relative);                           \
  if (var.empty()) GTEST_SKIP() << "shared trace " << (relative) << " not found under "     \
                                << AMPSCOPE_SHARED_TRACES << "; set AMPSCOPE_SHARED_TRACES"

inline std::string testData(const std::string& relative) {
  return (std::filesystem::path(AMPSCOPE_TEST_DATA_DIR) / relative).string();
}

// A scratch directory removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    // The pid too: one test source built into two binaries (the CPU and CUDA layer attribution
    // tests) runs the same test name in two processes at once under ctest -j.
    path_ = std::filesystem::temp_directory_path() /
            (std::string("ampscope_test_") + info->test_suite_name() + "_" + info->name() + "_" +
             std::to_string(getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& content) const {
    const std::string path = file(name);
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }

 private:
  std::filesystem::path path_;
};

// Sets an environment variable for the life of the object and puts back what it was.
class ScopedEnvironmentVariable {
 public:
  ScopedEnvironmentVariable(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* was = std::getenv(name_.c_str())) was_ = was;
    setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnvironmentVariable() {
    if (was_) {
      setenv(name_.c_str(), was_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedEnvironmentVariable(const ScopedEnvironmentVariable&) = delete;
  ScopedEnvironmentVariable& operator=(const ScopedEnvironmentVariable&) = delete;

 private:
  std::string name_;
  std::optional<std::string> was_;
};

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace ampscope::test
