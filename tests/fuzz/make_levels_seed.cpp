// Writes the seeds of fuzz_levels_h5: a small levels file in C2v(M) with J = 0 and 1, two vibrational
// functions, one root per (J, Gamma); the second file also carries TROVE's descr fields.
//   make_levels_seed OUT_DIR
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "quanta/core/io/hdf5.hpp"

namespace {

void write_seed(const std::filesystem::path& path, bool trove_fields) {
  quanta::io::H5File f(path, quanta::io::H5File::Mode::Create);
  const std::size_t nvib = 2, nmodes = 3, nclasses = 1;
  f.write_string("/format", "quanta linelist levels 1");
  f.write_string("/symmetry_group", "C2v(M)");
  f.write("/dipole", std::vector<double>{0.1, 0.2, 0.2, 0.3, 0.0, 0.5, 0.5, 0.0, 1.0, 0.0, 0.0, -1.0}, {3, nvib, nvib});
  f.write_scalar("/zpe", 1000.0);
  if (trove_fields) {
    f.write("/trove_nmodes", std::vector<std::int64_t>{std::int64_t(nmodes)}, {});
    f.write("/trove_nclasses", std::vector<std::int64_t>{std::int64_t(nclasses)}, {});
  }
  const std::vector<std::vector<std::int64_t>> k = {{0}, {0, 1, 1}}, tau = {{0}, {1, 0, 1}};
  for (int J = 0; J <= 1; ++J) {
    const std::string j = "/J" + std::to_string(J);
    f.write(j + "/k", k[J], {k[J].size()});
    f.write(j + "/tau", tau[J], {tau[J].size()});
    const std::size_t dim = k[J].size() * nvib;
    for (int g = 1; g <= 4; ++g) {
      const std::string b = j + "/G" + std::to_string(g);
      f.write(b + "/energy", std::vector<double>{1000.0 + 100.0 * J + 10.0 * g}, {1});
      f.write(b + "/id", std::vector<std::int64_t>{8 * J + g}, {1});
      f.write(b + "/quanta", std::vector<std::int64_t>{0, 1, 0}, {1, nmodes});
      std::vector<double> v(dim, 0.0);
      v[(g - 1) % dim] = 1.0;
      f.write(b + "/vectors", v, {1, dim});
      if (trove_fields) {
        const std::size_t width = 1 + 2 * (nmodes + 1) + (nclasses + 1) + 1;
        std::vector<std::int64_t> descr(width, 0);
        descr[0] = 1;
        f.write(b + "/trove_descr", descr, {1, width});
        f.write(b + "/largest_coeff", std::vector<double>{1.0}, {1});
      }
    }
  }
  f.close();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_levels_seed OUT_DIR\n");
    return 2;
  }
  const std::filesystem::path out = argv[1];
  std::filesystem::create_directories(out);
  write_seed(out / "levels-minimal.h5", false);
  write_seed(out / "levels-trove-descr.h5", true);
  return 0;
}
