#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "quanta/core/error.hpp"
#include "quanta/core/io/input_file.hpp"
#include "quanta/core/io/fortran_records.hpp"
#include "quanta/core/io/text_reader.hpp"
#include "quanta/linelist/checkpoints.hpp"
#include "trove_limits.hpp"

namespace quanta::linelist {
namespace {

void expect_line(io::TextReader& r, const std::string& text, const std::string& field) {
  std::string line = r.read_rest_of_line();
  while (line.find_first_not_of(" \t\r") == std::string::npos && !r.at_end()) line = r.read_rest_of_line();
  const auto b = line.find_first_not_of(" \t");
  const std::string got = b == std::string::npos ? "" : line.substr(b, text.size());
  if (got != text) r.fail(field, "'" + line + "'", "'" + text + "'");
}

// A count in [min, max] (max: a bound the caller derives from the file's size or the format).
int count_in(io::TextReader& r, const std::string& field, long min, long max) {
  const long v = r.read_int(field);
  if (v < min || v > max) r.fail(field, std::to_string(v), "a count " + std::to_string(min) + " .. " + std::to_string(max));
  return static_cast<int>(v);
}

int positive(io::TextReader& r, const std::string& field, bool allow_zero = false) {
  const long v = r.read_int(field);
  if (v < (allow_zero ? 0 : 1)) r.fail(field, std::to_string(v), allow_zero ? "a count >= 0" : "a count >= 1");
  if (v > std::numeric_limits<int>::max()) r.fail(field, std::to_string(v), "a count below 2^31");
  return static_cast<int>(v);
}

// Counts read from a text header size arrays before their values are read; a value takes at least two
// bytes of the file (a digit and a separator), which bounds every such count.
long values_bound(const std::filesystem::path& file) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  return ec ? 0 : static_cast<long>(std::min<std::uintmax_t>(size / 2, std::numeric_limits<int>::max()));
}

}  // namespace

ContractedBasis read_contracted_basis(const std::filesystem::path& file, int J, const std::vector<int>& irrep_degeneracy) {
  io::TextReader r(file.string());
  ContractedBasis b;
  b.J = J;
  expect_line(r, "Start Primitive basis set", "header");
  // Each contracted function is a line of at least two values, and each case holds one or more.
  const long max_values = values_bound(file);
  b.ncases = count_in(r, "Maxsymcoeffs", 1, max_values / 2);
  const int max_deg = positive(r, "max_deg_size");
  const int ncontr = count_in(r, "Maxcontracts", b.ncases, max_values / 2);
  b.nclasses = count_in(r, "Nclasses", 1, kMaxTroveModes);
  r.read_rest_of_line();
  std::vector<int> case_level(b.ncases), func_ideg(ncontr), func_case(ncontr);
  b.vib_key.resize(ncontr);
  b.case_first.assign(b.ncases + 1, 0);
  int icontr = 0;
  for (int c = 0; c < b.ncases; ++c) {
    const int nl = positive(r, "case size (nlambdas)");
    if (nl > max_deg) r.fail("case size", std::to_string(nl), "<= max_deg_size " + std::to_string(max_deg));
    std::vector<int> cs(b.nclasses + 1);
    for (int& x : cs) x = static_cast<int>(r.read_int("contractive_space"));
    case_level[c] = cs[0];
    b.case_first[c] = icontr;
    for (int l = 0; l < nl; ++l) {
      const long iroot = r.read_int("contracted function number");
      if (iroot != icontr + 1) r.fail("contracted function number", std::to_string(iroot), std::to_string(icontr + 1));
      if (icontr >= ncontr) r.fail("contracted functions", "more than Maxcontracts", std::to_string(ncontr));
      std::vector<int> ic(b.nclasses + 1);
      for (int& x : ic) x = static_cast<int>(r.read_int("icoeffs"));
      func_ideg[icontr] = ic[0];
      func_case[icontr] = c;
      std::vector<int> key(cs.begin() + 1, cs.end());
      key.insert(key.end(), ic.begin() + 1, ic.end());
      b.vib_key[icontr] = std::move(key);
      ++icontr;
    }
  }
  b.case_first[b.ncases] = icontr;
  if (icontr != ncontr) r.fail("contracted functions", std::to_string(icontr), "Maxcontracts = " + std::to_string(ncontr));

  // Rotational table: "icase ilambda j k tau" rows until the footer.
  positive(r, "rot-size");
  positive(r, "rot-max-degen");
  r.read_rest_of_line();
  std::map<std::pair<int, int>, int> rot_of;
  for (;;) {
    const std::string line = r.read_rest_of_line();
    if (line.find("End Primitive basis set") != std::string::npos) break;
    if (r.at_end()) r.fail("rotational table", "end of file", "'End Primitive basis set'");
    std::istringstream in(line);
    int ilevel, ideg, j, k, tau;
    if (!(in >> ilevel >> ideg >> j >> k >> tau)) r.fail("rotational table row", "'" + line + "'", "icase ilambda J k tau");
    if (j != J) r.fail("rotational table J", std::to_string(j), "J = " + std::to_string(J) + " (from the file name)");
    if (k < 0 || k > J || (tau != 0 && tau != 1)) r.fail("rotational table (k, tau)", std::to_string(k) + ", " + std::to_string(tau), "0 <= k <= J, tau 0 or 1");
    rot_of[{ilevel, ideg}] = b.nrot();
    b.rot_k.push_back(k);
    b.rot_tau.push_back(tau);
  }
  b.k.resize(ncontr);
  b.tau.resize(ncontr);
  b.irot.resize(ncontr);
  for (int f = 0; f < ncontr; ++f) {
    const auto it = rot_of.find({case_level[func_case[f]], func_ideg[f]});
    if (it == rot_of.end())
      throw InputError(file.string(), "contracted function " + std::to_string(f + 1) + " names rotational function (" +
                                          std::to_string(case_level[func_case[f]]) + ", " + std::to_string(func_ideg[f]) +
                                          "), which the rotational table does not list");
    b.irot[f] = it->second;
    b.k[f] = b.rot_k[it->second];
    b.tau[f] = b.rot_tau[it->second];
  }

  expect_line(r, "Start irreducible transformation", "symmetrization header");
  b.mat_size = positive(r, "total maximal degeneracy (mat_size)");
  for (int c = 0; c < b.ncases; ++c)
    if (b.case_first[c + 1] - b.case_first[c] > b.mat_size)
      r.fail("mat_size", std::to_string(b.mat_size), ">= the largest case size " + std::to_string(b.case_first[c + 1] - b.case_first[c]));
  r.read_rest_of_line();
  const int nrep = static_cast<int>(irrep_degeneracy.size());
  b.irreps.resize(nrep);
  for (int g = 0; g < nrep; ++g) b.irreps[g].ntotal = positive(r, "number of vectors in irrep " + std::to_string(g + 1), true);
  r.read_rest_of_line();
  for (int g = 0; g < nrep; ++g) {
    auto& ir = b.irreps[g];
    ir.degen = irrep_degeneracy[g];
    ir.N.resize(b.ncases);
    long long total = 0;
    for (int c = 0; c < b.ncases; ++c) total += (ir.N[c] = positive(r, "N(case) of irrep " + std::to_string(g + 1), true));
    if (total != ir.ntotal)
      r.fail("irrep " + std::to_string(g + 1) + " N(case)", "sum " + std::to_string(total), std::to_string(ir.ntotal));
    const auto ncoeff = static_cast<std::size_t>(ir.ntotal) * static_cast<std::size_t>(ir.degen);
    if (ncoeff > 0 && static_cast<std::size_t>(b.mat_size) > static_cast<std::size_t>(max_values) / ncoeff)
      r.fail("irrep " + std::to_string(g + 1) + " transformation", std::to_string(ir.ntotal) + " x " + std::to_string(ir.degen) + " x " +
                                                                     std::to_string(b.mat_size) + " coefficients",
             "at most the " + std::to_string(max_values) + " values the file can hold");
    ir.repres.resize(ncoeff * b.mat_size);
    for (double& x : ir.repres) x = r.read_real("irreducible transformation coefficient");
  }
  r.read_rest_of_line();
  expect_line(r, "End irreducible transformation", "symmetrization footer");
  return b;
}

void correlate_with_j0(ContractedBasis& basis, const ContractedBasis& j0, const std::filesystem::path& file) {
  std::map<std::vector<int>, int> index;
  for (int f = 0; f < j0.ncontr(); ++f) index[j0.vib_key[f]] = f;
  basis.ivib.resize(basis.ncontr());
  for (int f = 0; f < basis.ncontr(); ++f) {
    const auto it = index.find(basis.vib_key[f]);
    if (it == index.end())
      throw InputError(file.string(), "contracted function " + std::to_string(f + 1) +
                                          " has no J = 0 counterpart (its vibrational labels are not in j0eigen_quanta0.chk)");
    basis.ivib[f] = it->second;
  }
}

int read_nmodes(const std::filesystem::path& descr_file) {
  io::TextReader r(descr_file.string());
  expect_line(r, "Start Fingerprints", "header");
  r.read_int("PTorder");
  return count_in(r, "Nmodes", 1, kMaxTroveModes);
}

RootsFile read_root_descriptions(const std::filesystem::path& file, int nmodes, int nclasses) {
  std::ifstream in = io::open_input_file(file, "TROVE's j0eigen_descr checkpoint of a J and symmetry in the input's J range");
  if (nmodes < 1 || nmodes > kMaxTroveModes || nclasses < 1 || nclasses > kMaxTroveModes)
    throw InputError(file.string(), "Nmodes " + std::to_string(nmodes) + ", Nclasses " + std::to_string(nclasses) + ": expected 1 .. " +
                                        std::to_string(kMaxTroveModes) + " each");
  std::string line;
  int number = 0;
  bool started = false;
  while (std::getline(in, line)) {
    ++number;
    if (line.find("Start Quantum numbers and energies") != std::string::npos) {
      started = true;
      break;
    }
  }
  if (!started) throw InputError(file.string(), number, "descr", "no 'Start Quantum numbers and energies'", "TROVE's descr layout");
  RootsFile out;
  bool have_counts = false;
  while (std::getline(in, line)) {
    ++number;
    if (line.find("End Quantum numbers and energies") != std::string::npos) {
      if (!have_counts) break;
      // The count at the top is an upper bound: when the diagonalizer's enermax kept fewer roots, TROVE still writes the
      // block's size there (HOOH's J = 2, B1u: 98 written, 97 listed), and its own readers take the lines up to this
      // End line. The roots are the lines listed.
      if (static_cast<int>(out.roots.size()) > out.nroots)
        throw InputError(file.string(), number, "roots", std::to_string(out.roots.size()) + " lines",
                         "at most " + std::to_string(out.nroots) + " (the count at the top)");
      out.nroots = static_cast<int>(out.roots.size());
      return out;
    }
    if (line.find("<==") != std::string::npos || line.find("Class #") != std::string::npos) continue;
    if (!have_counts) {
      std::istringstream s(line);
      if (!(s >> out.nroots >> out.dim) || out.nroots < 0 || out.dim < 0)
        throw InputError(file.string(), number, "number of roots and dimension", "'" + line + "'", "two counts");
      have_counts = true;
      continue;
    }
    std::istringstream s(line);
    RootDescription d;
    d.quanta.resize(nmodes + 1);
    d.cgamma.resize(nclasses + 1);
    d.normal.resize(nmodes + 1);
    bool ok = static_cast<bool>(s >> d.record >> d.gamma >> d.level >> d.degen_component >> d.energy);
    for (int& q : d.quanta) ok = ok && static_cast<bool>(s >> q);
    ok = ok && static_cast<bool>(s >> d.largest_index);
    for (int& q : d.cgamma) ok = ok && static_cast<bool>(s >> q);
    for (int& q : d.normal) ok = ok && static_cast<bool>(s >> q);
    ok = ok && static_cast<bool>(s >> d.largest_coeff >> d.vib_index);
    if (!ok)
      throw InputError(file.string(), number, "root description", "'" + line + "'",
                       "record, Gamma, level, component, energy, " + std::to_string(nmodes + 1) + " quanta, index, " +
                           std::to_string(nclasses + 1) + " symmetries, " + std::to_string(nmodes + 1) +
                           " normal quanta, coefficient, vibrational index");
    if (d.record < 1 || d.record > out.nroots)
      throw InputError(file.string(), number, "record", std::to_string(d.record), "1 .. " + std::to_string(out.nroots));
    out.roots.push_back(std::move(d));
  }
  throw InputError(file.string(), number, "descr", "end of file", "'End Quantum numbers and energies'");
}


namespace {

// One N x N matrix, column-major in the file, stored row-major as component a of d (d.n set by the first).
void store_component(DipoleMatrices& d, int a, const std::vector<char>& m) {
  const std::size_t n = d.n, nn = n * n;
  if (d.mu.empty()) d.mu.resize(3 * nn);
  const double* col = reinterpret_cast<const double*>(m.data());
  double* out = d.mu.data() + static_cast<std::size_t>(a) * nn;
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < n; ++i) out[i * n + j] = col[j * n + i];
}

}  // namespace

DipoleMatrices read_dipole_matrices(const std::filesystem::path& file) {
  io::FortranRecords rec(file, "TROVE's dipole layout: Start external field, N, three N x N matrices");
  auto head = rec.next("header");
  if (std::string(head.begin(), head.end()).rfind("Start external field", 0) != 0) rec.fail("header", "'" + std::string(head.begin(), head.end()) + "'");
  const auto n = rec.next_scalar<std::int32_t>("N");
  if (n <= 0) rec.fail("N", std::to_string(n), "a count >= 1");
  DipoleMatrices d;
  d.n = n;
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  for (int a = 0; a < 3; ++a) {
    const auto imu = rec.next_scalar<std::int32_t>("component index");
    if (imu != a + 1) rec.fail("component index", std::to_string(imu), std::to_string(a + 1));
    // The record is checked (its length against what the file holds, in next) before the matrices are
    // sized, so N cannot size them beyond the file.
    auto m = rec.next("dipole matrix");
    if (m.size() != nn * 8) rec.fail("dipole matrix", std::to_string(m.size()) + " bytes", std::to_string(nn * 8) + " bytes (N x N doubles)");
    store_component(d, a, m);
  }
  auto tail = rec.next("footer");
  if (std::string(tail.begin(), tail.end()).rfind("End external field", 0) != 0) rec.fail("footer", "'" + std::string(tail.begin(), tail.end()) + "'");
  return d;
}

DipoleMatrices read_divided_dipole_matrices(const std::filesystem::path& dir) {
  DipoleMatrices d;
  for (int a = 0; a < 3; ++a) {
    const auto file = dir / ("j0_extmatelem" + std::to_string(a + 1) + ".chk");
    io::FortranRecords rec(file, "TROVE's divided dipole layout (CHECK_POINT: extmatelem ... split): 'extF', one N x N matrix, 'extF'");
    auto tag = [&](const char* what) {
      const auto t = rec.next(what);
      if (std::string(t.begin(), t.end()) != "extF") rec.fail(what, "'" + std::string(t.begin(), t.end()) + "'", "'extF'");
    };
    tag("header");
    auto m = rec.next("dipole matrix");
    // N from the record: its length must be the square of a count of doubles, the same in all three files.
    const auto values = m.size() / 8;
    auto n = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(values))));
    if (m.size() % 8 != 0 || n == 0 || n * n != values || n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      rec.fail("dipole matrix", std::to_string(m.size()) + " bytes", "N x N doubles");
    if (a == 0) d.n = static_cast<int>(n);
    else if (static_cast<int>(n) != d.n)
      rec.fail("dipole matrix", std::to_string(n) + " x " + std::to_string(n),
               std::to_string(d.n) + " x " + std::to_string(d.n) + " as in j0_extmatelem1.chk");
    store_component(d, a, m);
    tag("footer");
  }
  return d;
}

DipoleMatrices read_trove_dipole(const std::filesystem::path& dir, const IntensityInput& input) {
  if (input.dipole_divided) return read_divided_dipole_matrices(dir);
  const auto file = dir / "j0_extfield.chk";
  std::error_code ec;
  if (!std::filesystem::exists(file, ec) && std::filesystem::exists(dir / "j0_extmatelem1.chk", ec))
    throw InputError(file.string(), "not found; the folder holds j0_extmatelem1.chk, the dipole written divided. TROVE reads those when the "
                                    "input's CHECK_POINT block says so (`extmatelem read split`): " + input.file.string() + " does not");
  return read_dipole_matrices(file);
}

}  // namespace quanta::linelist
