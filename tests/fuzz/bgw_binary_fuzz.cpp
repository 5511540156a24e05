// BerkeleyGW's mean-field files (modules/gw/io/bgw_binary.cpp, wfn_h5.cpp): WFN (Fortran records or
// HDF5, told apart by the first bytes), RHO and VXC, and its Epsilon output (bgw_epsmat.cpp: eps0mat.h5).
// Each reader rejects the others' titles or layouts at once.
#include <cstdlib>

#include "fuzz_support.hpp"
#include "quanta/gw/epsilon.hpp"
#include "quanta/gw/mean_field.hpp"

// The checking process that reads an HDF5 file first (quanta::io::check_hdf5_file) gets 3 s here,
// well under libFuzzer's 10 s hang limit, so that a loop inside HDF5 is reported as the corrupt file it is.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("QUANTA_HDF5_CHECK_SECONDS", "3", 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace gw = quanta::gw;
  using quanta::fuzz::expect_clean;
  const auto file = quanta::fuzz::write_input("WFN", data, size);
  expect_clean("read_wfn", [&] { (void)gw::read_wfn(file); });
  expect_clean("read_wfn (4 bands)", [&] { (void)gw::read_wfn(file, 4); });
  expect_clean("read_rho", [&] { (void)gw::read_rho(file); });
  expect_clean("read_vxc", [&] { (void)gw::read_vxc(file); });
  expect_clean("read_bgw_epsmat", [&] { (void)gw::read_bgw_epsmat(file, {}); });
  return 0;
}
