// BerkeleyGW's Epsilon output in HDF5 (eps0mat.h5 for q0, epsmat.h5 for the other q-points; eps_header
// version 3, as BerkeleyGW 2.x-4.x writes it), read for Sigma instead of running Epsilon. C order (Fortran's
// dimensions reversed):
//   /eps_header/qpoints/{nq, qpts [nq][3] (crystal), qgrid [3]}, /eps_header/params/{ecuts (Ry), nband,
//   matrix_type (0: eps^-1), nmatrix (spins)}, /eps_header/freqs/{freq_dep (0: static), nfreq},
//   /eps_header/gspace/{nmtx [nq], nmtx_max, gind_eps2rho [nq][ng] (1-based, the sorted sphere of each q)},
//   /mf_header/gspace/components [ng][3], /mf_header/crystal/celvol,
//   /mats/matrix [nq][nmatrix][nfreq][nmtx_max][nmtx_max][flavor]: [q][0][0][G'][G] = eps^-1(G, G'), each q's
//   leading nmtx x nmtx block (the rest is padding); flavor 1 (real) or 2 (real, imaginary).
#include <cmath>
#include <string>

#include "bgw_h5.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/io/input_file.hpp"
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
  if (freq_dep != 0)
    throw InputError(f, "/eps_header/freqs/freq_dep " + std::to_string(freq_dep) +
                            ": expected 0 (static screening, the only kind quanta's Sigma takes; full frequency is refused)");
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
  if (dims.size() != 6 || dims[0] != static_cast<std::size_t>(nq) || dims[1] != 1 || dims[2] != 1 || dims[3] != static_cast<std::size_t>(nmax) ||
      dims[4] != static_cast<std::size_t>(nmax) || (dims[5] != 1 && dims[5] != 2)) {
    std::string got;
    for (auto d : dims) got += (got.empty() ? "" : " x ") + std::to_string(d);
    throw InputError(f, "/mats/matrix: " + got + ", expected " + std::to_string(nq) + " x 1 x 1 x " + std::to_string(nmax) + " x " +
                            std::to_string(nmax) + " x flavor (1 or 2)");
  }
  const std::size_t flavor = dims[5];
  r.h5().require_stored("/mats/matrix");
  const std::size_t row = static_cast<std::size_t>(nmax) * nmax * flavor;
  require_host_memory(bytes_of(sizeof(double), row) + bytes_of(sizeof(cplx), nmax, nmax, nq), "the dielectric matrices of " + f);

  // The header's values the run must agree on: the first file sets them, the second must match.
  const Vec3i grid{static_cast<int>(qgrid[0]), static_cast<int>(qgrid[1]), static_cast<int>(qgrid[2])};
  if (out.eps.empty()) {
    out.params.ecut = ecut;
    out.params.nbands = nband;
    out.qgrid = grid;
    out.celvol = celvol;
  } else if (grid != out.qgrid || std::abs(celvol - out.celvol) > 1e-8 * out.celvol || std::abs(ecut - out.params.ecut) > 1e-10) {
    throw InputError(f, "q-grid, cell volume or epsilon cutoff differ from the other dielectric-matrix file's: expected the two files of one "
                        "Epsilon run");
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
    d.epsinv.resize(static_cast<std::size_t>(n) * n);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) {
        const double* v = raw.data() + (static_cast<std::size_t>(j) * nmax + i) * flavor;
        const cplx e(v[0], flavor == 2 ? v[1] : 0.0);
        if (!std::isfinite(e.re) || !std::isfinite(e.im))
          throw InputError(f, where + ": a non-finite element at (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ")");
        d.epsinv[i + static_cast<std::size_t>(n) * j] = e;
      }
    out.params.qpoints.push_back(d.q);
    out.eps.push_back(std::move(d));
  }
}

}  // namespace

EpsilonFromFiles read_bgw_epsmat(const std::filesystem::path& eps0mat, const std::filesystem::path& epsmat) {
  EpsilonFromFiles out;
  read_one(eps0mat, true, out);
  if (!epsmat.empty()) read_one(epsmat, false, out);
  return out;
}

}  // namespace quanta::gw
