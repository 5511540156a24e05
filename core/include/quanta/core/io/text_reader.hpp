#pragma once
#include <string>
#include <vector>

namespace quanta::io {

// Reads a whitespace-separated text file token by token, keeping line numbers, for the fixed-layout
// inputs (espresso.ifc2, FORCE_CONSTANTS_2ND/3RD, ...). Each typed read names the field it expects, so an
// error reads "FILE:LINE: FIELD: found 'x', expected an integer".
class TextReader {
 public:
  explicit TextReader(const std::string& path);  // InputError if the file cannot be opened

  long read_int(const std::string& field);
  double read_real(const std::string& field);   // accepts Fortran exponents (1.0D-3)
  std::string read_word(const std::string& field);
  // Reads the rest of the current line as raw text (may be empty); the next read starts on the next line.
  std::string read_rest_of_line();
  bool at_end();                                // only whitespace remains
  int line() const { return line_; }
  const std::string& path() const { return path_; }

  // Throws InputError at the current line.
  [[noreturn]] void fail(const std::string& field, const std::string& found, const std::string& expected) const;

 private:
  bool next_token(std::string& tok);
  std::string path_;
  std::vector<std::string> lines_;
  int line_ = 1;           // 1-based line of the cursor
  std::size_t col_ = 0;    // position in lines_[line_-1]
};

}  // namespace quanta::io
