#include "reports/rank_result_json.h"

#include <optional>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analyzer/job/rank_result_fields.h"
#include "reports/enum_values.h"
#include "reports/json_reader.h"

namespace ampscope::reports {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// Each enum a result holds: the name ampscope writes for a value, and every value, to read a
// name back (JsonReader::named).
template <typename E>
struct Words {
  static constexpr bool kNamed = false;
};
#define AMPSCOPE_ENUM_WORDS(Type, values, name_of)                       \
  template <>                                                            \
  struct Words<Type> {                                                   \
    static constexpr bool kNamed = true;                                 \
    static constexpr const auto& kAll = values;                          \
    static const char* name(Type value) { return name_of(value); }      \
  }
AMPSCOPE_ENUM_WORDS(analyzer::RankOrigin, enum_values::kOrigins, analyzer::rankOriginName);
AMPSCOPE_ENUM_WORDS(analyzer::CollectiveKind, enum_values::kCollectiveKinds, analyzer::collectiveKindName);
AMPSCOPE_ENUM_WORDS(analyzer::MathPrecision, enum_values::kPrecisions, analyzer::precisionName);
AMPSCOPE_ENUM_WORDS(analyzer::Severity, enum_values::kSeverities, analyzer::severityName);
AMPSCOPE_ENUM_WORDS(analyzer::TensorCoreUse, enum_values::kTensorCoreUses, analyzer::tensorCoreUseName);
AMPSCOPE_ENUM_WORDS(analyzer::Confidence, enum_values::kConfidences, analyzer::confidenceName);
AMPSCOPE_ENUM_WORDS(analyzer::RooflineBound, enum_values::kBounds, analyzer::roofBoundName);
AMPSCOPE_ENUM_WORDS(trace::Phase, enum_values::kPhases, trace::phaseName);
AMPSCOPE_ENUM_WORDS(analyzer::LayerState, enum_values::kLayerStates, analyzer::layerStateName);
AMPSCOPE_ENUM_WORDS(analyzer::OpClass, enum_values::kOpClasses, analyzer::opClassName);
AMPSCOPE_ENUM_WORDS(analyzer::WorkBasis, enum_values::kWorkBases, analyzer::workBasisName);
AMPSCOPE_ENUM_WORDS(analyzer::AmpChange, enum_values::kAmpChanges, analyzer::ampChangeName);
#undef AMPSCOPE_ENUM_WORDS

// A job holds one collective call per collective kernel of every rank: each is written as a row,
// [kind, start_ns, end_ns, group], not an object, its last field left out where it is its default
// (no group recorded).
template <typename T>
constexpr bool kWrittenAsRow = std::is_same_v<T, analyzer::CollectiveCall>;

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

// ---- Writing

template <typename T>
ordered_json toJson(const T& value);

// The fields of a value in the order forEachField lists them, as JSON values.
template <typename T>
std::vector<std::pair<const char*, ordered_json>> fieldValues(const T& value) {
  std::vector<std::pair<const char*, ordered_json>> out;
  analyzer::forEachField(value, [&](const char* key, const auto& member, bool = false) { out.emplace_back(key, toJson(member)); });
  return out;
}

template <typename T>
ordered_json toJson(const T& value) {
  if constexpr (Words<T>::kNamed) {
    return Words<T>::name(value);
  } else if constexpr (IsOptional<T>::value) {
    return value ? toJson(*value) : ordered_json(nullptr);
  } else if constexpr (IsVector<T>::value) {
    ordered_json items = ordered_json::array();
    for (const auto& item : value) items.push_back(toJson(item));
    return items;
  } else if constexpr (kWrittenAsRow<T>) {
    auto fields = fieldValues(value);
    if (!fields.empty() && fields.back().second == fieldValues(T{}).back().second) fields.pop_back();
    ordered_json row = ordered_json::array();
    for (auto& [key, field] : fields) row.push_back(std::move(field));
    return row;
  } else if constexpr (std::is_class_v<T> && !std::is_same_v<T, std::string>) {
    ordered_json object = ordered_json::object();
    for (auto& [key, field] : fieldValues(value)) object[key] = std::move(field);
    return object;
  } else {
    return ordered_json(value);  // a number, a flag, a text
  }
}

// ---- Reading

// Checks of a value read whole, beyond the kind of each field: none by default.
template <typename T>
void checkRead(JsonReader&, T&, const json&, const std::string&) {}

// Timestamps beyond 2^62 ns (the year 2116 from the epoch) are corrupt: refused, so that the
// differences the job takes between ranks cannot overflow.
void checkTime(JsonReader& in, std::int64_t ns, const std::string& path) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 62;
  if (in.ok() && (ns > kLimit || ns < -kLimit)) in.fail(path, fmt::format("is {}, beyond 2^62 ns", ns));
}

template <typename Span>
void checkSpan(JsonReader& in, const Span& span, const std::string& path) {
  if (in.ok() && span.end_ns < span.start_ns) in.fail(path, "ends before it starts");
  checkTime(in, span.start_ns, path + ".start_ns");
  checkTime(in, span.end_ns, path + ".end_ns");
}
void checkRead(JsonReader& in, analyzer::StepSplit& step, const json&, const std::string& path) { checkSpan(in, step, path); }
void checkRead(JsonReader& in, analyzer::CollectiveCall& call, const json&, const std::string& path) {
  checkSpan(in, call, path);
}
// Results written before the verdict had a host value said "host": true beside "tensor_core".
void checkRead(JsonReader& in, analyzer::KernelLine& kernel, const json& object, const std::string& path) {
  const json* host = in.optionalMember(object, "host", path);
  if (host && host->is_boolean() && host->get<bool>()) kernel.tensor_core = analyzer::TensorCoreUse::kHost;
}

template <typename T>
void readFields(JsonReader& in, const json& object, const std::string& path, T& out, bool absent_is_default = false);

template <typename T>
void readObject(JsonReader& in, const json& value, const std::string& path, T& out) {
  if constexpr (kWrittenAsRow<T>) {
    std::vector<const char*> keys;
    analyzer::forEachField(out, [&](const char* key, const auto&, bool = false) { keys.push_back(key); });
    if (!value.is_array() || value.size() + 1 < keys.size() || value.size() > keys.size()) {
      const auto joined = [&](std::size_t n) {
        return fmt::format("{}", fmt::join(std::vector<const char*>(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n)), ", "));
      };
      in.fail(path, fmt::format("is not [{}] or [{}]", joined(keys.size() - 1), joined(keys.size())));
      return;
    }
    json object = json::object();
    for (std::size_t i = 0; i < value.size(); ++i) object[keys[i]] = value[i];
    readFields(in, object, path, out, true);
  } else {
    readFields(in, value, path, out);
  }
}

template <typename M>
void readMember(JsonReader& in, const json& object, const char* key, const std::string& path, M& out) {
  if constexpr (Words<M>::kNamed) {
    out = in.named(object, key, path, Words<M>::kAll, Words<M>::name);
  } else if constexpr (std::is_same_v<M, bool>) {
    out = in.flag(object, key, path);
  } else if constexpr (std::is_integral_v<M>) {
    out = in.integer<M>(object, key, path);
  } else if constexpr (std::is_same_v<M, double>) {
    out = in.number(object, key, path);
  } else if constexpr (std::is_same_v<M, std::string>) {
    out = in.text(object, key, path);
  } else if constexpr (std::is_same_v<M, std::optional<double>>) {
    out = in.optionalNumber(object, key, path);
  } else if constexpr (IsOptional<M>::value) {
    if constexpr (std::is_integral_v<typename M::value_type>) {
      out = in.optionalInteger<typename M::value_type>(object, key, path);
    } else {
      const json* value = in.member(object, key, path);
      if (!value || value->is_null()) return;
      out.emplace();
      readObject(in, *value, path + "." + key, *out);
    }
  } else if constexpr (std::is_same_v<M, std::vector<std::string>>) {
    out = in.texts(object, key, path);
  } else if constexpr (IsVector<M>::value) {
    const json* items = in.array(object, key, path);
    for (std::size_t i = 0; items && i < items->size() && in.ok(); ++i) {
      readObject(in, (*items)[i], fmt::format("{}.{}[{}]", path, key, i), out.emplace_back());
    }
  } else {
    if (const json* value = in.member(object, key, path)) readObject(in, *value, path + "." + key, out);
  }
}

// absent_is_default: a field the object lacks keeps its default (a row's left-out last field).
template <typename T>
void readFields(JsonReader& in, const json& object, const std::string& path, T& out, bool absent_is_default) {
  analyzer::forEachField(out, [&](const char* key, auto& member, bool added_later = false) {
    if ((added_later || absent_is_default) && !in.optionalMember(object, key, path)) return;
    readMember(in, object, key, path, member);
  });
  if (in.ok()) checkRead(in, out, object, path);
}

}  // namespace

ordered_json rankResultToJson(const analyzer::RankResult& rank) { return toJson(rank); }

trace::Result<analyzer::RankResult> rankResultFromJson(const json& value, const std::string& where) {
  JsonReader in(where);
  analyzer::RankResult out;
  readObject(in, value, "rank_result", out);
  if (!in.ok()) return trace::Error{in.error()};
  return out;
}

}  // namespace ampscope::reports
