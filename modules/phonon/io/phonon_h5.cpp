// quanta-phonon.h5: every result of the run in one file, with the run's metadata.
#include <cstdint>
#include <fstream>
#include <sstream>

#include "outputs.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/core/version.hpp"

namespace quanta::phonon {

std::string file_digest(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::uint64_t h = 1469598103934665603ull;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ull;
    if (!in) break;
  }
  std::ostringstream o;
  o << std::hex << h;
  return o.str();
}

void write_phonon_h5(const std::filesystem::path& file, const HarmonicResults& r, const RunMetadata& meta,
                     const ScatteringResults* sc) {
  const Crystal& c = r.control->crystal;
  const QGrid& g = *r.grid;
  const Spectrum& s = *r.spectrum;
  const std::size_t nptk = g.nptk, nb = s.nb, nat = c.natoms;

  // Written under a temporary name, removed on any failure (a full disk included), renamed when complete.
  io::TemporaryPath tmp(file);
  try {
    io::H5File h(tmp.path(), io::H5File::Mode::Create);
    std::vector<double> lat, rec;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) lat.push_back(c.lattice[i][k]), rec.push_back(c.reciprocal[i][k]);
    h.write("crystal/lattice_vectors_nm", lat, {3, 3});
    h.write("crystal/reciprocal_vectors_per_nm", rec, {3, 3});
    std::vector<double> frac, mass;
    for (int a = 0; a < c.natoms; ++a) {
      for (int k = 0; k < 3; ++k) frac.push_back(c.fractional[a][k]);
      mass.push_back(c.masses[a]);
    }
    h.write("crystal/positions_fractional", frac, {nat, 3});
    h.write("crystal/masses_amu", mass, {nat});
    std::vector<std::int64_t> types(c.types.begin(), c.types.end()), n(g.n.begin(), g.n.end());
    h.write("crystal/types", types, {nat});

    h.write("qgrid/ngrid", n, {3});
    std::vector<double> q;
    for (const auto& x : g.qfrac) q.insert(q.end(), x.begin(), x.end());
    h.write("qgrid/q_fractional", q, {nptk, 3});
    h.write("qgrid/irreducible", std::vector<std::int64_t>(g.irreducible.begin(), g.irreducible.end()), {g.irreducible.size()});
    h.write("qgrid/multiplicity", std::vector<std::int64_t>(g.multiplicity.begin(), g.multiplicity.end()), {g.multiplicity.size()});
    h.write("qgrid/class_of", std::vector<std::int64_t>(g.class_of.begin(), g.class_of.end()), {nptk});

    h.write("spectrum/omega_rad_per_ps", s.omega, {nptk, nb});
    h.write("spectrum/group_velocity_km_per_s", s.velocity, {nptk, nb, 3});
    std::vector<double> ev(2 * s.eigenvectors.size());
    for (std::size_t i = 0; i < s.eigenvectors.size(); ++i) ev[2 * i] = s.eigenvectors[i].re, ev[2 * i + 1] = s.eigenvectors[i].im;
    h.write("spectrum/eigenvectors", ev, {nptk, nb, nb, 2});
    h.write_attribute("spectrum/eigenvectors", "layout", "[q][mode][3*atom+cartesian][re,im]");

    h.write("thermal/temperature_K", r.temperatures, {r.temperatures.size()});
    h.write("thermal/specific_heat_J_per_m3K", r.cv, {r.cv.size()});
    std::vector<double> ksg;
    for (const auto& k : r.kappa_sg) ksg.insert(ksg.end(), k.begin(), k.end());
    h.write("thermal/kappa_small_grain_W_per_mK_nm", ksg, {r.kappa_sg.size(), 3, 3});
    h.write("dos/energy_rad_per_ps", r.dos.energy, {r.dos.energy.size()});
    h.write("dos/dos", r.dos.dos, {r.dos.dos.size()});
    h.write("dos/pdos", r.dos.pdos, {r.dos.energy.size(), nat});

    if (sc) {
      const std::size_t nl = g.irreducible.size(), nbb = nb;
      h.write("scattering/P3_plus", sc->p3.plus, {nl, nbb});
      h.write("scattering/P3_minus", sc->p3.minus, {nl, nbb});
      h.write("scattering/w_isotopic_per_ps", sc->isotopic, {nl, nbb});
      h.write("scattering/w_boundary_per_ps", sc->boundary, {nl, nbb});
      h.write_attribute("scattering/P3_plus", "layout", "[irreducible q][band]");
      h.write("scattering/process_counts", std::vector<std::int64_t>{sc->nplus, sc->nminus}, {2});
      // Four-phonon scattering, classes ++, +-, -- (FourPhonon's BTE.Numprocess_4ph, BTE.P4_*, T*/BTE.w_4ph_*, BTE.WP4_*).
      const auto by_class = [&](const std::array<std::vector<double>, 3>& x) {
        std::vector<double> v;
        for (const auto& c : x) v.insert(v.end(), c.begin(), c.end());
        return v;
      };
      if (sc->four_phonon) {
        std::vector<std::int64_t> counts;
        for (const auto& c : sc->p4.count) counts.insert(counts.end(), c.begin(), c.end());
        h.write("scattering/four_phonon/process_counts", counts, {3, nl, nbb});
        h.write_attribute("scattering/four_phonon/process_counts", "layout", "[class ++, +-, --][irreducible q][band]");
        h.write("scattering/four_phonon/P4", by_class(sc->p4.phase_space), {3, nl, nbb});
      }
      if (!sc->harmonic_only) {
        h.write("scattering/gruneisen", sc->gruneisen, {static_cast<std::size_t>(g.nptk), nbb});
        h.write_attribute("scattering/gruneisen", "layout", "[full-mesh q][band]");
      }
      for (const auto& t : sc->per_t) {
        const std::string d = "scattering/T" + std::to_string(std::lround(t.temperature)) + "K/";
        h.write(d + "WP3_plus", t.rates.wp3_plus, {nl, nbb});
        h.write(d + "WP3_minus", t.rates.wp3_minus, {nl, nbb});
        const std::size_t it = static_cast<std::size_t>(&t - sc->per_t.data());
        if (sc->four_phonon && it < sc->p4.per_t.size()) {
          const auto& a = sc->p4.per_t[it];
          h.write(d + "four_phonon/WP4", by_class(a.wp4), {3, nl, nbb});
          if (!sc->harmonic_only) {
            h.write(d + "four_phonon/w_4ph_per_ps", by_class(a.gamma), {3, nl, nbb});
            h.write(d + "four_phonon/w_4ph_umklapp_per_ps", by_class(a.gamma_umklapp), {3, nl, nbb});
            h.write_attribute(d + "four_phonon/w_4ph_per_ps", "layout", "[class ++, +-, --][irreducible q][band]");
          }
        }
        if (sc->harmonic_only) continue;
        h.write_scalar(d + "gruneisen_total", t.gruneisen_total);
        h.write(d + "w_3ph_plus_per_ps", t.rates.gamma_plus, {nl, nbb});
        h.write(d + "w_3ph_minus_per_ps", t.rates.gamma_minus, {nl, nbb});
        h.write(d + "w_total_per_ps", t.total_rate, {nl, nbb});
        std::vector<double> kb;
        for (const auto& k : t.bte.kappa_band) kb.insert(kb.end(), k.begin(), k.end());
        h.write(d + "kappa_band_W_per_mK", kb, {t.bte.kappa_band.size(), nbb, 3, 3});
        h.write_attribute(d + "kappa_band_W_per_mK", "layout", "[iteration (0 = RTA)][band][3][3]");
        h.write(d + "F", t.bte.F, {static_cast<std::size_t>(g.nptk), nbb, 3});
        std::vector<double> cm;
        for (const auto& k : t.cumulative.vs_mfp) cm.insert(cm.end(), k.begin(), k.end());
        h.write(d + "cumulative_kappa_mfp_nm", t.cumulative.mfp_ticks, {t.cumulative.mfp_ticks.size()});
        h.write(d + "cumulative_kappa_W_per_mK", cm, {t.cumulative.mfp_ticks.size(), 3, 3});
      }
    }
    h.write_string("metadata/quanta_version", version());
    h.write_string("metadata/backend", meta.backend);
    h.write_string("metadata/device", meta.device);
    h.write_string("metadata/symmetry_finder", meta.symmetry_finder);
    h.write_string("metadata/force_constants_file", meta.force_constants_file);
    for (const auto& [f, d] : meta.input_hashes) h.write_string("metadata/input_fnv1a64/" + f, d);
    for (const auto& [stage, sec] : meta.timings) h.write_scalar("metadata/seconds/" + stage, sec);
    h.close();
  } catch (const Error& e) {
    throw Error("cannot write '" + file.string() + "' (nothing was written under that name): " + e.what());
  }
  tmp.commit();
}

}  // namespace quanta::phonon
