// quanta's HDF5 levels file (modules/linelist/io/levels_h5.cpp): the levels an input asks for, every
// block's eigenvectors, and the dipole matrices. The HDF5 library itself is not instrumented; a fault
// inside it on a corrupt file is reported with the library's frames on top of the stack.
#include <numeric>
#include <vector>

#include <cstdlib>

#include "fuzz_support.hpp"
#include "quanta/linelist/levels.hpp"

// The checking process that reads an HDF5 file first (quanta::io::check_hdf5_file) gets 3 s here,
// well under libFuzzer's 10 s hang limit, so that a loop inside HDF5 is reported as the corrupt file it is.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("QUANTA_HDF5_CHECK_SECONDS", "3", 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace ll = quanta::linelist;
  using quanta::fuzz::expect_clean;
  const auto file = quanta::fuzz::write_input("levels.h5", data, size);
  ll::IntensityInput input;
  input.file = "fuzz.inp";
  input.symgroup = "C2v(M)";
  input.gns = {1, 1, 1, 1};
  input.jmin = 0;
  input.jmax = 1;
  expect_clean("read_levels_h5", [&] {
    const ll::Levels levels = ll::read_levels_h5(file, input);
    for (const auto& block : levels.blocks) {
      std::vector<int> records(block.levels.size());
      std::iota(records.begin(), records.end(), 1);
      (void)ll::expanded_vectors(levels, block, records, -1.0);
    }
  });
  expect_clean("read_dipole_h5", [&] { (void)ll::read_dipole_h5(file); });
  return 0;
}
