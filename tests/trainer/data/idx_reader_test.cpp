#include "trainer/data/idx_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <array>
#include <filesystem>

#include "../../test_support.h"
#include "idx_test_files.h"

namespace ampscope::trainer {
namespace {

using test::idxBytes;

TEST(IdxReaderTest, ReadsDimensionsAndBytes) {
  test::ScratchDir dir;
  const std::string path = dir.write("images.idx", idxBytes({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  auto array = readIdxFile(path);
  ASSERT_TRUE(array.ok()) << array.error().message;
  EXPECT_EQ(array->dims, (std::vector<std::uint32_t>{2, 2, 3}));
  EXPECT_EQ(array->count(), 2u);
  EXPECT_EQ(array->data[11], 12);
}

TEST(IdxReaderTest, ReadsGzipCompressedFilesToo) {
  test::ScratchDir dir;
  const std::string bytes = idxBytes({3}, {7, 8, 9});
  const std::string path = dir.file("labels.idx.gz");
  test::writeGzip(path, bytes);
  auto array = readIdxFile(path);
  ASSERT_TRUE(array.ok()) << array.error().message;
  EXPECT_EQ(array->data, (std::vector<std::uint8_t>{7, 8, 9}));
}

TEST(IdxReaderTest, TruncatedFileNamesTheOffset) {
  test::ScratchDir dir;
  const std::string bytes = idxBytes({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const std::string path = dir.write("cut.idx", bytes.substr(0, bytes.size() - 3));
  auto array = readIdxFile(path);
  ASSERT_FALSE(array.ok());
  EXPECT_NE(array.error().message.find(path + ": truncated at byte offset 17"), std::string::npos)
      << array.error().message;
}

TEST(IdxReaderTest, WrongMagicOrTypeIsRefused) {
  test::ScratchDir dir;
  auto text = readIdxFile(dir.write("notes.txt", "hello world, not idx"));
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().message.find("not an IDX header"), std::string::npos);
  std::string floats = idxBytes({1}, {0, 0, 0, 0});
  floats[2] = 0x0d;
  auto typed = readIdxFile(dir.write("floats.idx", floats));
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.error().message.find("element type 0x0d"), std::string::npos);
  auto longer = readIdxFile(dir.write("long.idx", idxBytes({2}, {1, 2, 3})));
  ASSERT_FALSE(longer.ok());
  EXPECT_NE(longer.error().message.find("continues past"), std::string::npos);
  EXPECT_FALSE(readIdxFile(dir.file("missing.idx")).ok());
}

TEST(IdxReaderTest, FashionMnistTestSetHasTenBalancedClassesOf28x28Images) {
  const std::string images = std::string(kFashionMnistDir) + "/t10k-images-idx3-ubyte.gz";
  const std::string labels = std::string(kFashionMnistDir) + "/t10k-labels-idx1-ubyte.gz";
  if (!std::filesystem::exists(images)) GTEST_SKIP() << images << " not found: apt-get install dataset-fashion-mnist";
  auto x = readIdxFile(images);
  auto y = readIdxFile(labels);
  ASSERT_TRUE(x.ok()) << x.error().message;
  ASSERT_TRUE(y.ok()) << y.error().message;
  EXPECT_EQ(x->dims, (std::vector<std::uint32_t>{10000, 28, 28}));
  EXPECT_EQ(y->dims, (std::vector<std::uint32_t>{10000}));
  std::array<int, 10> per_class{};
  for (std::uint8_t label : y->data) {
    ASSERT_LT(label, 10);
    ++per_class[label];
  }
  for (int count : per_class) EXPECT_EQ(count, 1000);  // the test set is balanced
}

}  // namespace
}  // namespace ampscope::trainer
