// BerkeleyGW's Epsilon output in HDF5 (eps0mat.h5 for q0, epsmat.h5 for the other q-points; eps_header
// version 3, as BerkeleyGW 2.x-4.x writes it), read for Sigma instead of running Epsilon, and written by
// quanta's Epsilon. C order (Fortran's dimensions reversed):
//   /eps_header/qpoints/{nq, qpts [nq][3] (crystal), qgrid [3]}, /eps_header/params/{ecuts (Ry), nband,
//   matrix_type (0: eps^-1), nmatrix (spins)}, /eps_header/freqs/{freq_dep (0: static, 2: full frequency), nfreq,
//   nfreq_imag, freqs [nfreq][2]}, /eps_header/gspace/{nmtx [nq], nmtx_max, gind_eps2rho [nq][ng] (1-based, the
//   sorted sphere of each q)}, /mf_header/gspace/components [ng][3], /mf_header/crystal/celvol,
//   /mats/matrix [nq][nmatrix][nfreq][nmtx_max][nmtx_max][flavor]: [q][0][f][G'][G] = eps^-1(G, G'; z_f), each q's
//   leading nmtx x nmtx block (the rest is padding); flavor 1 (real) or 2 (real, imaginary).
// Full frequency (freq_dep 2): matrix_flavor 2 in either flavour; the retarded eps^-1 at z_f = freqs[f][0] + i freqs[f][1]
// (eV): the real axis w + i broadening first, then (contour deformation) the nfreq_imag points i w_j, or (the real-axis
// method, nfreq_imag 0) the real axis alone, its steps growing past frequency_low_cutoff; matrix-diagonal holds the first
// frequency's diagonal. Files holding advanced matrices (has_advanced 1; the real-axis method takes them from the
// retarded ones by time reversal, as BerkeleyGW's HDF5 path does) and subspace-basis files (params/subspace) are refused
// by name.
// The writer adds what BerkeleyGW writes beside them: /eps_header/gspace/{gind_rho2eps (the inverse order),
// ekin [nq][ng] (|q+G|^2 in the density's order, q = 0 for q0), vcoul [nq][nmtx_max] (8 pi / |q+G|^2 in the
// sphere's order, with the q0 shift)}, /mats/matrix-diagonal [nq][nmtx_max][flavor], /eps_header/params/{efermi
// (Ry), matrix_flavor, icutv, has_advanced, intraband_flag, intraband_overlap_min, subsample, subspace},
// /eps_header/qpoints/qpt_done, /eps_header/freqs/{nfreq, nfreq_imag, freqs}, and the whole /mf_header of WFN.
// Integers are 32-bit and scalars of rank 0, as BerkeleyGW's Fortran writes them.
#include <algorithm>
#include <cmath>
#include <string>

#include "bgw_h5.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/io/input_file.hpp"
#include "quanta/core/units.hpp"
#include "quanta/gw/epsilon.hpp"

namespace quanta::gw {
namespace {

// One file's q-points, appended to `out`; `q0`: the file is eps0mat.h5 (one q-point, the q0 shift).
void read_one(const std::filesystem::path& file, bool q0, EpsilonFromFiles& out) {
  const std::string what = q0 ? "BerkeleyGW's eps0mat.h5" : "BerkeleyGW's epsmat.h5";
  io::require_input_file(file, what);
  if (!is_hdf5(file, what)) throw InputError(file.string(), "not an HDF5 file (expected " + what + ", Epsilon's output in HDF5)");
  io::check_hdf5_file(file);
  const BgwH5Reader r(file, "BerkeleyGW's epsmat.h5 layout, eps_header version 3");
  const std::string& f = r.file();
  const auto version = r.one_int("/eps_header/versionnumber");
  if (version != 3) throw InputError(f, "/eps_header/versionnumber " + std::to_string(version) + ": expected 3 (BerkeleyGW 2.x-4.x)");
  const auto matrix_type = r.one_int("/eps_header/params/matrix_type");
  if (matrix_type != 0)
    throw InputError(f, "/eps_header/params/matrix_type " + std::to_string(matrix_type) + ": expected 0 (eps^-1; 1 and 2 are chi matrices)");
  const auto freq_dep = r.one_int("/eps_header/freqs/freq_dep");
  if (freq_dep != 0 && freq_dep != 2)
    throw InputError(f, "/eps_header/freqs/freq_dep " + std::to_string(freq_dep) +
                            ": expected 0 (static screening) or 2 (full frequency; 1, the Godby-Needs plasmon pole, and 3 are not read)");
  const bool ff = freq_dep == 2;
  if (ff && r.h5().exists("/eps_header/params/has_advanced") && r.one_int("/eps_header/params/has_advanced") != 0)
    throw InputError(f, "/eps_header/params/has_advanced 1: files holding advanced matrices are not read; expected BerkeleyGW's HDF5 layout "
                        "with the retarded matrices only (has_advanced 0; the advanced ones follow from them by time reversal)");
  if (r.h5().exists("/eps_header/params/subspace") && r.one_int("/eps_header/params/subspace") != 0)
    throw InputError(f, "/eps_header/params/subspace 1: BerkeleyGW's static-subspace files (matrices in the subspace basis) are not read; "
                        "expected a file written without the subspace, or run Epsilon in quanta");
  const int nfreq = ff ? r.count("/eps_header/freqs/nfreq", 3) : 1;
  const int nfreq_imag = ff ? r.count("/eps_header/freqs/nfreq_imag", 0, nfreq - 1) : 0;
  if (ff && nfreq_imag == 1)
    throw InputError(f, "/eps_header/freqs/nfreq_imag 1: expected 0 (the real-axis method's grid) or at least 2 (contour deformation's imaginary axis)");
  std::vector<cplx> freqs;
  if (ff) {
    const auto z = r.doubles("/eps_header/freqs/freqs", 2 * static_cast<std::size_t>(nfreq));
    for (int i = 0; i < nfreq; ++i) freqs.push_back({z[2 * i], z[2 * i + 1]});
  }
  if (r.count("/eps_header/params/nmatrix", 1) != 1)
    throw InputError(f, "/eps_header/params/nmatrix: expected 1 (spin-unpolarized; only nspin 1 is supported)");
  const int nq = r.count("/eps_header/qpoints/nq", 1);
  if (q0 && nq != 1) throw InputError(f, "/eps_header/qpoints/nq " + std::to_string(nq) + ": expected 1 (eps0mat.h5 holds the q0 point)");
  const int ng = r.count("/mf_header/gspace/ng", 1);
  const auto qpts = r.doubles("/eps_header/qpoints/qpts", 3 * static_cast<std::size_t>(nq));
  const auto qgrid = r.ints("/eps_header/qpoints/qgrid", 3);
  const auto nmtx = r.ints("/eps_header/gspace/nmtx", nq);
  const int nmax = r.count("/eps_header/gspace/nmtx_max", 1, ng);
  const auto gind = r.ints("/eps_header/gspace/gind_eps2rho", static_cast<std::size_t>(nq) * ng);
  const auto comp = r.ints("/mf_header/gspace/components", 3 * static_cast<std::size_t>(ng));
  const double ecut = r.one_double("/eps_header/params/ecuts");
  const double celvol = r.one_double("/mf_header/crystal/celvol");
  const int nband = r.count("/eps_header/params/nband", 1);

  const auto dims = r.h5().dims("/mats/matrix");
  if (dims.size() != 6 || dims[0] != static_cast<std::size_t>(nq) || dims[1] != 1 || dims[2] != static_cast<std::size_t>(nfreq) ||
      dims[3] != static_cast<std::size_t>(nmax) || dims[4] != static_cast<std::size_t>(nmax) || (dims[5] != 2 && (ff || dims[5] != 1))) {
    std::string got;
    for (auto d : dims) got += (got.empty() ? "" : " x ") + std::to_string(d);
    throw InputError(f, "/mats/matrix: " + got + ", expected " + std::to_string(nq) + " x 1 x " + std::to_string(nfreq) + " x " + std::to_string(nmax) +
                            " x " + std::to_string(nmax) + (ff ? " x 2" : " x flavor (1 or 2)"));
  }
  const std::size_t flavor = dims[5];
  r.h5().require_stored("/mats/matrix");
  const std::size_t mat = static_cast<std::size_t>(nmax) * nmax * flavor, row = mat * nfreq;
  require_host_memory(bytes_of(sizeof(double), row) + bytes_of(sizeof(cplx), nmax, nmax, static_cast<std::size_t>(nq) * (ff ? nfreq + 1 : 1)),
                      "the dielectric matrices of " + f);
  // Full frequency: the grid Sigma's contour deformation needs, BerkeleyGW's for frequency_dependence_method 2: a uniform real
  // axis from 0 with one broadening, then points on the imaginary axis.
  FrequencyGrid grid_ff;
  if (ff && nfreq_imag == 0) {  // the real-axis method (frequency_dependence_method 0): increasing real frequencies, one broadening
    grid_ff.method = 0;
    grid_ff.n_imag = 0;
    grid_ff.init = freqs[0].re;
    grid_ff.delta = freqs[1].re - freqs[0].re;
    grid_ff.broadening = freqs[0].im;
    grid_ff.low_cutoff = grid_ff.high_cutoff = freqs[nfreq - 1].re;
    for (const cplx& z : freqs) grid_ff.listed.push_back(z.re);
    for (int i = 0; i < nfreq; ++i)
      if ((i > 0 && !(freqs[i].re > freqs[i - 1].re)) || !(freqs[i].im > 0))
        throw InputError(f, "/eps_header/freqs/freqs, frequency " + std::to_string(i + 1) + " (" + std::to_string(freqs[i].re) + ", " +
                                std::to_string(freqs[i].im) + ") eV: expected the real-axis grid, increasing frequencies with a positive broadening");
  } else if (ff) {
    const int nr = nfreq - nfreq_imag;
    grid_ff.init = freqs[0].re;
    grid_ff.delta = nr > 1 ? freqs[1].re - freqs[0].re : 1.0;
    grid_ff.low_cutoff = freqs[nr - 1].re;
    grid_ff.broadening = freqs[0].im;
    grid_ff.n_imag = nfreq_imag;
    grid_ff.plasma = freqs[nr + 1].im * (nfreq_imag - 1);
    const auto expect = grid_ff.all();
    for (int i = 0; i < nfreq; ++i)
      if (static_cast<int>(expect.size()) != nfreq || std::abs(expect[i].re - freqs[i].re) > 1e-6 || std::abs(expect[i].im - freqs[i].im) > 1e-6)
        throw InputError(f, "/eps_header/freqs/freqs, frequency " + std::to_string(i + 1) + " (" + std::to_string(freqs[i].re) + ", " +
                                std::to_string(freqs[i].im) + ") eV: expected BerkeleyGW's contour-deformation grid, a uniform real axis from " +
                                "init_frequency with one broadening (a grid widened by frequency_high_cutoff / delta_frequency_step is not read) " +
                                "followed by the imaginary points plasma_freq z / (1 - z)");
  }

  // The header's values the run must agree on: the first file sets them, the second must match.
  const Vec3i grid{static_cast<int>(qgrid[0]), static_cast<int>(qgrid[1]), static_cast<int>(qgrid[2])};
  if (out.eps.empty()) {
    out.params.ecut = ecut;
    out.params.nbands = nband;
    out.params.frequency_dependence = static_cast<int>(freq_dep);
    if (ff) out.params.frequencies = grid_ff;
    out.qgrid = grid;
    out.celvol = celvol;
  } else if (grid != out.qgrid || std::abs(celvol - out.celvol) > 1e-8 * out.celvol || std::abs(ecut - out.params.ecut) > 1e-10 ||
             nband != out.params.nbands || freq_dep != out.params.frequency_dependence ||
             (ff && (out.eps[0].freq.size() != freqs.size() || !std::equal(freqs.begin(), freqs.end(), out.eps[0].freq.begin(), [](cplx a, cplx b) {
                       return std::abs(a.re - b.re) < 1e-9 && std::abs(a.im - b.im) < 1e-9;
                     })))) {
    throw InputError(f, "q-grid, cell volume, epsilon cutoff, number of bands or frequencies differ from the other dielectric-matrix file's: "
                        "expected the two files of one Epsilon run");
  }

  std::vector<double> raw(row);
  for (int iq = 0; iq < nq; ++iq) {
    const std::string where = "/mats/matrix, q-point " + std::to_string(iq + 1);
    DielectricMatrix d;
    d.q.q = {qpts[3 * iq], qpts[3 * iq + 1], qpts[3 * iq + 2]};
    d.q.q0 = q0;
    d.nk = grid[0] * grid[1] * grid[2];
    const std::int64_t n = nmtx[iq];
    if (n < 1 || n > nmax) throw InputError(f, "/eps_header/gspace/nmtx " + std::to_string(n) + ": expected 1 .. " + std::to_string(nmax));
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t ig = gind[static_cast<std::size_t>(iq) * ng + i];
      if (ig < 1 || ig > ng)
        throw InputError(f, "/eps_header/gspace/gind_eps2rho " + std::to_string(ig) + ": expected 1 .. " + std::to_string(ng));
      const std::size_t c = 3 * static_cast<std::size_t>(ig - 1);
      d.gvec.push_back({static_cast<int>(comp[c]), static_cast<int>(comp[c + 1]), static_cast<int>(comp[c + 2])});
    }
    r.h5().read_rows("/mats/matrix", iq, 1, raw.data());
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    HostVector<cplx> all(nn * nfreq);  // every element written below
    for (int fq = 0; fq < nfreq; ++fq)
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < n; ++i) {
          const double* v = raw.data() + fq * mat + (static_cast<std::size_t>(j) * nmax + i) * flavor;
          const cplx e(v[0], flavor == 2 ? v[1] : 0.0);
          if (!std::isfinite(e.re) || !std::isfinite(e.im))
            throw InputError(f, where + (ff ? ", frequency " + std::to_string(fq + 1) : std::string()) + ": a non-finite element at (" +
                                    std::to_string(i + 1) + ", " + std::to_string(j + 1) + ")");
          all[fq * nn + i + static_cast<std::size_t>(n) * j] = e;
        }
    if (ff) d.epsinv.assign(all.begin(), all.begin() + nn);
    else d.epsinv = std::move(all);  // the static file's one matrix
    if (ff) {
      d.freq = freqs;
      d.n_real = nfreq - nfreq_imag;
      d.epsinv_ff = std::move(all);
    }
    out.params.qpoints.push_back(d.q);
    out.eps.push_back(std::move(d));
  }
}

// BerkeleyGW's Fermi level of an insulator, Ry: midway between the highest occupied and the lowest empty
// energy of bands 1..nbands over the file's k-points.
double midgap(const Wavefunctions& w, int nbands) {
  const BandEdges e = band_edges(w, nbands);
  return 0.5 * (e.vbm + e.cbm);
}

}  // namespace

int write_bgw_epsmat(const std::filesystem::path& file, const std::vector<DielectricMatrix>& eps, bool q0, const EpsilonParams& params,
                     const Wavefunctions& wfn) {
  std::vector<const DielectricMatrix*> qs;
  for (const auto& d : eps)
    if (d.q.q0 == q0) qs.push_back(&d);
  if (qs.empty()) return 0;
  const std::size_t nq = qs.size(), ng = wfn.gvec_rho.size();
  std::size_t nmax = 0;
  for (const auto* d : qs) nmax = std::max(nmax, d->gvec.size());
  // Full frequency: every matrix at every frequency, complex in either flavour (BerkeleyGW's matrix_flavor 2).
  const bool ff = params.frequency_dependence == 2;
  const std::size_t nfreq = ff ? qs[0]->freq.size() : 1;
  for (const auto* d : qs)
    if (ff && (d->freq.size() != nfreq || d->epsinv_ff.size() != nfreq * d->gvec.size() * d->gvec.size()))
      throw Error("write_bgw_epsmat: full frequency needs eps^-1 at every frequency in the G basis (not kept with do_sigma_subspace)");
  const std::size_t flavor = ff || wfn.complex_flavour ? 2 : 1;
  using I = std::vector<std::int32_t>;
  using D = std::vector<double>;

  io::TemporaryPath tmp(file);
  {
    io::H5File h(tmp.path(), io::H5File::Mode::Create);
    write_bgw_int(h, "/eps_header/versionnumber", 3);
    write_bgw_int(h, "/eps_header/flavor", wfn.complex_flavour ? 2 : 1);
    const std::string pa = "/eps_header/params/";
    write_bgw_int(h, pa + "matrix_type", 0);
    write_bgw_int(h, pa + "matrix_flavor", static_cast<int>(flavor));
    write_bgw_int(h, pa + "nmatrix", 1);
    write_bgw_int(h, pa + "has_advanced", 0);
    write_bgw_int(h, pa + "icutv", 0);
    write_bgw_real(h, pa + "ecuts", params.ecut);
    write_bgw_int(h, pa + "nband", params.nbands);
    write_bgw_real(h, pa + "efermi", midgap(wfn, params.nbands));
    write_bgw_int(h, pa + "intraband_flag", 0);
    write_bgw_real(h, pa + "intraband_overlap_min", 0.5);
    write_bgw_int(h, pa + "subsample", 0);
    write_bgw_int(h, pa + "subspace", 0);
    const std::string fr = "/eps_header/freqs/";
    write_bgw_int(h, fr + "freq_dep", ff ? 2 : 0);
    write_bgw_int(h, fr + "nfreq", static_cast<int>(nfreq));
    write_bgw_int(h, fr + "nfreq_imag", ff ? static_cast<int>(nfreq) - qs[0]->n_real : 0);
    D freqs(2 * nfreq, 0.0);
    for (std::size_t i = 0; ff && i < nfreq; ++i) freqs[2 * i] = qs[0]->freq[i].re, freqs[2 * i + 1] = qs[0]->freq[i].im;
    h.write(fr + "freqs", freqs, {nfreq, 2});

    const std::string qp = "/eps_header/qpoints/";
    write_bgw_int(h, qp + "nq", static_cast<int>(nq));
    D qpts;
    I nmtx, eps2rho, rho2eps(nq * ng);
    D ekin, vcoul(nq * nmax, 0.0);
    for (std::size_t iq = 0; iq < nq; ++iq) {
      const auto& d = *qs[iq];
      qpts.insert(qpts.end(), d.q.q.begin(), d.q.q.end());
      nmtx.push_back(d.ng());
      // The whole density's list in Epsilon's order (q0: of |G|^2); the sphere is its head.
      D e;
      const auto order = g_order(wfn.crystal, wfn.gvec_rho, q0 ? Vec3{0, 0, 0} : d.q.q, &e);
      for (std::size_t i = 0; i < ng; ++i) {
        if (i < d.gvec.size() && wfn.gvec_rho[order[i]] != d.gvec[i])
          throw Error("write_bgw_epsmat: the dielectric matrix's G-vectors are not the head of WFN's G list in |q+G|^2 order");
        eps2rho.push_back(order[i] + 1);
        rho2eps[iq * ng + order[i]] = static_cast<std::int32_t>(i + 1);
      }
      ekin.insert(ekin.end(), e.begin(), e.end());
      if (d.qg2.size() != d.gvec.size()) throw Error("write_bgw_epsmat: the dielectric matrix has no |q+G|^2 (not from compute_epsilon)");
      for (std::size_t i = 0; i < d.gvec.size(); ++i) vcoul[iq * nmax + i] = 8.0 * units::pi / d.qg2[i];
    }
    h.write(qp + "qpts", qpts, {nq, 3});
    h.write(qp + "qgrid", I(wfn.kgrid.begin(), wfn.kgrid.end()), {3});
    h.write(qp + "qpt_done", I(nq, 1), {nq});
    const std::string gs = "/eps_header/gspace/";
    h.write(gs + "nmtx", nmtx, {nq});
    write_bgw_int(h, gs + "nmtx_max", static_cast<int>(nmax));
    h.write(gs + "ekin", ekin, {nq, ng});
    h.write(gs + "gind_eps2rho", eps2rho, {nq, ng});
    h.write(gs + "gind_rho2eps", rho2eps, {nq, ng});
    h.write(gs + "vcoul", vcoul, {nq, nmax});
    write_mf_header(h, wfn);

    // [q][1][f][G'][G][flavor] = eps^-1(G, G'; z_f), one q-point at a time; the first frequency's diagonal beside it.
    const std::size_t mat = nmax * nmax * flavor;
    require_host_memory(bytes_of(sizeof(double), mat, nfreq), "one q-point's dielectric matrices of " + file.string() + " as they are written");
    h.create_doubles("/mats/matrix", {nq, 1, nfreq, nmax, nmax, flavor});
    D row(mat * nfreq), diag(nq * nmax * flavor, 0.0);
    for (std::size_t iq = 0; iq < nq; ++iq) {
      const auto& d = *qs[iq];
      const std::size_t n = d.gvec.size();
      std::fill(row.begin(), row.end(), 0.0);
      for (std::size_t fq = 0; fq < nfreq; ++fq) {
        const cplx* m = ff ? d.epsinv_at(static_cast<int>(fq)) : d.epsinv.data();
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t i = 0; i < n; ++i) {
            const cplx v = m[i + n * j];
            double* x = row.data() + fq * mat + (j * nmax + i) * flavor;
            x[0] = v.re;
            if (flavor == 2) x[1] = v.im;
            if (i == j && fq == 0) std::copy(x, x + flavor, diag.data() + (iq * nmax + i) * flavor);
          }
      }
      h.write_rows("/mats/matrix", iq, 1, row.data());
    }
    h.write("/mats/matrix-diagonal", diag, {nq, nmax, flavor});
  }
  tmp.commit();
  return static_cast<int>(nq);
}

EpsilonFromFiles read_bgw_epsmat(const std::filesystem::path& eps0mat, const std::filesystem::path& epsmat) {
  EpsilonFromFiles out;
  read_one(eps0mat, true, out);
  if (!epsmat.empty()) read_one(epsmat, false, out);
  return out;
}

}  // namespace quanta::gw
