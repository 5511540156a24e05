#pragma once
// Strict reading of a TOML config: unknown keys, wrong types and out-of-range values are errors, each
// naming the file, the line and key, what was found and what was expected (InputError). Header-only so
// that core does not link toml++; the modules that read configs link it.
#include <toml++/toml.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "quanta/core/error.hpp"
#include "quanta/core/io/input_file.hpp"

namespace quanta::io {

class TomlReader {
 public:
  TomlReader(const toml::table& root, std::string file) : root_(root), file_(std::move(file)) {}

  // Every key of every table must be one the reader knows.
  void check_keys(const std::string& table, const std::set<std::string>& allowed) const {
    const toml::table* t = table.empty() ? &root_ : find_table(table);
    if (!t) return;
    for (const auto& [key, node] : *t) {
      if (allowed.count(std::string(key.str()))) continue;
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw InputError(file_, line(node), name(table, std::string(key.str())), "an unknown key",
                       "one of: " + list);
    }
  }

  const toml::table* find_table(const std::string& path) const {
    const toml::node* n = root_.at_path(path).node();
    if (!n) return nullptr;
    if (!n->is_table()) throw InputError(file_, line(*n), path, describe(*n), "a table [" + path + "]");
    return n->as_table();
  }

  const toml::node* get(const std::string& table, const std::string& key) const {
    const toml::table* t = find_table(table);
    return t ? t->get(key) : nullptr;
  }

  double number(const std::string& table, const std::string& key, std::optional<double> fallback,
                const std::function<bool(double)>& ok, const std::string& expected) const {
    const toml::node* n = get(table, key);
    if (!n) return require_present(table, key, fallback, expected);
    if (!n->is_number()) throw InputError(file_, line(*n), name(table, key), describe(*n), expected);
    const double v = as_double(*n);
    if (!std::isfinite(v) || !ok(v)) throw InputError(file_, line(*n), name(table, key), describe(*n), expected);
    return v;
  }

  int integer(const std::string& table, const std::string& key, std::optional<int> fallback,
              const std::function<bool(std::int64_t)>& ok, const std::string& expected) const {
    const toml::node* n = get(table, key);
    if (!n) return static_cast<int>(require_present(table, key, fallback ? std::optional<double>(*fallback) : std::nullopt, expected));
    if (!n->is_integer()) throw InputError(file_, line(*n), name(table, key), describe(*n), expected);
    const std::int64_t v = n->value<std::int64_t>().value();
    if (!ok(v) || v > 2000000000 || v < -2000000000) throw InputError(file_, line(*n), name(table, key), describe(*n), expected);
    return static_cast<int>(v);
  }

  bool boolean(const std::string& table, const std::string& key, bool fallback) const {
    const toml::node* n = get(table, key);
    if (!n) return fallback;
    if (!n->is_boolean()) throw InputError(file_, line(*n), name(table, key), describe(*n), "true or false");
    return n->value<bool>().value();
  }

  std::string string(const std::string& table, const std::string& key, const std::string& fallback,
                     const std::set<std::string>& choices) const {
    const toml::node* n = get(table, key);
    if (!n) return fallback;
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : " or ") + ("\"" + c + "\"");
    if (!n->is_string() || !choices.count(n->value<std::string>().value()))
      throw InputError(file_, line(*n), name(table, key), describe(*n), list);
    return n->value<std::string>().value();
  }

  // A list of numbers (each checked), or nothing.
  std::vector<double> numbers(const std::string& table, const std::string& key, const std::string& expected) const {
    const toml::node* n = get(table, key);
    if (!n) return {};
    if (!n->is_array()) throw InputError(file_, line(*n), name(table, key), describe(*n), expected);
    std::vector<double> v;
    for (const auto& e : *n->as_array()) {
      if (!e.is_number() || !std::isfinite(as_double(e)))
        throw InputError(file_, line(e), name(table, key), describe(e) + " in the list", expected);
      v.push_back(as_double(e));
    }
    return v;
  }

  const std::string& file() const { return file_; }
  // A number node as a double: an integer too large for a double's exact range is converted, not
  // refused by toml++'s lossless value<double>() (an empty optional).
  static double as_double(const toml::node& n) {
    if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
    if (const auto* f = n.as_floating_point()) return f->get();
    return std::nan("");
  }
  int line(const toml::node& n) const { return static_cast<int>(n.source().begin.line); }
  static std::string name(const std::string& table, const std::string& key) {
    return table.empty() ? key : table + "." + key;
  }
  static std::string fmt(double x) {
    std::ostringstream s;
    s << x;
    return s.str();
  }
  static std::string describe(const toml::node& n) {
    std::ostringstream s;
    switch (n.type()) {
      case toml::node_type::string: s << "the string \"" << n.value<std::string>().value() << "\""; break;
      case toml::node_type::integer: s << "the integer " << n.value<std::int64_t>().value(); break;
      case toml::node_type::floating_point: s << "the number " << n.value<double>().value(); break;
      case toml::node_type::boolean: s << "the boolean " << (n.value<bool>().value() ? "true" : "false"); break;
      case toml::node_type::array: s << "a list"; break;
      case toml::node_type::table: s << "a table"; break;
      default: s << "a date/time"; break;
    }
    return s.str();
  }

 private:
  double require_present(const std::string& table, const std::string& key, std::optional<double> fallback,
                         const std::string& expected) const {
    if (fallback) return *fallback;
    const toml::table* t = table.empty() ? &root_ : find_table(table);
    if (!t)  // no line to point at: the whole table is absent
      throw InputError(file_, name(table, key) + ": found nothing (the table [" + table + "] is missing), expected " + expected);
    throw InputError(file_, line(*t), name(table, key), "nothing (the key is missing)", expected);
  }
  const toml::table& root_;
  std::string file_;
};

// Parses TOML text; a syntax error becomes InputError naming the source and line.
inline toml::table parse_toml(const std::string& text, const std::string& source_name) {
  try {
    return toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    throw InputError(source_name, static_cast<int>(e.source().begin.line), "TOML syntax",
                     std::string("\"") + std::string(e.description()) + "\"", "a valid TOML document");
  }
}

// The text of a config file; `what` names it in the error ("the kbe config file").
inline std::string read_text_file(const std::filesystem::path& file, const std::string& what) {
  std::ifstream in = open_input_file(file, what + " (a TOML file)");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace quanta::io
