#include "quanta/gw/outputs.hpp"

#include <algorithm>
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

void write_sigma_hp_log(const std::filesystem::path& file, const Crystal& c, const SigmaParams& p, const std::vector<SigmaK>& sigma,
                        bool complex_flavour) {
  io::AtomicFile f(file);
  auto& o = f.stream();
  const bool ff = p.frequency_dependence == 2;
  o << format("\n frequency_dependence   %d\n\n", p.frequency_dependence);
  o << format(" band_index%6d%6d\n", p.band_min, p.band_max);
  o << format(" sigma_matrix%6d%4d\n\n", p.sigma_matrix_l, p.sigma_matrix_t);
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
    o << format("       k =%10.6f%10.6f%10.6f ik =%4d spin = 1\n", k.k[0], k.k[1], k.k[2], k.ik);
    if (ff && !k.bands.empty() && k.bands[0].ff_method == 0) {
      // BerkeleyGW's real-axis table: SX-X, ch, Sig = X + SX-X + ch and Cor (the retarded correlation) at E_mf, Eqp0
      // from Sig, Eqp1 from X + Cor4 with its Soln word; a second line with the imaginary parts.
      o << "\n";
      o << format("%6s%12s%12s%12s%12s%12s%12s%12s%12s%12s%12s%12s\n", "n", "Emf", "Eo", "X", "Re SX-X", "Re ch", "Re Sig", "Re Cor", "Vxc", "Re Eqp0",
                  "Re Eqp1", "Soln");
      o << format("%6s%12s%12s%12s%12s%12s%12s%12s%12s%12s%12s\n", "", "", "", "", "Im SX-X", "Im ch", "Im Sig", "Im Cor", "", "Im Eqp0", "Im Eqp1");
      for (const auto& b : k.bands) {
        const std::size_t c = b.ff_omega.size() / 2;
        const cplx sxx = b.ff_res[c], chc = b.ff_int[c], cor = b.ff_cor[c];
        o << format("%6d%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12s\n", b.n, b.emf, b.eo, b.x, sxx.re, chc.re, b.x + sxx.re + chc.re,
                    cor.re, b.vxc, b.eqp0, b.eqp1, b.soln.c_str());
        o << format("%6s%12s%12s%12s%12.6f%12.6f%12.6f%12.6f%12s%12.6f%12.6f\n", "", "", "", "", sxx.im, chc.im, sxx.im + chc.im, cor.im, "", sxx.im + chc.im,
                    b.eqp1_im);
      }
      o << " \n";
      continue;
    }
    if (ff) {
      // BerkeleyGW's contour-deformation table: Res (residues) and Int (imaginary-axis integral) at E_mf, Cor =
      // Res + Int, Eqp1 the root on the evaluation grid; a second line with the imaginary parts.
      o << "\n";
      o << format("%6s%12s%12s%12s%12s%12s%12s%12s%12s%12s%12s%12s\n", "n", "Emf", "Eo", "X", "Re Res", "Re Int", "Re Sig", "Re Cor", "Vxc", "Re Eqp0",
                  "Re Eqp1", "Znk");
      o << format("%6s%12s%12s%12s%12s%12s%12s%12s%12s%12s%12s\n", "", "", "", "", "Im Res", "Im Int", "Im Sig", "Im Cor", "", "Im Eqp0", "Im Eqp1");
      for (const auto& b : k.bands) {
        const std::size_t c = b.ff_omega.size() / 2;
        const cplx res = b.ff_res[c], in = b.ff_int[c];
        o << format("%6d%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f\n", b.n, b.emf, b.eo, b.x, res.re, in.re, b.x + res.re + in.re,
                    res.re + in.re, b.vxc, b.eqp0, b.eqp1, b.znk);
        o << format("%6s%12s%12s%12s%12.6f%12.6f%12.6f%12.6f%12s%12.6f\n", "", "", "", "", res.im, in.im, res.im + in.im, res.im + in.im, "", res.im + in.im);
      }
      o << " \n";
      continue;
    }
    o << "\n   n         Emf          Eo           X        SX-X          CH         Sig         Vxc        Eqp0        Eqp1       Znk\n";
    for (const auto& b : k.bands)
      o << format("%4d%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%12.6f%10.6f\n", b.n, b.emf, b.eo, b.x, b.sx_x[0], b.ch[0], b.sig, b.vxc,
                  b.eqp0, b.eqp1, b.znk);
    // The off-diagonal elements at E0 = E_l (forward finite differences print E2 = E0 only), as BerkeleyGW 3.0
    // writes them: a "real" row and, for the complex flavour, an "imag" row.
    if (!k.offdiag.empty()) {
      o << "\n   E2 = E0\n";
      o << "   n   m   l                        X       SX(E2)-X         CH(E2)        Sig(E2)            Vxc\n";
      for (const auto& e : k.offdiag) {
        o << format("%4d%4d%4d   real   %15.9f%15.9f%15.9f%15.9f%15.9f\n", e.n, e.m, e.l, e.x.re, e.sx_x[0].re, e.ch[0].re, e.sig.re, e.vxc.re);
        if (complex_flavour)
          o << format("%4d%4d%4d   imag   %15.9f%15.9f%15.9f%15.9f%15.9f\n", e.n, e.m, e.l, e.x.im, e.sx_x[0].im, e.ch[0].im, e.sig.im, e.vxc.im);
      }
    }
    o << " \n";
  }
  f.commit();
}

void write_offdiag_log(const std::filesystem::path& file, const SigmaParams& p, const std::vector<SigmaK>& sigma, bool complex_flavour) {
  io::AtomicFile f(file);
  auto& o = f.stream();
  o << "frequency_dependence =  1\n";
  o << format("band min = %6d, band max = %6d\n", p.band_min, p.band_max);
  o << format("loff = %6d, toff = %6d\n", p.sigma_matrix_l, p.sigma_matrix_t);
  o << " finite difference form =            2\n";
  o << " Reading matrix elements from sigma_hp.log\n";
  // The largest |<n|Sig|n>|, |<n|Vxc|n>|, |<n|Sig - Vxc|n>| and off the diagonal, over the k-points so far.
  double big[6] = {};
  int at[6][2] = {};
  for (std::size_t ik = 0; ik < sigma.size(); ++ik) {
    const auto& k = sigma[ik];
    o << format("\n ik =%3d s = 1\n", k.ik);
    o << "\n Sig(Eo)\n\n";
    for (const auto& e : k.offdiag) {
      const cplx sig = complex_flavour ? e.sig : cplx(e.sig.re), vxc = complex_flavour ? e.vxc : cplx(e.vxc.re);
      const double v[3] = {abs(sig), abs(vxc), abs(sig - vxc)};
      const int base = e.n == e.m ? 0 : 3;
      for (int i = 0; i < 3; ++i)
        if (big[base + i] < v[i]) big[base + i] = v[i], at[base + i][0] = e.n, at[base + i][1] = e.m;
    }
    for (std::size_t i = 0; i < k.qp_matrix_energies.size(); ++i)
      o << format(" %4d%12.6f%12.6f\n", static_cast<int>(i + 1), k.qp_matrix_energies[i].re, k.qp_matrix_energies[i].im);
    o << " \n";
    const char* what[3] = {"Sig", "Vxc", "Sig - Vxc"};
    for (int i = 0; i < 3; ++i) o << format(" max_n  |<n|%s|n>|%*s=%10.6f eV at n =%4d\n", what[i], 10 - static_cast<int>(std::string(what[i]).size()), "", big[i], at[i][0]);
    for (int i = 0; i < 3; ++i)
      o << format(" max_nm |<n|%s|m>|%*s=%10.6f eV at n =%4d m =%4d\n", what[i], 10 - static_cast<int>(std::string(what[i]).size()), "", big[3 + i], at[3 + i][0],
                  at[3 + i][1]);
  }
  f.commit();
}

void write_eqp_dyson(const std::filesystem::path& file, const SigmaParams& p, const std::vector<SigmaK>& sigma) {
  io::AtomicFile f(file);
  auto& o = f.stream();
  for (const auto& k : sigma) {
    std::vector<double> emf;
    for (const auto& b : k.bands) emf.push_back(b.emf);
    std::sort(emf.begin(), emf.end());
    o << format("%13.9f%13.9f%13.9f%8d\n", k.k[0], k.k[1], k.k[2], static_cast<int>(k.dyson_energies.size()));
    for (std::size_t i = 0; i < k.dyson_energies.size(); ++i)
      o << format("%8d%8d%15.9f%15.9f\n", 1, p.band_min + static_cast<int>(i), emf[i], k.dyson_energies[i].re);
  }
  f.commit();
}

void write_eqp(const std::filesystem::path& file, const std::vector<SigmaK>& sigma, int which) {
  io::AtomicFile f(file);
  auto& o = f.stream();
  for (const auto& k : sigma) {
    o << format("%13.9f%13.9f%13.9f%8d\n", k.k[0], k.k[1], k.k[2], static_cast<int>(k.bands.size()));
    for (const auto& b : k.bands) {
      const double e = which == 0 ? b.eqp0 : which == 1 ? b.eqp1 : b.eqp_lin;
      if (b.ff_method == 0 && which < 2) {  // the real-axis method: BerkeleyGW adds the imaginary part
        const std::size_t c = b.ff_omega.size() / 2;
        o << format("%8d%8d%15.9f%15.9f%15.9f\n", 1, b.n, b.emf, e, which == 0 ? (b.ff_res[c] + b.ff_int[c]).im : b.eqp1_im);
      } else {
        o << format("%8d%8d%15.9f%15.9f\n", 1, b.n, b.emf, e);
      }
    }
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
      // Full frequency: Sigma's parts on each band's evaluation grid, and the linearized solution.
      if (!sigma[0].bands.empty() && !sigma[0].bands[0].ff_omega.empty()) {
        const std::size_t nw = sigma[0].bands[0].ff_omega.size();
        std::vector<double> w, res, in, lin;
        for (const auto& s : sigma)
          for (const auto& b : s.bands) {
            w.insert(w.end(), b.ff_omega.begin(), b.ff_omega.end());
            for (std::size_t e = 0; e < nw; ++e) res.insert(res.end(), {b.ff_res[e].re, b.ff_res[e].im}), in.insert(in.end(), {b.ff_int[e].re, b.ff_int[e].im});
            lin.push_back(b.eqp_lin);
          }
        f.write("sigma/full_frequency/omega", w, {nk, nb, nw});
        f.write("sigma/full_frequency/res", res, {nk, nb, nw, 2});
        f.write("sigma/full_frequency/int", in, {nk, nb, nw, 2});
        f.write("sigma/full_frequency/eqp_lin", lin, {nk, nb});
        f.write_attribute("sigma/full_frequency/res", "layout", "[k][band][omega][re, im]: the residue part of Sigma_c(omega), eV");
        f.write_attribute("sigma/full_frequency/int", "layout", "[k][band][omega][re, im]: the imaginary-axis integral of Sigma_c(omega), eV");
        f.write_attribute("sigma/full_frequency/eqp_lin", "layout", "[k][band]: E_mf + Znk (Re Sigma(E_mf) - Vxc), eV");
        if (sigma[0].bands[0].ff_method == 0) {  // the real-axis method: res holds SX-X and int CH; Cor and Cor4 besides
          std::vector<double> cor, cor4;
          for (const auto& s : sigma)
            for (const auto& b : s.bands)
              for (std::size_t e = 0; e < nw; ++e) cor.insert(cor.end(), {b.ff_cor[e].re, b.ff_cor[e].im}), cor4.insert(cor4.end(), {b.ff_cor4[e].re, b.ff_cor4[e].im});
          f.write("sigma/full_frequency/cor", cor, {nk, nb, nw, 2});
          f.write("sigma/full_frequency/cor4", cor4, {nk, nb, nw, 2});
          f.write_attribute("sigma/full_frequency/res", "method", "real axis (frequency_dependence_method 0): res is SX-X, int is CH");
          f.write_attribute("sigma/full_frequency/cor", "layout", "[k][band][omega][re, im]: the retarded correlation (BerkeleyGW's Cor column), eV");
          f.write_attribute("sigma/full_frequency/cor4", "layout", "[k][band][omega][re, im]: its eta -> 0 form, which Eqp1 solves with, eV");
        }
      }
      // Off-diagonal elements <n|Sigma(E_l)|m>: complex values as [re, im]; SX-X and CH at E_l and E_l + spacing.
      const std::size_t noff = sigma[0].offdiag.size();
      if (noff > 0) {
        std::vector<std::int64_t> nml;
        for (const auto& e : sigma[0].offdiag) nml.insert(nml.end(), {e.n, e.m, e.l});
        f.write("sigma/offdiag/bands", nml, {noff, 3});
        f.write_attribute("sigma/offdiag/bands", "layout", "[element][n, m, l]: <n|Sigma(E_l)|m>, bands 1-based");
        std::vector<double> eo, one[4], two[2];
        auto put = [](std::vector<double>& v, cplx x) { v.insert(v.end(), {x.re, x.im}); };
        for (const auto& s : sigma)
          for (const auto& e : s.offdiag) {
            eo.push_back(e.eo);
            put(one[0], e.vxc), put(one[1], e.x), put(one[2], e.sig);
            for (int k = 0; k < 2; ++k) put(two[0], e.sx_x[k]), put(two[1], e.ch[k]);
          }
        f.write("sigma/offdiag/eo", eo, {nk, noff});
        const char* one_names[3] = {"vxc", "x", "sig"};
        for (int i = 0; i < 3; ++i) f.write(std::string("sigma/offdiag/") + one_names[i], one[i], {nk, noff, 2});
        f.write("sigma/offdiag/sx_x", two[0], {nk, noff, 2, 2});
        f.write("sigma/offdiag/ch", two[1], {nk, noff, 2, 2});
        f.write_attribute("sigma/offdiag/sx_x", "layout", "[k][element][E_l, E_l + spacing][re, im], eV");
        f.write_attribute("sigma/offdiag/ch", "layout", "[k][element][E_l, E_l + spacing][re, im], eV");
        if (!sigma[0].qp_matrix_energies.empty()) {
          std::vector<double> qp;
          for (const auto& s : sigma)
            for (const cplx& e : s.qp_matrix_energies) put(qp, e);
          f.write("sigma/offdiag/qp_energies", qp, {nk, sigma[0].qp_matrix_energies.size(), 2});
          f.write_attribute("sigma/offdiag/qp_energies", "layout",
                            "[k][i][re, im]: eigenvalues of E_mf + Sigma(E0) - Vxc over band_index_min..max, by real part, eV");
        }
        if (!sigma[0].grid_omega.empty()) {
          const std::size_t nw = sigma[0].grid_omega.size(), nb = sigma[0].dyson_energies.size();
          std::vector<double> w, g, d;
          std::vector<std::int64_t> it;
          for (const auto& s : sigma) {
            w.insert(w.end(), s.grid_omega.begin(), s.grid_omega.end());
            for (const cplx& x : s.grid_sigma) put(g, x);
            for (const cplx& x : s.dyson_energies) put(d, x);
            it.insert(it.end(), s.dyson_iterations.begin(), s.dyson_iterations.end());
          }
          f.write("sigma/offdiag/grid_omega", w, {nk, nw});
          f.write("sigma/offdiag/grid_sigma", g, {nk, nw, nb, nb, 2});
          f.write_attribute("sigma/offdiag/grid_sigma", "layout", "[k][w][n][m][re, im]: <n|Sigma(w)|m> = X + SX-X + CH, eV");
          f.write("sigma/offdiag/dyson_energies", d, {nk, nb, 2});
          f.write_attribute("sigma/offdiag/dyson_energies", "layout",
                            "[k][i][re, im]: E_i = Re lambda_i(E_mf + Sigma(E_i) - Vxc), Sigma interpolated on grid_omega, eV");
          f.write("sigma/offdiag/dyson_iterations", it, {nk, nb});
        }
      }
    }
  }
  io::commit_rename(tmp, file);
}

}  // namespace quanta::gw
