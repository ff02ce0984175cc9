#pragma once
// Reads the values of a JSON document ampscope wrote (a rank's compact result) and names the key
// of the first value that is missing or of the wrong kind in its error ("rank3.json:
// rank_result.steps[2].start_ns is not an integer"), so that a bad result file says where. After
// the first error every read returns a default value and keeps that error.

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ampscope::reports {

class JsonReader {
 public:
  explicit JsonReader(std::string where) : where_(std::move(where)) {}
  const std::string& error() const { return error_; }
  bool ok() const { return error_.empty(); }

  const nlohmann::json* member(const nlohmann::json& object, const char* key, const std::string& path) {
    if (!ok()) return nullptr;
    if (!object.is_object()) return fail(path, "is not an object");
    const auto at = object.find(key);
    if (at == object.end()) return fail(path + "." + key, "is missing");
    return &*at;
  }
  // A member a document may lack (one written by an earlier version): nullptr where absent.
  const nlohmann::json* optionalMember(const nlohmann::json& object, const char* key, const std::string& path) {
    if (!ok()) return nullptr;
    if (!object.is_object()) return fail(path, "is not an object");
    const auto at = object.find(key);
    return at == object.end() ? nullptr : &*at;
  }
  template <typename Int>
  Int integer(const nlohmann::json& object, const char* key, const std::string& path) {
    const nlohmann::json* value = member(object, key, path);
    return value ? integerOf<Int>(*value, path + "." + key) : Int{};
  }
  // An integer or null (nullopt).
  template <typename Int>
  std::optional<Int> optionalInteger(const nlohmann::json& object, const char* key, const std::string& path) {
    const nlohmann::json* value = member(object, key, path);
    if (!value || value->is_null()) return std::nullopt;
    return integerOf<Int>(*value, path + "." + key);
  }
  double number(const nlohmann::json& object, const char* key, const std::string& path) {
    const nlohmann::json* value = member(object, key, path);
    return value ? numberOf(*value, path + "." + key) : 0.0;
  }
  // A number or null (nullopt).
  std::optional<double> optionalNumber(const nlohmann::json& object, const char* key, const std::string& path) {
    const nlohmann::json* value = member(object, key, path);
    if (!value || value->is_null()) return std::nullopt;
    return numberOf(*value, path + "." + key);
  }
  std::string text(const nlohmann::json& object, const char* key, const std::string& path) {
    const nlohmann::json* value = member(object, key, path);
    if (!value) return {};
    if (!value->is_string()) return fail(path + "." + key, "is not a string"), std::string{};
    return value->get<std::string>();
  }
  std::vector<std::string> texts(const nlohmann::json& object, const char* key, const std::string& path) {
    std::vector<std::string> out;
    const nlohmann::json* values = array(object, key, path);
    for (std::size_t i = 0; values && i < values->size() && ok(); ++i) {
      if (!(*values)[i].is_string()) {
        fail(fmt::format("{}.{}[{}]", path, key, i), "is not a string");
        break;
      }
      out.push_back((*values)[i].get<std::string>());
    }
    return out;
  }
  bool flag(const nlohmann::json& object, const char* key, const std::string& path) {
    const nlohmann::json* value = member(object, key, path);
    if (!value) return false;
    if (!value->is_boolean()) return fail(path + "." + key, "is not true or false"), false;
    return value->get<bool>();
  }
  const nlohmann::json* array(const nlohmann::json& object, const char* key, const std::string& path) {
    const nlohmann::json* value = member(object, key, path);
    if (value && !value->is_array()) return fail(path + "." + key, "is not an array");
    return value;
  }
  // A value of a fixed set by the name ampscope writes for it (name(e) for each e of all).
  template <typename Enum, std::size_t N, typename Name>
  Enum named(const nlohmann::json& object, const char* key, const std::string& path, const Enum (&all)[N], Name name) {
    const std::string value = text(object, key, path);
    for (Enum e : all) {
      if (value == name(e)) return e;
    }
    if (ok()) fail(path + "." + key, fmt::format("is \"{}\", not a value ampscope writes", value));
    return all[0];
  }
  std::nullptr_t fail(const std::string& path, const std::string& what) {
    if (ok()) error_ = fmt::format("{}: {} {}", where_, path, what);
    return nullptr;
  }

 private:
  template <typename Int>
  Int integerOf(const nlohmann::json& value, const std::string& path) {
    if (!value.is_number_integer()) return fail(path, "is not an integer"), Int{};
    if constexpr (std::is_unsigned_v<Int>) {
      if (value.is_number_unsigned()) return static_cast<Int>(value.get<std::uint64_t>());
      if (value.get<std::int64_t>() < 0) return fail(path, "is negative"), Int{};
    } else if (value.is_number_unsigned() &&
               value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return fail(path, "is out of range"), Int{};
    }
    const auto v = value.get<std::int64_t>();
    if (v < static_cast<std::int64_t>(std::numeric_limits<Int>::min()) ||
        (v > 0 && static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(std::numeric_limits<Int>::max()))) {
      return fail(path, "is out of range"), Int{};
    }
    return static_cast<Int>(v);
  }
  double numberOf(const nlohmann::json& value, const std::string& path) {
    if (!value.is_number()) return fail(path, "is not a number"), 0.0;
    const double v = value.get<double>();
    if (!std::isfinite(v)) return fail(path, "is not finite"), 0.0;
    return v;
  }

  std::string where_;
  std::string error_;
};

}  // namespace ampscope::reports
