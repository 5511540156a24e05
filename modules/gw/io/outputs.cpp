#include "quanta/gw/outputs.hpp"

#include <cmath>
#include <cstdio>

#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/core/version.hpp"

namespace quanta::gw {
namespace {

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

}  // namespace

void write_sigma_hp_log(const std::filesystem::path& file, const Crystal& c, const SigmaParams& p, const std::vector<SigmaK>& sigma) {
  io::AtomicFile f(file);
  auto& o = f.stream();
  o << "\n frequency_dependence   1\n\n";
  o << format(" band_index%6d%6d\n", p.band_min, p.band_max);
  o << format(" sigma_matrix%6d%4d\n\n", 0, 0);
  o << format(" finite_difference_form%4d\n", 2);
  o << format(" finite_difference_spacing%10.6f\n\n", p.fd_spacing);
  o << format(" symmetries\n ntran  =%3d\n", static_cast<int>(c.rotation.size()));
  for (std::size_t s = 0; s < c.rotation.size(); ++s) {
    o << format(" mtrx%02d =", static_cast<int>(s + 1));
    for (int j = 0; j < 3; ++j)  // BerkeleyGW writes mtrx column by column
      for (int i = 0; i < 3; ++i) o << format("%3d", c.rotation[s][3 * i + j]);
    o << "\n";
  }
  o << " \n";
  for (std::size_t ik = 0; ik < sigma.size(); ++ik) {
    const auto& k = sigma[ik];
    o << format("       k =%10.6f%10.6f%10.6f ik =%4d spin = 1\n", k.k[0], k.k[1], k.k[2], static_cast<int>(ik + 1));
    o << "\n   n         Emf          Eo           X        SX-X          CH         Sig         Vxc        Eqp0        Eqp1       Znk\n";
    for (const auto& b : k.bands)
      o << format("%4d%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%10.6f\n", b.n, b.emf, b.eo, b.x, b.sx_x[0], b.ch[0], b.sig, b.vxc,
                  b.eqp0, b.eqp1, b.znk);
    o << " \n";
  }
  f.commit();
}

void write_eqp(const std::filesystem::path& file, const std::vector<SigmaK>& sigma, int which) {
  io::AtomicFile f(file);
  auto& o = f.stream();
  for (const auto& k : sigma) {
    o << format("%13.9f%13.9f%13.9f%8d\n", k.k[0], k.k[1], k.k[2], static_cast<int>(k.bands.size()));
    for (const auto& b : k.bands) o << format("%8d%8d%15.9f%15.9f\n", 1, b.n, b.emf, which == 0 ? b.eqp0 : b.eqp1);
  }
  f.commit();
}

void write_gw_h5(const std::filesystem::path& file, const std::vector<DielectricMatrix>& eps, bool with_epsinv,
                 const std::vector<SigmaK>& sigma, const RunMetadata& meta) {
  const auto tmp = io::temporary_path_for(file);
  {
    io::H5File f(tmp, io::H5File::Mode::Create);
    f.write_string("metadata/quanta_version", version());
    f.write_string("metadata/backend", meta.backend);
    f.write_string("metadata/device", meta.device);
    for (const auto& [role, path] : meta.inputs) f.write_string("metadata/inputs/" + role, path);
    for (const auto& [stage, s] : meta.timings) f.write_scalar("metadata/timings/" + stage, s);
    for (std::size_t iq = 0; iq < eps.size(); ++iq) {
      const auto& d = eps[iq];
      const std::string g = "epsilon/q" + std::to_string(iq + 1) + "/";
      f.write(g + "q", std::vector<double>(d.q.q.begin(), d.q.q.end()), {3});
      f.write_scalar(g + "is_q0", d.q.q0 ? 1.0 : 0.0);
      std::vector<std::int64_t> gv;
      for (const auto& v : d.gvec) gv.insert(gv.end(), v.begin(), v.end());
      f.write(g + "gvec", gv, {d.gvec.size(), 3});
      if (std::isfinite(d.eps_head)) f.write_scalar(g + "eps_head", d.eps_head);  // absent when read from BerkeleyGW's eps^-1
      f.write_scalar(g + "epsinv_head", d.at(d.epsinv, 0, 0).re);
      if (with_epsinv) {
        std::vector<double> m(2 * d.epsinv.size());
        // [G'][G][re, im]: row-major readers see epsinv[G'][G] = eps^-1(G, G').
        for (std::size_t i = 0; i < d.epsinv.size(); ++i) {
          m[2 * i] = d.epsinv[i].re;
          m[2 * i + 1] = d.epsinv[i].im;
        }
        f.write(g + "epsinv", m, {d.gvec.size(), d.gvec.size(), 2});
        f.write_attribute(g + "epsinv", "layout", "[G'][G][re, im]: eps^-1(G, G') with G, G' indexing gvec");
      }
    }
    if (!sigma.empty()) {
      const std::size_t nk = sigma.size(), nb = sigma[0].bands.size();
      std::vector<double> k, cols[10];
      const char* names[10] = {"emf", "eo", "vxc", "x", "sx_x", "ch", "sig", "eqp0", "eqp1", "znk"};
      std::vector<std::int64_t> bands;
      for (const auto& s : sigma) {
        k.insert(k.end(), s.k.begin(), s.k.end());
        for (const auto& b : s.bands) {
          const double v[10] = {b.emf, b.eo, b.vxc, b.x, b.sx_x[0], b.ch[0], b.sig, b.eqp0, b.eqp1, b.znk};
          for (int i = 0; i < 10; ++i) cols[i].push_back(v[i]);
        }
      }
      for (const auto& b : sigma[0].bands) bands.push_back(b.n);
      f.write("sigma/kpoints", k, {nk, 3});
      f.write("sigma/bands", bands, {nb});
      for (int i = 0; i < 10; ++i) {
        f.write(std::string("sigma/") + names[i], cols[i], {nk, nb});
        f.write_attribute(std::string("sigma/") + names[i], "units", i == 9 ? "1" : "eV");
      }
    }
  }
  io::commit_rename(tmp, file);
}

}  // namespace quanta::gw
