// espresso.ifc2: the real-space force constants written by Quantum ESPRESSO's q2r.x, read as ShengBTE
// reads them (CONTROL's masses, positions, Born charges and dielectric tensor win over the file's).
#include <cmath>
#include <sstream>
#include <string>

#include "../src/harmonic_model.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/io/text_reader.hpp"
#include "quanta/core/units.hpp"
#include "quanta/phonon/force_constants.hpp"

namespace quanta::phonon {
namespace {

namespace su = units::shengbte;

std::string str(long v) { return std::to_string(v); }

struct SupercellFc {
  int nat;
  std::array<int, 3> s;
  std::vector<double> v;
  double& at(int i, int j, int a1, int a2, int t1, int t2, int t3) {
    std::size_t k = static_cast<std::size_t>(i) * 3 + j;
    k = ((((k * nat + a1) * nat + a2) * s[0] + t1) * s[1] + t2) * s[2] + t3;
    return v[k];
  }
};

SupercellFc parse(const std::filesystem::path& file, const Control& control) {
  if (!std::filesystem::exists(file))
    throw InputError(file.string(), "file not found (espresso=.true. in CONTROL asks for the q2r.x output espresso.ifc2)");
  io::TextReader in(file.string());
  const int nelements = static_cast<int>(control.crystal.elements.size());
  const int nat = control.crystal.natoms;
  const long ntype = in.read_int("ntyp (number of species)");
  if (ntype != nelements) in.fail("ntyp", str(ntype), str(nelements) + " species (nelements in CONTROL)");
  const long nat_file = in.read_int("nat (number of atoms)");
  if (nat_file != nat) in.fail("nat", str(nat_file), str(nat) + " atoms (natoms in CONTROL)");
  const long ibrav = in.read_int("ibrav");
  for (int k = 0; k < 6; ++k) in.read_real("celldm(" + str(k + 1) + ")");
  if (ibrav == 0)
    for (int k = 0; k < 9; ++k) in.read_real("lattice vector component");
  in.read_rest_of_line();
  for (int t = 0; t < ntype; ++t) {  // "index 'label' mass": the label may hold blanks inside its quotes
    const std::string line = in.read_rest_of_line();
    if (line.find_first_not_of(" \t\r") == std::string::npos) in.fail("species line", "an empty line", "index 'label' mass");
  }
  for (int a = 0; a < nat; ++a) {
    const long idx = in.read_int("atom index");
    if (idx != a + 1) in.fail("atom index", str(idx), str(a + 1));
    in.read_int("atom species");
    for (int k = 0; k < 3; ++k) in.read_real("atom position");
  }
  const std::string polar = in.read_word("dielectric flag");
  if (polar != "T" && polar != "F") in.fail("dielectric flag", polar, "T or F");
  if (polar == "T") {  // epsilon and Z* as q2r wrote them; ShengBTE (and quanta) take them from CONTROL
    for (int k = 0; k < 9; ++k) in.read_real("epsilon");
    for (int a = 0; a < nat; ++a) {
      in.read_int("atom index of the Born charges");
      for (int k = 0; k < 9; ++k) in.read_real("Born charge");
    }
  }
  SupercellFc fc{nat, control.scell, {}};
  for (int d = 0; d < 3; ++d) {
    const long s = in.read_int("supercell size nr" + str(d + 1));
    if (s != control.scell[d]) in.fail("nr" + str(d + 1), str(s), str(control.scell[d]) + " (scell(" + str(d + 1) + ") in CONTROL)");
  }
  const int ncell = fc.s[0] * fc.s[1] * fc.s[2];  // CONTROL bounds natoms * ncell, so no overflow
  // The 9 nat^2 blocks each take at least a header "i j a1 a2" (8 bytes) and ncell lines "t1 t2 t3 value"
  // (8 bytes each). Checked against the file's size before the table is allocated from CONTROL's sizes, so a
  // file too short for them is refused as such instead of costing 9 nat^2 ncell doubles first.
  const double min_bytes = 9.0 * nat * nat * 8.0 * (1.0 + ncell);
  std::error_code ec;
  const auto file_bytes = std::filesystem::file_size(file, ec);
  if (ec || static_cast<double>(file_bytes) < min_bytes)
    in.fail("force-constant blocks", "a file of " + str(ec ? 0L : static_cast<long>(file_bytes)) + " bytes",
            str(9L * nat * nat) + " blocks of " + str(ncell) + " cells (3 x 3 x nat x nat on the " + str(fc.s[0]) + "x" +
                str(fc.s[1]) + "x" + str(fc.s[2]) + " supercell of CONTROL), at least " + str(static_cast<long>(min_bytes)) + " bytes");
  fc.v.assign(9L * nat * nat * ncell, 0.0);
  for (long block = 0; block < 9L * nat * nat; ++block) {
    if (in.at_end()) in.fail("force-constant block", "end of file after " + str(block) + " blocks", str(9L * nat * nat) + " blocks (3 x 3 x nat x nat)");
    const long i = in.read_int("ipol"), j = in.read_int("jpol"), a1 = in.read_int("atom 1"), a2 = in.read_int("atom 2");
    if (i < 1 || i > 3 || j < 1 || j > 3) in.fail("ipol/jpol", str(i) + " " + str(j), "Cartesian indices 1..3");
    if (a1 < 1 || a1 > nat || a2 < 1 || a2 > nat) in.fail("atom indices", str(a1) + " " + str(a2), "1.." + str(nat));
    for (int c = 0; c < ncell; ++c) {
      const long t1 = in.read_int("cell index"), t2 = in.read_int("cell index"), t3 = in.read_int("cell index");
      if (t1 < 1 || t1 > fc.s[0] || t2 < 1 || t2 > fc.s[1] || t3 < 1 || t3 > fc.s[2])
        in.fail("cell index", str(t1) + " " + str(t2) + " " + str(t3), "within the " + str(fc.s[0]) + "x" + str(fc.s[1]) + "x" + str(fc.s[2]) + " supercell");
      fc.at(i - 1, j - 1, a1 - 1, a2 - 1, t1 - 1, t2 - 1, t3 - 1) = in.read_real("force constant");
    }
  }
  // Acoustic sum rule, ShengBTE's way: the on-site constant becomes minus the sum of all the others.
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int a = 0; a < nat; ++a) {
        double sum = 0;
        for (int b = 0; b < nat; ++b)
          for (int t1 = 0; t1 < fc.s[0]; ++t1)
            for (int t2 = 0; t2 < fc.s[1]; ++t2)
              for (int t3 = 0; t3 < fc.s[2]; ++t3) sum += fc.at(i, j, a, b, t1, t2, t3);
        fc.at(i, j, a, a, 0, 0, 0) -= sum;
      }
  return fc;
}

// Wigner-Seitz weight of r (bohr) in the supercell whose 124 nearest lattice vectors are `rws` (QE's wsweight).
double ws_weight(const double r[3], const std::vector<std::array<double, 4>>& rws) {
  const double tol = double(1e-6f);
  int nreq = 1;
  for (const auto& w : rws) {
    const double ck = r[0] * w[0] + r[1] * w[1] + r[2] * w[2] - w[3];
    if (ck > tol) return 0.0;
    if (std::abs(ck) < tol) ++nreq;
  }
  return 1.0 / nreq;
}

}  // namespace

std::vector<double> read_espresso_supercell_fc(const std::filesystem::path& file, const Control& control) {
  return parse(file, control).v;
}

HarmonicModel read_espresso_ifc2(const std::filesystem::path& file, const Control& control) {
  SupercellFc fc = parse(file, control);
  const Crystal& c = control.crystal;
  const int nat = c.natoms;
  const double b2nm = su::bohr_in_nm;
  std::vector<double> mass_ry(nat);
  for (int a = 0; a < nat; ++a) mass_ry[a] = c.masses[a] * su::amu_to_ry_mass;
  const double to_rad_ps2 = su::rydberg_to_rad_per_ps * su::rydberg_to_rad_per_ps;

  double a_bohr[3][3];
  std::vector<std::array<double, 3>> tau(nat);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) a_bohr[i][k] = c.lattice[i][k] / b2nm;
  for (int a = 0; a < nat; ++a)
    for (int k = 0; k < 3; ++k) tau[a][k] = c.cartesian[a][k] / b2nm;
  std::vector<std::array<double, 4>> rws;  // supercell lattice vectors and half their squared length
  for (int m1 = -2; m1 <= 2; ++m1)
    for (int m2 = -2; m2 <= 2; ++m2)
      for (int m3 = -2; m3 <= 2; ++m3) {
        if (m1 == 0 && m2 == 0 && m3 == 0) continue;
        std::array<double, 4> w{};
        for (int k = 0; k < 3; ++k)
          w[k] = m1 * fc.s[0] * a_bohr[0][k] + m2 * fc.s[1] * a_bohr[1][k] + m3 * fc.s[2] * a_bohr[2][k];
        w[3] = 0.5 * (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
        rws.push_back(w);
      }

  HarmonicModel m;
  for (int a1 = 0; a1 < nat; ++a1)
    for (int a2 = 0; a2 < nat; ++a2) {
      const double mm = std::sqrt(mass_ry[a1] * mass_ry[a2]);
      for (int m1 = -2 * fc.s[0]; m1 <= 2 * fc.s[0]; ++m1)
        for (int m2 = -2 * fc.s[1]; m2 <= 2 * fc.s[1]; ++m2)
          for (int m3 = -2 * fc.s[2]; m3 <= 2 * fc.s[2]; ++m3) {
            double t[3], r[3];
            for (int k = 0; k < 3; ++k) {
              t[k] = m1 * a_bohr[0][k] + m2 * a_bohr[1][k] + m3 * a_bohr[2][k];
              r[k] = t[k] + tau[a1][k] - tau[a2][k];
            }
            const double w = ws_weight(r, rws);
            if (w == 0) continue;
            auto cell = [](int mi, int s) { return ((mi % s) + s) % s; };
            const int t1 = cell(m1, fc.s[0]), t2 = cell(m2, fc.s[1]), t3 = cell(m3, fc.s[2]);
            FcTerm term;
            term.a1 = a1, term.a2 = a2, term.weight = w;
            for (int k = 0; k < 3; ++k) term.r[k] = m1 * c.lattice[0][k] + m2 * c.lattice[1][k] + m3 * c.lattice[2][k];
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j) term.block[i][j] = fc.at(i, j, a1, a2, t1, t2, t3) * w / mm * to_rad_ps2;
            m.terms.push_back(term);
          }
    }

  if (control.nonanalytic) {
    m.nac = NacKind::Ewald;
    m.q_to_bohr = b2nm;
    const double a1len = std::sqrt(c.lattice[0][0] * c.lattice[0][0] + c.lattice[0][1] * c.lattice[0][1] + c.lattice[0][2] * c.lattice[0][2]);
    m.alpha = std::pow(2 * units::pi * b2nm / a1len, 2);
    const double volume_bohr = c.volume / (b2nm * b2nm * b2nm);
    m.nac_prefactor = 8 * units::pi / volume_bohr * to_rad_ps2;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m.epsilon[i][j] = c.epsilon[j][i];
    m.zeff.resize(9 * nat);  // QE path: q is contracted with the second index of born(:,:,atom)
    for (int a = 0; a < nat; ++a)
      for (int x = 0; x < 3; ++x)
        for (int p = 0; p < 3; ++p) m.zeff[9 * a + 3 * x + p] = c.born[a][p][x];
    m.inv_sqrt_mass.resize(nat);
    for (int a = 0; a < nat; ++a) m.inv_sqrt_mass[a] = 1.0 / std::sqrt(mass_ry[a]);
    int ncell_g[3];
    double b_bohr[3][3];
    for (int i = 0; i < 3; ++i) {
      double len = 0;
      for (int k = 0; k < 3; ++k) {
        b_bohr[i][k] = c.reciprocal[i][k] * b2nm;
        len += b_bohr[i][k] * b_bohr[i][k];
      }
      ncell_g[i] = static_cast<int>(std::sqrt(4 * m.alpha * 14.0) / std::sqrt(len)) + 1;
    }
    for (int m1 = -ncell_g[0]; m1 <= ncell_g[0]; ++m1)
      for (int m2 = -ncell_g[1]; m2 <= ncell_g[1]; ++m2)
        for (int m3 = -ncell_g[2]; m3 <= ncell_g[2]; ++m3)
          for (int k = 0; k < 3; ++k) m.gvectors.push_back(m1 * b_bohr[0][k] + m2 * b_bohr[1][k] + m3 * b_bohr[2][k]);
    // The q-independent on-site part of the Ewald sum (QE's "q = 0" term), added as r = 0 terms.
    const bool any_born = [&] {
      for (double z : m.zeff)
        if (z != 0) return true;
      return false;
    }();
    if (any_born) {
      const int ng = static_cast<int>(m.gvectors.size() / 3);
      for (int a = 0; a < nat; ++a) {
        FcTerm term;
        term.a1 = term.a2 = a, term.weight = 0;  // weight 0: not part of the image sums
        for (int g = 0; g < ng; ++g) {
          const double* G = &m.gvectors[3 * g];
          double geg = 0;
          for (int x = 0; x < 3; ++x)
            for (int y = 0; y < 3; ++y) geg += G[x] * m.epsilon[x][y] * G[y];
          if (!(geg > 0) || geg / (4 * m.alpha) >= 14.0) continue;
          const double f = std::exp(-geg / (4 * m.alpha)) / geg;
          double zig[3];
          for (int p = 0; p < 3; ++p) zig[p] = G[0] * m.zeff[9 * a + p] + G[1] * m.zeff[9 * a + 3 + p] + G[2] * m.zeff[9 * a + 6 + p];
          double aux[3] = {0, 0, 0};  // Re sum_b zjg(p) e^{i G.(tau_a - tau_b)}
          for (int b = 0; b < nat; ++b) {
            const double arg = G[0] * (tau[a][0] - tau[b][0]) + G[1] * (tau[a][1] - tau[b][1]) + G[2] * (tau[a][2] - tau[b][2]);
            for (int p = 0; p < 3; ++p)
              aux[p] += std::cos(arg) * (G[0] * m.zeff[9 * b + p] + G[1] * m.zeff[9 * b + 3 + p] + G[2] * m.zeff[9 * b + 6 + p]);
          }
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) term.block[i][j] -= f * zig[i] * aux[j] * m.nac_prefactor / mass_ry[a];
        }
        m.terms.push_back(term);
      }
    } else {
      m.nac = NacKind::None;  // Z* = 0: the dipole-dipole sum vanishes identically
      m.gvectors.clear();
    }
  }
  finish_model(m, c);
  return m;
}

}  // namespace quanta::phonon
