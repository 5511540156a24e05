// TROVE's checkpoint files (modules/linelist/io/trove_checkpoints.cpp): every reader on every input,
// each rejects the others' layouts on their first line or record. The parameters are those of the SiH2
// example the seeds come from: C2v(M) (four one-dimensional irreps), J = 0..2, one vibrational class.
#include <vector>

#include "fuzz_support.hpp"
#include "quanta/linelist/checkpoints.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace ll = quanta::linelist;
  using quanta::fuzz::expect_clean;
  const auto file = quanta::fuzz::write_input("j0eigen.chk", data, size);
  const std::vector<int> c2v_degeneracy = {1, 1, 1, 1};
  for (int J = 0; J <= 2; ++J) expect_clean("read_contracted_basis", [&] { (void)ll::read_contracted_basis(file, J, c2v_degeneracy); });
  int nmodes = 3;
  expect_clean("read_nmodes", [&] { nmodes = ll::read_nmodes(file); });
  expect_clean("read_root_descriptions", [&] { (void)ll::read_root_descriptions(file, nmodes, 1); });
  expect_clean("read_dipole_matrices", [&] { (void)ll::read_dipole_matrices(file); });
  return 0;
}
