// ExoCross's input and ExoMol's text files as the cross sections read them (modules/linelist/src/xsec.cpp): the same
// bytes as an ExoCross input, a .broad file, a .states file and, against a small fixed table of states, a .trans file.
#include "fuzz_support.hpp"
#include "quanta/linelist/xsec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace quanta::linelist;
  const auto file = quanta::fuzz::write_input("exocross.inp", data, size);
  quanta::fuzz::expect_clean("read_exocross_input", [&] { (void)read_exocross_input(file, false); });
  quanta::fuzz::expect_clean("read_broadening", [&] { (void)read_broadening(file, 0.07, 0.5); });
  quanta::fuzz::expect_clean("read_exomol_states", [&] { (void)read_exomol_states(file); });
  StateTable states;
  states.energy = {0.0, 100.0, 250.0};
  states.g = {1.0, 3.0, 5.0};
  states.j = {0.0, 1.0, 2.0};
  quanta::fuzz::expect_clean("read_exomol_transitions", [&] { (void)read_exomol_transitions(file, states, [](const LineBatch&) {}, 7); });
  return 0;
}
