// Fortran namelist parser (core/io/namelist): parse_string, then every typed getter on every variable.
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "quanta/core/io/namelist.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using quanta::fuzz::expect_clean;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  expect_clean("Namelist::parse_string", [&] {
    const auto nl = quanta::io::Namelist::parse_string(text, "fuzz.nml");
    for (const auto& g : nl.groups()) {
      expect_clean("NamelistGroup::reject_unknown", [&] { g.reject_unknown({"natoms", "ngrid", "lattvec"}); });
      for (const auto& a : g.assignments()) {
        const std::string& v = a.name;
        expect_clean("get_int", [&] { (void)g.get_int(v); });
        expect_clean("get_real", [&] { (void)g.get_real(v); });
        expect_clean("get_bool", [&] { (void)g.get_bool(v); });
        expect_clean("get_string", [&] { (void)g.get_string(v); });
        expect_clean("get_ints", [&] { (void)g.get_ints(v, {3}); });
        expect_clean("get_reals", [&] { (void)g.get_reals(v, {3, 3}); });
        expect_clean("get_reals rank 3", [&] { (void)g.get_reals(v, {3, 3, 4}); });
        expect_clean("get_bools", [&] { (void)g.get_bools(v, {2}); });
        expect_clean("get_strings", [&] { (void)g.get_strings(v, 4); });
      }
    }
    if (nl.has_group("allocations")) (void)nl.group("allocations");
  });
  return 0;
}
