// Cross sections from a line list: the per-line physics (include/quanta/linelist/xsec.hpp), the readers of
// ExoMol's .states, .trans and .broad files and of ExoCross's input, and the .xsec/.stick writers; the grid work is
// kernels/xsec.hpp.
#include "quanta/linelist/xsec.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "../kernels/xsec.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/io/fortran_format.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"

namespace quanta::linelist {

namespace {

// ExoCross's constants (kernels/xsec.hpp).
constexpr double kLightCm = kernels::kXsecLightCm;
constexpr double kC2 = kernels::kXsecC2;
constexpr double kBoltzmannCgs = kernels::kXsecBoltzmann;
constexpr double kAvogadro = kernels::kXsecAvogadro;

int j_index(double j) { return j > 1e6 ? 1000000 : static_cast<int>(std::llround(j)); }  // J above 1e6 is refused when read

}  // namespace

double BroadeningTable::gamma(double j) const {
  if (gamma_by_j.empty()) return default_gamma;
  const int i = std::min(j_index(j), static_cast<int>(gamma_by_j.size()) - 1);  // above the largest listed J: its values
  return i >= 0 && gamma_by_j[i] >= 0 ? gamma_by_j[i] : default_gamma;
}

double BroadeningTable::n(double j) const {
  if (gamma_by_j.empty()) return default_n;
  const int i = std::min(j_index(j), static_cast<int>(gamma_by_j.size()) - 1);
  return i >= 0 && gamma_by_j[i] >= 0 ? n_by_j[i] : default_n;
}

BroadeningTable read_broadening(const std::filesystem::path& file, double default_gamma, double default_n) {
  BroadeningTable t;
  t.file = file.string();
  t.default_gamma = default_gamma;
  t.default_n = default_n;
  std::ifstream in(file);
  if (!in) throw InputError(file.string(), "cannot be read (an ExoMol .broad file was expected)");
  std::string line;
  long number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::istringstream ls(line);
    std::string code;
    if (!(ls >> code) || code[0] == '#') continue;
    const std::string where = file.string() + ":" + std::to_string(number);
    if (code != "a0")
      throw InputError(where, "broadening code '" + code + "': only a0 (gamma and n by the lower state's J) is implemented");
    double gamma, n, j;
    if (!(ls >> gamma >> n >> j) || !(gamma >= 0 && gamma < 1e6) || !std::isfinite(n) || !(j >= 0 && j <= 10000))
      throw InputError(where, "expected 'a0 gamma n J' with 0 <= gamma < 1e6 (cm^-1/bar) and 0 <= J <= 10000");
    const int i = static_cast<int>(j);  // ExoCross stores int(J)
    if (i >= static_cast<int>(t.gamma_by_j.size())) {
      t.gamma_by_j.resize(i + 1, -1.0);
      t.n_by_j.resize(i + 1, 0.0);
    }
    t.gamma_by_j[i] = gamma;
    t.n_by_j[i] = n;
  }
  if (t.gamma_by_j.empty()) throw InputError(file.string(), "holds no a0 lines");
  return t;
}

StateTable read_exomol_states(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string(), "cannot be read (an ExoMol .states file was expected)");
  StateTable s;
  std::string line;
  long number = 0;
  long long states = 0;
  while (std::getline(in, line)) {
    ++number;
    std::istringstream ls(line);
    long long id;
    double e, g, j;
    if (!(ls >> id)) continue;  // a blank line
    const std::string where = file.string() + ":" + std::to_string(number);
    if (!(ls >> e >> g >> j) || !std::isfinite(e) || !(g >= 0 && g < 1e15) || !(j >= 0 && j <= 1e6))
      throw InputError(where, "expected 'ID E g_tot J ...' with finite E, 0 <= g_tot < 1e15 and 0 <= J <= 1e6");
    // The table is indexed by ID: IDs from 1, each once, gaps allowed (TROVE numbers its states with gaps). ExoMol
    // files list the states by ID, so an ID far beyond the states read so far is a damaged file, not a sparse one:
    // it is refused before the table is sized by it.
    ++states;
    const long long allowed = 8 * states + (1LL << 20);
    if (id < 1 || id > allowed)
      throw InputError(where, "state ID " + std::to_string(id) + " as state " + std::to_string(states) +
                                  " of the file: expected IDs from 1, in order, with few gaps (at most " + std::to_string(allowed) + " here)");
    if (id > static_cast<long long>(s.energy.size())) {
      s.energy.resize(id, 0.0);
      s.g.resize(id, -1.0);  // g < 0 marks an absent ID
      s.j.resize(id, 0.0);
    }
    if (s.g[id - 1] >= 0) throw InputError(where, "state ID " + std::to_string(id) + " appears twice");
    s.energy[id - 1] = e;
    s.g[id - 1] = g;
    s.j[id - 1] = j;
  }
  if (s.energy.empty()) throw InputError(file.string(), "holds no states");
  return s;
}

double partition_function(const StateTable& states, double temperature) {
  double q = 0;
  for (std::size_t i = 0; i < states.energy.size(); ++i)
    if (states.g[i] >= 0) q += states.g[i] * std::exp(-kC2 * states.energy[i] / temperature);
  return q;
}

double partition_function_from_file(const std::filesystem::path& file, double temperature) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string(), "cannot be read (a partition-function table 'T Q' was expected)");
  std::vector<std::pair<double, double>> rows;
  std::string line;
  long number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::istringstream ls(line);
    double t, q;
    if (!(ls >> t)) continue;
    if (!(ls >> q) || !(t >= 0) || !(q > 0)) throw InputError(file.string() + ":" + std::to_string(number), "expected 'T Q' with T >= 0 and Q > 0");
    if (!rows.empty() && !(t > rows.back().first))
      throw InputError(file.string() + ":" + std::to_string(number), "temperatures must increase down the file");
    rows.emplace_back(t, q);
  }
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (temperature >= rows[i - 1].first && temperature <= rows[i].first) {
      const auto [t0, q0] = rows[i - 1];
      const auto [t1, q1] = rows[i];
      return q0 + (q1 - q0) * (temperature - t0) / (t1 - t0);
    }
  throw InputError(file.string(), "no two rows bracket T = " + std::to_string(temperature) + " K");
}

double line_intensity(double nu, double a, double g_upper, double e_lower, double temperature, double q, double abundance) {
  return kernels::line_intensity(nu, a, g_upper, e_lower, temperature, q, abundance);
}

void LineBatch::clear() {
  nu.clear(), a.clear(), g_upper.clear(), e_lower.clear(), j_lower.clear();
}

void LineBatch::push(double nu_, double a_, double g, double e, double j) {
  nu.push_back(nu_), a.push_back(a_), g_upper.push_back(g), e_lower.push_back(e), j_lower.push_back(j);
}

XsecAccumulator::XsecAccumulator(Backend backend, const XsecSpec& spec) : spec_(spec) {
  if (!(spec.points >= 2 && spec.nu_max > spec.nu_min)) throw Error("cross sections: a grid of at least 2 points with nu_max > nu_min is needed");
  if (spec.conditions.empty()) throw Error("cross sections: no temperature given");
  for (const auto& c : spec.conditions)
    if (!(c.temperature > 0) || !(c.pressure >= 0) || !(c.partition_function > 0))
      throw Error("cross sections: each condition needs T > 0, P >= 0 and Q(T) > 0");
  if (!(spec.mass > 0)) throw Error("cross sections: the molecule's mass must be positive");
  // One grid per condition on the host (the result), plus on the CPU a private grid per thread while lines are added
  // when those fit 1 GiB (kernels/cpu/xsec_cpu.cpp): refused with the numbers before any line is read when the host
  // cannot hold them.
  const std::size_t grid_bytes = static_cast<std::size_t>(spec.points) * sizeof(double);
  const std::size_t threads = static_cast<std::size_t>(max_threads());
  const bool private_grids = backend == Backend::Cpu && threads > 1 && grid_bytes <= (std::size_t(1) << 30) / threads;
  const std::size_t copies = spec.conditions.size() + (private_grids ? threads : 0);
  require_host_memory(grid_bytes > SIZE_MAX / copies ? SIZE_MAX : grid_bytes * copies,
                      "cross sections on " + std::to_string(spec.points) + " grid points at " + std::to_string(spec.conditions.size()) + " conditions");
  const bool fixed = spec.profile == XsecProfile::Gauss || (spec.broadeners.empty() && spec.profile != XsecProfile::Doppler);
  if (fixed && !(spec.hwhm > 0)) throw Error("cross sections: the profile needs a positive HWHM or broadeners");
  kernels::XsecGrid g{spec.nu_min, (spec.nu_max - spec.nu_min) / static_cast<double>(spec.points - 1), spec.points};
  kernels::XsecParams p;
  p.shape = spec.profile == XsecProfile::Lorentz ? kernels::LineShape::Lorentz
            : spec.profile == XsecProfile::Voigt ? kernels::LineShape::Voigt
                                                 : kernels::LineShape::Gauss;
  p.binning = spec.integrated ? kernels::Binning::Integrated : kernels::Binning::Sampled;
  p.cutoff = spec.cutoff;
  p.renormalize = spec.renormalize;
  for (std::size_t c = 0; c < spec.conditions.size(); ++c) engines_.push_back(std::make_unique<kernels::XsecEngine>(backend, g, p));
}

XsecAccumulator::~XsecAccumulator() = default;

namespace {

// The broadeners' tables as the kernels read them (host pointers into `spec`; the CUDA engine copies them over).
std::vector<kernels::XsecBroadener> kernel_broadeners(const XsecSpec& spec) {
  std::vector<kernels::XsecBroadener> br;
  for (const auto& b : spec.broadeners) {
    kernels::XsecBroadener k;
    k.ratio = b.ratio, k.t0 = b.t0, k.p0 = b.p0, k.default_gamma = b.table.default_gamma, k.default_n = b.table.default_n;
    k.jcount = static_cast<int>(b.table.gamma_by_j.size());
    k.gamma_by_j = b.table.gamma_by_j.data(), k.n_by_j = b.table.n_by_j.data();
    br.push_back(k);
  }
  return br;
}

// One condition's per-line physics (kernels::line_parameters): which lines count, S(T) and the widths.
kernels::XsecPhysics physics_of(const XsecSpec& spec, const XsecCondition& cond, const std::vector<kernels::XsecBroadener>& br) {
  const bool lorentz = spec.profile == XsecProfile::Lorentz || spec.profile == XsecProfile::Voigt;
  kernels::XsecPhysics ph;
  ph.temperature = cond.temperature, ph.partition_function = cond.partition_function, ph.pressure = cond.pressure;
  ph.abundance = spec.abundance, ph.threshold = spec.threshold, ph.nu_min = spec.nu_min, ph.nu_max = spec.nu_max;
  if (spec.profile == XsecProfile::Doppler || spec.profile == XsecProfile::Voigt)
    ph.doppler_per_nu = std::sqrt(2.0 * std::log(2.0) * kBoltzmannCgs * kAvogadro * cond.temperature / spec.mass) / kLightCm;
  if (spec.profile == XsecProfile::Gauss) ph.fixed_alpha = spec.hwhm;
  if (lorentz && br.empty()) ph.fixed_gamma = spec.hwhm;
  if (lorentz) ph.nbroadeners = static_cast<int>(br.size()), ph.broadeners = br.data();
  return ph;
}

}  // namespace

void XsecAccumulator::add(const LineBatch& lines) {
  const std::size_t n = lines.size();
  lines_ += n;
  if (n == 0) return;
  const auto br = kernel_broadeners(spec_);
  const kernels::XsecRawLines raw{n, lines.nu.data(), lines.a.data(), lines.g_upper.data(), lines.e_lower.data(), lines.j_lower.data()};
  for (std::size_t c = 0; c < spec_.conditions.size(); ++c) {
    const std::size_t used = engines_[c]->add(raw, physics_of(spec_, spec_.conditions[c], br));
    if (c == 0) used_ += used;
  }
}

std::vector<double> XsecAccumulator::wavenumbers() const {
  std::vector<double> w(spec_.points);
  const double step = (spec_.nu_max - spec_.nu_min) / static_cast<double>(spec_.points - 1);
  for (long long i = 0; i < spec_.points; ++i) w[i] = spec_.nu_min + i * step;
  return w;
}

std::vector<std::vector<double>> XsecAccumulator::results() const {
  std::vector<std::vector<double>> out;
  for (const auto& e : engines_) out.push_back(e->result());
  return out;
}

std::size_t read_exomol_transitions(const std::filesystem::path& file, const StateTable& states, const std::function<void(const LineBatch&)>& sink,
                                    std::size_t batch) {
  std::FILE* f = std::fopen(file.string().c_str(), "r");
  if (!f) throw InputError(file.string(), "cannot be read (an ExoMol .trans file was expected)");
  struct Closer {
    std::FILE* f;
    ~Closer() { std::fclose(f); }
  } closer{f};
  LineBatch b;
  char buf[512];
  long long number = 0;
  std::size_t total = 0;
  const long long nstates = static_cast<long long>(states.energy.size());
  while (std::fgets(buf, sizeof buf, f)) {
    ++number;
    long long up, lo;
    double a;
    const int got = std::sscanf(buf, "%lld %lld %lf", &up, &lo, &a);
    if (got <= 0) continue;  // a blank line
    if (got != 3 || up < 1 || lo < 1 || up > nstates || lo > nstates || !(a >= 0) || states.g[up - 1] < 0 || states.g[lo - 1] < 0)
      throw InputError(file.string() + ":" + std::to_string(number),
                       "expected 'upper_ID lower_ID A [nu]' with IDs of the .states file and A >= 0");
    b.push(states.energy[up - 1] - states.energy[lo - 1], a, states.g[up - 1], states.energy[lo - 1], states.j[lo - 1]);
    if (b.size() == batch) {
      sink(b);
      total += b.size();
      b.clear();
    }
  }
  if (std::ferror(f)) throw InputError(file.string(), "read error");
  if (b.size()) sink(b);
  return total + b.size();
}

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// ExoCross's input: one keyword per line, case-insensitive, text in ( ) a comment.
std::vector<std::string> words_of(std::string line) {
  for (std::size_t open; (open = line.find('(')) != std::string::npos;) {
    const std::size_t close = line.find(')', open);
    line.erase(open, close == std::string::npos ? std::string::npos : close - open + 1);
  }
  std::istringstream ls(line);
  std::vector<std::string> w;
  for (std::string x; ls >> x;) w.push_back(x);
  return w;
}

double number_of(const std::string& text, const std::string& where, const std::string& what) {
  try {
    std::size_t used = 0;
    std::string t = text;
    for (auto& c : t)
      if (c == 'd' || c == 'D') c = 'e';  // Fortran's 1.0d-3
    const double v = std::stod(t, &used);
    if (used == t.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw InputError(where, what + ": '" + text + "' is not a number");
}

}  // namespace

ExoCrossInput read_exocross_input(const std::filesystem::path& file, bool need_files) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string(), "cannot be read (an ExoCross input was expected)");
  ExoCrossInput x;
  x.file = file;
  x.output = file.stem().string();
  XsecSpec& s = x.spec;
  s.points = 1001;
  bool have_range = false, have_profile = false, have_mass = false;
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const auto dir = file.parent_path();
  auto path_of = [&](const std::string& name) { return std::filesystem::path(name).is_absolute() ? std::filesystem::path(name) : dir / name; };
  for (std::size_t li = 0; li < lines.size(); ++li) {
    const std::string where = file.string() + ":" + std::to_string(li + 1);
    const auto w = words_of(lines[li]);
    if (w.empty()) continue;
    const std::string key = lower(w[0]);
    auto need = [&](std::size_t n, const std::string& form) {
      if (w.size() < n + 1) throw InputError(where, "'" + w[0] + "': expected " + form);
    };
    auto num = [&](std::size_t i) { return number_of(w[i], where, w[0]); };
    if (key == "temperature") {
      need(1, "one temperature or more (K)");
      for (std::size_t i = 1; i < w.size(); ++i) {
        if (lower(w[i]) == "ref") throw InputError(where, "'Temperature ... ref': the reference temperature of ExoCross's SPECTRA/EXP options is not implemented");
        x.temperatures.push_back(num(i));
      }
    } else if (key == "range") {
      need(2, "'Range nu1 nu2' (cm-1)");
      s.nu_min = num(1), s.nu_max = num(2);
      have_range = true;
    } else if (key == "npoints") {
      need(1, "'Npoints N'");
      const double v = num(1);
      if (!(v >= 2 && v <= 1e12) || v != std::floor(v)) throw InputError(where, "Npoints: expected an integer from 2 to 1e12");
      s.points = static_cast<long long>(v);
      if (s.points % 2 == 0) {
        x.notes.push_back(where + ": Npoints " + std::to_string(s.points) + " is even: " + std::to_string(s.points + 1) +
                          " points are used, as ExoCross does");
        ++s.points;
      }
    } else if (key == "absorption") {
    } else if (key == "emission") {
      throw InputError(where, "'emission' is not implemented (absorption only)");
    } else if (key == "mass") {
      need(1, "'mass m' (Da)");
      s.mass = num(1);
      have_mass = true;
    } else if (key == "doppler" || key == "doppl" || key == "dopp0" || key == "gaussian" || key == "gauss" || key == "gaus0") {
      const bool sampling_word = w.size() > 1 && lower(w[1]) == "sampling";
      // As ExoCross: `sampling` switches only after the exact words Doppler and Gaussian.
      const bool sampled = key == "dopp0" || key == "gaus0" || (sampling_word && (key == "doppler" || key == "gaussian"));
      if (sampling_word && !sampled)
        x.notes.push_back(where + ": '" + w[0] + " sampling' stays bin-averaged, as in ExoCross (only 'Doppler sampling' and 'Gaussian sampling' sample)");
      s.profile = key.rfind("dop", 0) == 0 ? XsecProfile::Doppler : XsecProfile::Gauss;
      s.integrated = !sampled;
      have_profile = true;
    } else if (key == "lorentzian" || key == "lorentz" || key == "loren") {
      if (w.size() > 1 && lower(w[1]) == "binning")
        x.notes.push_back(where + ": 'Lorentzian binning' samples the profile, as in ExoCross (its bin-averaged Lorentzian is 'Lorentz0')");
      s.profile = XsecProfile::Lorentz, s.integrated = false, s.renormalize = false;
      have_profile = true;
    } else if (key == "lorentz0" || key == "lorentzian0") {
      s.profile = XsecProfile::Lorentz, s.integrated = true, s.renormalize = true;
      have_profile = true;
    } else if (key == "voigt") {
      if (w.size() > 1) throw InputError(where, "'Voigt " + w[1] + "': ExoCross's quadrature Voigt variants are not implemented (plain 'Voigt' is)");
      s.profile = XsecProfile::Voigt, s.integrated = false;
      have_profile = true;
    } else if (key == "stick") {
      x.stick = true;
      have_profile = true;
    } else if (key == "hwhm" || key == "halfwidth") {
      need(1, "'HWHM h' (cm-1)");
      s.hwhm = num(1);
    } else if (key == "cutoff" || key == "line-cutoff" || key == "offset") {
      need(1, "'cutoff X' (cm-1)");
      if (w.size() > 2 && lower(w[2]) == "hwhm") throw InputError(where, "'cutoff X HWHM' (a cut-off in units of each line's width) is not implemented; give it in cm-1");
      s.cutoff = num(1);
    } else if (key == "pressure") {
      need(1, "one pressure or more (bar)");
      for (std::size_t i = 1; i < w.size(); ++i) x.pressures.push_back(num(i));
    } else if (key == "species" || key == "broadener" || key == "broadeners") {
      for (++li; li < lines.size(); ++li) {
        const std::string at = file.string() + ":" + std::to_string(li + 1);
        const auto v = words_of(lines[li]);
        if (v.empty()) continue;
        if (lower(v[0]) == "end") break;
        Broadener b;
        b.name = v[0];
        double gamma = 0.05, n = 0.5;
        std::string broad;
        for (std::size_t i = 1; i < v.size(); i += 2) {
          const std::string k = lower(v[i]);
          if (i + 1 >= v.size()) throw InputError(at, "species " + b.name + ": '" + v[i] + "' has no value");
          if (k == "file") {
            broad = v[i + 1];
            continue;
          }
          const double val = number_of(v[i + 1], at, "species " + b.name + " " + v[i]);
          if (k == "gamma") gamma = val;
          else if (k == "n") n = val;
          else if (k == "t0") b.t0 = val;
          else if (k == "p0") b.p0 = val;
          else if (k == "ratio") b.ratio = val;
          else if (k == "delta") {
            if (val != 0) throw InputError(at, "species " + b.name + ": a pressure shift (delta) is not implemented");
          } else
            throw InputError(at, "species " + b.name + ": '" + v[i] + "' is not one of gamma, n, t0, p0, ratio, file, delta");
        }
        if (!(b.t0 > 0) || !(b.p0 > 0) || !(b.ratio >= 0)) throw InputError(at, "species " + b.name + ": expected t0 > 0, p0 > 0 and ratio >= 0");
        b.table = broad.empty() ? BroadeningTable{} : read_broadening(path_of(broad), gamma, n);
        b.table.default_gamma = gamma, b.table.default_n = n;
        s.broadeners.push_back(std::move(b));
        if (s.broadeners.size() > 10) throw InputError(at, "more than 10 species (ExoCross's limit)");
      }
      if (li >= lines.size()) throw InputError(file.string(), "the species block has no 'end'");
    } else if (key == "threshold") {
      need(1, "'threshold S' (cm/molecule)");
      s.threshold = num(1);
    } else if (key == "pf") {
      need(1, "'PF Q'");
      x.pf = num(1);
      if (!(x.pf > 0)) throw InputError(where, "PF: expected Q > 0");
    } else if (key == "pffile") {
      need(1, "'pffile FILE'");
      x.pffile = path_of(w[1]);
    } else if (key == "abundance") {
      need(1, "'abundance a'");
      s.abundance = num(1);
    } else if (key == "nprocs" || key == "ncache") {
      need(1, "'" + w[0] + " n'");  // ExoCross's thread count and cache size: quanta's are --threads and its batches
    } else if (key == "output") {
      need(1, "'output NAME'");
      x.output = w[1];
    } else if (key == "states") {
      need(1, "'States FILE'");
      x.states = path_of(w[1]);
    } else if (key == "transitions") {
      if (w.size() > 1) x.transitions.push_back(path_of(w[1]));
      else {
        for (++li; li < lines.size(); ++li) {
          const auto v = words_of(lines[li]);
          if (v.empty()) continue;
          if (lower(v[0]) == "end") break;
          x.transitions.push_back(path_of(v[0]));
        }
        if (li >= lines.size()) throw InputError(file.string(), "the Transitions block has no 'end'");
      }
    } else {
      throw InputError(where, "keyword '" + w[0] + "' is not implemented (docs/linelist.md lists the ExoCross keywords quanta reads)");
    }
  }
  if (x.temperatures.empty()) x.temperatures.push_back(298.0);  // ExoCross's default
  if (x.pressures.empty()) x.pressures.push_back(1.0);
  if (!have_range) throw InputError(file.string(), "no 'Range nu1 nu2'");
  if (!(s.nu_max > s.nu_min)) throw InputError(file.string(), "Range: expected nu1 < nu2");
  if (!have_profile) s.profile = XsecProfile::Doppler, s.integrated = true;  // ExoCross's default
  if ((s.profile == XsecProfile::Doppler || s.profile == XsecProfile::Voigt) && !have_mass && !x.stick)
    x.notes.push_back(file.string() + ": no 'mass': ExoCross's default of 1 Da is used for the Doppler widths");
  if (!s.broadeners.empty() && s.broadeners[0].table.default_gamma != 0 && (s.profile == XsecProfile::Voigt || s.profile == XsecProfile::Lorentz))
    x.notes.push_back(file.string() + ": ExoCross since 2024 also adds the first species' gamma (" + std::to_string(s.broadeners[0].table.default_gamma) +
                      " cm-1) unscaled to every line's Lorentz width; quanta does not (docs/linelist.md)");
  if (need_files && x.states.empty()) throw InputError(file.string(), "no 'States FILE'");
  if (need_files && x.transitions.empty()) throw InputError(file.string(), "no 'Transitions FILE'");
  return x;
}

void set_conditions(ExoCrossInput& in, const StateTable* states) {
  in.spec.conditions.clear();
  for (const double t : in.temperatures) {
    if (!(t > 0)) throw InputError(in.file.string(), "Temperature " + std::to_string(t) + ": expected T > 0");
    const double q = in.pf > 0 ? in.pf : !in.pffile.empty() ? partition_function_from_file(in.pffile, t) : partition_function(*states, t);
    for (const double p : in.pressures) {
      if (!(p >= 0)) throw InputError(in.file.string(), "pressure " + std::to_string(p) + ": expected P >= 0");
      in.spec.conditions.push_back({t, p, q});
    }
  }
}

namespace {

// Fortran's ESw.dE3 (a three-digit exponent always; core's io::fortran_ES writes ESw.d): right-justified in w.
void put_es_e3(std::string& out, double v, int width, int digits) {
  constexpr int edigits = 3;
  char m[64];
  std::snprintf(m, sizeof m, "%.*E", digits, v);
  char* e = std::strchr(m, 'E');
  const int ex = std::atoi(e + 1);
  *e = 0;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%sE%c%0*d", m, ex < 0 ? '-' : '+', edigits, std::abs(ex));
  const int len = static_cast<int>(std::strlen(buf));
  out.append(static_cast<std::size_t>(std::max(0, width - len)), ' ');
  out.append(buf);
}

}  // namespace

std::string xsec_file_name(const ExoCrossInput& in, std::size_t c, const std::string& ext) {
  if (in.spec.conditions.size() == 1) return in.output + ext;
  char buf[128];
  std::snprintf(buf, sizeof buf, "_T%gK_P%gbar", in.spec.conditions[c].temperature, in.spec.conditions[c].pressure);
  return in.output + buf + ext;
}

void write_xsec(const std::filesystem::path& path, const std::vector<double>& nu, const std::vector<double>& sigma) {
  io::AtomicFile f(path);
  std::string block;
  for (std::size_t i = 0; i < nu.size(); ++i) {
    if (!std::isfinite(sigma[i])) throw Error("cross sections: a non-finite value at nu = " + std::to_string(nu[i]) + " cm-1 (" + path.string() + " not written)");
    block += ' ';
    put_es_e3(block, nu[i], 16, 8);
    block += ' ';
    put_es_e3(block, sigma[i], 16, 8);
    block += '\n';
    if (block.size() > (1u << 20)) {
      f.stream() << block;
      block.clear();
    }
  }
  f.stream() << block;
  f.commit();
}

XsecRunSummary run_exocross(const std::filesystem::path& input, const std::filesystem::path& out_dir, Backend backend, bool quiet) {
  XsecRunSummary r;
  WallTimer tr;
  ExoCrossInput in = read_exocross_input(input);
  for (const auto& n : in.notes) note("linelist", quiet, n);
  const StateTable states = read_exomol_states(in.states);
  set_conditions(in, &states);
  r.seconds_read = tr.seconds();
  const std::size_t nc = in.spec.conditions.size();
  auto name_of = [&](std::size_t c, const char* ext) { return out_dir / xsec_file_name(in, c, ext); };
  WallTimer tg;
  if (in.stick) {
    // nu and S per line of the .trans files, in their order, as ExoCross's .stick: (1x,f16.6,1x,es16.8).
    std::vector<std::unique_ptr<io::AtomicFile>> files;
    for (std::size_t c = 0; c < nc; ++c) files.push_back(std::make_unique<io::AtomicFile>(name_of(c, ".stick")));
    std::string block;
    const auto br = kernel_broadeners(in.spec);
    for (const auto& t : in.transitions)
      r.lines_read += read_exomol_transitions(t, states, [&](const LineBatch& b) {
        const kernels::XsecRawLines raw{b.size(), b.nu.data(), b.a.data(), b.g_upper.data(), b.e_lower.data(), b.j_lower.data()};
        for (std::size_t c = 0; c < nc; ++c) {
          const auto ph = physics_of(in.spec, in.spec.conditions[c], br);
          block.clear();
          for (std::size_t i = 0; i < b.size(); ++i) {
            double v, sv, alpha, gamma;
            if (!kernels::line_parameters(ph, raw, i, v, sv, alpha, gamma)) continue;  // the cross sections' selection
            ++r.lines_used;
            char buf[64];
            std::snprintf(buf, sizeof buf, " %16.6f ", v);
            block += buf;
            block += io::fortran_ES(sv, 16, 8);
            block += '\n';
          }
          files[c]->stream() << block;
        }
      });
    for (std::size_t c = 0; c < nc; ++c) {
      files[c]->commit();
      r.files.push_back(name_of(c, ".stick"));
    }
    r.seconds_grid = tg.seconds();
    return r;
  }
  XsecAccumulator acc(backend, in.spec);
  for (const auto& t : in.transitions) r.lines_read += read_exomol_transitions(t, states, [&](const LineBatch& b) { acc.add(b); });
  r.lines_used = acc.lines_used();
  const auto nu = acc.wavenumbers();
  const auto sig = acc.results();
  r.seconds_grid = tg.seconds();
  for (std::size_t c = 0; c < nc; ++c) {
    write_xsec(name_of(c, ".xsec"), nu, sig[c]);
    r.files.push_back(name_of(c, ".xsec"));
  }
  return r;
}

}  // namespace quanta::linelist
