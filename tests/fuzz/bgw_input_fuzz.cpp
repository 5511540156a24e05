// BerkeleyGW's text inputs (modules/gw/io): epsilon.inp and sigma.inp keyword files and vxc.dat.
#include "fuzz_support.hpp"
#include "quanta/gw/inputs.hpp"
#include "quanta/gw/mean_field.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace gw = quanta::gw;
  using quanta::fuzz::expect_clean;
  const auto file = quanta::fuzz::write_input("bgw.inp", data, size);
  expect_clean("read_epsilon_inp", [&] { (void)gw::read_epsilon_inp(file); });
  expect_clean("read_sigma_inp", [&] { (void)gw::read_sigma_inp(file); });
  expect_clean("read_vxc_dat", [&] { (void)gw::read_vxc_dat(file); });
  return 0;
}
