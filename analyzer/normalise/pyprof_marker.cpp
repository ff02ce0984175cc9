#include "analyzer/normalise/pyprof_marker.h"

#include <memory>
#include <utility>
#include <vector>

namespace ampscope::analyzer::import {

namespace {

// A Python literal: just enough structure for PyProf's dicts (no sets, no bytes).
// A dict's entries are a struct of their own, not std::pair<std::string, PyValue>: a pair of the
// type being defined may not be instantiated inside it (clang with libstdc++, which the fuzz build
// uses, refuses it).
struct PyDictEntry;

struct PyValue {
  enum class Type { kNone, kBool, kNumber, kString, kList, kDict };
  Type type = Type::kNone;
  std::string text;  // strings; numbers as written
  std::vector<PyValue> items;      // list or tuple
  std::vector<PyDictEntry> dict;   // keys are strings in PyProf's output

  const PyValue* get(std::string_view key) const;
};

struct PyDictEntry {
  std::string key;
  PyValue value;
};

const PyValue* PyValue::get(std::string_view key) const {
  for (const auto& [k, v] : dict) {
    if (k == key) return &v;
  }
  return nullptr;
}

class PyLiteralParser {
 public:
  explicit PyLiteralParser(std::string_view text) : text_(text) {}

  bool parse(PyValue& out) {
    if (!value(out, 0)) return false;
    skipSpace();
    return pos_ == text_.size();
  }

 private:
  static constexpr int kMaxDepth = 64;  // deeper nesting is not PyProf's; refuse, don't recurse

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t')) ++pos_;
  }
  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) { ++pos_; return true; }
    return false;
  }
  bool word(std::string_view w) {
    if (text_.substr(pos_, w.size()) == w) { pos_ += w.size(); return true; }
    return false;
  }

  bool string(std::string& out) {
    const char quote = text_[pos_++];
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out.push_back(text_[pos_++]);
    }
    if (pos_ >= text_.size()) return false;
    ++pos_;
    return true;
  }

  bool sequence(PyValue& out, char close, int depth) {
    out.type = PyValue::Type::kList;
    if (consume(close)) return true;
    for (;;) {
      PyValue item;
      if (!value(item, depth + 1)) return false;
      out.items.push_back(std::move(item));
      if (consume(close)) return true;
      if (!consume(',')) return false;
      if (consume(close)) return true;  // trailing comma, as in (35,)
    }
  }

  bool dictionary(PyValue& out, int depth) {
    out.type = PyValue::Type::kDict;
    if (consume('}')) return true;
    for (;;) {
      PyValue key;
      if (!value(key, depth + 1) || key.type != PyValue::Type::kString || !consume(':')) return false;
      PyValue item;
      if (!value(item, depth + 1)) return false;
      out.dict.push_back(PyDictEntry{std::move(key.text), std::move(item)});
      if (consume('}')) return true;
      if (!consume(',')) return false;
    }
  }

  bool value(PyValue& out, int depth) {
    if (depth > kMaxDepth) return false;
    skipSpace();
    if (pos_ >= text_.size()) return false;
    const char c = text_[pos_];
    if (c == '{') { ++pos_; return dictionary(out, depth); }
    if (c == '[') { ++pos_; return sequence(out, ']', depth); }
    if (c == '(') { ++pos_; return sequence(out, ')', depth); }
    if (c == '\'' || c == '"') { out.type = PyValue::Type::kString; return string(out.text); }
    if (word("None")) { out.type = PyValue::Type::kNone; return true; }
    for (std::string_view literal : {std::string_view("True"), std::string_view("False")}) {
      if (word(literal)) {
        out.type = PyValue::Type::kBool;
        out.text = std::string(literal);
        return true;
      }
    }
    // A number or another bare token (e.g. inf, nan, torch.float32): keep its text.
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != ')' && text_[pos_] != ']' &&
           text_[pos_] != '}' && text_[pos_] != ':') {
      ++pos_;
    }
    out.type = PyValue::Type::kNumber;
    out.text = std::string(text_.substr(start, pos_ - start));
    while (!out.text.empty() && out.text.back() == ' ') out.text.pop_back();
    return !out.text.empty();
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

std::string jsonString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

// A scalar or sequence argument's value as Kineto's "Concrete Inputs" writes it: numbers and
// strings as their text, True/False, None as "", a tuple or list as "[2, 2]".
std::string argumentValue(const PyValue& value) {
  switch (value.type) {
    case PyValue::Type::kNone:
    case PyValue::Type::kDict:
      return {};
    case PyValue::Type::kBool:
    case PyValue::Type::kNumber:
    case PyValue::Type::kString:
      return value.text;
    case PyValue::Type::kList: {
      std::string out = "[";
      for (std::size_t i = 0; i < value.items.size(); ++i) {
        if (i) out += ", ";
        out += argumentValue(value.items[i]);
      }
      return out + "]";
    }
  }
  return {};
}

void describeArguments(const PyValue& args, PyProfMarker& out) {
  std::string shapes = "[";
  std::string dtypes = "[";
  std::string arguments = "[";
  for (const PyValue& arg : args.items) {
    // Keyword arguments carry their name; their position is the op's signature's, which the
    // marker does not give, so only the positional ones are listed.
    const PyValue* name = arg.get("name");
    if (!name || name->text.empty()) {
      const PyValue* value = arg.get("value");
      // Tensors and arrays have a shape and no value: "", as Kineto writes tensor arguments.
      if (arguments.size() > 1) arguments += ',';
      arguments += jsonString(value && !arg.get("shape") ? argumentValue(*value) : std::string());
    }
    const PyValue* type = arg.get("type");
    const PyValue* shape = arg.get("shape");
    if (!type || type->text != "tensor" || !shape) continue;
    if (shapes.size() > 1) { shapes += ','; dtypes += ','; }
    shapes += '[';
    for (std::size_t i = 0; i < shape->items.size(); ++i) {
      if (i) shapes += ',';
      shapes += shape->items[i].text;
    }
    shapes += ']';
    const PyValue* dtype = arg.get("dtype");
    dtypes += jsonString(dtype ? dtype->text : "");
  }
  out.shapes_json = shapes + "]";
  out.dtypes_json = dtypes + "]";
  out.arguments_json = arguments + "]";
}

}  // namespace

PyProfMarker parsePyProfMarker(std::string_view text) {
  PyProfMarker out;
  if (text.empty() || text.front() != '{') return out;
  PyValue root;
  if (!PyLiteralParser(text).parse(root) || root.type != PyValue::Type::kDict) return out;  // plain text
  if (const PyValue* stack = root.get("traceMarker")) {
    out.kind = PyProfMarker::Kind::kTraceMarker;
    if (!stack->items.empty()) out.innermost_frame = stack->items.back().text;
    if (const PyValue* functions = root.get("funcStack"); functions && functions->type == PyValue::Type::kString) {
      out.func_stack = functions->text;
    }
    return out;
  }
  const PyValue* mod = root.get("mod");
  if (mod && mod->type == PyValue::Type::kString) out.module = mod->text;
  const PyValue* op = root.get("op");
  if (op && op->type == PyValue::Type::kString) {
    out.kind = PyProfMarker::Kind::kOperator;
    out.op = op->text;
    if (const PyValue* args = root.get("args"); args && args->type == PyValue::Type::kList) {
      describeArguments(*args, out);
    }
    return out;
  }
  if (!out.module.empty() && root.get("strRepr")) out.kind = PyProfMarker::Kind::kModule;
  return out;
}

}  // namespace ampscope::analyzer::import
