// FORCE_CONSTANTS_4TH reader (modules/phonon/io) against the fixed silicon CONTROL of phonon_control.hpp.
#include "fuzz_support.hpp"
#include "phonon_control.hpp"
#include "quanta/phonon/force_constants.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)quanta::fuzz::silicon_control();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& control = quanta::fuzz::silicon_control();
  const auto file = quanta::fuzz::write_input("FORCE_CONSTANTS_4TH", data, size);
  quanta::fuzz::expect_clean("read_fc4", [&] { (void)quanta::phonon::read_fc4(file, control); });
  return 0;
}
