// BerkeleyGW's HDF5 wavefunction file (wfn.h5, layout version 1, as BerkeleyGW's wfn2hdf.x writes it):
// /mf_header/{versionnumber, flavor}, /mf_header/{kpoints, gspace, symmetry, crystal}/..., and
// /wfns/gvecs [ngktot][3] with /wfns/coeffs [mnband][nspin*nspinor][ngktot][flavor] (C order: Fortran's
// dimensions reversed), the k-points' G-vectors and coefficients back to back along ngktot. Energies in
// Ry, k in crystal coordinates, mtrx [48][3][3] with [s][j][i] = Fortran mtrx(i, j, s), tnp [48][3].
// write_mf_header writes the /mf_header group back in the same layout (BerkeleyGW's other HDF5 files,
// eps0mat.h5 and epsmat.h5, carry it too).
#include <algorithm>
#include <cstdint>
#include <string>

#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/io/input_file.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "bgw_h5.hpp"
#include "quanta/gw/mean_field.hpp"

namespace quanta::gw {

Wavefunctions read_wfn_h5(const std::filesystem::path& file, int max_bands, bool header_only) {
  io::require_input_file(file, "BerkeleyGW's wfn.h5");
  io::check_hdf5_file(file);
  const BgwH5Reader r(file, "BerkeleyGW's wfn.h5 layout");
  const io::H5File& h = r.h5();
  const std::string& f = r.file();

  const auto version = r.one_int("/mf_header/versionnumber");
  if (version != 1) throw InputError(f, "/mf_header/versionnumber " + std::to_string(version) + ": expected 1");
  const auto flavor_in_file = r.one_int("/mf_header/flavor");
  if (flavor_in_file != 1 && flavor_in_file != 2)
    throw InputError(f, "/mf_header/flavor " + std::to_string(flavor_in_file) + ": expected 1 (real) or 2 (complex)");
  const int flavor = static_cast<int>(flavor_in_file);
  Wavefunctions w;
  w.file = f;
  w.complex_flavour = flavor == 2;
  const std::string kp = "/mf_header/kpoints/";
  w.nspin = r.count(kp + "nspin", 1, 2);
  const auto nspinor = r.one_int(kp + "nspinor");
  if (nspinor != 1) throw InputError(f, kp + "nspinor " + std::to_string(nspinor) + ": spinor wavefunctions are not supported (expected 1)");
  const int nk = r.count(kp + "nrk", 1);
  w.nbands_file = r.count(kp + "mnband", 1);
  w.nbands = max_bands > 0 && !header_only ? std::min(max_bands, w.nbands_file) : w.nbands_file;
  w.ecutwfc = r.one_double(kp + "ecutwfc");
  const auto kgrid = r.ints(kp + "kgrid", 3);
  const auto shift = r.doubles(kp + "shift", 3);
  for (int i = 0; i < 3; ++i) {
    w.kgrid[i] = static_cast<int>(kgrid[i]);
    w.kshift[i] = shift[i];
  }
  const auto ngk = r.ints(kp + "ngk", nk);
  w.kweights = r.doubles(kp + "w", nk);
  const auto rk = r.doubles(kp + "rk", 3 * static_cast<std::size_t>(nk));
  for (int k = 0; k < nk; ++k) w.kpoints.push_back({rk[3 * k], rk[3 * k + 1], rk[3 * k + 2]});
  for (auto n : ngk) {
    if (n < 1 || n > INT32_MAX) throw InputError(f, kp + "ngk: " + std::to_string(n) + ", expected 1 .. " + std::to_string(INT32_MAX));
    w.ngk.push_back(static_cast<int>(n));
  }
  for (auto x : r.ints(kp + "ifmin", static_cast<std::size_t>(nk) * w.nspin)) w.ifmin.push_back(static_cast<int>(x));
  for (auto x : r.ints(kp + "ifmax", static_cast<std::size_t>(nk) * w.nspin)) w.ifmax.push_back(static_cast<int>(x));
  const std::size_t nb = w.nbands_file;
  const auto el = r.doubles(kp + "el", nb * nk * w.nspin);
  const auto occ = r.doubles(kp + "occ", nb * nk * w.nspin);
  for (int s = 0; s < w.nspin; ++s)
    for (int k = 0; k < nk; ++k)
      for (int n = 0; n < w.nbands; ++n) {
        w.energies.push_back(el[n + nb * (k + static_cast<std::size_t>(nk) * s)]);
        w.occupations.push_back(occ[n + nb * (k + static_cast<std::size_t>(nk) * s)]);
      }

  const std::string gs = "/mf_header/gspace/";
  const int ng = r.count(gs + "ng", 1);
  w.ecutrho = r.one_double(gs + "ecutrho");
  const auto fft = r.ints(gs + "FFTgrid", 3);
  for (int i = 0; i < 3; ++i) w.crystal.fft_grid[i] = static_cast<int>(fft[i]);
  const auto comp = r.ints(gs + "components", 3 * static_cast<std::size_t>(ng));
  for (int g = 0; g < ng; ++g)
    w.gvec_rho.push_back({static_cast<int>(comp[3 * g]), static_cast<int>(comp[3 * g + 1]), static_cast<int>(comp[3 * g + 2])});

  Crystal& c = w.crystal;
  const std::string sy = "/mf_header/symmetry/";
  const int ntran = r.count(sy + "ntran", 1, 48);
  c.cell_symmetry = r.count(sy + "cell_symmetry", 0, 1);
  const auto mtrx = r.ints(sy + "mtrx", 9 * 48);
  const auto tnp = r.doubles(sy + "tnp", 3 * 48);
  for (int s = 0; s < ntran; ++s) {
    std::array<int, 9> r{};
    // [s][j][i] holds Fortran mtrx(i, j, s): the binary file's element order; R[i][j] = mtrx(i, j).
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) r[3 * i + j] = static_cast<int>(mtrx[9 * s + 3 * j + i]);
    c.rotation.push_back(r);
    c.tnp.push_back({tnp[3 * s], tnp[3 * s + 1], tnp[3 * s + 2]});
  }
  const std::string cr = "/mf_header/crystal/";
  c.celvol = r.one_double(cr + "celvol");
  c.recvol = r.one_double(cr + "recvol");
  c.alat = r.one_double(cr + "alat");
  c.blat = r.one_double(cr + "blat");
  if (!(c.celvol > 0) || !(c.alat > 0)) throw InputError(f, cr + "celvol, alat: expected positive values");
  const auto avec = r.doubles(cr + "avec", 9), bvec = r.doubles(cr + "bvec", 9), bdot = r.doubles(cr + "bdot", 9);
  for (int i = 0; i < 9; ++i) {
    c.avec[i] = avec[i];
    c.bvec[i] = bvec[i];
    c.bdot[i] = bdot[i];
  }
  const int nat = r.count(cr + "nat", 1);
  const auto atyp = r.ints(cr + "atyp", nat);
  const auto apos = r.doubles(cr + "apos", 3 * static_cast<std::size_t>(nat));
  for (int a = 0; a < nat; ++a) {
    c.atom_position.push_back({apos[3 * a], apos[3 * a + 1], apos[3 * a + 2]});
    c.atom_species.push_back(static_cast<int>(atyp[a]));
  }

  // Stochastic pseudobands: what made them (BerkeleyGW's pseudobands script writes the group; plain files lack it).
  if (h.exists("/pseudobands")) {
    PseudobandsInfo& p = w.pseudobands;
    p.present = true;
    for (const bool val : {false, true}) {
      const std::string g = std::string("/pseudobands/") + (val ? "valence/" : "conduction/");
      if (!h.exists(g + "nprot")) continue;
      const int nprot = static_cast<int>(r.one_int(g + "nprot"));
      const int nslice = static_cast<int>(r.one_int(g + "nslice"));
      const int per = static_cast<int>(r.one_int(g + "nspbps"));
      (val ? p.nprot_val : p.nprot_cond) = nprot;
      (val ? p.nslice_val : p.nslice_cond) = nslice;
      (val ? p.per_slice_val : p.per_slice_cond) = per;
      if (h.exists(g + "max_freq")) p.max_freq = r.one_double(g + "max_freq");
      if (h.exists(g + "uniform_width")) p.uniform_width = r.one_double(g + "uniform_width");
    }
  }

  if (header_only) return w;

  // The G-vectors and coefficients of each k-point: rows off_k .. off_k + ngk - 1 along ngktot.
  std::size_t ngktot = 0;
  for (auto n : w.ngk) ngktot += static_cast<std::size_t>(n);
  const auto gvecs = r.ints("/wfns/gvecs", 3 * ngktot);
  const auto dims = h.dims("/wfns/coeffs");
  const std::vector<std::size_t> expected{nb, static_cast<std::size_t>(w.nspin), ngktot, static_cast<std::size_t>(flavor)};
  if (dims != expected)
    throw InputError(f, "/wfns/coeffs: shape does not match [mnband][nspin][sum of ngk][flavor] = [" + std::to_string(nb) + "][" +
                            std::to_string(w.nspin) + "][" + std::to_string(ngktot) + "][" + std::to_string(flavor) + "]");
  // The extents above come from the file's dataspace, which may declare more than the file stores.
  h.require_stored("/wfns/coeffs");
  require_host_memory(bytes_of(sizeof(double), static_cast<std::size_t>(w.nbands) * w.nspin, ngktot, flavor + 2u),
                      "the wavefunctions of " + f + " (" + std::to_string(nk) + " k-points x " + std::to_string(w.nbands) + " bands)");
  std::vector<double> raw(static_cast<std::size_t>(w.nbands) * w.nspin * ngktot * flavor);
  h.read_rows("/wfns/coeffs", 0, w.nbands, raw.data());  // the first nbands bands only
  std::size_t off = 0;
  for (int k = 0; k < nk; ++k) {
    const std::size_t n_k = static_cast<std::size_t>(ngk[k]);
    std::vector<Vec3i> g(n_k);
    for (std::size_t i = 0; i < n_k; ++i)
      g[i] = {static_cast<int>(gvecs[3 * (off + i)]), static_cast<int>(gvecs[3 * (off + i) + 1]), static_cast<int>(gvecs[3 * (off + i) + 2])};
    w.gvec.push_back(std::move(g));
    std::vector<cplx> ck(static_cast<std::size_t>(w.nbands) * w.nspin * n_k);
    for (int n = 0; n < w.nbands; ++n)
      for (int s = 0; s < w.nspin; ++s)
        for (std::size_t i = 0; i < n_k; ++i) {
          const double* x = raw.data() + ((static_cast<std::size_t>(n) * w.nspin + s) * ngktot + off + i) * flavor;
          ck[(static_cast<std::size_t>(n) * w.nspin + s) * n_k + i] = cplx(x[0], flavor == 2 ? x[1] : 0.0);
        }
    w.coeffs.push_back(std::move(ck));
    off += n_k;
  }
  return w;
}


void write_mf_header(io::H5File& h, const Wavefunctions& w) {
  using I = std::vector<std::int32_t>;
  using D = std::vector<double>;
  const auto nk = static_cast<std::size_t>(w.nk()), nspin = static_cast<std::size_t>(w.nspin), nb = static_cast<std::size_t>(w.nbands);
  write_bgw_int(h, "/mf_header/versionnumber", 1);
  write_bgw_int(h, "/mf_header/flavor", w.complex_flavour ? 2 : 1);

  const std::string kp = "/mf_header/kpoints/";
  write_bgw_int(h, kp + "nspin", w.nspin);
  write_bgw_int(h, kp + "nspinor", 1);
  write_bgw_int(h, kp + "nrk", w.nk());
  write_bgw_int(h, kp + "mnband", w.nbands);
  write_bgw_int(h, kp + "ngkmax", w.ngk.empty() ? 0 : *std::max_element(w.ngk.begin(), w.ngk.end()));
  write_bgw_real(h, kp + "ecutwfc", w.ecutwfc);
  h.write(kp + "kgrid", I(w.kgrid.begin(), w.kgrid.end()), {3});
  h.write(kp + "shift", D(w.kshift.begin(), w.kshift.end()), {3});
  h.write(kp + "ngk", I(w.ngk.begin(), w.ngk.end()), {nk});
  h.write(kp + "ifmin", I(w.ifmin.begin(), w.ifmin.end()), {nspin, nk});
  h.write(kp + "ifmax", I(w.ifmax.begin(), w.ifmax.end()), {nspin, nk});
  h.write(kp + "w", w.kweights, {nk});
  D rk;
  for (const auto& k : w.kpoints) rk.insert(rk.end(), k.begin(), k.end());
  h.write(kp + "rk", rk, {nk, 3});
  h.write(kp + "el", w.energies, {nspin, nk, nb});
  h.write(kp + "occ", w.occupations, {nspin, nk, nb});

  const Crystal& c = w.crystal;
  const std::string gs = "/mf_header/gspace/";
  write_bgw_int(h, gs + "ng", static_cast<int>(w.gvec_rho.size()));
  write_bgw_real(h, gs + "ecutrho", w.ecutrho);
  h.write(gs + "FFTgrid", I(c.fft_grid.begin(), c.fft_grid.end()), {3});
  I comp;
  for (const auto& g : w.gvec_rho) comp.insert(comp.end(), g.begin(), g.end());
  h.write(gs + "components", comp, {w.gvec_rho.size(), 3});

  const std::string sy = "/mf_header/symmetry/";
  write_bgw_int(h, sy + "ntran", static_cast<int>(c.rotation.size()));
  write_bgw_int(h, sy + "cell_symmetry", c.cell_symmetry);
  I mtrx(9 * 48, 0);
  D tnp(3 * 48, 0.0);
  for (std::size_t s = 0; s < c.rotation.size(); ++s) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) mtrx[9 * s + 3 * j + i] = c.rotation[s][3 * i + j];  // [s][j][i] = mtrx(i, j, s)
    for (int i = 0; i < 3; ++i) tnp[3 * s + i] = c.tnp[s][i];
  }
  h.write(sy + "mtrx", mtrx, {48, 3, 3});
  h.write(sy + "tnp", tnp, {48, 3});

  const std::string cr = "/mf_header/crystal/";
  write_bgw_real(h, cr + "celvol", c.celvol);
  write_bgw_real(h, cr + "recvol", c.recvol);
  write_bgw_real(h, cr + "alat", c.alat);
  write_bgw_real(h, cr + "blat", c.blat);
  write_bgw_int(h, cr + "nat", static_cast<int>(c.atom_species.size()));
  h.write(cr + "avec", D(c.avec.begin(), c.avec.end()), {3, 3});
  h.write(cr + "bvec", D(c.bvec.begin(), c.bvec.end()), {3, 3});
  D adot(9);  // the real-space metric, bohr^2: alat^2 a_i . a_j
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int x = 0; x < 3; ++x) adot[3 * i + j] += c.alat * c.alat * c.avec[3 * i + x] * c.avec[3 * j + x];
  h.write(cr + "adot", adot, {3, 3});
  h.write(cr + "bdot", D(c.bdot.begin(), c.bdot.end()), {3, 3});
  h.write(cr + "atyp", I(c.atom_species.begin(), c.atom_species.end()), {c.atom_species.size()});
  D apos;
  for (const auto& p : c.atom_position) apos.insert(apos.end(), p.begin(), p.end());
  h.write(cr + "apos", apos, {c.atom_position.size(), 3});
}

void write_wfn_h5(const Wavefunctions& w, const std::filesystem::path& file) {
  io::TemporaryPath tmp(file);
  {
    io::H5File h(tmp.path(), io::H5File::Mode::Create);
    write_mf_header(h, w);
    const int flavor = w.complex_flavour ? 2 : 1;
    std::size_t ngktot = 0;
    for (const auto& g : w.gvec) ngktot += g.size();
    std::vector<std::int32_t> gvecs;
    gvecs.reserve(3 * ngktot);
    for (const auto& gk : w.gvec)
      for (const auto& g : gk) gvecs.insert(gvecs.end(), g.begin(), g.end());
    h.write("/wfns/gvecs", gvecs, {ngktot, 3});
    // One band at a time: [nspin][ngktot][flavor] per row of [mnband].
    h.create_doubles("/wfns/coeffs", {static_cast<std::size_t>(w.nbands), static_cast<std::size_t>(w.nspin), ngktot, static_cast<std::size_t>(flavor)});
    std::vector<double> row(static_cast<std::size_t>(w.nspin) * ngktot * flavor);
    for (int n = 0; n < w.nbands; ++n) {
      for (int s = 0; s < w.nspin; ++s) {
        std::size_t off = 0;
        for (int k = 0; k < w.nk(); ++k) {
          const std::size_t n_k = w.gvec[k].size();
          const cplx* c = w.band(k, n, s);
          for (std::size_t i = 0; i < n_k; ++i) {
            double* x = row.data() + (static_cast<std::size_t>(s) * ngktot + off + i) * flavor;
            x[0] = c[i].re;
            if (flavor == 2) x[1] = c[i].im;
          }
          off += n_k;
        }
      }
      h.write_rows("/wfns/coeffs", n, 1, row.data());
    }
    const PseudobandsInfo& p = w.pseudobands;
    if (p.present) {
      for (const bool val : {false, true}) {
        const int nprot = val ? p.nprot_val : p.nprot_cond;
        if (val && nprot < 0) continue;  // no valence pseudobands: the group stays empty, as BerkeleyGW's script leaves it
        const std::string g = std::string("/pseudobands/") + (val ? "valence/" : "conduction/");
        write_bgw_int(h, g + "nprot", nprot);
        write_bgw_int(h, g + "nslice", val ? p.nslice_val : p.nslice_cond);
        write_bgw_int(h, g + "nspbps", val ? p.per_slice_val : p.per_slice_cond);
        write_bgw_real(h, g + "max_freq", p.max_freq);
        write_bgw_real(h, g + "uniform_width", p.uniform_width);
      }
    }
  }
  tmp.commit();
}

}  // namespace quanta::gw
