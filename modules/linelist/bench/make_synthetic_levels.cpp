// A synthetic levels file (docs/linelist.md, "The levels file") for timing `quanta linelist --levels` on a line list of
// any size: every stage of the run does its full work, only the eigenvectors, energies and dipole are made up.
//
// The model is a planar triatomic in Cs(M), classified as TROVE classifies 28SiHD: a rotational function (k, tau) is A'
// for tau = 0 and A" for tau = 1, every vibrational function is A', so the product function (k, tau) x v has the
// symmetry of its rotational part; the in-plane dipole components mu_x, mu_z are A' and mu_y vanishes.
//   - eigenvectors of (J, Gamma): random unit vectors (normal coefficients, one random stream per root) on the product
//     functions of symmetry Gamma, zero on the others; near-orthonormal (overlaps ~ 1/sqrt(dim));
//   - energies: E = ZPE + B J(J+1) + u, u uniform in [0, span), ascending within a block; the lowest J = 0 A' root is
//     the ZPE;
//   - dipole: mu_x and mu_z random symmetric, elements normal with deviation 1/sqrt(nvib) Debye; mu_y = 0.
// A block (J, Gamma) holds min(--levels, its symmetrized dimension) roots. Between A' and A" every pair of levels with
// |J - J'| <= 1 gives one line (the one of positive wavenumber), so a run of J = 0..jmax with open windows and zero
// thresholds computes exactly the number of pairs printed as `expected_transitions`.
//
// The file is written by quanta's own writer (write_levels_h5, as `quanta linelist-convert` does): the vectors go
// first to TROVE-style direct-access files in the symmetrized basis (one record of `dim` doubles per root), through a
// contracted basis in which each symmetrized function is one product function; the writer expands them to the product
// basis in bounded chunks. Host memory stays within a few hundred MiB whatever the size.
//
//   make_synthetic_levels -o FILE [--jmax 20] [--nvib 400] [--levels 6000] [--seed 1] [--scratch DIR]
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "quanta/core/error.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/linelist/levels.hpp"

using namespace quanta;
using namespace quanta::linelist;

namespace {

struct Params {
  std::filesystem::path output, scratch;  // scratch: where the folder of the direct-access vector files is made
  int jmax = 20, nvib = 400, levels = 6000;
  unsigned seed = 1;
};

constexpr double kZpe = 5000.0;     // cm^-1, absolute energy of the lowest level
constexpr double kB = 10.0;         // cm^-1, rotational constant of the J(J+1) ladder
constexpr double kSpan = 10000.0;   // cm^-1, spread of each block's energies above its ladder step
constexpr int kAp = 1, kApp = 2;    // Gamma of A' and A" (1-based, TROVE's order)

int rotational_symmetry(int tau) { return tau == 0 ? kAp : kApp; }

// The contracted basis of J as the identity on the product basis: contracted function f = irot * nvib + v is its own
// symmetrization case, and irrep Gamma takes the cases whose rotational function has symmetry Gamma (coefficient 1).
ContractedBasis identity_contraction(const RotVibBasis& b) {
  ContractedBasis c;
  c.J = b.J;
  c.mat_size = 1;
  c.rot_k = b.k;
  c.rot_tau = b.tau;
  c.irreps.resize(2);
  for (auto& irr : c.irreps) irr.N.assign(b.size(), 0);
  for (int r = 0; r < b.nrot(); ++r)
    for (int v = 0; v < b.nvib; ++v) {
      c.case_first.push_back(c.ncontr());
      c.k.push_back(b.k[r]);
      c.tau.push_back(b.tau[r]);
      c.irot.push_back(r);
      c.ivib.push_back(v);
      auto& irr = c.irreps[rotational_symmetry(b.tau[r]) - 1];
      irr.N[c.ncontr() - 1] = 1;
      ++irr.ntotal;
    }
  c.ncases = c.ncontr();
  c.case_first.push_back(c.ncontr());
  for (auto& irr : c.irreps) irr.repres.assign(irr.ntotal, 1.0);
  return c;
}

DipoleMatrices random_dipole(int nvib, unsigned seed) {
  DipoleMatrices d;
  d.n = nvib;
  d.mu.assign(3 * std::size_t(nvib) * nvib, 0.0);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0 / std::sqrt(double(nvib)));
  for (int a : {0, 2})  // x and z; y (a = 1) stays 0
    for (int i = 0; i < nvib; ++i)
      for (int j = 0; j <= i; ++j) d.mu[(std::size_t(a) * nvib + i) * nvib + j] = d.mu[(std::size_t(a) * nvib + j) * nvib + i] = g(rng);
  return d;
}

// Random unit vectors for roots first .. first+count-1 of a block, in its symmetrized basis: out[count][block.dim]. One
// random stream per root, so the file does not depend on the thread count.
void random_vectors(const LevelBlock& block, unsigned seed, std::size_t first, std::size_t count, double* out) {
  const std::size_t dim = block.dim;
#pragma omp parallel for schedule(dynamic)
  for (std::size_t i = 0; i < count; ++i) {
    std::seed_seq s{seed, unsigned(block.J), unsigned(block.gamma), unsigned(first + i)};
    std::mt19937_64 rng(s);
    std::normal_distribution<double> g;
    double* x = out + i * dim;
    double norm = 0;
    for (std::size_t p = 0; p < dim; ++p) norm += (x[p] = g(rng)) * x[p];
    const double inv = 1 / std::sqrt(norm);
    for (std::size_t p = 0; p < dim; ++p) x[p] *= inv;
  }
}

// The folder of the direct-access vector files, made here (an existing one is refused, so that nothing else is ever
// removed) and removed with its files when the program ends.
struct ScratchFolder {
  std::filesystem::path path;
  explicit ScratchFolder(std::filesystem::path p) : path(std::move(p)) {
    if (std::filesystem::exists(path)) throw Error("the scratch folder " + path.string() + " exists (left by an interrupted run?): remove it first");
    std::filesystem::create_directories(path);
  }
  ~ScratchFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// Writes the block's roots to its direct-access file (TROVE's j0eigen_vectors layout) in batches of about 256 MiB.
void write_vectors(const LevelBlock& block, unsigned seed) {
  const std::size_t n = block.levels.size(), dim = block.dim;
  if (n == 0) return;  // J = 0, A": no roots, no file (as TROVE writes none)
  const std::size_t batch = std::max<std::size_t>(1, (std::size_t(256) << 20) / (dim * sizeof(double)));
  std::vector<double> buf(std::min(n, batch) * dim);
  std::FILE* f = std::fopen(block.vectors.string().c_str(), "wb");
  if (!f) throw Error("cannot write " + block.vectors.string() + ": " + std::strerror(errno));
  for (std::size_t first = 0; first < n; first += batch) {
    const std::size_t m = std::min(batch, n - first);
    random_vectors(block, seed, first, m, buf.data());
    if (std::fwrite(buf.data(), sizeof(double), m * dim, f) != m * dim) {
      std::fclose(f);
      throw Error("cannot write " + block.vectors.string() + ": " + std::strerror(errno) + " (disk full?)");
    }
  }
  if (std::fclose(f) != 0) throw Error("cannot write " + block.vectors.string() + ": " + std::strerror(errno));
}

// The levels of J = 0..jmax, A' and A" (A" of J = 0 is empty: its only rotational function is (0, 0)), with their
// energies and their vector files in `scratch`.
Levels synthetic_levels(const Params& p, const std::filesystem::path& scratch) {
  Levels L;
  L.group = &symmetry_group("Cs(M)");
  L.trove_assignments = false;
  L.zpe = kZpe;
  int id = 0;
  for (int J = 0; J <= p.jmax; ++J) {
    L.jvalues.push_back(J);
    L.bases.push_back(symmetric_top_basis(J, p.nvib));
    L.contracted.push_back(identity_contraction(L.bases.back()));
    for (int g : {kAp, kApp}) {
      const int dim = L.contracted.back().irreps[g - 1].ntotal;
      LevelBlock block{J, g, dim, scratch / ("j0eigen_vectors" + std::to_string(J) + "_" + std::to_string(g) + ".chk"), {}, {}};
      const int n = std::min(p.levels, dim);
      std::seed_seq s{p.seed, unsigned(J), unsigned(g)};  // three numbers: not one of the vectors' streams
      std::mt19937_64 rng(s);
      std::uniform_real_distribution<double> u(0.0, kSpan);
      std::vector<double> energy(n);
      for (double& e : energy) e = kZpe + kB * J * (J + 1) + u(rng);
      std::sort(energy.begin(), energy.end());
      if (J == 0 && g == kAp && n > 0) energy[0] = kZpe;
      for (int i = 0; i < n; ++i) {
        Level lv;
        lv.J = J;
        lv.gamma = g;
        lv.id = ++id;
        lv.block = static_cast<int>(L.blocks.size());
        lv.energy = energy[i];
        lv.root.record = lv.root.level = i + 1;
        lv.root.gamma = g;
        lv.root.energy = energy[i];
        block.levels.push_back(static_cast<int>(L.levels.size()));
        L.levels.push_back(std::move(lv));
      }
      L.blocks.push_back(std::move(block));
    }
  }
  return L;
}

// Lines of a run over J = 0..jmax with open windows and zero thresholds: every A'-A" pair with |J - J'| <= 1.
double expected_transitions(const Levels& L) {
  double n = 0;
  for (const LevelBlock& a : L.blocks)
    for (const LevelBlock& b : L.blocks)
      if (a.gamma == kAp && b.gamma == kApp && std::abs(a.J - b.J) <= 1) n += double(a.levels.size()) * double(b.levels.size());
  return n;
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "make_synthetic_levels: %s\n"
               "usage: make_synthetic_levels -o FILE [--jmax 20] [--nvib 400] [--levels 6000] [--seed 1] [--scratch DIR]\n"
               "  --jmax     J = 0..jmax are written\n"
               "  --nvib     vibrational functions (the dipole matrices' size); the basis of J has (2J+1) nvib functions\n"
               "  --levels   roots per (J, irrep), at most the block's symmetrized dimension\n"
               "  --seed     of every random stream: the same seed gives the same file\n"
               "  --scratch  where the temporary folder of vector files (about half the output's size) is made\n"
               "             (default: FILE's folder)\n",
               why.c_str());
  std::exit(2);
}

int positive(const std::string& option, const char* value) {
  char* end = nullptr;
  const long v = std::strtol(value, &end, 10);
  if (*end != '\0' || v < 1 || v > 1000000000) usage(option + " " + value + ": expected a positive integer");
  return static_cast<int>(v);
}

Params parse(int argc, char** argv) {
  Params p;
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage(a + ": missing value");
    const char* v = argv[i + 1];
    if (a == "-o" || a == "--output") p.output = v;
    else if (a == "--scratch") p.scratch = v;
    else if (a == "--jmax") p.jmax = positive(a, v);
    else if (a == "--nvib") p.nvib = positive(a, v);
    else if (a == "--levels") p.levels = positive(a, v);
    else if (a == "--seed") p.seed = static_cast<unsigned>(positive(a, v));
    else usage("unknown option " + a);
  }
  if (p.output.empty()) usage("-o FILE is required");
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  const Params p = parse(argc, argv);
  try {
    WallTimer total, t;
    const auto parent = !p.scratch.empty() ? p.scratch : p.output.has_parent_path() ? p.output.parent_path() : std::filesystem::path(".");
    ScratchFolder scratch(parent / (p.output.filename().string() + ".vectors"));
    const Levels L = synthetic_levels(p, scratch.path);
    const DipoleMatrices dipole = random_dipole(p.nvib, p.seed);
    double raw_bytes = 0;
    for (const LevelBlock& b : L.blocks) {
      write_vectors(b, p.seed);
      raw_bytes += double(b.levels.size()) * b.dim * sizeof(double);
    }
    const double t_vectors = t.seconds();
    t.reset();
    write_levels_h5(p.output, L, dipole);
    const double t_write = t.seconds(), t_total = total.seconds();
    const double bytes = double(std::filesystem::file_size(p.output));
    std::printf("levels %zu\nblocks %zu\njmax %d\nnvib %d\nmax_basis %zu\nexpected_transitions %.0f\n", L.levels.size(), L.blocks.size(), p.jmax,
                p.nvib, L.bases.back().size(), expected_transitions(L));
    std::printf("file %s\nfile_bytes %.0f\nseconds_vectors %.2f\nseconds_write %.2f\nseconds_total %.2f\nrate_GB_per_s %.3f\nthreads %d\n",
                p.output.string().c_str(), bytes, t_vectors, t_write, t_total, bytes / t_total / 1e9, omp_get_max_threads());
    std::printf("scratch_bytes %.0f\n", raw_bytes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_synthetic_levels: %s\n", e.what());
    return 1;
  }
  return 0;
}
