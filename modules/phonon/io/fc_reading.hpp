#pragma once
// What the readers of FORCE_CONSTANTS_3RD (thirdorder.py) and FORCE_CONSTANTS_4TH (Fourthorder.py) share: a
// header count of numbered blocks, each naming the cells (Angstrom) of its atoms after the first and the atoms
// themselves (1-based), then one line per Cartesian component.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "quanta/core/io/text_reader.hpp"
#include "quanta/phonon/crystal.hpp"

namespace quanta::phonon::fc_reading {

// The generators' cells are the few nearest neighbours of their supercell; a cell vector this many lattice
// vectors away (per fractional component) is corrupt, and would not fit the int cell index anyway.
inline constexpr double kMaxCellComponent = 10000;

inline std::string short_real(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// nm -> lattice coordinates: x = A^{-T} r with the rows of A the lattice vectors in nm.
inline Mat3 to_lattice_coordinates(const Crystal& c) {
  Mat3 at{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) at[i][j] = c.lattice[j][i];
  return inverse(at);
}

// The header's count of blocks ("triplet", "quadruplet"). It is checked against the file's size, each block
// taking at least `min_bytes`, before anything is allocated, so that a corrupt count is refused instead of
// becoming a huge allocation.
inline long read_block_count(io::TextReader& in, const std::filesystem::path& file, const std::string& block, long min_bytes) {
  const std::string field = "number of " + block + "s";
  const long n = in.read_int(field);
  if (n < 1) in.fail(field, std::to_string(n), "a positive count");
  std::error_code ec;
  const auto file_bytes = std::filesystem::file_size(file, ec);
  const long max_n = ec ? 0 : static_cast<long>(file_bytes / min_bytes);
  if (n > max_n)
    in.fail(field, std::to_string(n),
            "at most " + std::to_string(max_n) + " " + block + "s, as many as a file of " + std::to_string(ec ? 0 : file_bytes) +
                " bytes can hold (each takes at least " + std::to_string(min_bytes) + ")");
  return n;
}

// The index that opens block t (0-based) of n: the blocks are numbered from 1 in file order.
inline void read_block_index(io::TextReader& in, const std::string& block, long t, long n) {
  if (in.at_end()) in.fail(block + " " + std::to_string(t + 1), "end of file", std::to_string(n) + " " + block + "s as the header says");
  const long index = in.read_int(block + " index");
  if (index != t + 1) in.fail(block + " index", std::to_string(index), std::to_string(t + 1) + " (" + block + "s numbered in order)");
}

// One cell vector (three reals, A) as lattice coordinates, rounded to the nearest lattice vector as ShengBTE
// does; one farther than 1e-3 (fractional) from every lattice vector means that the file and CONTROL
// describe different crystals.
inline void read_cell(io::TextReader& in, const Mat3& to_lattice, const std::string& field, int cell[3]) {
  Vec3 r{};
  for (double& x : r) x = 0.1 * in.read_real(field);  // A -> nm
  const Vec3 f = matvec(to_lattice, r);
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

// A 1-based atom of the unit cell, returned 0-based.
inline int read_atom(io::TextReader& in, int natoms) {
  const long atom = in.read_int("atom index");
  if (atom < 1 || atom > natoms) in.fail("atom index", std::to_string(atom), "1.." + std::to_string(natoms) + " (natoms in CONTROL)");
  return static_cast<int>(atom - 1);
}

// A 1-based Cartesian component (1, 2 or 3), returned 0-based.
inline int read_cartesian_index(io::TextReader& in) {
  const long x = in.read_int("Cartesian index");
  if (x < 1 || x > 3) in.fail("Cartesian index", std::to_string(x), "1, 2 or 3");
  return static_cast<int>(x - 1);
}

inline void expect_end(io::TextReader& in, const std::string& block, long n) {
  if (!in.at_end()) in.fail("end of file", "more data after " + std::to_string(n) + " " + block + "s", "the end of the file");
}

}  // namespace quanta::phonon::fc_reading
