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

// Per irreducible mode values [nlist][nb] in ShengBTE's band-major rows "omega value".
void band_major(std::ostream& o, const HarmonicResults& h, const std::vector<double>& values, int width, int digits) {
  const int nb = h.spectrum->nb;
  const QGrid& g = *h.grid;
  for (int n = 0; n < nb; ++n)
    for (int l = 0; l < g.nlist(); ++l) {
      const double v = values[static_cast<std::size_t>(l) * nb + n];
      o << fortran_E(h.spectrum->omega[static_cast<std::size_t>(g.irreducible[l]) * nb + n], width, digits);
      // gfortran prints a NaN as "NaN" right-justified in the field.
      if (std::isnan(v)) o << std::string(width - 3, ' ') << "NaN"; else o << fortran_E(v, width, digits);
      o << "\n";
    }
}

void column_major(std::ostream& o, const double* k, int width, int digits) {
  for (int b = 0; b < 3; ++b)
    for (int a = 0; a < 3; ++a) o << fortran_E(k[3 * a + b], width, digits);
}

}  // namespace

// FourPhonon's four-phonon files: process counts and phase spaces in the output folder, weighted phase spaces
// and rates per temperature (the rates only when computed).
static void write_four_phonon_files(const std::filesystem::path& dir, const HarmonicResults& h, const ScatteringResults& r) {
  const QGrid& g = *h.grid;
  const int nb = h.spectrum->nb, nl = g.nlist();
  const auto& p4 = r.p4;
  const std::size_t nmodes = static_cast<std::size_t>(nl) * nb;
  // Rows in the order of the mode index l * nb + band (q-major, unlike the band-major rate files).
  write_file(dir / "BTE.Numprocess_4ph", [&](std::ostream& o) {
    for (std::size_t m = 0; m < nmodes; ++m) o << " " << p4.count[0][m] << " " << p4.count[1][m] << " " << p4.count[2][m] << "\n";
  });
  auto per_point = [&](const std::string& name, const std::vector<double>& v) {
    write_file(dir / name, [&](std::ostream& o) {
      for (int l = 0; l < nl; ++l) {
        for (int n = 0; n < nb; ++n) o << fortran_E(v[static_cast<std::size_t>(l) * nb + n], 20, 10);
        o << "\n";
      }
    });
  };
  std::vector<double> all(nmodes);
  for (std::size_t m = 0; m < nmodes; ++m) all[m] = 6 * (p4.phase_space[0][m] + p4.phase_space[1][m] + p4.phase_space[2][m]) / 7;
  per_point("BTE.P4", all);
  per_point("BTE.P4_plusplus", p4.phase_space[0]);
  per_point("BTE.P4_plusmius", p4.phase_space[1]);  // sic: FourPhonon's file name
  per_point("BTE.P4_minusminus", p4.phase_space[2]);
  double total[3] = {0, 0, 0};
  for (int c = 0; c < 3; ++c)
    for (int l = 0; l < nl; ++l)
      for (int n = 0; n < nb; ++n) total[c] += p4.phase_space[c][static_cast<std::size_t>(l) * nb + n] * g.multiplicity[l];
  const char* names[3] = {"plusplus", "plusminus", "minusminus"};
  for (int c = 0; c < 3; ++c)
    write_file(dir / ("BTE.P4_" + std::string(names[c]) + "_total"), [&](std::ostream& o) { o << io::fortran_list_real(total[c]) << "\n"; });
  write_file(dir / "BTE.P4_total", [&](std::ostream& o) { o << io::fortran_list_real(6 * (total[0] + total[1] + total[2]) / 7) << "\n"; });
  for (std::size_t it = 0; it < p4.per_t.size() && it < h.temperatures.size(); ++it) {
    const auto tdir = dir / temperature_dir(h.temperatures[it]);
    std::filesystem::create_directories(tdir);
    const auto& at = p4.per_t[it];
    std::vector<double> wp4(nmodes), w4(nmodes), w4u(nmodes), w4n(nmodes);
    for (std::size_t m = 0; m < nmodes; ++m) {
      wp4[m] = at.wp4[0][m] + at.wp4[1][m] + at.wp4[2][m];
      w4[m] = at.gamma[0][m] + at.gamma[1][m] + at.gamma[2][m];
      w4u[m] = at.gamma_umklapp[0][m] + at.gamma_umklapp[1][m] + at.gamma_umklapp[2][m];
      w4n[m] = w4[m] - w4u[m];
    }
    write_file(tdir / "BTE.WP4", [&](std::ostream& o) { band_major(o, h, wp4, 14, 5); });
    for (int c = 0; c < 3; ++c)
      write_file(tdir / ("BTE.WP4_" + std::string(names[c])), [&](std::ostream& o) { band_major(o, h, at.wp4[c], 14, 5); });
    if (r.harmonic_only) continue;
    write_file(tdir / "BTE.w_4ph", [&](std::ostream& o) { band_major(o, h, w4, 20, 10); });
    for (int c = 0; c < 3; ++c)
      write_file(tdir / ("BTE.w_4ph_" + std::string(names[c])), [&](std::ostream& o) { band_major(o, h, at.gamma[c], 20, 10); });
    // Normal and Umklapp parts (kernels::umklapp4); FourPhonon 1ac176a does not write these two.
    write_file(tdir / "BTE.w_4ph_normal", [&](std::ostream& o) { band_major(o, h, w4n, 20, 10); });
    write_file(tdir / "BTE.w_4ph_Umklapp", [&](std::ostream& o) { band_major(o, h, w4u, 20, 10); });
  }
}

void write_scattering_files(const std::filesystem::path& dir, const HarmonicResults& h, const ScatteringResults& r) {
  if (r.four_phonon) write_four_phonon_files(dir, h, r);
  const QGrid& g = *h.grid;
  const Spectrum& s = *h.spectrum;
  const int nb = s.nb, nl = g.nlist();
  write_file(dir / "BTE.w_isotopic", [&](std::ostream& o) { band_major(o, h, r.isotopic, 20, 10); });
  std::vector<double> p3(r.p3.plus.size());
  for (std::size_t m = 0; m < p3.size(); ++m) p3[m] = 2 * (r.p3.plus[m] + r.p3.minus[m] / 2) / 3;
  auto per_point = [&](const std::string& name, const std::vector<double>& v) {
    write_file(dir / name, [&](std::ostream& o) {
      for (int l = 0; l < nl; ++l) {
        for (int n = 0; n < nb; ++n) o << fortran_E(v[static_cast<std::size_t>(l) * nb + n], 20, 10);
        o << "\n";
      }
    });
  };
  per_point("BTE.P3", p3);
  per_point("BTE.P3_plus", r.p3.plus);
  per_point("BTE.P3_minus", r.p3.minus);
  double tp = 0, tm = 0;
  for (int l = 0; l < nl; ++l)
    for (int n = 0; n < nb; ++n) {
      tp += r.p3.plus[static_cast<std::size_t>(l) * nb + n] * g.multiplicity[l];
      tm += r.p3.minus[static_cast<std::size_t>(l) * nb + n] * g.multiplicity[l];
    }
  write_file(dir / "BTE.P3_plus_total", [&](std::ostream& o) { o << io::fortran_list_real(tp) << "\n"; });
  write_file(dir / "BTE.P3_minus_total", [&](std::ostream& o) { o << io::fortran_list_real(tm) << "\n"; });
  write_file(dir / "BTE.P3_total", [&](std::ostream& o) { o << io::fortran_list_real(2 * (tp + tm / 2) / 3) << "\n"; });

  for (const auto& t : r.per_t) {
    const auto tdir = dir / temperature_dir(t.temperature);
    std::filesystem::create_directories(tdir);
    const auto& rt = t.rates;
    std::vector<double> wp3(rt.wp3_plus.size());
    for (std::size_t m = 0; m < wp3.size(); ++m) wp3[m] = rt.wp3_plus[m] + rt.wp3_minus[m];
    write_file(tdir / "BTE.WP3", [&](std::ostream& o) { band_major(o, h, wp3, 14, 5); });
    write_file(tdir / "BTE.WP3_plus", [&](std::ostream& o) { band_major(o, h, rt.wp3_plus, 14, 5); });
    write_file(tdir / "BTE.WP3_minus", [&](std::ostream& o) { band_major(o, h, rt.wp3_minus, 14, 5); });
  }
  if (r.harmonic_only) return;

  per_point("BTE.gruneisen", [&] {
    std::vector<double> v(static_cast<std::size_t>(nl) * nb);
    for (int l = 0; l < nl; ++l)
      for (int n = 0; n < nb; ++n) v[static_cast<std::size_t>(l) * nb + n] = r.gruneisen[static_cast<std::size_t>(g.irreducible[l]) * nb + n];
    return v;
  }());
  write_file(dir / "BTE.gruneisenVsT_total", [&](std::ostream& o) {
    for (const auto& t : r.per_t) o << io::fortran_F(t.temperature, 7, 1) << fortran_E(t.gruneisen_total, 14, 5) << "\n";
  });

  auto total = [&](const std::vector<double>& kb) {
    std::array<double, 9> t{};
    for (int b = 0; b < nb; ++b)
      for (int k = 0; k < 9; ++k) t[k] += kb[9 * b + k];
    return t;
  };
  write_file(dir / "BTE.KappaTensorVsT_RTA", [&](std::ostream& o) {
    for (const auto& t : r.per_t) {
      o << io::fortran_F(t.temperature, 7, 1);
      column_major(o, total(t.bte.kappa_band.front()).data(), 14, 5);
      o << "\n";
    }
  });
  bool any_iterative = false;
  for (const auto& t : r.per_t) any_iterative |= t.bte.kappa_band.size() > 1;
  if (any_iterative)
    write_file(dir / "BTE.KappaTensorVsT_CONV", [&](std::ostream& o) {
      for (const auto& t : r.per_t) {
        o << io::fortran_F(t.temperature, 7, 1);
        column_major(o, total(t.bte.kappa_band.back()).data(), 14, 5);
        o << io::fortran_I(t.bte.last_iteration, 6) << "\n";
      }
    });

  for (const auto& t : r.per_t) {
    const auto tdir = dir / temperature_dir(t.temperature);
    std::filesystem::create_directories(tdir);
    const auto& rt = t.rates;
    std::vector<double> w3(rt.gamma_plus.size());
    for (std::size_t m = 0; m < w3.size(); ++m) w3[m] = rt.gamma_plus[m] + rt.gamma_minus[m];
    write_file(tdir / "BTE.gruneisen_total", [&](std::ostream& o) { o << io::fortran_list_real(t.gruneisen_total) << "\n"; });
    write_file(tdir / "BTE.w_3ph", [&](std::ostream& o) { band_major(o, h, w3, 20, 10); });
    write_file(tdir / "BTE.w_3ph_plus", [&](std::ostream& o) { band_major(o, h, rt.gamma_plus, 20, 10); });
    write_file(tdir / "BTE.w_3ph_minus", [&](std::ostream& o) { band_major(o, h, rt.gamma_minus, 20, 10); });
    write_file(tdir / "BTE.w", [&](std::ostream& o) { band_major(o, h, t.total_rate, 20, 10); });
    // 1/tau from the final F at the class representatives: (F . v) / (|v|^2 omega), NaN where v = 0.
    std::vector<double> wf(static_cast<std::size_t>(nl) * nb);
    for (int l = 0; l < nl; ++l)
      for (int n = 0; n < nb; ++n) {
        const std::size_t m = static_cast<std::size_t>(g.irreducible[l]) * nb + n;
        const double* v = &s.velocity[3 * m];
        const double* f = &t.bte.F[3 * m];
        const double tau = (f[0] * v[0] + f[1] * v[1] + f[2] * v[2]) / ((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) * s.omega[m]);
        wf[static_cast<std::size_t>(l) * nb + n] = 1.0 / tau;
      }
    write_file(tdir / "BTE.w_final", [&](std::ostream& o) { band_major(o, h, wf, 20, 10); });
    write_file(tdir / "BTE.kappa", [&](std::ostream& o) {
      for (std::size_t it = 0; it < t.bte.kappa_band.size(); ++it) {
        o << io::fortran_I(static_cast<long>(it), 9);
        const auto& kb = t.bte.kappa_band[it];
        for (int b = 0; b < 3; ++b)
          for (int a = 0; a < 3; ++a)
            for (int n = 0; n < nb; ++n) o << fortran_E(kb[9 * n + 3 * a + b], 20, 10);
        o << "\n";
      }
    });
    write_file(tdir / "BTE.kappa_tensor", [&](std::ostream& o) {
      for (std::size_t it = 0; it < t.bte.kappa_band.size(); ++it) {
        o << io::fortran_I(static_cast<long>(it), 9);
        column_major(o, total(t.bte.kappa_band[it]).data(), 20, 10);
        o << "\n";
      }
    });
    write_file(tdir / "BTE.kappa_scalar", [&](std::ostream& o) {
      for (std::size_t it = 0; it < t.bte.kappa_band.size(); ++it) {
        const auto k = total(t.bte.kappa_band[it]);
        o << io::fortran_I(static_cast<long>(it), 9) << fortran_E((k[0] + k[4] + k[8]) / 3, 20, 10) << "\n";
      }
    });
    const auto& ck = t.cumulative;
    write_file(tdir / "BTE.cumulative_kappa_tensor", [&](std::ostream& o) {
      for (std::size_t i = 0; i < ck.mfp_ticks.size(); ++i) {
        o << fortran_E(ck.mfp_ticks[i], 20, 10);
        column_major(o, ck.vs_mfp[i].data(), 20, 10);
        o << "\n";
      }
    });
    write_file(tdir / "BTE.cumulative_kappa_scalar", [&](std::ostream& o) {
      for (std::size_t i = 0; i < ck.mfp_ticks.size(); ++i)
        o << fortran_E(ck.mfp_ticks[i], 20, 10) << fortran_E((ck.vs_mfp[i][0] + ck.vs_mfp[i][4] + ck.vs_mfp[i][8]) / 3, 20, 10) << "\n";
    });
    write_file(tdir / "BTE.cumulative_kappaVsOmega_tensor", [&](std::ostream& o) {
      for (std::size_t i = 0; i < ck.omega_ticks.size(); ++i) {
        o << fortran_E(ck.omega_ticks[i], 20, 10);
        column_major(o, ck.vs_omega[i].data(), 20, 10);
        o << "\n";
      }
    });
  }
}

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
        const double rate = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / (r.control->boundaries ? r.control->boundary_length : 1.0);
        o << fortran_E(s.omega[m], 20, 10) << fortran_E(rate, 20, 10) << "\n";
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
