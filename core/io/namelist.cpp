// Reading a namelist file: a lexer that turns the text into tokens carrying their line numbers, and a
// parser that groups them into &group ... &end blocks of `name(subscripts) = values` assignments.
#include "quanta/core/io/namelist.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include "namelist_text.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/io/input_file.hpp"
#include "quanta/core/progress.hpp"

namespace quanta::io {

namespace {

struct Token {
  enum Kind { Word, String, Equals, Subscript, GroupStart, GroupEnd } kind;
  std::string text;  // word, string contents, subscript text without parentheses, or lower-cased group name
  int line;
  bool first_on_line;
  long repeat = 1;  // r*value
};

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
// Control bytes other than blanks (tab, newline, CR, form feed, vertical tab) and DEL.
bool is_stray_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && !std::isspace(u)) || u == 0x7F;
}

// Largest repeat count, and most values a file may hold: far above any real array (a ShengBTE
// CONTROL's largest, positions, has 3 x natoms <= 30000 values), far below what would exhaust memory
// (each value is kept as text).
constexpr long max_repeat = 1'000'000;
constexpr std::size_t max_values = 2'000'000;  // in the whole file

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  std::vector<Token> run() {
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '\n') {
        ++line_;
        line_start_ = true;
        ++i_;
      } else if (std::isspace(static_cast<unsigned char>(c)) || c == ',') {
        ++i_;  // commas and blanks both separate values; a comma before a newline is common and harmless
      } else if (c == '!') {
        while (i_ < text_.size() && text_[i_] != '\n') ++i_;
      } else if (c == '=') {
        if (!tokens_.empty() && tokens_.back().kind == Token::Word) var_ = lower(tokens_.back().text);
        if (tokens_.size() >= 2 && tokens_.back().kind == Token::Subscript) var_ = lower(tokens_[tokens_.size() - 2].text);
        push(Token::Equals, "=");
        ++i_;
      } else if (c == '/') {
        push(Token::GroupEnd, "/");
        ++i_;
      } else if (c == '&' || c == '$') {
        group_marker();
      } else if (c == '(') {
        subscript();
      } else if (c == ')') {
        throw InputError(file_, line_, field(), "')' without a matching '('", "a subscript such as (:,1)");
      } else if (c == '"' || c == '\'') {
        push(Token::String, quoted_string());
      } else if (is_stray_control(c)) {
        // A NUL or another control byte: a binary or truncated file, never namelist text.
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
        throw InputError(file_, line_, field(), std::string("the control byte ") + hex + " (not text)",
                         "a text file of &group ... &end blocks");
      } else {
        word();
      }
    }
    return std::move(tokens_);
  }

 private:
  void push(Token::Kind kind, std::string text, long repeat = 1) {
    tokens_.push_back({kind, std::move(text), line_, line_start_, repeat});
    line_start_ = false;
  }
  std::string field() const { return var_.empty() ? "namelist" : var_; }

  void group_marker() {
    std::size_t j = i_ + 1;
    while (j < text_.size() && is_name_char(text_[j])) ++j;
    const std::string name = lower(text_.substr(i_ + 1, j - i_ - 1));
    if (name.empty())
      throw InputError(file_, line_, "namelist", std::string("'") + text_[i_] + "' without a group name", "'&name' or '&end'");
    push(name == "end" ? Token::GroupEnd : Token::GroupStart, name);
    i_ = j;
  }

  void subscript() {
    const std::size_t close = text_.find_first_of(")\n", i_);
    if (close == std::string_view::npos || text_[close] != ')') {
      const bool after_name = !tokens_.empty() && tokens_.back().kind == Token::Word;
      throw InputError(file_, line_, after_name ? lower(tokens_.back().text) : field(),
                       "'(' without a closing ')' on the same line", "a subscript such as (:,1)");
    }
    push(Token::Subscript, std::string(text_.substr(i_ + 1, close - i_ - 1)));
    i_ = close + 1;
  }

  // A string in single or double quotes, a doubled quote standing for one quote character, on one line.
  std::string quoted_string() {
    const char q = text_[i_];
    std::string s;
    for (std::size_t j = i_ + 1;; ++j) {
      if (j >= text_.size() || text_[j] == '\n')
        throw InputError(file_, line_, field(), std::string("a string opened with ") + q + " and not closed",
                         std::string("the closing ") + q + " on the same line");
      if (text_[j] != q) {
        s += text_[j];
      } else if (j + 1 < text_.size() && text_[j + 1] == q) {
        s += q;
        ++j;
      } else {
        i_ = j + 1;
        return s;
      }
    }
  }

  void word() {
    // A word ends at a blank, a separator or a control byte (a string_view search: strchr would match a
    // NUL byte against its own terminator and the lexer would never advance).
    constexpr std::string_view separators = ",=()!\"'/&$";
    std::size_t j = i_;
    while (j < text_.size() && !std::isspace(static_cast<unsigned char>(text_[j])) && !is_stray_control(text_[j]) &&
           separators.find(text_[j]) == std::string_view::npos)
      ++j;
    if (j == i_)  // every byte run() hands over starts a word; this keeps any future gap from looping forever
      throw InputError(file_, line_, field(), "an unexpected character", "a name, a value or a separator");
    const std::string w(text_.substr(i_, j - i_));
    i_ = j;
    // A repeat count r*value: "3*0.5", "2*'Si'".
    const std::size_t star = w.find('*');
    if (star == std::string::npos) return push(Token::Word, w);
    const std::string count = w.substr(0, star), rest = w.substr(star + 1);
    const bool digits = !count.empty() && count.size() < 10 &&
                        count.find_first_not_of("0123456789") == std::string::npos;
    const long r = digits ? std::stol(count) : 0;
    if (r < 1 || r > max_repeat)
      throw InputError(file_, line_, field(), "'" + w + "'", "a value or a repeat count such as 3*0.5");
    if (!rest.empty()) return push(Token::Word, rest, r);
    if (i_ < text_.size() && (text_[i_] == '"' || text_[i_] == '\'')) return push(Token::String, quoted_string(), r);
    throw InputError(file_, line_, field(), "'" + w + "' without a value after the repeat count", "a value such as 3*0.5");
  }

  std::string_view text_;
  const std::string& file_;
  std::vector<Token> tokens_;
  std::size_t i_ = 0;
  int line_ = 1;
  bool line_start_ = true;
  std::string var_;  // the variable being assigned, for error messages
};

std::vector<NamelistIndex> parse_subscripts(const std::string& text, const std::string& file, int line,
                                            const std::string& var) {
  const auto bad = [&]() -> std::vector<NamelistIndex> {
    throw InputError(file, line, var, "subscript '(" + text + ")'",
                     "integers, ranges lo:hi or ':' separated by commas, such as (:,1) or (1:3,2)");
  };
  const auto number = [&](const std::string& s, long& out) {
    if (s.empty() || s.find_first_not_of("+-0123456789") != std::string::npos) return false;
    try {
      std::size_t used = 0;
      out = std::stol(s, &used);
      return used == s.size();
    } catch (const std::exception&) {
      return false;
    }
  };
  std::vector<NamelistIndex> out;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');) {
    part.erase(std::remove_if(part.begin(), part.end(), [](unsigned char c) { return std::isspace(c); }), part.end());
    NamelistIndex idx;
    const std::size_t colon = part.find(':');
    if (part == ":") {
      idx.full = true;
    } else if (colon == std::string::npos) {
      if (!number(part, idx.lo)) return bad();
      idx.hi = idx.lo;
    } else {
      const std::string lo = part.substr(0, colon), hi = part.substr(colon + 1);
      idx.lo = 1;  // ":hi" starts at the first element
      if ((!lo.empty() && !number(lo, idx.lo)) || !number(hi, idx.hi) || idx.lo > idx.hi) return bad();
    }
    out.push_back(idx);
  }
  if (out.empty() || text.back() == ',') return bad();
  return out;
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case Token::String: return "\"" + t.text + "\"";
    case Token::Subscript: return "'(" + t.text + ")'";
    case Token::GroupStart: return "'&" + t.text + "'";
    case Token::GroupEnd: return t.text == "/" ? "'/'" : "'&end'";
    default: return "'" + t.text + "'";
  }
}

// The same variable (or the same array section) assigned twice in a group: Fortran keeps the last value,
// and so does the reader, but a silent override is how an edited input ends up not meaning what its
// author reads at the top, so it is said.
void warn_if_repeated(const NamelistGroup& g, const NamelistAssignment& a) {
  const auto same_indices = [](const std::vector<NamelistIndex>& x, const std::vector<NamelistIndex>& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t k = 0; k < x.size(); ++k)
      if (x[k].full != y[k].full || (!x[k].full && (x[k].lo != y[k].lo || x[k].hi != y[k].hi))) return false;
    return true;
  };
  for (const auto& prev : g.assignments())
    if (prev.name == a.name && same_indices(prev.indices, a.indices)) {
      warn("namelist", g.file() + ":" + std::to_string(a.line) + ": &" + g.name() + " " + a.name +
                           " is set at line " + std::to_string(prev.line) + " and again at line " +
                           std::to_string(a.line) + "; the value of line " + std::to_string(a.line) +
                           " is used (the last one wins, as in Fortran)");
      return;
    }
}

}  // namespace

Namelist Namelist::parse_string(std::string_view text, const std::string& source_name) {
  Namelist nl;
  nl.file_ = source_name;
  const std::vector<Token> tokens = Lexer(text, source_name).run();
  std::optional<NamelistGroup> group;
  std::optional<NamelistAssignment> current;
  std::size_t values_in_file = 0;
  const auto end_assignment = [&] {
    if (current) {
      warn_if_repeated(*group, *current);
      group->add(std::move(*current));
    }
    current.reset();
  };
  const auto kind_at = [&](std::size_t k) { return k < tokens.size() ? tokens[k].kind : Token::GroupEnd; };

  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const Token& t = tokens[k];
    if (!group) {
      if (t.kind != Token::GroupStart)
        throw InputError(source_name, t.line, "namelist", describe(t) + " outside a group", "'&name' to open a group");
      group.emplace(source_name, t.text, t.line);
      continue;
    }
    switch (t.kind) {
      case Token::GroupStart:
        throw InputError(source_name, t.line, "&" + group->name(),
                         "'&" + t.text + "' while the group opened at line " + std::to_string(group->line()) +
                             " is still open",
                         "'&end' or '/' closing &" + group->name() + " first");
      case Token::GroupEnd:
        end_assignment();
        nl.groups_.push_back(std::move(*group));
        group.reset();
        break;
      case Token::Equals:
        throw InputError(source_name, t.line, "namelist", "'=' without a variable name before it", "'name = value'");
      case Token::Subscript:
        throw InputError(source_name, t.line, "namelist", describe(t) + " without a variable name before it",
                         "'name(subscripts) = values'");
      case Token::Word:
      case Token::String: {
        const bool subscripted = kind_at(k + 1) == Token::Subscript && kind_at(k + 2) == Token::Equals;
        if (t.kind == Token::Word && t.repeat == 1 && (kind_at(k + 1) == Token::Equals || subscripted)) {
          if (!is_identifier(t.text))
            throw InputError(source_name, t.line, t.text, "'" + t.text + "' before '='", "a variable name");
          end_assignment();
          current.emplace();
          current->name = lower(t.text);
          current->line = t.line;
          if (subscripted) current->indices = parse_subscripts(tokens[k + 1].text, source_name, t.line, current->name);
          k += subscripted ? 2 : 1;
          break;
        }
        // A bare name opening a line after complete values is a forgotten '=', not a string value.
        const bool stray_name = t.kind == Token::Word && t.first_on_line && is_identifier(t.text) &&
                                !is_logical_word(t.text) && current && !current->values.empty();
        if (!current || stray_name)
          throw InputError(source_name, t.line, t.text, "'" + t.text + "' without '=' after it", "'" + t.text + " = value'");
        values_in_file += static_cast<std::size_t>(t.repeat);
        if (values_in_file > max_values)
          throw InputError(source_name, t.line, current->name, "more than " + std::to_string(max_values) + " values in the file",
                           "at most " + std::to_string(max_values) + " values in all");
        current->values.insert(current->values.end(), static_cast<std::size_t>(t.repeat), t.text);
        current->quoted.insert(current->quoted.end(), static_cast<std::size_t>(t.repeat), t.kind == Token::String);
        break;
      }
    }
  }
  if (group)
    throw InputError(source_name, group->line(), "&" + group->name(), "the end of the file inside the group",
                     "'&end' or '/' closing it");
  return nl;
}

Namelist Namelist::parse_file(const std::string& path) {
  std::ifstream in = open_input_file(path, "a Fortran namelist file", std::ios::in | std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path, "cannot read the file");
  return parse_string(text.str(), path);
}

bool Namelist::has_group(std::string_view name) const {
  const std::string n = lower(name);
  for (const auto& g : groups_)
    if (g.name() == n) return true;
  return false;
}

const NamelistGroup& Namelist::group(std::string_view name) const {
  const std::string n = lower(name);
  for (const auto& g : groups_)
    if (g.name() == n) return g;
  std::string present;
  for (const auto& g : groups_) present += (present.empty() ? "&" : ", &") + g.name();
  throw InputError(file_, "no group &" + n + " (the file has " + (present.empty() ? "no groups" : present) + ")");
}

}  // namespace quanta::io
