#include "analyzer/verdicts/tensor_core_rules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <optional>
#include <utility>

#include "analyzer/tensor_core_rules_data.h"  // generated from rules/tensor_core_rules.tsv
#include "analyzer/core/tsv_lines.h"

namespace ampscope::analyzer {

namespace {

constexpr std::string_view kVersionPrefix = "# ampscope tensor core rules, version ";
constexpr std::string_view kCaseInsensitive = "(?i)";
// RE2 has no lookahead: a row that needs two tokens anywhere in the name, in either order, joins
// two expressions that must both match.
constexpr std::string_view kAllOf = " && ";
constexpr std::array<std::string_view, 8> kColumns = {
    "id", "pattern", "architecture", "precision", "verdict", "confidence", "example", "note"};
enum Column : std::size_t {
  kId, kPattern, kArchitecture, kPrecision, kVerdict, kConfidence, kExample, kNote };

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

template <typename T, std::size_t N>
std::string allowedNames(const std::array<std::pair<T, std::string_view>, N>& names) {
  std::string out;
  for (const auto& [value, name] : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}


// What any match of an expression must contain, read from the expression itself: each group lists
// literals of which a match holds at least one. A substring search skips most rows before RE2
// runs (measured in docs/tensor_core_rules.md, "Speed"). The reading is conservative: whatever it
// does not understand adds no requirement.
class RequiredLiterals {
 public:
  explicit RequiredLiterals(std::string_view pattern) : p_(pattern) {}
  std::vector<std::vector<std::string>> read() {
    Needs needs = alternation();
    return unreadable_ ? Needs{} : needs;
  }

 private:
  using Needs = std::vector<std::vector<std::string>>;
  static constexpr std::size_t kMinLiteral = 3;  // shorter literals filter too little

  static std::size_t shortest(const std::vector<std::string>& any_of) {
    std::size_t size = std::string::npos;
    for (const std::string& literal : any_of) size = std::min(size, literal.size());
    return size;
  }

  bool more() const { return i_ < p_.size() && p_[i_] != '|' && p_[i_] != ')'; }

  // Consumes a quantifier, if any; true when it allows zero repetitions.
  bool quantifier() {
    if (i_ >= p_.size()) return false;
    const char q = p_[i_];
    bool optional = q == '*' || q == '?';
    if (q == '{') {
      optional = i_ + 1 < p_.size() && p_[i_ + 1] == '0';
      i_ = std::min(p_.find('}', i_), p_.size() - 1);
    } else if (q != '+' && !optional) {
      return false;
    }
    ++i_;
    if (i_ < p_.size() && p_[i_] == '?') ++i_;  // lazy
    return optional;
  }

  Needs alternation() {
    std::vector<Needs> branches{sequence()};
    while (i_ < p_.size() && p_[i_] == '|') {
      ++i_;
      branches.push_back(sequence());
    }
    if (branches.size() == 1) return branches.front();
    std::vector<std::string> any_of;  // one requirement per branch, the most selective
    for (const Needs& branch : branches) {
      const auto best = std::max_element(branch.begin(), branch.end(),
                                         [](const auto& a, const auto& b) {
                                           return shortest(a) < shortest(b);
                                         });
      if (best == branch.end()) return {};
      any_of.insert(any_of.end(), best->begin(), best->end());
    }
    return {any_of};
  }

  Needs sequence() {
    Needs needs;
    std::string run;
    const auto flush = [&] {
      if (run.size() >= kMinLiteral) needs.push_back({run});
      run.clear();
    };
    while (more()) {
      const char c = p_[i_++];
      if (c == '(') {
        flush();
        bool counts = true;
        if (p_.substr(i_, 1) == "?") {  // (?:...), (?P<name>...), (?i:...) or a flag switch (?i)
          const bool group = p_.substr(i_, 2) == "?:" || p_.substr(i_, 2) == "?P";
          counts = group;  // flags change what matches (case): literals under them are not required
          while (i_ < p_.size() && p_[i_] != ':' && p_[i_] != ')' && p_[i_] != '>') ++i_;
          // "(?i)" inside a pattern changes every literal after it: read nothing from such a pattern.
          if (i_ < p_.size() && p_[i_] == ')') unreadable_ = true;
          if (i_ < p_.size() && p_[i_] != ')') ++i_;
        }
        Needs inner = alternation();
        if (i_ < p_.size()) ++i_;  // ')'
        if (!quantifier() && counts) needs.insert(needs.end(), inner.begin(), inner.end());
      } else if (c == '[') {
        flush();
        if (i_ < p_.size() && p_[i_] == '^') ++i_;
        if (i_ < p_.size() && p_[i_] == ']') ++i_;  // "[]...]" keeps a literal ']'
        while (i_ < p_.size() && p_[i_] != ']') i_ += p_[i_] == '\\' ? 2 : 1;
        ++i_;
        quantifier();
      } else if (c == '.' || c == '^' || c == '$' ||
                 (c == '\\' && i_ < p_.size() &&
                  std::isalnum(static_cast<unsigned char>(p_[i_])))) {
        flush();  // classes (\w, \d), assertions, back-references and \x/\u codes: no literal
        if (c == '\\' && std::isdigit(static_cast<unsigned char>(p_[i_]))) {
          while (i_ < p_.size() && std::isdigit(static_cast<unsigned char>(p_[i_]))) ++i_;
        } else if (c == '\\') {
          i_ += p_[i_] == 'x' ? 3 : p_[i_] == 'u' ? 5 : p_[i_] == 'c' ? 2 : 1;
        }
        quantifier();
      } else {
        const char literal = c == '\\' && i_ < p_.size() ? p_[i_++] : c;
        const std::size_t before = i_;
        const bool optional = quantifier();
        if (!optional) run += literal;
        if (i_ != before) flush();  // a repeated or optional character ends the run
      }
    }
    flush();
    return needs;
  }

  std::string_view p_;
  std::size_t i_ = 0;
  bool unreadable_ = false;
};

class RuleFileParser {
 public:
  explicit RuleFileParser(std::string_view source) : source_(source) {}

  trace::Error error(int line, std::size_t column, const std::string& what) const {
    return trace::Error{fmt::format("{}:{}:{}: {}", source_, line, column, what)};
  }

  // The first line names the format and carries the rule-set version.
  trace::Result<int> parseVersion(std::string_view line) const {
    const std::string expected = fmt::format("\"{}N\" with N a positive integer", kVersionPrefix);
    if (line.substr(0, kVersionPrefix.size()) != kVersionPrefix) {
      return error(1, 1, fmt::format("found \"{}\", expected the header {}", line, expected));
    }
    const std::string_view digits = line.substr(kVersionPrefix.size());
    int version = 0;
    const auto [end, code] = std::from_chars(digits.data(), digits.data() + digits.size(), version);
    if (code != std::errc() || end != digits.data() + digits.size() || version <= 0) {
      return error(1, kVersionPrefix.size() + 1,
                   fmt::format("found version \"{}\", expected {}", digits, expected));
    }
    return version;
  }

  trace::Status checkColumnHeader(int line_number, const TsvFields& line) const {
    for (std::size_t i = 0; i < kColumns.size(); ++i) {
      if (i >= line.fields.size()) {
        return error(line_number, line.columns.back() + line.fields.back().size(),
                     fmt::format("the column header ends after {} columns, expected column "
                                 "\"{}\" next (columns: {})", line.fields.size(), kColumns[i],
                                 fmt::join(kColumns, ", ")));
      }
      if (line.fields[i] != kColumns[i]) {
        return error(line_number, line.columns[i],
                     fmt::format("found column \"{}\", expected \"{}\" (columns: {})",
                                 line.fields[i], kColumns[i], fmt::join(kColumns, ", ")));
      }
    }
    if (line.fields.size() > kColumns.size()) {
      return error(line_number, line.columns[kColumns.size()],
                   fmt::format("found an extra column \"{}\", expected {} columns",
                               line.fields[kColumns.size()], kColumns.size()));
    }
    return {};
  }

  template <typename T, std::size_t N>
  trace::Status parseName(int line_number, const TsvFields& line, Column column,
                          const std::array<std::pair<T, std::string_view>, N>& names,
                          T& out) const {
    for (const auto& [value, name] : names) {
      if (line.fields[column] == name) {
        out = value;
        return {};
      }
    }
    return error(line_number, line.columns[column],
                 fmt::format("found {} \"{}\", expected one of {}", kColumns[column],
                             line.fields[column], allowedNames(names)));
  }

  trace::Result<TensorCoreRule> parseRow(int line_number, const TsvFields& line) const {
    if (line.fields.size() != kColumns.size()) {
      return error(line_number, 1,
                   fmt::format("found {} tab-separated fields, expected {} ({})",
                               line.fields.size(), kColumns.size(), fmt::join(kColumns, ", ")));
    }
    TensorCoreRule rule;
    rule.line = line_number;
    for (Column required : {kId, kPattern, kExample}) {
      if (line.fields[required].empty()) {
        return error(line_number, line.columns[required],
                     fmt::format("found an empty {}, expected a value", kColumns[required]));
      }
    }
    rule.id = std::string(line.fields[kId]);
    rule.pattern = std::string(line.fields[kPattern]);
    rule.example = std::string(line.fields[kExample]);
    rule.note = std::string(line.fields[kNote]);
    trace::Status named =
        parseName(line_number, line, kArchitecture, kArchitectureNames, rule.architecture);
    if (named) named = parseName(line_number, line, kPrecision, kPrecisionNames, rule.precision);
    TensorCoreUse::Value use = TensorCoreUse::kUnknown;
    if (named) named = parseName(line_number, line, kVerdict, kVerdictNames, use);
    rule.tensor_core = use;
    if (named) named = parseName(line_number, line, kConfidence, kRuleConfidenceNames, rule.confidence);
    if (!named) return named.error();
    if (trace::Status compiled = compileExpressions(line_number, line.columns[kPattern], rule); !compiled) {
      return compiled.error();
    }
    if (!rule.matches(rule.example)) {
      return error(line_number, line.columns[kExample],
                   fmt::format("the example of rule \"{}\" does not match its own pattern \"{}\"",
                               rule.id, rule.pattern));
    }
    return rule;
  }

 private:
  // The pattern's expressions, split at " && ", each compiled by RE2; an error points at the
  // column where the expression starts.
  trace::Status compileExpressions(int line_number, std::size_t pattern_column, TensorCoreRule& rule) const {
    RE2::Options options;
    options.set_log_errors(false);
    options.set_never_capture(true);
    const std::string_view pattern = rule.pattern;
    std::size_t start = 0;
    while (start <= pattern.size()) {
      std::size_t end = pattern.find(kAllOf, start);
      if (end == std::string_view::npos) end = pattern.size();
      RuleExpression expression;
      expression.text = std::string(pattern.substr(start, end - start));
      const std::size_t column = pattern_column + start;
      if (expression.text.empty()) {
        return error(line_number, column,
                     fmt::format("found an empty expression in the pattern \"{}\" of rule \"{}\", expected "
                                 "RE2 expressions joined by \"{}\"", rule.pattern, rule.id, kAllOf));
      }
      auto re2 = std::make_shared<const RE2>(expression.text, options);
      if (!re2->ok()) {
        return error(line_number, column,
                     fmt::format("found the expression \"{}\" in the pattern of rule \"{}\", expected an RE2 "
                                 "regular expression ({}; RE2 has no lookahead: join expressions with \"{}\")",
                                 expression.text, rule.id, re2->error(), kAllOf));
      }
      std::string_view body = expression.text;
      expression.icase = body.starts_with(kCaseInsensitive);
      if (expression.icase) body.remove_prefix(kCaseInsensitive.size());
      expression.required_literals = RequiredLiterals(body).read();
      if (expression.icase) {
        for (auto& any_of : expression.required_literals) {
          for (std::string& literal : any_of) literal = lowered(literal);
        }
      }
      expression.re2 = std::move(re2);
      rule.expressions.push_back(std::move(expression));
      start = end + kAllOf.size();
    }
    return {};
  }

  std::string_view source_;
};

}  // namespace

trace::Result<TensorCoreRules> TensorCoreRules::parse(std::string_view tsv_text,
                                                      std::string_view source_name) {
  const RuleFileParser parser(source_name);
  TensorCoreRules rules;
  bool saw_column_header = false;
  TextLines lines(tsv_text);
  int line_number = 0;
  while (const std::optional<std::string_view> line = lines.next()) {
    line_number = lines.number();
    if (line_number == 1) {
      trace::Result<int> version = parser.parseVersion(*line);
      if (!version) return version.error();
      rules.version_ = *version;
      continue;
    }
    if (isBlankOrComment(*line)) continue;
    const TsvFields fields = splitTsvFields(*line);
    if (!saw_column_header) {
      if (trace::Status s = parser.checkColumnHeader(line_number, fields); !s) return s.error();
      saw_column_header = true;
      continue;
    }
    trace::Result<TensorCoreRule> rule = parser.parseRow(line_number, fields);
    if (!rule) return rule.error();
    for (const TensorCoreRule& earlier : rules.rules_) {
      if (earlier.id == rule->id) {
        return parser.error(line_number, 1,
                            fmt::format("found the id \"{}\" again, expected a new id (first used "
                                        "on line {})", rule->id, earlier.line));
      }
    }
    rules.rules_.push_back(std::move(*rule));
  }
  if (line_number == 0) return parser.error(1, 1, "found an empty file, expected a rule file");
  if (rules.rules_.empty()) {
    return parser.error(line_number, 1,
                        saw_column_header ? "found no rule rows, expected at least one"
                                          : "found no column header, expected one");
  }
  return rules;
}

namespace {
struct BuiltinRules {
  TensorCoreRules rules;
  trace::Status status;
};

const BuiltinRules& loadBuiltin() {
  static const BuiltinRules loaded = [] {
    BuiltinRules out;
    trace::Result<TensorCoreRules> parsed = TensorCoreRules::parse(
        generated::kTensorCoreRulesTsv, "analyzer/rules/tensor_core_rules.tsv (built in)");
    if (parsed) {
      out.rules = std::move(*parsed);
    } else {
      out.status = parsed.error();
    }
    return out;
  }();
  return loaded;
}
}  // namespace

const TensorCoreRules& TensorCoreRules::builtin() { return loadBuiltin().rules; }

trace::Status TensorCoreRules::builtinStatus() { return loadBuiltin().status; }

TensorCoreVerdict TensorCoreRules::classify(std::string_view kernel_name) const {
  TensorCoreVerdict verdict;
  verdict.tensor_core = TensorCoreUse::kUnknown;  // no row: nothing known
  verdict.alignment = alignmentFromName(kernel_name);
  const std::string lowered_name = lowered(kernel_name);
  for (const TensorCoreRule& rule : rules_) {
    if (rule.mayMatch(kernel_name, lowered_name) && rule.matches(kernel_name)) {
      verdict.tensor_core = rule.tensor_core;
      verdict.precision = rule.precision;
      verdict.confidence = rule.confidence;
      verdict.rule_id = rule.id;
      return verdict;
    }
  }
  return verdict;
}

bool TensorCoreRule::matches(std::string_view name) const {
  const re2::StringPiece text(name.data(), name.size());
  return std::all_of(expressions.begin(), expressions.end(),
                     [&](const RuleExpression& e) { return RE2::PartialMatch(text, *e.re2); });
}

bool TensorCoreRule::mayMatch(std::string_view name, std::string_view lowered_name) const {
  for (const RuleExpression& e : expressions) {
    const std::string_view text = e.icase ? lowered_name : name;
    for (const auto& any_of : e.required_literals) {
      const bool found = std::any_of(any_of.begin(), any_of.end(), [&](const std::string& literal) {
        return text.find(literal) != std::string_view::npos;
      });
      if (!found) return false;
    }
  }
  return true;
}

int alignmentFromName(std::string_view kernel_name) {
  constexpr std::string_view kToken = "_align";
  constexpr int kLargest = 1 << 16;  // no operand is aligned to more; longer digit runs are not
  for (std::size_t at = kernel_name.find(kToken); at != std::string_view::npos;
       at = kernel_name.find(kToken, at + 1)) {
    std::size_t digits = at + kToken.size();
    // xmma names give per-operand alignments (aligna4_alignc4): A's is the one that matters.
    if (digits < kernel_name.size() && kernel_name[digits] == 'a') ++digits;
    int value = 0;
    std::size_t i = digits;
    while (i < kernel_name.size() && kernel_name[i] >= '0' && kernel_name[i] <= '9' &&
           value < kLargest) {
      value = value * 10 + (kernel_name[i] - '0');
      ++i;
    }
    if (i > digits && value > 0 && value <= kLargest) return value;
  }
  return 0;
}

}  // namespace ampscope::analyzer
