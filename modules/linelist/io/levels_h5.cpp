// quanta's levels file: the levels, eigenvectors and dipole matrices of a variational calculation in
// one HDF5 file, in the product basis (rotational function (k, tau)) x (vibrational function v) on which
// the line list works. The layout is documented in docs/linelist.md ("The levels file"):
//
//   /format           "quanta linelist levels 1"
//   /symmetry_group   TROVE's name of the group, e.g. "C2v(M)"
//   /dipole           [3][nvib][nvib] <v|mu_a|v'>, Debye, molecule-fixed a = x, y, z
//   /zpe              (optional) cm^-1
//   /J<J>/k, /J<J>/tau                   [nrot] the rotational functions of J, in the basis order
//   /J<J>/G<G>/energy                    [nroots] absolute energies, cm^-1
//   /J<J>/G<G>/vectors                   [nroots * degen][nrot * nvib], index irot * nvib + v
//   /J<J>/G<G>/id                        (optional) [nroots] ExoMol IDs
//   /J<J>/G<G>/quanta                    (optional) [nroots][nq] assignment columns of the .states file
//   /trove_nmodes, /trove_nclasses,
//   /J<J>/G<G>/trove_descr, /J<J>/G<G>/largest_coeff   (optional) TROVE's descr fields (TROVE's .states)
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <set>

#include "quanta/core/error.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/core/io/input_file.hpp"
#include "quanta/linelist/levels.hpp"
#include "outputs.hpp"
#include "trove_limits.hpp"

namespace quanta::linelist {
namespace {

constexpr const char* kFormat = "quanta linelist levels 1";

std::string jgroup(int J) { return "/J" + std::to_string(J); }
std::string block_group(int J, int g) { return jgroup(J) + "/G" + std::to_string(g); }

// The serial HDF5 library is not thread-safe; vectors are read from the second thread too.
std::mutex& hdf5_mutex() {
  static std::mutex m;
  return m;
}

[[noreturn]] void bad(const std::filesystem::path& file, const std::string& dataset, const std::string& what) {
  throw InputError(file.string(), dataset + ": " + what);
}

std::string dims_text(const std::vector<std::size_t>& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "][" : "") + std::to_string(d[i]);
  return s + "]";
}

void expect_dims(const io::H5File& f, const std::string& name, const std::vector<std::size_t>& want) {
  const auto have = f.dims(name);
  if (have != want) bad(f.path(), name, "dimensions " + dims_text(have) + ", expected " + dims_text(want));
}

// TROVE's descr fields of one root packed as integers: level, quanta(0:nmodes), cgamma(0:nclasses),
// normal(0:nmodes), vib_index.
std::size_t descr_width(int nmodes, int nclasses) { return 1 + 2 * (nmodes + 1) + (nclasses + 1) + 1; }

}  // namespace

DipoleMatrices read_dipole_h5(const std::filesystem::path& file) {
  std::lock_guard lock(hdf5_mutex());
  io::require_input_file(file, "quanta's HDF5 levels file (--levels)");
  io::check_hdf5_file(file);
  io::H5File f(file, io::H5File::Mode::Read);
  const auto d = f.dims("/dipole");
  if (d.size() != 3 || d[0] != 3 || d[1] != d[2] || d[1] == 0)
    bad(file, "/dipole", "dimensions " + dims_text(d) + ", expected [3][nvib][nvib]");
  DipoleMatrices m;
  m.n = static_cast<int>(d[1]);
  m.mu = f.read_doubles("/dipole");
  for (int a = 0; a < 3; ++a)
    for (int i = 0; i < m.n; ++i)
      for (int j = 0; j < i; ++j) {
        const double x = m.mu[(std::size_t(a) * m.n + i) * m.n + j], y = m.mu[(std::size_t(a) * m.n + j) * m.n + i];
        if (std::abs(x - y) > 1e-10 * std::max({1.0, std::abs(x), std::abs(y)}))
          bad(file, "/dipole", "component " + std::to_string(a) + " is not symmetric: element (" + std::to_string(i) + ", " + std::to_string(j) +
                                   ") = " + std::to_string(x) + ", (" + std::to_string(j) + ", " + std::to_string(i) + ") = " + std::to_string(y));
      }
  return m;
}

Levels read_levels_h5(const std::filesystem::path& file, const IntensityInput& input) {
  std::lock_guard lock(hdf5_mutex());
  io::require_input_file(file, "quanta's HDF5 levels file (--levels)");
  io::check_hdf5_file(file);
  io::H5File f(file, io::H5File::Mode::Read);
  if (!f.exists("/format") || f.read_string("/format") != kFormat)
    bad(file, "/format", "missing or not '" + std::string(kFormat) + "': not a quanta levels file");
  Levels L;
  L.levels_file = file;
  L.group = &symmetry_group(f.read_string("/symmetry_group"));
  if (!input.symgroup.empty() && symmetry_group(input.symgroup).name != L.group->name)
    throw InputError(input.file.string(), "SYMGROUP: " + input.symgroup + ", but " + file.string() + " holds levels in " + L.group->name);
  const int nrep = L.group->nirreps();
  if (static_cast<int>(input.gns.size()) != nrep)
    throw InputError(input.file.string(), "GNS: found " + std::to_string(input.gns.size()) + " values, expected " + std::to_string(nrep) +
                                              " (one per irrep of " + L.group->name + ")");
  const auto dd = f.dims("/dipole");
  if (dd.size() != 3 || dd[1] == 0) bad(file, "/dipole", "dimensions " + dims_text(dd) + ", expected [3][nvib][nvib]");
  f.require_stored("/dipole");  // nvib sizes every block's vectors
  const int nvib = static_cast<int>(dd[1]);

  // J = 0 when the file has it (the ZPE), then the input's range.
  if (f.exists(jgroup(0) + "/k")) L.jvalues.push_back(0);
  for (int J = std::max(input.jmin, 1); J <= input.jmax; ++J) L.jvalues.push_back(J);
  for (int J : L.jvalues) {
    const std::string kname = jgroup(J) + "/k", tname = jgroup(J) + "/tau";
    if (!f.exists(kname)) bad(file, kname, "missing: the input's J range " + std::to_string(input.jmin) + ".." + std::to_string(input.jmax) + " needs J = " + std::to_string(J));
    RotVibBasis b;
    b.J = J;
    b.nvib = nvib;
    for (auto k : f.read_ints(kname)) b.k.push_back(static_cast<int>(k));
    for (auto t : f.read_ints(tname)) b.tau.push_back(static_cast<int>(t));
    if (b.k.size() != b.tau.size()) bad(file, tname, std::to_string(b.tau.size()) + " values, expected " + std::to_string(b.k.size()) + " (as " + kname + ")");
    std::set<std::pair<int, int>> seen;
    for (int r = 0; r < b.nrot(); ++r)
      if (b.k[r] < 0 || b.k[r] > J || (b.tau[r] != 0 && b.tau[r] != 1) || !seen.insert({b.k[r], b.tau[r]}).second)
        bad(file, jgroup(J), "rotational function " + std::to_string(r) + " is (k, tau) = (" + std::to_string(b.k[r]) + ", " + std::to_string(b.tau[r]) +
                                  "), expected distinct pairs with 0 <= k <= J and tau 0 or 1");
    L.bases.push_back(std::move(b));
  }

  L.trove_assignments = f.exists("/trove_nmodes");
  if (L.trove_assignments) {
    const auto count = [&](const std::string& name) {
      const auto v = f.read_ints(name);
      if (v.size() != 1 || v[0] < 0 || v[0] > kMaxTroveModes)
        bad(file, name, (v.size() == 1 ? std::to_string(v[0]) : std::to_string(v.size()) + " values") + ", expected one count 0 .. " +
                            std::to_string(kMaxTroveModes));
      return static_cast<int>(v[0]);
    };
    L.nmodes = count("/trove_nmodes");
    L.nclasses = count("/trove_nclasses");
  }
  double zpe = std::numeric_limits<double>::quiet_NaN();
  if (f.exists("/zpe")) zpe = f.read_doubles("/zpe").at(0);
  else if (f.exists(block_group(0, 1) + "/energy")) {
    const auto e = f.read_doubles(block_group(0, 1) + "/energy");
    if (!e.empty()) zpe = *std::min_element(e.begin(), e.end());
  }

  int running_id = 0;
  for (std::size_t ij = 0; ij < L.jvalues.size(); ++ij) {
    const int J = L.jvalues[ij];
    const std::size_t dim = L.bases[ij].size();
    for (int g = 1; g <= nrep; ++g) {
      const std::string base = block_group(J, g);
      // As from TROVE's checkpoints (read_levels): the irreps with GNS > 0, and J = 0 of the first irrep
      // whatever its GNS (TROVE reads it for the ZPE and lists it in .states, with g_tot 0 when GNS is 0).
      const bool needed = input.gns[g - 1] > 0 && J >= input.jmin;
      const bool wanted = needed || (J == 0 && g == 1 && J >= input.jmin);
      if (!f.exists(base + "/energy")) {
        if (needed)
          bad(file, base + "/energy", "missing: the input's J range and GNS ask for J = " + std::to_string(J) + ", " + L.group->irreps[g - 1] +
                                          " (write an empty dataset when there are no such levels)");
        continue;
      }
      const std::vector<double> energy = f.read_doubles(base + "/energy");
      const int nroots = static_cast<int>(energy.size());
      if (!wanted) {
        running_id += nroots;
        continue;
      }
      const int degen = L.group->degeneracy(g - 1);
      LevelBlock block{J, g, static_cast<int>(dim), {}, base + "/vectors", {}};
      expect_dims(f, block.dataset, {std::size_t(nroots) * degen, dim});
      f.require_stored(block.dataset);  // the vectors are read later into buffers of these dimensions
      std::vector<std::int64_t> ids, quanta, descr;
      std::vector<double> largest;
      std::size_t nq = 0;
      if (f.exists(base + "/id")) {
        expect_dims(f, base + "/id", {std::size_t(nroots)});
        ids = f.read_ints(base + "/id");
      }
      if (f.exists(base + "/quanta")) {
        const auto d = f.dims(base + "/quanta");
        if (d.size() != 2 || d[0] != std::size_t(nroots)) bad(file, base + "/quanta", "dimensions " + dims_text(d) + ", expected [" + std::to_string(nroots) + "][nq]");
        nq = d[1];
        quanta = f.read_ints(base + "/quanta");
      }
      if (L.trove_assignments) {
        expect_dims(f, base + "/trove_descr", {std::size_t(nroots), descr_width(L.nmodes, L.nclasses)});
        expect_dims(f, base + "/largest_coeff", {std::size_t(nroots)});
        descr = f.read_ints(base + "/trove_descr");
        largest = f.read_doubles(base + "/largest_coeff");
      }
      for (int i = 0; i < nroots; ++i) {
        Level lv;
        lv.J = J;
        lv.gamma = g;
        lv.id = ids.empty() ? running_id + i + 1 : static_cast<int>(ids[i]);
        lv.block = static_cast<int>(L.blocks.size());
        lv.energy = energy[i];
        RootDescription& r = lv.root;
        r.record = i + 1;
        r.gamma = g;
        r.level = i + 1;
        r.energy = energy[i];
        if (L.trove_assignments) {
          const std::int64_t* d = descr.data() + std::size_t(i) * descr_width(L.nmodes, L.nclasses);
          r.level = static_cast<int>(*d++);
          r.quanta.assign(d, d + L.nmodes + 1), d += L.nmodes + 1;
          r.cgamma.assign(d, d + L.nclasses + 1), d += L.nclasses + 1;
          r.normal.assign(d, d + L.nmodes + 1), d += L.nmodes + 1;
          r.vib_index = static_cast<int>(*d);
          r.largest_coeff = largest[i];
        } else {
          r.quanta.assign(quanta.begin() + std::ptrdiff_t(i * nq), quanta.begin() + std::ptrdiff_t((i + 1) * nq));
        }
        block.levels.push_back(static_cast<int>(L.levels.size()));
        L.levels.push_back(std::move(lv));
      }
      if (!L.trove_assignments) L.nmodes = std::max(L.nmodes, static_cast<int>(nq));
      running_id += nroots;
      L.blocks.push_back(std::move(block));
    }
  }
  if (input.have_zpe) L.zpe = input.zpe;
  else if (!std::isnan(zpe)) L.zpe = zpe;
  else bad(file, "/zpe", "missing, no J = 0 levels of the first irrep (/J0/G1/energy) either, and the input gives no ZPE");
  return L;
}

void read_vectors_h5(const Levels& L, const LevelBlock& block, std::span<const int> records, double* out) {
  std::lock_guard lock(hdf5_mutex());
  io::H5File f(L.levels_file, io::H5File::Mode::Read);
  const std::size_t degen = L.group->degeneracy(block.gamma - 1), dim = L.basis(block.J).size();
  // Runs of consecutive records in one read each.
  for (std::size_t i = 0; i < records.size();) {
    std::size_t n = 1;
    while (i + n < records.size() && records[i + n] == records[i] + int(n)) ++n;
    f.read_rows(block.dataset, std::size_t(records[i] - 1) * degen, n * degen, out + i * degen * dim);
    i += n;
  }
}

void write_levels_h5(const std::filesystem::path& file, const Levels& L, const DipoleMatrices& dipole) {
  io::TemporaryPath tmp(file);  // declared before the HDF5 file, so that file is closed before its removal on an error
  // The library lock is taken around each group of HDF5 calls, not across the expansion of the
  // vectors (which may itself read a levels file).
  std::unique_lock lock(hdf5_mutex());
  io::H5File f(tmp.path(), io::H5File::Mode::Create);
  f.write_string("/format", kFormat);
  f.write_string("/symmetry_group", L.group->name);
  f.write("/dipole", dipole.mu, {3, std::size_t(dipole.n), std::size_t(dipole.n)});
  f.write_scalar("/zpe", L.zpe);
  for (const RotVibBasis& b : L.bases) {
    f.write(jgroup(b.J) + "/k", std::vector<std::int64_t>(b.k.begin(), b.k.end()), {b.k.size()});
    f.write(jgroup(b.J) + "/tau", std::vector<std::int64_t>(b.tau.begin(), b.tau.end()), {b.tau.size()});
  }
  if (L.trove_assignments) {
    f.write("/trove_nmodes", std::vector<std::int64_t>{L.nmodes}, {});
    f.write("/trove_nclasses", std::vector<std::int64_t>{L.nclasses}, {});
  }
  for (const LevelBlock& block : L.blocks) {
    const std::string base = block_group(block.J, block.gamma);
    const std::size_t n = block.levels.size(), degen = L.group->degeneracy(block.gamma - 1), dim = L.basis(block.J).size();
    std::vector<double> energy, largest;
    std::vector<std::int64_t> ids, quanta, descr;
    std::vector<int> records;
    for (int li : block.levels) {
      const Level& l = L.levels[li];
      energy.push_back(l.energy);
      ids.push_back(l.id);
      records.push_back(l.root.record);
      for (int m = 1; m <= L.nmodes; ++m) quanta.push_back(m < int(l.root.quanta.size()) ? l.root.quanta[m] : 0);
      if (L.trove_assignments) {
        descr.push_back(l.root.level);
        for (int q : l.root.quanta) descr.push_back(q);
        for (int c : l.root.cgamma) descr.push_back(c);
        for (int q : l.root.normal) descr.push_back(q);
        descr.push_back(l.root.vib_index);
        largest.push_back(l.root.largest_coeff);
      }
    }
    f.write(base + "/energy", energy, {n});
    f.write(base + "/id", ids, {n});
    if (L.nmodes > 0) f.write(base + "/quanta", quanta, {n, std::size_t(L.nmodes)});
    if (L.trove_assignments) {
      f.write(base + "/trove_descr", descr, {n, descr_width(L.nmodes, L.nclasses)});
      f.write(base + "/largest_coeff", largest, {n});
    }
    f.create_doubles(base + "/vectors", {n * degen, dim});
    // Root chunks of about 256 MiB, so neither side holds a whole block.
    const std::size_t chunk = std::max<std::size_t>(1, (std::size_t(256) << 20) / (degen * dim * sizeof(double)));
    for (std::size_t first = 0; first < n; first += chunk) {
      const std::size_t m = std::min(chunk, n - first);
      lock.unlock();
      const std::vector<double> v = expanded_vectors(L, block, std::span<const int>(records).subspan(first, m), -1.0);
      lock.lock();
      f.write_rows(base + "/vectors", first * degen, m * degen, v.data());
    }
  }
  f.close();
  tmp.commit();
}

}  // namespace quanta::linelist
