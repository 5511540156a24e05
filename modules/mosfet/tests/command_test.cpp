// `quanta mosfet` end to end: the bundled example (examples/mosfet/dg-equilibrium) run by the binary,
// its outputs checked against physics computed here independently of the solver (charge neutrality
// into the source, Fermi-Dirac populations by quadrature, the Schroedinger equation rebuilt from the
// written potential, the contact and gate voltages), against each other (the density from the written
// subbands, the text table against the HDF5 energies) and against the example's expected/; and failing
// runs (bad configs, non-convergence, a grid beyond the host memory) exiting 1 with the reason, writing
// nothing. The help text is the one docs/mosfet.md shows.
#include <gtest/gtest.h>
#include "quanta/test/sanitizer.hpp"
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "quanta/core/io/hdf5.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path example = fs::path(QUANTA_SOURCE_DIR) / "examples/mosfet/dg-equilibrium";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Outcome {
  int code = -1;
  std::string err;
};

// Runs `quanta mosfet ARGS` in `dir` (a shell prefix such as "ulimit -v N;" first), stdout and stderr kept.
Outcome run_mosfet(const fs::path& dir, const std::string& args, const std::string& prefix = "") {
  const fs::path err = dir / "stderr.txt";
  const std::string cmd = "cd '" + dir.string() + "' && " + prefix + " '" + QUANTA_BINARY + "' mosfet " + args + " > '" +
                          (dir / "stdout.txt").string() + "' 2> '" + err.string() + "'";
  const int status = std::system(("/bin/bash -c \"" + cmd + "\"").c_str());
  Outcome o;
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.err = slurp(err) + slurp(dir / "stdout.txt");
  return o;
}

// Names in `dir` other than the captured stdout/stderr and the inputs a test put there.
std::vector<std::string> written(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n == "stderr.txt" || n == "stdout.txt" || n.rfind("input", 0) == 0) continue;
    if (e.is_directory()) continue;
    names.push_back(fs::relative(e.path(), dir).string());
  }
  return names;
}

// `from` replaced by `to` in text, once; `from` must be there.
void replace_once(std::string& text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
}

// The transport example on a coarse grid (9 x 17, 2 subbands, 24 x 8 cells in (w, phi)), 4 fs with outputs every 2 fs.
std::string small_transport_config() {
  std::string config = slurp(fs::path(QUANTA_SOURCE_DIR) / "examples/mosfet/dg-transport/mosfet.toml");
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{{"nx = 65", "nx = 9"},
                                                                                  {"nz = 65", "nz = 17"},
                                                                                  {"subbands = 6", "subbands = 2"},
                                                                                  {"nw = 300", "nw = 24\nw_max = 14"},
                                                                                  {"nphi = 48", "nphi = 8"},
                                                                                  {"end_time = 0.1", "end_time = 0.004"},
                                                                                  {"output_interval = 0.01", "output_interval = 0.002"}})
    replace_once(config, from, to);
  return config;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("quanta-mosfet-command-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// The text summary's numbers: V_s, the Newton history's changes, the lowest subband table.
struct Summary {
  double source_potential = NAN;
  std::vector<double> changes;
  std::vector<std::array<double, 4>> lowest;  // x, valley 1..3 (eV)
  bool converged = false;
};

Summary read_summary(const fs::path& p) {
  std::ifstream in(p);
  Summary s;
  std::string line;
  enum { Head, Newton, Table } part = Head;
  while (std::getline(in, line)) {
    if (line.rfind("# V_s", 0) == 0) s.source_potential = std::stod(line.substr(line.find('=') + 1));
    if (line.rfind("# newton", 0) == 0) part = Newton;
    if (line.rfind("# lowest subband", 0) == 0) part = Table;
    if (line == "# converged") s.converged = true;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    if (part == Newton) {
      double k, residual, change;
      f >> k >> residual >> change;
      s.changes.push_back(change);
    } else if (part == Table) {
      std::array<double, 4> row{};
      f >> row[0] >> row[1] >> row[2] >> row[3];
      s.lowest.push_back(row);
    }
  }
  return s;
}

// F_1(eta) = int_0^inf t / (1 + e^(t - eta)) dt by composite Simpson on [0, max(eta, 0) + 50].
double fermi_dirac_1_quadrature(double eta) {
  const double top = std::max(eta, 0.0) + 50.0;
  const int n = 20000;
  const double h = top / n;
  double sum = 0.0;
  for (int k = 0; k <= n; ++k) {
    const double t = k * h;
    const double f = t / (1.0 + std::exp(t - eta));
    sum += f * (k == 0 || k == n ? 1.0 : (k % 2 ? 4.0 : 2.0));
  }
  return sum * h / 3.0;
}

}  // namespace

TEST(MosfetCommand, ExampleRunsAndItsPhysicsHolds) {
  const fs::path dir = fresh_dir("example");
  const Outcome o = run_mosfet(dir, "'" + (example / "mosfet.toml").string() + "' --backend cpu -o out");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("converged after"), std::string::npos) << o.err;
  const fs::path h5 = dir / "out/quanta-mosfet.h5", txt = dir / "out/quanta-mosfet.txt";
  ASSERT_TRUE(fs::exists(h5));
  ASSERT_TRUE(fs::exists(txt));
  for (const auto& n : written(dir)) EXPECT_EQ(n.find(".tmp."), std::string::npos) << "left behind: " << n;
  EXPECT_EQ(written(dir).size(), 2u);

  quanta::io::H5File f(h5, quanta::io::H5File::Mode::Read);
  const auto x = f.read_doubles("grid/x"), z = f.read_doubles("grid/z");
  const std::size_t nx = x.size(), nz = z.size();
  ASSERT_EQ(nx, 65u);
  ASSERT_EQ(nz, 65u);
  const double dx = x[1] - x[0], dz = z[1] - z[0];
  EXPECT_NEAR(x.back(), 30.0, 1e-12);
  EXPECT_NEAR(z.back(), 6.0, 1e-12);
  const auto v = f.read_doubles("potential"), n = f.read_doubles("density"), doping = f.read_doubles("device/doping");
  const auto dirichlet = f.read_doubles("device/dirichlet");
  const double vs = f.read_doubles("device/source_potential")[0];
  const auto energies = f.read_doubles("subbands/energies"), rho = f.read_doubles("subbands/populations");
  const auto psi = f.read_doubles("subbands/wavefunctions");
  const auto dims = f.dims("subbands/wavefunctions");
  ASSERT_EQ(dims.size(), 4u);
  const std::size_t ns = dims[1];
  ASSERT_EQ(ns, 6u);
  EXPECT_EQ(f.read_doubles("convergence/converged")[0], 1.0);
  EXPECT_LT(f.read_doubles("convergence/change").back(), 1e-9);

  // Contacts at V_s, gates (both oxide surfaces over the channel, x in [10, 20] nm) at V_s + 0.5 V.
  int gates = 0, gated_columns = 0;
  for (std::size_t i = 0; i < nx; ++i) gated_columns += x[i] > 10.0 - 1e-9 && x[i] < 20.0 + 1e-9;
  for (std::size_t i = 0; i < nx; ++i)
    for (std::size_t j = 0; j < nz; ++j) {
      if (dirichlet[i * nz + j] == 0.0) continue;
      const bool gate = j == 0 || j == nz - 1;
      gates += gate;
      EXPECT_NEAR(v[i * nz + j], gate ? vs + 0.5 : vs, 1e-12) << i << " " << j;
      if (gate) EXPECT_TRUE(x[i] > 10.0 - 1e-9 && x[i] < 20.0 + 1e-9) << x[i];
    }
  EXPECT_EQ(gates, 2 * gated_columns);

  // Neutrality 4.7 nm into the source and into the drain: the column's electrons equal its donors (the
  // documented boundary layer is about 1 nm; 0.1-0.2% remain there).
  for (const double at : {4.7, 30.0 - 4.7}) {
    const std::size_t i = static_cast<std::size_t>(std::lround(at / dx));
    double electrons = 0.0, donors = 0.0;
    for (std::size_t j = 0; j < nz; ++j) {
      electrons += n[i * nz + j] * dz;
      donors += doping[i * nz + j] * dz;
    }
    EXPECT_NEAR(electrons / donors, 1.0, 5e-3) << "x = " << x[i] << " nm";
  }

  // The written density is N = 2 sum_{v,p} rho psi^2 of the written subbands.
  double worst = 0.0;
  for (std::size_t i = 0; i < nx; ++i)
    for (std::size_t j = 0; j < nz; ++j) {
      double s = 0.0;
      for (std::size_t vp = 0; vp < 3 * ns; ++vp) {
        const double p = psi[(vp * nx + i) * nz + j];
        s += 2.0 * rho[vp * nx + i] * p * p;
      }
      worst = std::max(worst, std::fabs(s - n[i * nz + j]) / std::max(1e-6, std::fabs(n[i * nz + j])));
    }
  EXPECT_LT(worst, 1e-10);

  // The populations are Fermi-Dirac with Kane's non-parabolicity at E_F = 0, T = 300 K, evaluated here
  // with F_1 by quadrature and the constants of CODATA 2002 (the seed's Table 8).
  const double me = 9.10938188e-31, hbar = 1.05457168e-34, q = 1.60217653e-19, kB = 1.3806505e-23, pi = 3.141592653589793;
  const double kT = kB * 300.0 / q;
  const double mxy[3] = {std::sqrt(0.98 * 0.19), std::sqrt(0.19 * 0.98), 0.19};
  double fd_worst = 0.0;
  for (int vv = 0; vv < 3; ++vv) {
    const double dos = me * mxy[vv] / (pi * hbar * hbar) * q * 1e-18;  // eV^-1 nm^-2, both spins
    for (std::size_t p = 0; p < ns; ++p)
      for (std::size_t i = 0; i < nx; i += 8) {
        const std::size_t k = (vv * ns + p) * nx + i;
        const double eta = -energies[k] / kT;
        const double expect = dos * kT * (std::log1p(std::exp(eta)) + 2.0 * 0.5 * kT * fermi_dirac_1_quadrature(eta));
        fd_worst = std::max(fd_worst, std::fabs(rho[k] - expect) / expect);
      }
  }
  EXPECT_LT(fd_worst, 1e-8);

  // The Schroedinger equation rebuilt from the written potential: H psi = eps psi for the lowest
  // subband of each valley at the source, mid-channel and the drain (masses of Table 9 in the film,
  // 0.5 m_e and the 3.15 eV barrier in the 1 nm oxides; harmonic averages at the half points).
  const double k2 = hbar * hbar / me / q * 1e18;  // hbar^2 / m_e in eV nm^2
  const double mz[3] = {0.19, 0.19, 0.98};
  double h_worst = 0.0;
  for (int vv = 0; vv < 3; ++vv)
    for (const std::size_t i : {std::size_t{5}, nx / 2, nx - 6}) {
      const double eps = energies[(vv * ns) * nx + i];
      const double* ps = &psi[((vv * ns) * nx + i) * nz];
      auto inv_mass = [&](std::size_t j) { return (z[j] > 1.0 - 1e-9 && z[j] < 5.0 + 1e-9) ? 1.0 / mz[vv] : 1.0 / 0.5; };
      auto barrier = [&](std::size_t j) { return (z[j] > 1.0 - 1e-9 && z[j] < 5.0 + 1e-9) ? 0.0 : 3.15; };
      for (std::size_t j = 1; j + 1 < nz; ++j) {
        const double west = 0.5 * k2 * 0.5 * (inv_mass(j - 1) + inv_mass(j)) / (dz * dz);
        const double east = 0.5 * k2 * 0.5 * (inv_mass(j) + inv_mass(j + 1)) / (dz * dz);
        const double h = (west + east) * ps[j] - west * ps[j - 1] - east * ps[j + 1] + (barrier(j) - v[i * nz + j]) * ps[j];
        h_worst = std::max(h_worst, std::fabs(h - eps * ps[j]));
      }
    }
  EXPECT_LT(h_worst, 1e-8);  // eV nm^-1/2, against |psi| ~ 1 and |H| ~ 100 eV

  // The text summary holds the HDF5 file's lowest subbands and V_s.
  const Summary s = read_summary(txt);
  EXPECT_TRUE(s.converged);
  EXPECT_NEAR(s.source_potential, vs, 1e-9);
  ASSERT_EQ(s.lowest.size(), nx);
  for (std::size_t i = 0; i < nx; ++i)
    for (int vv = 0; vv < 3; ++vv) EXPECT_NEAR(s.lowest[i][1 + vv], energies[(vv * ns) * nx + i], 6e-7);
  fs::remove_all(dir);
}

// The run against examples/mosfet/dg-equilibrium/expected/quanta-mosfet.txt. Tolerances: V_s and the
// subband energies to 2e-6 (V, eV): the file prints 9 and 6 decimals, and two machines differ by the
// order of OpenMP reductions (about 1e-13) and by where Newton-Raphson stops below its 1e-9 V tolerance;
// the Newton history's first changes (1e-1 ... 1e-4 V) to 1e-6 relative, its length exactly.
TEST(MosfetCommand, ExampleMatchesExpected) {
  const fs::path dir = fresh_dir("expected");
  const Outcome o = run_mosfet(dir, "'" + (example / "mosfet.toml").string() + "' --backend cpu -q");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(o.err.empty()) << o.err;  // -q: silent on success
  const Summary got = read_summary(dir / "quanta-mosfet.txt");
  const Summary want = read_summary(example / "expected/quanta-mosfet.txt");
  ASSERT_TRUE(want.converged);
  ASSERT_FALSE(want.lowest.empty());
  EXPECT_NEAR(got.source_potential, want.source_potential, 2e-6);
  ASSERT_EQ(got.changes.size(), want.changes.size());
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(got.changes[k] / want.changes[k], 1.0, 1e-6) << "Newton step " << k;
  ASSERT_EQ(got.lowest.size(), want.lowest.size());
  for (std::size_t i = 0; i < want.lowest.size(); ++i)
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(got.lowest[i][c], want.lowest[i][c], 2e-6) << "row " << i << " column " << c;
  fs::remove_all(dir);
}

// Failing runs exit 1 (never 0, nor the former 2 for non-convergence) with the reason on stderr, and
// write nothing: no outputs, no temporary files.
TEST(MosfetCommand, FailingRunsExitOneAndWriteNothing) {
  const std::string config = slurp(example / "mosfet.toml");
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string t = config;
    const auto at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return t.replace(at, from.size(), to);
  };
  struct Case {
    std::string name, text, args_prefix, expect;
    bool directory = false;
  };
  const std::vector<Case> cases = {
      {"empty", "", "", "the config is empty"},
      {"directory", "", "", "is a directory", true},
      {"missing", "", "", "not found"},
      {"truncated", config.substr(0, config.find("oxide_thickness") + 9), "",
       ":" + std::to_string(std::count(config.begin(), config.begin() + config.find("oxide_thickness"), '\n') + 1) +
           ": TOML syntax"},
      {"no-device", "[grid]\nnx = 33\nnz = 33\n", "", "device.temperature: found nothing"},
      {"oxide", edit("oxide_thickness = 1.0", "oxide_thickness = 1e-300"), "", "expected a thickness in nm in [0.3, 50]"},
      {"tolerance", edit("newton_tolerance = 1e-9", "newton_tolerance = 1e18"), "", "in [1e-13, 0.001]"},
      {"gate", edit("gate_voltage = 0.5", "gate_voltage = 1e6"), "", "bias.gate_voltage: found the number 1e+06, expected a voltage in V in [-3, 3]"},
      {"newton", edit("newton_tolerance = 1e-9", "newton_tolerance = 1e-9\nmax_newton = 2"), "",
       "Newton-Raphson did not converge: it reached max_newton = 2 iterations"},
      {"memory", edit("nx = 65\nnz = 65", "nx = 1025\nnz = 513"), "ulimit -v 2097152;",
       "the Schroedinger-Poisson block on a 1025 x 513 grid (cpu backend) needs"},
  };
  for (const Case& c : cases) {
    if (c.name == std::string("memory") && quanta::test::kAddressSanitizer) continue;  // no ulimit -v under ASan
    const fs::path dir = fresh_dir(c.name);
    const fs::path input = dir / "input.toml";
    if (c.directory) fs::create_directories(input);
    else if (c.name != "missing") std::ofstream(input) << c.text;
    const Outcome o = run_mosfet(dir, "input.toml --backend cpu", c.args_prefix);
    EXPECT_EQ(o.code, 1) << c.name << ": " << o.err;
    EXPECT_NE(o.err.find(c.expect), std::string::npos) << c.name << ": " << o.err;
    if (c.name != "newton" && c.name != "memory")  // the config's own faults name it
      EXPECT_NE(o.err.find("input.toml"), std::string::npos) << c.name << ": " << o.err;
    EXPECT_TRUE(written(dir).empty()) << c.name << ": wrote " << (written(dir).empty() ? "" : written(dir)[0]);
    fs::remove_all(dir);
  }
}

// A transport run on a coarse grid writes its outputs, continues with --resume to a later end time, and its
// sweep refuses what it cannot do: a [sweep] table given to a plain run, a sweep without a steady-state
// criterion, and points that do not settle (marked in the table, exit 1); a sweep resumed from its checkpoint
// runs only the points after it.
TEST(MosfetCommand, TransportRunResumeAndSweep) {
  std::string config = small_transport_config();
  auto set = [&](const std::string& from, const std::string& to) { replace_once(config, from, to); };
  const fs::path dir = fresh_dir("transport");
  std::ofstream(dir / "input.toml") << config;
  // --resume with nothing to resume from: refused before anything is created.
  Outcome o = run_mosfet(dir, "input.toml --backend cpu -o out --resume");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("--resume: no checkpoint"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  o = run_mosfet(dir, "input.toml --backend cpu -o out");
  ASSERT_EQ(o.code, 0) << o.err;
  for (const char* f : {"quanta-mosfet.h5", "quanta-mosfet-scalars.dat", "quanta-mosfet-checkpoint.h5"})
    EXPECT_TRUE(fs::exists(dir / "out" / f)) << f;
  const auto lines = [&] {
    std::ifstream in(dir / "out/quanta-mosfet-scalars.dat");
    int n = 0;
    for (std::string line; std::getline(in, line);) n += !line.empty() && line[0] != '#';
    return n;
  };
  const int first = lines();
  EXPECT_GT(first, 3);
  {
    const quanta::io::H5File f(dir / "out/quanta-mosfet.h5", quanta::io::H5File::Mode::Read);
    EXPECT_EQ(f.read_doubles("profiles/time").size(), 3u);  // t = 0, 0.002, 0.004 ps
    EXPECT_NEAR(f.read_doubles("transport/time").at(0), 4e-15, 1e-27);
    EXPECT_GT(f.read_doubles("transport/drain_current").at(0), 0.0);  // electrons from source to drain
  }
  set("end_time = 0.004", "end_time = 0.006");
  std::ofstream(dir / "input.toml") << config;
  o = run_mosfet(dir, "input.toml --backend cpu -o out --resume");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("resumed at step"), std::string::npos) << o.err;
  EXPECT_GT(lines(), first);  // the history goes on from the checkpoint's
  {
    const quanta::io::H5File f(dir / "out/quanta-mosfet.h5", quanta::io::H5File::Mode::Read);
    EXPECT_EQ(f.read_doubles("profiles/time").size(), 4u);
  }
  // The sweep's refusals and its unsettled points.
  const std::string with_sweep = config + "\n[sweep]\ndrain_voltages = [0.05, 0.1]\n";
  std::ofstream(dir / "input.toml") << with_sweep;
  o = run_mosfet(dir, "sweep input.toml --backend cpu -o sweep");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("transport.steady_tolerance"), std::string::npos) << o.err;
  std::string settled = with_sweep;
  settled.replace(settled.find("cfl = 0.6"), 9, "cfl = 0.6\nsteady_tolerance = 1e-6");
  std::ofstream(dir / "input.toml") << settled;
  o = run_mosfet(dir, "input.toml --backend cpu -o plain");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("holds a [sweep] table, which `quanta mosfet sweep` runs"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir / "plain") || fs::exists(dir / "sweep"));
  o = run_mosfet(dir, "sweep input.toml --backend cpu -o sweep");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.err.find("2 of 2 bias points did not reach steady state"), std::string::npos) << o.err;
  const std::string table = slurp(dir / "sweep/quanta-mosfet-iv.dat");
  EXPECT_NE(table.find("id_vds 0.500000 0.050000"), std::string::npos) << table;
  EXPECT_NE(table.find("id_vds 0.500000 0.100000"), std::string::npos) << table;
  EXPECT_NE(table.find(" no\n"), std::string::npos) << table;
  EXPECT_TRUE(fs::exists(dir / "sweep/quanta-mosfet-sweep.h5"));
  // Resumed with a third voltage: only that point runs, from the second's checkpointed state, and gives what an
  // uninterrupted three-point sweep gives (the resumed block restarts its eigenpairs: its tolerance, 1e-9 V,
  // bounds the difference; 1e-6 of I_D asserted).
  std::string longer = settled;
  longer.replace(longer.find("drain_voltages = [0.05, 0.1]"), 28, "drain_voltages = [0.05, 0.1, 0.15]");
  std::ofstream(dir / "input.toml") << longer;
  o = run_mosfet(dir, "sweep input.toml --backend cpu -o sweep --resume");
  EXPECT_EQ(o.code, 1) << o.err;  // the points still do not settle within end_time
  EXPECT_NE(o.err.find("sweep resumed after 2 completed points"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("V_DS = 0.100 V: I_D"), std::string::npos) << "a completed point ran again: " << o.err;
  const std::string resumed = slurp(dir / "sweep/quanta-mosfet-iv.dat");
  o = run_mosfet(dir, "sweep input.toml --backend cpu -o whole");
  EXPECT_EQ(o.code, 1) << o.err;
  const std::string whole = slurp(dir / "whole/quanta-mosfet-iv.dat");
  const auto current = [](const std::string& t, const std::string& point) {
    const auto at = t.find(point);
    return at == std::string::npos ? -1.0 : std::stod(t.substr(at + point.size()));
  };
  for (const char* point : {"id_vds 0.500000 0.050000 ", "id_vds 0.500000 0.100000 ", "id_vds 0.500000 0.150000 "}) {
    const double a = current(resumed, point), b = current(whole, point);
    ASSERT_GT(b, 0.0) << point << whole;
    EXPECT_NEAR(a, b, 1e-6 * b) << point;
  }
  // A checkpoint of other points is refused by name.
  longer.replace(longer.find("[0.05, 0.1, 0.15]"), 17, "[0.05, 0.2, 0.15]");
  std::ofstream(dir / "input.toml") << longer;
  o = run_mosfet(dir, "sweep input.toml --backend cpu -o sweep --resume");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("is not point 2 of the config's [sweep]"), std::string::npos) << o.err;
  fs::remove_all(dir);
}

// With [transport.roughness] the run writes the potential shifts and form factors, and a run resumed from its
// checkpoint (which keeps the form factors of the stage the next step starts from) ends where the uninterrupted
// one does, to the block's tolerance (the resumed block starts its eigenpairs afresh: test_mosfet_simulation).
TEST(MosfetCommand, RoughnessRunWritesItsStateAndResumes) {
  std::string config = small_transport_config();
  auto set = [&](const std::string& from, const std::string& to) { replace_once(config, from, to); };
  config += "\n[transport.roughness]\n";
  const fs::path dir = fresh_dir("roughness");
  std::ofstream(dir / "input.toml") << config;
  Outcome o = run_mosfet(dir, "input.toml --backend cpu -o whole");
  ASSERT_EQ(o.code, 0) << o.err;
  const quanta::io::H5File whole(dir / "whole/quanta-mosfet.h5", quanta::io::H5File::Mode::Read);
  EXPECT_EQ(whole.dims("roughness/potential_shifts"), (std::vector<std::size_t>{2, 9, 17}));
  EXPECT_EQ(whole.dims("roughness/form_factors"), (std::vector<std::size_t>{9, 3, 2}));
  double largest = 0;
  for (double x : whole.read_doubles("roughness/form_factors")) largest = std::max(largest, x);
  EXPECT_GT(largest, 0.0);
  set("end_time = 0.004", "end_time = 0.002");
  std::ofstream(dir / "input.toml") << config;
  ASSERT_EQ(run_mosfet(dir, "input.toml --backend cpu -o parts").code, 0);
  set("end_time = 0.002", "end_time = 0.004");
  std::ofstream(dir / "input.toml") << config;
  o = run_mosfet(dir, "input.toml --backend cpu -o parts --resume");
  ASSERT_EQ(o.code, 0) << o.err;
  const quanta::io::H5File parts(dir / "parts/quanta-mosfet.h5", quanta::io::H5File::Mode::Read);
  const double i_whole = whole.read_doubles("transport/drain_current").at(0);
  EXPECT_NEAR(parts.read_doubles("transport/drain_current").at(0), i_whole, 1e-9 * i_whole);
  const auto fa = parts.read_doubles("roughness/form_factors"), fb = whole.read_doubles("roughness/form_factors");
  ASSERT_EQ(fa.size(), fb.size());
  for (std::size_t k = 0; k < fa.size(); ++k) EXPECT_NEAR(fa[k], fb[k], 1e-9 * largest);
  // A checkpoint of a run without roughness is refused by a run with it, naming the setting.
  config.erase(config.find("[transport.roughness]"));
  std::ofstream(dir / "input.toml") << config;
  ASSERT_EQ(run_mosfet(dir, "input.toml --backend cpu -o plain").code, 0);
  config += "[transport.roughness]\n";
  set("end_time = 0.004", "end_time = 0.006");
  std::ofstream(dir / "input.toml") << config;
  o = run_mosfet(dir, "input.toml --backend cpu -o plain --resume");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("run/roughness_length"), std::string::npos) << o.err;
  fs::remove_all(dir);
}

// docs/mosfet.md shows the options exactly as `quanta mosfet --help` prints them.
TEST(MosfetCommand, DocsShowTheHelpText) {
  const fs::path dir = fresh_dir("help");
  const Outcome o = run_mosfet(dir, "--help");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string docs = slurp(fs::path(QUANTA_SOURCE_DIR) / "docs/mosfet.md");
  std::istringstream lines(o.err);
  std::string line;
  int checked = 0;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(' ') == std::string::npos) continue;
    // CLI11 prints the program as it was invoked: the docs show it as `quanta`.
    const auto binary = line.find(QUANTA_BINARY);
    if (binary != std::string::npos) line.replace(binary, std::string(QUANTA_BINARY).size(), "quanta");
    // Option lines are laid out differently by CLI11 versions ("TEXT=auto" or "TEXT [auto]"): their names
    // must be in the docs; every other line (usage, descriptions) must be there as printed.
    const std::string trimmed = line.substr(line.find_first_not_of(' '));
    if (trimmed[0] == '-') {
      std::istringstream names(trimmed.substr(0, trimmed.find(' ')));
      for (std::string name; std::getline(names, name, ',');)
        EXPECT_NE(docs.find(name), std::string::npos) << "docs/mosfet.md lacks the option " << name;
    } else {
      EXPECT_NE(docs.find(trimmed), std::string::npos) << "docs/mosfet.md lacks the help line:\n" << line;
    }
    ++checked;
  }
  EXPECT_GE(checked, 5);
  fs::remove_all(dir);
}
