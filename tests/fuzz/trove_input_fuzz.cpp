// TROVE input file, INTENSITY block (modules/linelist/io/trove_input.cpp).
#include "fuzz_support.hpp"
#include "quanta/linelist/input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = quanta::fuzz::write_input("trove.inp", data, size);
  quanta::fuzz::expect_clean("read_trove_input", [&] { (void)quanta::linelist::read_trove_input(file); });
  return 0;
}
