#pragma once
// Lays out real CUPTI activity records the way CUPTI fills a buffer: one after another, each at
// an 8-byte boundary (ACTIVITY_RECORD_ALIGNMENT), and tells FakeCuptiApi where they start.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "tests/collector/cupti/fake_cupti_api.h"

namespace ampscope::collector {

class ActivityBufferBuilder {
 public:
  template <typename Record>
  ActivityBufferBuilder& add(const Record& record) {
    const std::size_t offset = (bytes_.size() + 7) / 8 * 8;
    bytes_.resize(offset + sizeof(Record));
    std::memcpy(bytes_.data() + offset, &record, sizeof(Record));
    layout_.offsets.push_back(offset);
    return *this;
  }
  // Records added from now on cannot be read (CUPTI_ERROR_INVALID_KIND).
  ActivityBufferBuilder& unreadableFromHere() {
    layout_.unreadable_from = layout_.offsets.size();
    return *this;
  }

  std::size_t validBytes() const { return bytes_.size(); }

  // Copies the records into buffer (as CUPTI would fill a lent one) and describes it to fake.
  std::size_t writeTo(std::uint8_t* buffer, std::size_t capacity, FakeCuptiApi& fake) const {
    if (bytes_.size() > capacity) throw std::length_error("records do not fit the buffer");
    std::memcpy(buffer, bytes_.data(), bytes_.size());
    fake.describe(buffer, layout_);
    return bytes_.size();
  }

 private:
  std::vector<std::uint8_t> bytes_;
  FakeCuptiApi::Layout layout_;
};

// A completed buffer owned by the test, 8-byte aligned as CUPTI's are.
class OwnedActivityBuffer {
 public:
  OwnedActivityBuffer(const ActivityBufferBuilder& builder, FakeCuptiApi& fake)
      : words_(std::make_unique<std::uint64_t[]>(builder.validBytes() / 8 + 1)),
        valid_bytes_(builder.writeTo(data(), (builder.validBytes() / 8 + 1) * 8, fake)) {}

  std::uint8_t* data() { return reinterpret_cast<std::uint8_t*>(words_.get()); }
  std::size_t validBytes() const { return valid_bytes_; }

 private:
  std::unique_ptr<std::uint64_t[]> words_;
  std::size_t valid_bytes_;
};

}  // namespace ampscope::collector
