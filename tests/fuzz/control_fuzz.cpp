// ShengBTE/FourPhonon CONTROL reader (modules/phonon/io/control.cpp) through the namelist file parser.
#include "fuzz_support.hpp"
#include "quanta/phonon/control.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = quanta::fuzz::write_input("CONTROL", data, size);
  quanta::fuzz::expect_clean("read_control", [&] { (void)quanta::phonon::read_control(file); });
  return 0;
}
