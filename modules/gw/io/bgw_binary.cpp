// BerkeleyGW's mean-field files as pw2bgw.x writes them: Fortran sequential unformatted records.
// Header: title ("WFN-Real", "RHO-Complex", ...), sizes, FFT grid (+ k-grid for WFN), lattice, reciprocal
// lattice, symmetry matrices, fractional translations, atoms; then for WFN the per-k tables. Data blocks
// (G-vectors, coefficients) are written as `nrecord`, then per record its length and its payload.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/io/fortran_records.hpp"
#include "quanta/core/io/input_file.hpp"
#include "bgw_h5.hpp"
#include "quanta/gw/mean_field.hpp"

namespace quanta::gw {
namespace {

constexpr const char* kLayout = "BerkeleyGW's mean-field layout as written by pw2bgw.x";

template <class T>
T take(const std::vector<char>& raw, std::size_t& pos) {
  T v;
  std::memcpy(&v, raw.data() + pos, sizeof(T));
  pos += sizeof(T);
  return v;
}

// The file's size in bytes: no count in a header can declare more data than the file holds, so every
// count is checked against it (in 64 bits) before it sizes a buffer or enters a product.
std::uint64_t file_bytes(const io::FortranRecords& rec) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(rec.file(), ec);
  return ec ? 0 : static_cast<std::uint64_t>(n);
}

// A header count must lie in [lo, hi]; checked on the 64-bit value before any arithmetic with it.
void check_count(const io::FortranRecords& rec, const std::string& name, std::int64_t value, std::int64_t lo, std::int64_t hi,
                 const std::string& why = "") {
  if (value < lo || value > hi)
    rec.fail(name, std::to_string(value), std::to_string(lo) + " .. " + std::to_string(hi) + (why.empty() ? "" : " (" + why + ")"));
}

// The largest count of items of `item_bytes` each that a file of `bytes` bytes can hold (at least lo, so
// that the range stays well formed for a tiny file; the record read then fails instead).
std::int64_t fits(std::uint64_t bytes, std::uint64_t item_bytes, std::int64_t lo = 1) {
  const std::uint64_t n = std::min<std::uint64_t>(bytes / item_bytes, INT32_MAX);
  return std::max<std::int64_t>(static_cast<std::int64_t>(n), lo);
}

struct Title {
  std::string kind;      // WFN or RHO
  bool complex_flavour;
};

Title read_title(io::FortranRecords& rec, const std::string& expected_kind) {
  auto raw = rec.next("title");
  const std::string t(raw.begin(), raw.begin() + std::min<std::size_t>(raw.size(), 32));
  const auto dash = t.find('-');
  const std::string kind = t.substr(0, dash);
  const std::string flavour = dash == std::string::npos ? "" : t.substr(dash + 1, t.find(' ', dash) - dash - 1);
  if (kind != expected_kind || (flavour != "Real" && flavour != "Complex"))
    rec.fail("title", "'" + t.substr(0, t.find_last_not_of(' ') + 1) + "'",
             "'" + expected_kind + "-Real' or '" + expected_kind + "-Complex'");
  return {kind, flavour == "Complex"};
}

void read_cell(io::FortranRecords& rec, Crystal& c, int ntran, int nat) {
  auto cell = rec.next_array<double>("celvol, alat, avec, adot", 20);
  c.celvol = cell[0];
  c.alat = cell[1];
  for (int i = 0; i < 9; ++i) c.avec[i] = cell[2 + i];  // Fortran avec(:, j) is vector j: contiguous
  auto rcell = rec.next_array<double>("recvol, blat, bvec, bdot", 20);
  c.recvol = rcell[0];
  c.blat = rcell[1];
  for (int i = 0; i < 9; ++i) {
    c.bvec[i] = rcell[2 + i];
    c.bdot[i] = rcell[11 + i];
  }
  if (!(c.celvol > 0) || !(c.alat > 0)) rec.fail("celvol, alat", std::to_string(c.celvol) + ", " + std::to_string(c.alat), "positive");
  auto m = rec.next_array<std::int32_t>("mtrx", 9 * static_cast<std::size_t>(ntran));
  auto t = rec.next_array<double>("tnp", 3 * static_cast<std::size_t>(ntran));
  c.rotation.resize(ntran);
  c.tnp.resize(ntran);
  for (int s = 0; s < ntran; ++s) {
    // Fortran mtrx(i, j, s) at i + 3 j + 9 s; R[i][j] = mtrx(i, j).
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) c.rotation[s][3 * i + j] = m[i + 3 * j + 9 * s];
    c.tnp[s] = {t[3 * s], t[3 * s + 1], t[3 * s + 2]};
  }
  auto atoms = rec.next("apos, atyp");
  const std::size_t atom_bytes = static_cast<std::size_t>(nat) * 28;  // nat is checked against the file size
  if (atoms.size() != atom_bytes)
    rec.fail("apos, atyp", std::to_string(atoms.size()) + " bytes", std::to_string(atom_bytes) + " bytes for " + std::to_string(nat) + " atoms");
  std::size_t pos = 0;
  for (int a = 0; a < nat; ++a) {
    Vec3 p;
    for (auto& x : p) x = take<double>(atoms, pos);
    c.atom_position.push_back(p);
    c.atom_species.push_back(take<std::int32_t>(atoms, pos));
  }
}

// A data block: nrecord, then per record (count, payload); returns the concatenated payloads, each
// element `item_bytes` long, checking that they add up to `total` items.
std::vector<char> read_block(io::FortranRecords& rec, const std::string& what, std::size_t total, std::size_t item_bytes) {
  const auto nrecord = rec.next_scalar<std::int32_t>(what + ": number of records");
  if (nrecord < 1) rec.fail(what + ": number of records", std::to_string(nrecord), "at least 1");
  // `total` comes from the header: before it sizes the buffer, the file must be able to hold it.
  const std::size_t declared = bytes_of(item_bytes, total);
  const std::uint64_t size = file_bytes(rec);
  if (declared > size)
    rec.fail(what, std::to_string(total) + " items of " + std::to_string(item_bytes) + " bytes declared by the header",
             "at most the " + std::to_string(size) + " bytes of the whole file");
  // (A file of many small blocks need not ask for each; the memory limits are read from /proc.)
  if (declared >= (std::size_t(64) << 20)) require_host_memory(declared, what + " in " + rec.file().string());
  std::vector<char> out;
  out.reserve(declared);
  for (int r = 0; r < nrecord; ++r) {
    const auto count = rec.next_scalar<std::int32_t>(what + ": record length");
    auto payload = rec.next(what);
    if (count < 0 || payload.size() != static_cast<std::size_t>(count) * item_bytes)
      rec.fail(what, std::to_string(payload.size()) + " bytes", std::to_string(count) + " items of " + std::to_string(item_bytes) + " bytes");
    out.insert(out.end(), payload.begin(), payload.end());
  }
  if (out.size() != declared)
    rec.fail(what, std::to_string(out.size() / item_bytes) + " items", std::to_string(total) + " items");
  return out;
}

std::vector<Vec3i> to_gvec(const std::vector<char>& raw) {
  std::vector<Vec3i> g(raw.size() / 12);
  std::memcpy(g.data(), raw.data(), raw.size());
  return g;
}

std::vector<cplx> to_coeffs(const std::vector<char>& raw, bool complex_flavour) {
  std::vector<cplx> c(raw.size() / (complex_flavour ? 16 : 8));
  if (complex_flavour) {
    std::memcpy(c.data(), raw.data(), raw.size());
  } else {
    const double* d = reinterpret_cast<const double*>(raw.data());
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = cplx(d[i], 0.0);
  }
  return c;
}


}  // namespace

void check_orthonormal(const Wavefunctions& w) {
  constexpr double kSameLevel = 1e-4, kTol = 1e-5;  // Ry; overlap
  for (int s = 0; s < w.nspin; ++s)
    for (int k = 0; k < w.nk(); ++k) {
      const std::size_t ng = w.gvec[k].size();
      auto coeff = [&](int n) { return w.coeffs[k].data() + (static_cast<std::size_t>(n) * w.nspin + s) * ng; };
      for (int first = 0; first < w.nbands;) {
        int last = first + 1;
        while (last < w.nbands && std::abs(w.energy(k, last, s) - w.energy(k, last - 1, s)) < kSameLevel) ++last;
        for (int a = first; a < last; ++a)
          for (int b = a; b < last; ++b) {
            cplx o;
            const cplx* ca = coeff(a);
            const cplx* cb = coeff(b);
            for (std::size_t g = 0; g < ng; ++g) o += conj(ca[g]) * cb[g];
            if (abs(o - cplx(a == b ? 1.0 : 0.0)) > kTol)
              throw InputError(w.file, "k-point " + std::to_string(k + 1) + ", bands " + std::to_string(a + 1) + " and " + std::to_string(b + 1) +
                                           ": overlap " + std::to_string(o.re) + (o.im < 0 ? " - " : " + ") + std::to_string(std::abs(o.im)) +
                                           "i, expected " + (a == b ? "1" : "0") +
                                           (w.pseudobands.present
                                                ? " (a file of stochastic pseudobands, which are not normalized: add dont_check_norms to "
                                                  "epsilon.inp and sigma.inp, as BerkeleyGW asks)"
                                                : " (states not orthonormal; for Real-flavour files, the conversion from complex states may have failed)"));
          }
        first = last;
      }
    }
}

BandEdges band_edges(const Wavefunctions& w, int nbands) {
  BandEdges e;
  const int nb = nbands > 0 ? std::min(nbands, w.nbands) : w.nbands;
  for (int s = 0; s < w.nspin; ++s)
    for (int k = 0; k < w.nk(); ++k) {
      const int top = w.ifmax[static_cast<std::size_t>(s) * w.nk() + k];
      for (int n = 0; n < nb; ++n) {
        const double x = w.energy(k, n, s);
        if (n < top) e.vbm = std::max(e.vbm, x);
        else e.cbm = std::min(e.cbm, x);
      }
    }
  return e;
}

namespace {

Wavefunctions read_wfn_fortran(const std::filesystem::path& file, int max_bands, bool header_only) {
  io::FortranRecords rec(file, kLayout);
  Wavefunctions w;
  w.file = file.string();
  w.complex_flavour = read_title(rec, "WFN").complex_flavour;
  auto sizes = rec.next("nspin, ng, ntran, cell_symmetry, nat, ecutrho, nk, nbands, ngkmax, ecutwfc");
  if (sizes.size() != 48) rec.fail("sizes", std::to_string(sizes.size()) + " bytes", "48 bytes");
  std::size_t p = 0;
  w.nspin = take<std::int32_t>(sizes, p);
  const int ng = take<std::int32_t>(sizes, p);
  const int ntran = take<std::int32_t>(sizes, p);
  w.crystal.cell_symmetry = take<std::int32_t>(sizes, p);
  if (w.crystal.cell_symmetry != 0 && w.crystal.cell_symmetry != 1)
    rec.fail("cell_symmetry", std::to_string(w.crystal.cell_symmetry), "0 (cubic) or 1 (hexagonal)");
  const int nat = take<std::int32_t>(sizes, p);
  w.ecutrho = take<double>(sizes, p);
  const int nk = take<std::int32_t>(sizes, p);
  w.nbands_file = take<std::int32_t>(sizes, p);
  const int ngkmax = take<std::int32_t>(sizes, p);
  w.ecutwfc = take<double>(sizes, p);
  if (w.nspin != 1 && w.nspin != 2) rec.fail("nspin", std::to_string(w.nspin), "1 or 2 (spinor files are not supported)");
  // Each count against what the file can hold of the data it declares: ng G-vectors of 12 bytes, nat
  // atoms of 28, nk k-points (ngk, weight, k, ifmin, ifmax) with nbands energies and occupations each.
  const std::uint64_t size = file_bytes(rec);
  check_count(rec, "ng", ng, 1, fits(size, 12), "12-byte G-vectors in the file");
  check_count(rec, "ntran", ntran, 1, 48);
  check_count(rec, "nat", nat, 1, fits(size, 28), "28-byte atoms in the file");
  check_count(rec, "nk", nk, 1, fits(size, 4 + 8 + 24 + 8 * static_cast<std::uint64_t>(w.nspin)), "k-points in the file");
  check_count(rec, "nbands", w.nbands_file, 1, fits(size, 16 * static_cast<std::uint64_t>(nk) * w.nspin),
              "energies and occupations of every k-point in the file");
  check_count(rec, "ngkmax", ngkmax, 1, header_only ? INT32_MAX : fits(size, 12), "12-byte G-vectors in the file");
  w.nbands = max_bands > 0 && !header_only ? std::min(max_bands, w.nbands_file) : w.nbands_file;
  auto grids = rec.next("FFTgrid, kgrid, kshift");
  if (grids.size() != 48) rec.fail("FFTgrid, kgrid, kshift", std::to_string(grids.size()) + " bytes", "48 bytes");
  p = 0;
  for (auto& x : w.crystal.fft_grid) x = take<std::int32_t>(grids, p);
  for (auto& x : w.kgrid) x = take<std::int32_t>(grids, p);
  for (auto& x : w.kshift) x = take<double>(grids, p);
  read_cell(rec, w.crystal, ntran, nat);
  auto ngk = rec.next_array<std::int32_t>("ngk", nk);
  w.kweights = rec.next_array<double>("kw", nk);
  auto kpt = rec.next_array<double>("kpt", 3 * static_cast<std::size_t>(nk));
  for (int k = 0; k < nk; ++k) w.kpoints.push_back({kpt[3 * k], kpt[3 * k + 1], kpt[3 * k + 2]});
  w.ngk = ngk;
  w.ifmin = rec.next_array<std::int32_t>("ifmin", static_cast<std::size_t>(nk) * w.nspin);
  w.ifmax = rec.next_array<std::int32_t>("ifmax", static_cast<std::size_t>(nk) * w.nspin);
  const std::size_t nb = w.nbands_file;
  auto e = rec.next_array<double>("energies", nb * nk * w.nspin);
  auto occ = rec.next_array<double>("occupations", nb * nk * w.nspin);
  w.energies.resize(static_cast<std::size_t>(w.nbands) * nk * w.nspin);
  w.occupations.resize(w.energies.size());
  for (int s = 0; s < w.nspin; ++s)
    for (int k = 0; k < nk; ++k)
      for (int n = 0; n < w.nbands; ++n) {
        const std::size_t from = n + nb * (k + static_cast<std::size_t>(nk) * s);
        const std::size_t to = n + w.nbands * (k + static_cast<std::size_t>(nk) * s);
        w.energies[to] = e[from];
        w.occupations[to] = occ[from];
      }
  w.gvec_rho = to_gvec(read_block(rec, "G-vectors of the density", ng, 12));
  if (header_only) return w;
  require_host_memory(bytes_of(sizeof(cplx), static_cast<std::size_t>(nk), static_cast<std::size_t>(w.nbands) * w.nspin, ngkmax),
                      "the wavefunctions of " + w.file + " (" + std::to_string(nk) + " k-points x " + std::to_string(w.nbands) + " bands)");
  const std::size_t item = w.complex_flavour ? 16 : 8;
  for (int k = 0; k < nk; ++k) {
    const std::string kname = "k-point " + std::to_string(k + 1);
    if (ngk[k] < 1 || ngk[k] > ngkmax) rec.fail("ngk of " + kname, std::to_string(ngk[k]), "1 .. ngkmax = " + std::to_string(ngkmax));
    w.gvec.push_back(to_gvec(read_block(rec, "G-vectors of " + kname, ngk[k], 12)));
    // Every band of this k-point is in the file: its coefficients bound the buffer before it is sized.
    const std::size_t coeff_bytes = bytes_of(item, static_cast<std::size_t>(w.nbands_file), static_cast<std::size_t>(w.nspin), ngk[k]);
    if (coeff_bytes > size)
      rec.fail("coefficients of " + kname, std::to_string(w.nbands_file) + " bands x " + std::to_string(ngk[k]) + " G-vectors declared by the header",
               "at most the " + std::to_string(size) + " bytes of the whole file");
    std::vector<cplx> c;
    c.reserve(static_cast<std::size_t>(w.nbands) * w.nspin * ngk[k]);
    for (int n = 0; n < w.nbands_file; ++n) {
      auto raw = read_block(rec, "band " + std::to_string(n + 1) + " of " + kname, static_cast<std::size_t>(ngk[k]) * w.nspin, item);
      if (n < w.nbands) {
        auto band = to_coeffs(raw, w.complex_flavour);
        // The file holds data(ngk, nspin): spin is the slow index, as in our [band][spin][g].
        c.insert(c.end(), band.begin(), band.end());
      }
    }
    w.coeffs.push_back(std::move(c));
  }
  return w;
}

}  // namespace

Wavefunctions read_wfn(const std::filesystem::path& file, int max_bands, bool check_norms) {
  Wavefunctions w = is_hdf5(file, "BerkeleyGW's wavefunction file (pw2bgw.x's WFN or wfn.h5)") ? read_wfn_h5(file, max_bands) : read_wfn_fortran(file, max_bands, false);
  if (check_norms) check_orthonormal(w);
  return w;
}

Wavefunctions read_wfn_header(const std::filesystem::path& file) {
  return is_hdf5(file, "BerkeleyGW's wavefunction file (pw2bgw.x's WFN or wfn.h5)") ? read_wfn_h5(file, 0, true) : read_wfn_fortran(file, 0, true);
}

namespace {

// RHO and VXC share one layout: the header without k-points, the G-vectors, then the values.
Density read_g_field(const std::filesystem::path& file, const char* kind) {
  io::FortranRecords rec(file, kLayout);
  Density d;
  d.file = file.string();
  const bool cplx_flavour = read_title(rec, kind).complex_flavour;
  auto sizes = rec.next("nspin, ng, ntran, cell_symmetry, nat, ecutrho");
  if (sizes.size() != 28) rec.fail("sizes", std::to_string(sizes.size()) + " bytes", "28 bytes");
  std::size_t p = 0;
  d.nspin = take<std::int32_t>(sizes, p);
  const int ng = take<std::int32_t>(sizes, p);
  const int ntran = take<std::int32_t>(sizes, p);
  take<std::int32_t>(sizes, p);
  const int nat = take<std::int32_t>(sizes, p);
  const std::uint64_t size = file_bytes(rec);
  check_count(rec, "nspin", d.nspin, 1, 2);
  check_count(rec, "ng", ng, 1, fits(size, 12), "12-byte G-vectors in the file");
  check_count(rec, "ntran", ntran, 1, 48);
  check_count(rec, "nat", nat, 1, fits(size, 28), "28-byte atoms in the file");
  auto grid = rec.next_array<std::int32_t>("FFTgrid", 3);
  for (int i = 0; i < 3; ++i) d.crystal.fft_grid[i] = grid[i];
  read_cell(rec, d.crystal, ntran, nat);
  d.gvec = to_gvec(read_block(rec, "G-vectors", ng, 12));
  d.rho = to_coeffs(read_block(rec, std::string(kind) == "RHO" ? "density" : "potential", static_cast<std::size_t>(ng) * d.nspin,
                               cplx_flavour ? 16 : 8),
                    cplx_flavour);
  return d;
}

}  // namespace

Density read_rho(const std::filesystem::path& file) { return read_g_field(file, "RHO"); }
Density read_vxc(const std::filesystem::path& file) { return read_g_field(file, "VXC"); }

// HDF5's signature, at the start of the file (where BerkeleyGW's files have it).
bool is_hdf5(const std::filesystem::path& file, const std::string& what) {
  auto in = io::open_input_file(file, what, std::ios::binary);
  char sig[8] = {};
  in.read(sig, 8);
  return in.gcount() == 8 && std::string(sig, 8) == std::string("\x89HDF\r\n\x1a\n", 8);
}

}  // namespace quanta::gw
