// FORCE_CONSTANTS_3RD: the anharmonic force constants written by thirdorder.py, read as ShengBTE reads them.
#include <string>

#include "fc_reading.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/io/text_reader.hpp"
#include "quanta/phonon/force_constants.hpp"

namespace quanta::phonon {
namespace {

// The fewest bytes a triplet takes in the file: its index, two cell vectors (3 reals each), three atom
// indices and 27 lines of three Cartesian indices and a value, 118 tokens each of at least one character
// and one separator.
constexpr long kMinBytesPerTriplet = 2 * (1 + 6 + 3 + 27 * 4);

}  // namespace

ThirdOrderFc read_fc3(const std::filesystem::path& file, const Control& control) {
  if (!std::filesystem::exists(file))
    throw InputError(file.string(), "file not found (three-phonon scattering needs thirdorder.py's FORCE_CONSTANTS_3RD)");
  const Crystal& c = control.crystal;
  const Mat3 to_lattice = fc_reading::to_lattice_coordinates(c);

  io::TextReader in(file.string());
  const long ntri = fc_reading::read_block_count(in, file, "triplet", kMinBytesPerTriplet);
  ThirdOrderFc fc;
  fc.triplets.reserve(static_cast<std::size_t>(ntri));
  for (long t = 0; t < ntri; ++t) {
    auto& tr = fc.triplets.emplace_back();
    fc_reading::read_block_index(in, "triplet", t, ntri);
    fc_reading::read_cell(in, to_lattice, "cell vector of the second atom (A)", tr.cell_j);
    fc_reading::read_cell(in, to_lattice, "cell vector of the third atom (A)", tr.cell_k);
    for (int& atom : tr.atom) atom = fc_reading::read_atom(in, c.natoms);
    for (int e = 0; e < 27; ++e) {
      int idx[3];
      for (int& x : idx) x = fc_reading::read_cartesian_index(in);
      tr.phi[idx[0] * 9 + idx[1] * 3 + idx[2]] = in.read_real("force constant (eV/A^3)");
    }
  }
  fc_reading::expect_end(in, "triplet", ntri);
  return fc;
}

}  // namespace quanta::phonon
