// Typed access to the variables of one namelist group, with Fortran's array-filling rules.
#include <numeric>

#include "namelist_text.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/io/namelist.hpp"

namespace quanta::io {

namespace {

std::string subscript_text(const NamelistAssignment& a) {
  if (a.indices.empty()) return a.name;
  std::string s = a.name + "(";
  for (std::size_t d = 0; d < a.indices.size(); ++d) {
    const NamelistIndex& i = a.indices[d];
    if (d) s += ",";
    s += i.full ? ":" : i.lo == i.hi ? std::to_string(i.lo) : std::to_string(i.lo) + ":" + std::to_string(i.hi);
  }
  return s + ")";
}

std::string shown(const std::string& token, bool quoted) { return quoted ? "\"" + token + "\"" : "'" + token + "'"; }

// The assignment giving a scalar its value: the last one, which must have no subscript and one value.
const NamelistAssignment& scalar_assignment(const NamelistGroup& g, std::string_view var) {
  const NamelistAssignment* last = nullptr;
  for (const auto& a : g.assignments())
    if (a.name == lower(var)) last = &a;
  if (!last)
    throw InputError(g.file(), g.line(), lower(var), "no assignment of it in group &" + g.name(),
                     "'" + lower(var) + " = value' (the variable is required)");
  if (!last->indices.empty())
    throw InputError(g.file(), last->line, last->name, "a subscript in '" + subscript_text(*last) + "'",
                     "a scalar without subscripts");
  if (last->values.size() != 1)
    throw InputError(g.file(), last->line, last->name,
                     last->values.empty() ? "no value" : std::to_string(last->values.size()) + " values", "one value");
  return *last;
}

// One value token converted by `parse`; a quoted string is never a number or a logical.
template <class Parse>
auto convert(const std::string& file, const std::string& token, bool quoted, int line, const std::string& field,
             Parse parse, const char* expected) {
  if (quoted) throw InputError(file, line, field, shown(token, true), expected);
  return parse(token, file, line, field);
}

constexpr const char* an_integer = "an integer";
constexpr const char* a_real = "a real number";
constexpr const char* a_logical = "a logical (.true. or .false.)";

}  // namespace

std::vector<const NamelistAssignment*> NamelistGroup::find(std::string_view var) const {
  const std::string name = lower(var);
  std::vector<const NamelistAssignment*> out;
  for (const auto& a : assignments_)
    if (a.name == name) out.push_back(&a);
  return out;
}

bool NamelistGroup::has(std::string_view var) const { return !find(var).empty(); }

long NamelistGroup::get_int(std::string_view var) const {
  const auto& a = scalar_assignment(*this, var);
  return convert(file_, a.values[0], a.quoted[0], a.line, a.name, parse_fortran_int, an_integer);
}
double NamelistGroup::get_real(std::string_view var) const {
  const auto& a = scalar_assignment(*this, var);
  return convert(file_, a.values[0], a.quoted[0], a.line, a.name, parse_fortran_real, a_real);
}
bool NamelistGroup::get_bool(std::string_view var) const {
  const auto& a = scalar_assignment(*this, var);
  return convert(file_, a.values[0], a.quoted[0], a.line, a.name, parse_fortran_bool, a_logical);
}
std::string NamelistGroup::get_string(std::string_view var) const { return scalar_assignment(*this, var).values[0]; }

long NamelistGroup::get_int_or(std::string_view var, long fallback) const { return has(var) ? get_int(var) : fallback; }
double NamelistGroup::get_real_or(std::string_view var, double fallback) const {
  return has(var) ? get_real(var) : fallback;
}
bool NamelistGroup::get_bool_or(std::string_view var, bool fallback) const { return has(var) ? get_bool(var) : fallback; }

template <class T, class Conv>
std::vector<T> NamelistGroup::fill_array(std::string_view var, const std::vector<long>& extents, T fill,
                                         Conv conv) const {
  const std::size_t rank = extents.size();
  const long total = std::accumulate(extents.begin(), extents.end(), 1L, std::multiplies<>());
  std::vector<T> out(static_cast<std::size_t>(std::max(total, 0L)), fill);
  for (const NamelistAssignment* a : find(var)) {
    const std::string field = subscript_text(*a);
    // The section as lower and upper bounds per dimension; no subscript is the whole array.
    std::vector<long> lo(rank, 1), hi(extents);
    bool single_element = !a->indices.empty();
    if (!a->indices.empty()) {
      if (a->indices.size() != rank)
        throw InputError(file_, a->line, field, std::to_string(a->indices.size()) + " subscripts",
                         std::to_string(rank) + " (" + a->name + " has " + std::to_string(rank) + " dimensions)");
      for (std::size_t d = 0; d < rank; ++d) {
        const NamelistIndex& i = a->indices[d];
        single_element = single_element && !i.full && i.lo == i.hi;
        if (!i.full) lo[d] = i.lo, hi[d] = i.hi;
        if (lo[d] < 1 || hi[d] > extents[d])
          throw InputError(file_, a->line, field, "subscript " + std::to_string(d + 1) + " out of range",
                           "indices from 1 to " + std::to_string(extents[d]));
      }
    }
    // Offsets of the section's elements in column-major order, the first subscript running fastest.
    // A single element starts a run to the end of the array, as gfortran reads `masses(2)= 28.1 29.0`.
    std::vector<long> offsets;
    if (single_element) {
      long first = 0, stride = 1;
      for (std::size_t d = 0; d < rank; ++d) first += (lo[d] - 1) * stride, stride *= extents[d];
      for (long o = first; o < total; ++o) offsets.push_back(o);
    } else if (total > 0) {
      for (std::vector<long> idx = lo;;) {
        long o = 0, stride = 1;
        for (std::size_t d = 0; d < rank; ++d) o += (idx[d] - 1) * stride, stride *= extents[d];
        offsets.push_back(o);
        std::size_t d = 0;
        while (d < rank && ++idx[d] > hi[d]) idx[d] = lo[d], ++d;
        if (d == rank) break;  // the odometer wrapped: the whole section is enumerated
      }
    }
    if (a->values.size() > offsets.size())
      throw InputError(file_, a->line, field, std::to_string(a->values.size()) + " values",
                       "at most " + std::to_string(offsets.size()) + " for this section of " + a->name);
    for (std::size_t v = 0; v < a->values.size(); ++v)
      out[static_cast<std::size_t>(offsets[v])] = conv(a->values[v], a->quoted[v], a->line, field);
  }
  return out;
}

std::vector<long> NamelistGroup::get_ints(std::string_view var, const std::vector<long>& extents, long fill) const {
  return fill_array(var, extents, fill, [this](const std::string& t, bool quoted, int line, const std::string& f) {
    return convert(file_, t, quoted, line, f, parse_fortran_int, an_integer);
  });
}

std::vector<double> NamelistGroup::get_reals(std::string_view var, const std::vector<long>& extents,
                                             double fill) const {
  return fill_array(var, extents, fill, [this](const std::string& t, bool quoted, int line, const std::string& f) {
    return convert(file_, t, quoted, line, f, parse_fortran_real, a_real);
  });
}

std::vector<bool> NamelistGroup::get_bools(std::string_view var, const std::vector<long>& extents, bool fill) const {
  return fill_array(var, extents, fill, [this](const std::string& t, bool quoted, int line, const std::string& f) {
    return convert(file_, t, quoted, line, f, parse_fortran_bool, a_logical);
  });
}

std::vector<std::string> NamelistGroup::get_strings(std::string_view var, long extent) const {
  return fill_array(var, {extent}, std::string(),
                    [](const std::string& t, bool, int, const std::string&) { return t; });
}

void NamelistGroup::reject_unknown(const std::vector<std::string_view>& known) const {
  for (const auto& a : assignments_) {
    bool ok = false;
    std::string list;
    for (std::string_view k : known) {
      ok = ok || lower(k) == a.name;
      list += (list.empty() ? "" : ", ") + lower(k);
    }
    if (!ok)
      throw InputError(file_, a.line, a.name, "an unknown variable in group &" + name_, "one of " + list);
  }
}

}  // namespace quanta::io
