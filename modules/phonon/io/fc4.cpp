// FORCE_CONSTANTS_4TH: the fourth-order force constants written by Fourthorder.py, read as FourPhonon reads them.
#include <string>

#include "fc_reading.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/io/text_reader.hpp"
#include "quanta/phonon/force_constants.hpp"

namespace quanta::phonon {
namespace {

// The fewest bytes a quadruplet takes in the file: its index, three cell vectors (3 reals each), four atom
// indices and 81 lines of four Cartesian indices and a value, 419 tokens each of at least one character and
// one separator.
constexpr long kMinBytesPerQuadruplet = 2 * (1 + 9 + 4 + 81 * 5);

// Line e of a quadruplet's 81 holds the components e = 27 alpha + 9 beta + 3 gamma + delta (0-based): FourPhonon
// reads the values in this order and skips the indices, so a file in any other order would be misread there.
void read_components(io::TextReader& in, int e) {
  const int want[4] = {e / 27, e / 9 % 3, e / 3 % 3, e % 3};
  for (int w : want) {
    const int got = fc_reading::read_cartesian_index(in);
    if (got != w)
      in.fail("Cartesian index", std::to_string(got + 1),
              std::to_string(w + 1) + " (this line's components are " + std::to_string(want[0] + 1) + " " + std::to_string(want[1] + 1) +
                  " " + std::to_string(want[2] + 1) + " " + std::to_string(want[3] + 1) +
                  ": a quadruplet's 81 lines run alpha slowest to delta fastest, the order FourPhonon reads)");
  }
}

}  // namespace

FourthOrderFc read_fc4(const std::filesystem::path& file, const Control& control) {
  if (!std::filesystem::exists(file))
    throw InputError(file.string(), "file not found (four-phonon scattering needs Fourthorder.py's FORCE_CONSTANTS_4TH)");
  const Crystal& c = control.crystal;
  const Mat3 to_lattice = fc_reading::to_lattice_coordinates(c);

  io::TextReader in(file.string());
  const long nquad = fc_reading::read_block_count(in, file, "quadruplet", kMinBytesPerQuadruplet);
  FourthOrderFc fc;
  fc.quadruplets.reserve(static_cast<std::size_t>(nquad));
  for (long t = 0; t < nquad; ++t) {
    auto& q = fc.quadruplets.emplace_back();
    fc_reading::read_block_index(in, "quadruplet", t, nquad);
    fc_reading::read_cell(in, to_lattice, "cell vector of the second atom (A)", q.cell_j);
    fc_reading::read_cell(in, to_lattice, "cell vector of the third atom (A)", q.cell_k);
    fc_reading::read_cell(in, to_lattice, "cell vector of the fourth atom (A)", q.cell_l);
    for (int& atom : q.atom) atom = fc_reading::read_atom(in, c.natoms);
    for (int e = 0; e < 81; ++e) {
      read_components(in, e);
      q.phi[e] = in.read_real("force constant (eV/A^4)");
    }
  }
  fc_reading::expect_end(in, "quadruplet", nquad);
  return fc;
}

}  // namespace quanta::phonon
