#include "quanta/core/io/text_reader.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "quanta/core/error.hpp"
#include "quanta/core/io/input_file.hpp"
#include "quanta/core/io/namelist.hpp"

namespace quanta::io {

namespace {
bool blank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
}  // namespace

TextReader::TextReader(const std::string& path) : path_(path) {
  std::ifstream in = open_input_file(path, "a text input file");
  for (std::string l; std::getline(in, l);) lines_.push_back(std::move(l));
  if (in.bad()) throw InputError(path, "cannot read the file");
}

bool TextReader::next_token(std::string& tok) {
  while (static_cast<std::size_t>(line_) <= lines_.size()) {
    const std::string& l = lines_[static_cast<std::size_t>(line_ - 1)];
    while (col_ < l.size() && blank(l[col_])) ++col_;
    if (col_ < l.size()) {
      const std::size_t start = col_;
      while (col_ < l.size() && !blank(l[col_])) ++col_;
      tok = l.substr(start, col_ - start);
      return true;
    }
    if (static_cast<std::size_t>(line_) == lines_.size()) break;  // stay on the last line for messages
    ++line_;
    col_ = 0;
  }
  return false;
}

long TextReader::read_int(const std::string& field) {
  std::string tok;
  if (!next_token(tok)) fail(field, "the end of the file", "an integer");
  return parse_fortran_int(tok, path_, line_, field);
}

double TextReader::read_real(const std::string& field) {
  std::string tok;
  if (!next_token(tok)) fail(field, "the end of the file", "a real number");
  return parse_fortran_real(tok, path_, line_, field);
}

std::string TextReader::read_word(const std::string& field) {
  std::string tok;
  if (!next_token(tok)) fail(field, "the end of the file", "a word");
  return tok;
}

std::string TextReader::read_rest_of_line() {
  if (static_cast<std::size_t>(line_) > lines_.size()) return {};
  const std::string& l = lines_[static_cast<std::size_t>(line_ - 1)];
  std::string rest = col_ < l.size() ? l.substr(col_) : std::string();
  if (!rest.empty() && rest.back() == '\r') rest.pop_back();  // files written on Windows
  if (static_cast<std::size_t>(line_) < lines_.size()) {
    ++line_;
    col_ = 0;
  } else {
    col_ = l.size();  // stay on the last line, so that messages name a line of the file
  }
  return rest;
}

bool TextReader::at_end() {
  for (std::size_t i = static_cast<std::size_t>(line_ - 1), c = col_; i < lines_.size(); ++i, c = 0)
    for (; c < lines_[i].size(); ++c)
      if (!blank(lines_[i][c])) return false;
  return true;
}

void TextReader::fail(const std::string& field, const std::string& found, const std::string& expected) const {
  throw InputError(path_, line_, field, found, expected);
}

}  // namespace quanta::io
