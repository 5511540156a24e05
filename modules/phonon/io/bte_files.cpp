// The text outputs of ShengBTE's harmonic stage, with its file names, loop orders and Fortran formats.
#include <cmath>
#include <functional>

#include "outputs.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/io/fortran_format.hpp"

namespace quanta::phonon {
namespace {

using io::fortran_E;

void write_file(const std::filesystem::path& path, const std::function<void(std::ostream&)>& body) {
  io::AtomicFile f(path);
  body(f.stream());
  f.commit();
}

std::string temperature_dir(double t) { return "T" + std::to_string(std::lround(t)) + "K"; }

}  // namespace

void write_bte_files(const std::filesystem::path& dir, const HarmonicResults& r) {
  const Crystal& c = r.control->crystal;
  const QGrid& g = *r.grid;
  const Spectrum& s = *r.spectrum;
  const int nb = s.nb;
  std::filesystem::create_directories(dir);

  write_file(dir / "BTE.ReciprocalLatticeVectors", [&](std::ostream& o) {
    for (int i = 0; i < 3; ++i) {
      for (int k = 0; k < 3; ++k) o << io::fortran_F(c.reciprocal[i][k], 20, 10);
      o << "   # nm-1,b" << i + 1 << "\n";
    }
  });
  write_file(dir / "BTE.qpoints", [&](std::ostream& o) {
    for (int l = 0; l < g.nlist(); ++l) {
      const int id = g.irreducible[l];
      o << io::fortran_I(l + 1, 9) << " " << io::fortran_I(id + 1, 9) << " " << io::fortran_I(g.multiplicity[l], 9) << " ";
      for (int k = 0; k < 3; ++k) o << fortran_E(g.qfrac[id][k], 20, 10) << (k < 2 ? " " : "");
      o << "\n";
    }
  });
  write_file(dir / "BTE.qpoints_full", [&](std::ostream& o) {
    for (int id = 0; id < g.nptk; ++id) {
      o << io::fortran_I(id + 1, 9) << " " << io::fortran_I(g.class_of[id] + 1, 9) << " ";
      for (int k = 0; k < 3; ++k) o << fortran_E(g.qfrac[id][k], 20, 10) << (k < 2 ? " " : "");
      o << "\n";
    }
  });
  write_file(dir / "BTE.omega", [&](std::ostream& o) {
    for (int l = 0; l < g.nlist(); ++l) {
      for (int n = 0; n < nb; ++n) o << fortran_E(s.omega[static_cast<std::size_t>(g.irreducible[l]) * nb + n], 20, 10);
      o << "\n";
    }
  });
  auto write_velocities = [&](const std::string& name, bool full) {
    write_file(dir / name, [&](std::ostream& o) {
      const int count = full ? g.nptk : g.nlist();
      for (int n = 0; n < nb; ++n)
        for (int l = 0; l < count; ++l) {
          const std::size_t id = full ? l : g.irreducible[l];
          for (int k = 0; k < 3; ++k) o << fortran_E(s.velocity[(id * nb + n) * 3 + k], 20, 10);
          o << "\n";
        }
    });
  };
  write_velocities("BTE.v", false);
  write_velocities("BTE.v_full", true);
  write_file(dir / "BTE.w_boundary", [&](std::ostream& o) {
    for (int n = 0; n < nb; ++n)
      for (int l = 0; l < g.nlist(); ++l) {
        const std::size_t m = static_cast<std::size_t>(g.irreducible[l]) * nb + n;
        const double* v = &s.velocity[3 * m];
        o << fortran_E(s.omega[m], 20, 10) << fortran_E(std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), 20, 10) << "\n";
      }
  });
  write_file(dir / "BTE.dos", [&](std::ostream& o) {
    for (std::size_t t = 0; t < r.dos.energy.size(); ++t) o << fortran_E(r.dos.energy[t], 14, 5) << fortran_E(r.dos.dos[t], 14, 5) << "\n";
  });
  write_file(dir / "BTE.pdos", [&](std::ostream& o) {
    for (std::size_t t = 0; t < r.dos.energy.size(); ++t) {
      o << fortran_E(r.dos.energy[t], 14, 5);
      for (int a = 0; a < c.natoms; ++a) o << fortran_E(r.dos.pdos[t * c.natoms + a], 14, 5);
      o << "\n";
    }
  });
  write_file(dir / "BTE.cvVsT", [&](std::ostream& o) {
    for (std::size_t i = 0; i < r.temperatures.size(); ++i)
      o << io::fortran_F(r.temperatures[i], 7, 1) << fortran_E(r.cv[i], 14, 5) << "\n";
  });
  // kappa_sg in Fortran (column-major) order: xx, yx, zx, xy, ...
  auto column_major = [](std::ostream& o, const std::array<double, 9>& k) {
    for (int b = 0; b < 3; ++b)
      for (int a = 0; a < 3; ++a) o << fortran_E(k[3 * a + b], 14, 5);
  };
  write_file(dir / "BTE.KappaTensorVsT_sg", [&](std::ostream& o) {
    for (std::size_t i = 0; i < r.temperatures.size(); ++i) {
      o << io::fortran_F(r.temperatures[i], 7, 1);
      column_major(o, r.kappa_sg[i]);
      o << "\n";
    }
  });
  for (std::size_t i = 0; i < r.temperatures.size(); ++i) {
    const auto tdir = dir / temperature_dir(r.temperatures[i]);
    std::filesystem::create_directories(tdir);
    write_file(tdir / "BTE.cv", [&](std::ostream& o) { o << io::fortran_list_real(r.cv[i]) << "\n"; });
    write_file(tdir / "BTE.kappa_sg", [&](std::ostream& o) {
      column_major(o, r.kappa_sg[i]);
      o << "\n";
    });
  }
}

}  // namespace quanta::phonon
