#pragma once
// Shared by the phonon tests: paths to the peer references (tests/data), whitespace tables, temporary folders.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "quanta/core/complex.hpp"
#include "quanta/phonon/control.hpp"
#include "quanta/phonon/force_constants.hpp"
#include "quanta/phonon/harmonic.hpp"
#include "quanta/phonon/qgrid.hpp"
#include "quanta/phonon/spectrum.hpp"
#include "quanta/phonon/symmetry.hpp"
#include "quanta/test/data.hpp"

namespace quanta::phonon::test {

// FourPhonon's silicon example (inputs, outputs) and its three-phonon-only runs, from tests/data/ (READMEs there).
inline std::filesystem::path si_reference() { return quanta::test::data_path("phonon/si-fourphonon"); }
inline std::filesystem::path reference_3ph(const std::string& run) {
  return quanta::test::data_path("phonon/si-fourphonon-3ph/" + run);
}

// Rows of numbers of a whitespace-separated text file.
inline std::vector<std::vector<double>> read_table(const std::filesystem::path& p) {
  std::ifstream in(p);
  EXPECT_TRUE(in.good()) << "cannot open " << p;
  std::vector<std::vector<double>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::vector<double> row;
    std::string tok;
    while (s >> tok) {
      if (tok[0] == '#') break;
      row.push_back(std::stod(tok));
    }
    if (!row.empty()) rows.push_back(row);
  }
  return rows;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Per-mode "omega value" files (band-major over the irreducible points): values summed over each degenerate
// group (same q, frequencies equal to 1e-6), because how a degenerate rate splits among the group's modes
// depends on the eigenvectors each code picked inside the group (FourPhonon's Gamma optical triplet splits
// 0.578/0.594/0.576 against quanta's 0.581/0.592/0.576, same sum). Compared where the reference is above
// 1e-3 of its largest value, to `rel`.
inline void expect_rates_match(const std::filesystem::path& ref, const std::filesystem::path& out, int nb, double rel) {
  const auto a = read_table(ref), b = read_table(out);
  ASSERT_EQ(a.size(), b.size()) << ref.filename();
  const std::size_t nl = a.size() / nb;
  double vmax = 0;
  for (const auto& r : a) vmax = std::max(vmax, std::abs(r[1]));
  int compared = 0;
  for (std::size_t l = 0; l < nl; ++l)
    for (int n0 = 0; n0 < nb;) {
      int n1 = n0 + 1;
      auto w = [&](int n) { return a[n * nl + l][0]; };
      while (n1 < nb && std::abs(w(n1) - w(n0)) < 1e-6 * std::max(1.0, std::abs(w(n0)))) ++n1;
      double sa = 0, sb = 0;
      for (int n = n0; n < n1; ++n) {
        ASSERT_NEAR(a[n * nl + l][0], b[n * nl + l][0], 1e-6 * std::abs(a[n * nl + l][0]) + 1e-9) << ref.filename() << " omega";
        sa += a[n * nl + l][1];
        sb += b[n * nl + l][1];
      }
      if (std::abs(sa) > 1e-3 * vmax * (n1 - n0)) {
        EXPECT_NEAR(sb, sa, rel * std::abs(sa)) << ref.filename() << " q " << l << " modes " << n0 << ".." << n1 - 1;
        ++compared;
      }
      n0 = n1;
    }
  EXPECT_GT(compared, static_cast<int>(nl)) << ref.filename();
}

// A fresh, empty folder under the system temporary directory, removed at destruction.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() / ("quanta-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
}

// The example's CONTROL asks for four-phonon scattering; these tests compare the harmonic and three-phonon
// outputs, which are those of four_phonon=.false., the CONTROL they run.
inline std::string si_control_text() {
  std::string t = read_text(si_reference() / "input/CONTROL");
  const std::string on = "four_phonon=.TRUE.";
  const auto at = t.find(on);
  EXPECT_NE(at, std::string::npos) << "the reference CONTROL no longer sets " << on;
  if (at != std::string::npos) t.replace(at, on.size(), "four_phonon=.FALSE.");
  return t;
}

// si_control_text() read as a Control (through a file of the process's own, removed once read).
inline Control si_control() {
  static const Control c = [] {
    const auto p = std::filesystem::temp_directory_path() / ("quanta-si-control-" + std::to_string(::getpid()));
    write_text(p, si_control_text());
    const Control read = read_control(p);
    std::filesystem::remove(p);  // read once: nothing is left in the temporary folder
    return read;
  }();
  return c;
}

// The harmonic stage of a run, for experiments on the four-phonon step alone.
// The mean and the sample standard deviation of a set of estimates (the sampling estimator's tests).
struct Spread {
  double mean, sd;
};
inline Spread spread(const std::vector<double>& x) {
  const double mean = std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());
  double v = 0;
  for (double a : x) v += (a - mean) * (a - mean);
  return {mean, std::sqrt(v / double(x.size() - 1))};
}

struct Harmonic {
  Control control;
  SymmetryInfo sym;
  QGrid grid;
  Spectrum spectrum;
};
inline Harmonic harmonic_stage(const std::filesystem::path& dir) {
  Harmonic h;
  h.control = read_control(dir / "CONTROL");
  const HarmonicModel model = read_phonopy_fc2(dir / "FORCE_CONSTANTS_2ND", h.control);
  h.sym = find_symmetry(h.control.crystal);
  h.grid = build_qgrid(h.control.ngrid, h.sym);
  std::vector<Vec3> q(h.grid.nptk);
  for (int i = 0; i < h.grid.nptk; ++i) q[i] = qfrac_to_cart(h.control.crystal, h.grid.qfrac[i]);
  h.spectrum = compute_spectrum(model, q, SpectrumOptions{});
  symmetrize_and_fix_gamma(h.control.crystal, h.sym, h.grid, h.spectrum);
  return h;
}

// The degenerate sets as canonicalize_degenerate_modes defines them: consecutive frequencies within 1e-9 of
// the largest |omega| at the q-point. [first, last) per set of two or more modes.
inline std::vector<std::pair<int, int>> degenerate_sets(const Spectrum& s, int q) {
  const double* w = &s.omega[static_cast<std::size_t>(q) * s.nb];
  double scale = 0;
  for (int n = 0; n < s.nb; ++n) scale = std::max(scale, std::abs(w[n]));
  std::vector<std::pair<int, int>> sets;
  for (int n0 = 0; n0 < s.nb;) {
    int n1 = n0 + 1;
    while (n1 < s.nb && w[n1] - w[n1 - 1] <= 1e-9 * scale) ++n1;
    if (n1 - n0 > 1) sets.emplace_back(n0, n1);
    n0 = n1;
  }
  return sets;
}

// Replaces the eigenvectors of every degenerate set by a random unitary combination of them (Gram-Schmidt
// on random complex columns): an equally valid eigensolver output. With scramble_velocities, the sets'
// velocities become garbage too (what canonicalize_degenerate_modes must undo). Returns the sets rotated.
inline int rotate_degenerate_sets(Spectrum& s, std::mt19937& rng, bool scramble_velocities) {
  std::normal_distribution<double> normal;
  const int nb = s.nb;
  int rotated = 0;
  for (int q = 0; q < s.nq; ++q)
    for (const auto& [n0, n1] : degenerate_sets(s, q)) {
      const int d = n1 - n0;
      std::vector<cplx> u(d * d);  // u[r * d + c]: column c
      for (auto& x : u) x = cplx(normal(rng), normal(rng));
      for (int c = 0; c < d; ++c) {
        for (int p = 0; p < c; ++p) {
          cplx dot;
          for (int r = 0; r < d; ++r) dot += conj(u[r * d + p]) * u[r * d + c];
          for (int r = 0; r < d; ++r) u[r * d + c] -= dot * u[r * d + p];
        }
        double norm = 0;
        for (int r = 0; r < d; ++r) norm += norm2(u[r * d + c]);
        for (int r = 0; r < d; ++r) u[r * d + c] = u[r * d + c] * (1 / std::sqrt(norm));
      }
      const std::size_t at = (static_cast<std::size_t>(q) * nb + n0) * nb;
      const std::vector<cplx> old(s.eigenvectors.begin() + at, s.eigenvectors.begin() + at + d * nb);
      for (int c = 0; c < d; ++c)
        for (int k = 0; k < nb; ++k) {
          cplx x;
          for (int r = 0; r < d; ++r) x += u[r * d + c] * old[r * nb + k];
          s.eigenvectors[at + c * nb + k] = x;
        }
      if (scramble_velocities)
        for (int n = n0; n < n1; ++n)
          for (int c = 0; c < 3; ++c) s.velocity[(static_cast<std::size_t>(q) * nb + n) * 3 + c] = normal(rng);
      ++rotated;
    }
  return rotated;
}

}  // namespace quanta::phonon::test
