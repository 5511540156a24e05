// Writes the small eps0mat.h5 that seeds fuzz_bgw_binary for gw::read_bgw_epsmat (corpus/bgw_binary/seeds/):
// BerkeleyGW's layout (modules/gw/io/bgw_epsmat.cpp) with one q-point, 3 of 4 G-vectors and a Real 3 x 3 eps^-1.
//   make_epsmat_seed OUTPUT_FILE
#include <cstdint>
#include <cstdio>
#include <vector>

#include "quanta/core/io/hdf5.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_epsmat_seed OUTPUT_FILE\n");
    return 2;
  }
  using ints = std::vector<std::int64_t>;
  quanta::io::H5File f(argv[1], quanta::io::H5File::Mode::Create);
  f.write("/eps_header/versionnumber", ints{3}, {1});
  f.write("/eps_header/flavor", ints{1}, {1});
  f.write("/eps_header/params/matrix_type", ints{0}, {1});
  f.write("/eps_header/params/nmatrix", ints{1}, {1});
  f.write("/eps_header/params/nband", ints{8}, {1});
  f.write("/eps_header/params/ecuts", std::vector<double>{2.0}, {1});
  f.write("/eps_header/freqs/freq_dep", ints{0}, {1});
  f.write("/eps_header/qpoints/nq", ints{1}, {1});
  f.write("/eps_header/qpoints/qpts", std::vector<double>{0, 0, 0.001}, {1, 3});
  f.write("/eps_header/qpoints/qgrid", ints{1, 1, 1}, {3});
  f.write("/eps_header/gspace/nmtx", ints{3}, {1});
  f.write("/eps_header/gspace/nmtx_max", ints{3}, {1});
  f.write("/eps_header/gspace/gind_eps2rho", ints{1, 3, 2, 4}, {1, 4});
  f.write("/mf_header/gspace/ng", ints{4}, {1});
  f.write("/mf_header/gspace/components", ints{0, 0, 0, 1, 1, 1, -1, -1, -1, 2, 0, 0}, {4, 3});
  f.write("/mf_header/crystal/celvol", std::vector<double>{270.0}, {1});
  f.write("/mats/matrix", std::vector<double>{0.1, 0.01, 0.0, 0.02, 0.9, 0.03, 0.0, 0.04, 0.8}, {1, 1, 1, 3, 3, 1});
  return 0;
}
