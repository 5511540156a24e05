// FORCE_CONSTANTS_3RD: the anharmonic force constants written by thirdorder.py, read as ShengBTE reads them.
#include <cmath>
#include <cstdio>
#include <string>

#include "quanta/core/error.hpp"
#include "quanta/core/io/text_reader.hpp"
#include "quanta/phonon/force_constants.hpp"

namespace quanta::phonon {
namespace {

// The fewest bytes a triplet takes in the file: its index, two cell vectors (3 reals each), three atom
// indices and 27 lines of three Cartesian indices and a value, 118 tokens each of at least one character
// and one separator. The header's count is checked against the file's size with it before anything is
// allocated, so that a corrupt count is refused instead of becoming a huge allocation.
constexpr long kMinBytesPerTriplet = 2 * (1 + 6 + 3 + 27 * 4);

// thirdorder.py's cells are the few nearest neighbours of its supercell; a cell vector this many lattice
// vectors away (per fractional component) is corrupt, and would not fit the int cell index anyway.
constexpr double kMaxCellComponent = 10000;

std::string short_real(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

ThirdOrderFc read_fc3(const std::filesystem::path& file, const Control& control) {
  if (!std::filesystem::exists(file))
    throw InputError(file.string(), "file not found (three-phonon scattering needs thirdorder.py's FORCE_CONSTANTS_3RD)");
  const Crystal& c = control.crystal;
  // Angstrom -> lattice coordinates: x = A^{-T} r with the rows of A the lattice vectors in nm.
  Mat3 at{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) at[i][j] = c.lattice[j][i];
  const Mat3 at_inv = inverse(at);

  io::TextReader in(file.string());
  const long ntri = in.read_int("number of triplets");
  if (ntri < 1) in.fail("number of triplets", std::to_string(ntri), "a positive count");
  std::error_code ec;
  const auto file_bytes = std::filesystem::file_size(file, ec);
  const long max_ntri = ec ? 0 : static_cast<long>(file_bytes / kMinBytesPerTriplet);
  if (ntri > max_ntri)
    in.fail("number of triplets", std::to_string(ntri),
            "at most " + std::to_string(max_ntri) + " triplets, as many as a file of " + std::to_string(ec ? 0 : file_bytes) +
                " bytes can hold (each takes at least " + std::to_string(kMinBytesPerTriplet) + ")");
  ThirdOrderFc fc;
  fc.triplets.reserve(static_cast<std::size_t>(ntri));
  for (long t = 0; t < ntri; ++t) {
    auto& tr = fc.triplets.emplace_back();
    if (in.at_end()) in.fail("triplet " + std::to_string(t + 1), "end of file", std::to_string(ntri) + " triplets as the header says");
    const long index = in.read_int("triplet index");
    if (index != t + 1) in.fail("triplet index", std::to_string(index), std::to_string(t + 1) + " (triplets numbered in order)");
    for (int which = 0; which < 2; ++which) {
      const std::string field = which == 0 ? "cell vector of the second atom (A)" : "cell vector of the third atom (A)";
      Vec3 r{};
      for (double& x : r) x = 0.1 * in.read_real(field);  // A -> nm
      const Vec3 f = matvec(at_inv, r);
      int* cell = which == 0 ? tr.cell_j : tr.cell_k;
      for (int d = 0; d < 3; ++d)
        if (!(std::abs(f[d]) <= kMaxCellComponent))  // also refuses inf and NaN, before any rounding or cast
          in.fail(field, "fractional coordinates (" + short_real(f[0]) + ", " + short_real(f[1]) + ", " + short_real(f[2]) + ")",
                  "a lattice vector of CONTROL's lattvec*lfactor with components of at most " +
                      std::to_string(static_cast<long>(kMaxCellComponent)) + " in magnitude");
      for (int d = 0; d < 3; ++d) {
        const double n = std::nearbyint(f[d]);
        if (std::abs(f[d] - n) > 1e-3)
          in.fail(field, "fractional coordinates (" + std::to_string(f[0]) + ", " + std::to_string(f[1]) + ", " + std::to_string(f[2]) + ")",
                  "a lattice vector of CONTROL's lattvec*lfactor");
        cell[d] = static_cast<int>(n);
      }
    }
    for (int a = 0; a < 3; ++a) {
      const long atom = in.read_int("atom index");
      if (atom < 1 || atom > c.natoms) in.fail("atom index", std::to_string(atom), "1.." + std::to_string(c.natoms) + " (natoms in CONTROL)");
      tr.atom[a] = static_cast<int>(atom - 1);
    }
    for (int e = 0; e < 27; ++e) {
      long idx[3];
      for (long& x : idx) {
        x = in.read_int("Cartesian index");
        if (x < 1 || x > 3) in.fail("Cartesian index", std::to_string(x), "1, 2 or 3");
      }
      tr.phi[(idx[0] - 1) * 9 + (idx[1] - 1) * 3 + (idx[2] - 1)] = in.read_real("force constant (eV/A^3)");
    }
  }
  if (!in.at_end()) in.fail("end of file", "more data after " + std::to_string(ntri) + " triplets", "the end of the file");
  return fc;
}

}  // namespace quanta::phonon
