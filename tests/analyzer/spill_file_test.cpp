// The spill file holds the rows of an export's processes that wait for their turn: what goes in
// must come back unchanged, whichever threads write it, and a failure to read it back is an error
// that says where, never a silently short trace.

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "../test_support.h"
#include "analyzer/import/nsight/nsys_table_slice.h"
#include "analyzer/import/nsight/spill_file.h"

namespace ampscope::analyzer::import {
namespace {

TEST(SpillFileTest, WhatThreadsWriteAtOnceComesBackUnchanged) {
  const std::unique_ptr<SpillFile> file = SpillFile::make();
  ASSERT_NE(file, nullptr);
  constexpr int kThreads = 4;
  constexpr int kWrites = 50;
  std::vector<std::vector<SpillFile::Extent>> extents(kThreads, std::vector<SpillFile::Extent>(kWrites));
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int w = 0; w < kWrites; ++w) {
        std::vector<std::int64_t> values(static_cast<std::size_t>(100 + w));
        std::iota(values.begin(), values.end(), std::int64_t{t} * 1000000 + w * 1000);
        EXPECT_TRUE(file->write(values.data(), values.size() * sizeof(std::int64_t), extents[t][w]));
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  std::uint64_t written = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (int w = 0; w < kWrites; ++w) {
      const SpillFile::Extent& at = extents[t][w];
      ASSERT_EQ(at.bytes, (100u + w) * sizeof(std::int64_t));
      written += at.bytes;
      std::vector<std::int64_t> back(at.bytes / sizeof(std::int64_t));
      ASSERT_TRUE(file->read(at, back.data()));
      for (std::size_t i = 0; i < back.size(); ++i) {
        ASSERT_EQ(back[i], std::int64_t{t} * 1000000 + w * 1000 + static_cast<std::int64_t>(i)) << t << " " << w;
      }
    }
  }
  EXPECT_EQ(file->size(), written);
}

TEST(SpillFileTest, ASliceSpilledAndRestoredHasItsRowsAndNamesBackAndItsMemoryMeanwhileFreed) {
  const std::unique_ptr<SpillFile> file = SpillFile::make();
  ASSERT_NE(file, nullptr);
  TableSlice<NvtxRow> slice;
  for (std::int64_t i = 0; i < 100000; ++i) {
    const trace::StringId name = slice.names.intern("aten::mm, op_id = " + std::to_string(i % 5000));
    slice.rows.push_back({.start_ns = i, .end_ns = 2 * i, .name = kSliceName | name,
                          .thread = static_cast<trace::Index>(i % 3), .category = 5, .domain = 0});
  }
  const trace::StringTable names = slice.names;
  packNames(slice);
  EXPECT_EQ(slice.names.size(), 1u);  // the table freed once packed
  const auto before = slice.rows;
  const PackedStrings packed_before = slice.packed_names;
  spillSlice(*file, slice);
  ASSERT_TRUE(slice.spilled.has_value());
  EXPECT_TRUE(slice.rows.empty());
  EXPECT_EQ(slice.rows.capacity(), 0u);
  EXPECT_EQ(slice.packed_names.chars.capacity(), 0u);
  EXPECT_EQ(slice.packed_names.lengths.capacity(), 0u);
  EXPECT_EQ(slice.packed_names.hashes.capacity(), 0u);
  ASSERT_TRUE(restoreSlice(*file, slice));
  EXPECT_FALSE(slice.spilled.has_value());
  ASSERT_EQ(slice.rows.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    ASSERT_EQ(slice.rows[i].start_ns, before[i].start_ns);
    ASSERT_EQ(slice.rows[i].end_ns, before[i].end_ns);
    ASSERT_EQ(slice.rows[i].name, before[i].name);
    ASSERT_EQ(slice.rows[i].thread, before[i].thread);
  }
  EXPECT_EQ(slice.packed_names.chars, packed_before.chars);
  EXPECT_EQ(slice.packed_names.lengths, packed_before.lengths);
  EXPECT_EQ(slice.packed_names.hashes, packed_before.hashes);
  // The names come back as the table had them: id by id, with their hashes.
  ASSERT_EQ(slice.packed_names.size() + 1, names.size());
  trace::StringId id = 1;
  slice.packed_names.forEach([&](std::string_view text, std::uint32_t hash) {
    EXPECT_EQ(text, names.view(id));
    EXPECT_EQ(hash, names.hashAt(id));
    ++id;
  });
  EXPECT_EQ(id, names.size());
}

TEST(SpillFileTest, ASliceOfNamesAloneIsSpilledAndRestoredToo) {
  // NVTX domain creations name a domain without making a row.
  const std::unique_ptr<SpillFile> file = SpillFile::make();
  ASSERT_NE(file, nullptr);
  TableSlice<NvtxRow> slice;
  slice.names.intern("my domain");
  packNames(slice);
  spillSlice(*file, slice);
  ASSERT_TRUE(slice.spilled.has_value());
  EXPECT_TRUE(slice.packed_names.empty());
  ASSERT_TRUE(restoreSlice(*file, slice));
  ASSERT_EQ(slice.packed_names.size(), 1u);
  slice.packed_names.forEach([](std::string_view text, std::uint32_t hash) {
    EXPECT_EQ(text, "my domain");
    EXPECT_EQ(hash, trace::StringTable::hashOf("my domain"));
  });
}

TEST(SpillFileTest, ReadingPastWhatWasWrittenIsAnErrorNamingTheDirectory) {
  const std::unique_ptr<SpillFile> file = SpillFile::make();
  ASSERT_NE(file, nullptr);
  SpillFile::Extent at;
  const std::int64_t value = 42;
  ASSERT_TRUE(file->write(&value, sizeof value, at));
  std::vector<char> room(4096);
  const trace::Status read = file->read({.offset = at.offset, .bytes = room.size()}, room.data());
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("temporary file"), std::string::npos) << read.error().message;
}

TEST(SpillFileTest, NoneIsMadeInADirectoryThatDoesNotExist) {
  const test::ScopedEnvironmentVariable missing("TMPDIR", "/nonexistent-ampscope-test-directory");
  EXPECT_EQ(SpillFile::make(), nullptr);
}

}  // namespace
}  // namespace ampscope::analyzer::import
