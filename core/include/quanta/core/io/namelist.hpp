#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace quanta::io {

// A Fortran namelist file as ShengBTE/FourPhonon CONTROL files use it:
//
//   &allocations
//       nelements=1, natoms=2,          ! comment
//       ngrid(:)= 16 16 16
//   &end
//   &crystal
//       lattvec(:,1)=-0.5 0.0 0.5,
//       born(:,2,1)= 0.1 0.0 0.0        ! section of a rank-3 array
//       elements="Si" 'Ge'
//       types=1 1
//   /
//
// Names are case-insensitive. Values are integers, reals (1.0, 1.d-3, 2E5), logicals (.TRUE., .f., T, F),
// quoted strings, and repeat counts (3*0.0). A group ends with `/`, `&end` or `$end`. Every assignment keeps
// its line, so errors can name it.
struct NamelistIndex {
  // One subscript: a single index (lo == hi), a range lo:hi, or ':' (whole extent: lo = hi = 0, full = true).
  long lo = 0, hi = 0;
  bool full = false;
};

struct NamelistAssignment {
  std::string name;                   // lower-cased
  std::vector<NamelistIndex> indices;  // empty: the whole variable
  std::vector<std::string> values;    // raw value tokens, repeat counts expanded, quotes removed from strings
  std::vector<bool> quoted;           // values[i] was a quoted string
  int line = 0;
};

class NamelistGroup {
 public:
  NamelistGroup(std::string file, std::string name, int line) : file_(std::move(file)), name_(std::move(name)), line_(line) {}

  const std::string& name() const { return name_; }
  int line() const { return line_; }
  const std::vector<NamelistAssignment>& assignments() const { return assignments_; }
  void add(NamelistAssignment a) { assignments_.push_back(std::move(a)); }

  bool has(std::string_view var) const;

  // Scalars: the last assignment of `var` wins, as in Fortran. Missing -> `fallback` for the *_or forms,
  // InputError naming the group and variable for the plain forms.
  long get_int(std::string_view var) const;
  long get_int_or(std::string_view var, long fallback) const;
  double get_real(std::string_view var) const;
  double get_real_or(std::string_view var, double fallback) const;
  bool get_bool(std::string_view var) const;
  bool get_bool_or(std::string_view var, bool fallback) const;
  std::string get_string(std::string_view var) const;

  // Arrays in Fortran (column-major) order with the given extents (1-based subscripts in the file).
  // Every assignment of `var` fills its section in turn; elements never assigned keep `fill`. A subscript
  // outside the extents, or more values than the section holds, is an InputError naming the line.
  std::vector<long> get_ints(std::string_view var, const std::vector<long>& extents, long fill = 0) const;
  std::vector<double> get_reals(std::string_view var, const std::vector<long>& extents, double fill = 0.0) const;
  std::vector<bool> get_bools(std::string_view var, const std::vector<long>& extents, bool fill = false) const;
  std::vector<std::string> get_strings(std::string_view var, long extent) const;

  // Names assigned in this group that are not in `known`: typos are errors, not silently ignored.
  void reject_unknown(const std::vector<std::string_view>& known) const;

  const std::string& file() const { return file_; }

 private:
  std::vector<const NamelistAssignment*> find(std::string_view var) const;
  template <class T, class Conv>
  std::vector<T> fill_array(std::string_view var, const std::vector<long>& extents, T fill, Conv conv) const;

  std::string file_, name_;
  int line_;
  std::vector<NamelistAssignment> assignments_;
};

class Namelist {
 public:
  static Namelist parse_file(const std::string& path);            // InputError if unreadable or malformed
  static Namelist parse_string(std::string_view text, const std::string& source_name);

  bool has_group(std::string_view name) const;
  const NamelistGroup& group(std::string_view name) const;  // InputError if absent
  const std::vector<NamelistGroup>& groups() const { return groups_; }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::vector<NamelistGroup> groups_;
};

// Conversions of one value token, with the error naming file, line and variable.
long parse_fortran_int(const std::string& token, const std::string& file, int line, const std::string& var);
double parse_fortran_real(const std::string& token, const std::string& file, int line, const std::string& var);
bool parse_fortran_bool(const std::string& token, const std::string& file, int line, const std::string& var);

}  // namespace quanta::io
