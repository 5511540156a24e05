// CONTROL (ShengBTE/FourPhonon namelist input) -> Control, with ShengBTE's defaults and checks.
#include <cmath>
#include <limits>
#include <string>

#include "quanta/core/error.hpp"
#include "quanta/core/io/namelist.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/phonon/control.hpp"

namespace quanta::phonon {
namespace {

using io::NamelistGroup;

[[noreturn]] void bad(const NamelistGroup& g, const std::string& var, const std::string& found, const std::string& expected) {
  int line = g.line();
  for (const auto& a : g.assignments())
    if (a.name == var) line = a.line;
  throw InputError(g.file(), line, "&" + g.name() + " " + var, found, expected);
}

// Every variable ShengBTE and FourPhonon accept, so that a misspelt one is an error instead of being ignored.
// Each one either takes effect or, when set to ask for a feature quanta does not compute, is refused below
// (kUnsupported): none is read and dropped.
const std::vector<std::string_view> kAllocations = {"nelements", "natoms", "ngrid", "norientations"};
const std::vector<std::string_view> kCrystal = {"lfactor", "lattvec", "elements", "types", "positions", "masses",
                                                "gfactors", "epsilon", "born", "scell", "orientations"};
const std::vector<std::string_view> kParameters = {
    "t", "t_min", "t_max", "t_step", "scalebroad", "rmin", "rmax", "dr", "maxiter", "nticks", "eps", "omega_max",
    "length", "ewald", "num_sample_process_3ph", "num_sample_process_3ph_phase_space", "num_sample_process_4ph",
    "num_sample_process_4ph_phase_space", "l"};
const std::vector<std::string_view> kFlags = {"nonanalytic", "convergence", "isotopes", "autoisotopes", "nanowires",
                                              "onlyharmonic", "espresso", "tdep", "four_phonon", "four_phonon_iteration",
                                              "nanolength", "normal", "umklapp", "boundaries"};

// ShengBTE/FourPhonon features quanta does not compute. A key is refused when its value asks for the
// feature (a flag set to .true., a sample count above 0, any value of a key that only the feature reads);
// the values that leave the feature off (four_phonon=.false., num_sample_process_3ph=-1) are accepted.
struct Unsupported {
  enum When { IfTrue, IfPositive, IfSet } when;
  std::string_view group, key, feature, instead;
};
const Unsupported kUnsupported[] = {
    {Unsupported::IfTrue, "flags", "nanowires", "ShengBTE's nanowire conductivities",
     "nanowires=.false.; for a finite size use boundaries=.true. with L (grain size, nm)"},
    {Unsupported::IfPositive, "allocations", "norientations", "ShengBTE's nanowire orientations",
     "norientations=0 (nanowires are not computed)"},
    {Unsupported::IfSet, "crystal", "orientations", "ShengBTE's nanowire orientations",
     "remove the key (nanowires are not computed)"},
    {Unsupported::IfSet, "parameters", "rmin", "ShengBTE's nanowire radii (rmin/rmax/dr)",
     "remove the key (nanowires are not computed; the cumulative kappa vs mean free path is in BTE.cumulative_kappa_*)"},
    {Unsupported::IfSet, "parameters", "rmax", "ShengBTE's nanowire radii (rmin/rmax/dr)",
     "remove the key (nanowires are not computed; the cumulative kappa vs mean free path is in BTE.cumulative_kappa_*)"},
    {Unsupported::IfSet, "parameters", "dr", "ShengBTE's nanowire radii (rmin/rmax/dr)",
     "remove the key (nanowires are not computed; the cumulative kappa vs mean free path is in BTE.cumulative_kappa_*)"},
    {Unsupported::IfSet, "parameters", "length", "the finite-length (nanolength) correction",
     "remove the key; for a finite size use boundaries=.true. with L (nm)"},
    {Unsupported::IfTrue, "flags", "nanolength", "the finite-length correction",
     "nanolength=.false.; for a finite size use boundaries=.true. with L (nm)"},
    {Unsupported::IfSet, "parameters", "ewald", "a user-set Ewald parameter",
     "remove the key: the Ewald sum of espresso.ifc2 uses QE's own convergence parameter"},
    {Unsupported::IfTrue, "flags", "normal", "separate normal-process output",
     "normal=.false. (quanta writes total, absorption and emission rates)"},
    {Unsupported::IfTrue, "flags", "umklapp", "separate umklapp-process output",
     "umklapp=.false. (quanta writes total, absorption and emission rates)"},
    {Unsupported::IfTrue, "flags", "tdep", "TDEP force constants",
     "tdep=.false. with espresso.ifc2 or FORCE_CONSTANTS_2ND and FORCE_CONSTANTS_3RD"},
};

void refuse_unsupported(const io::Namelist& nl) {
  for (const auto& u : kUnsupported) {
    if (!nl.has_group(u.group)) continue;
    const auto& g = nl.group(u.group);
    if (!g.has(u.key)) continue;
    std::string found;
    if (u.when == Unsupported::IfTrue) {
      if (!g.get_bool(u.key)) continue;
      found = ".true.";
    } else if (u.when == Unsupported::IfPositive) {
      const long v = g.get_int(u.key);
      if (v <= 0) continue;
      found = std::to_string(v);
    } else {
      found = "a value";
    }
    bad(g, std::string(u.key),
        found + " (" + std::string(u.feature) + ", which quanta does not compute)",
        std::string(u.instead));
  }
}
// Ranges of the size-like keys, checked as each is read and before anything is allocated from them. They are
// generous: a BTE run on 10000 atoms in the primitive cell (30000 bands) or on a million-atom force-constant
// supercell is already far beyond what the stages after the reader can hold; the bounds only keep a corrupt
// value from becoming a multi-gigabyte allocation or a truncated 32-bit count (the stages use int).
constexpr long kMaxAtoms = 10000;                // natoms, and nelements <= natoms
constexpr long kMaxScell = 1000;                 // each of scell(1..3)
constexpr long kMaxSupercellAtoms = 1000000;     // natoms * scell(1) * scell(2) * scell(3)
constexpr long kMaxTicks = 1000000;              // nticks
constexpr long kMaxIterations = 1000000;         // maxiter
constexpr long kMaxSamples = 1000000000000;      // num_sample_process_*: draws per mode and class
constexpr long kMaxTemperatures = 100000;        // T_min..T_max in steps of T_step

// A size-like key must lie in lo..hi; refused naming the key and the range.
long in_range(const NamelistGroup& g, const std::string& var, long v, long lo, long hi, const std::string& what) {
  if (v < lo || v > hi) bad(g, var, std::to_string(v), what + " in " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

// n1 n2 n3 written out exactly, however large the factors.
std::string mesh_points_text(long n1, long n2, long n3) {
  unsigned long long p = 0;
  if (__builtin_mul_overflow(static_cast<unsigned long long>(n1), static_cast<unsigned long long>(n2), &p) ||
      __builtin_mul_overflow(p, static_cast<unsigned long long>(n3), &p))
    return "more than " + std::to_string(std::numeric_limits<unsigned long long>::max());
  return std::to_string(p);
}

}  // namespace

std::vector<double> temperature_list(double t_min, double t_max, double t_step) {
  // ShengBTE: T = T_min + (k-1) T_step for k = 1..ceiling((T_max-T_min)/T_step)+1; a value overshooting
  // T_max by less than 1 K ends the loop, one overshooting by more is replaced by T_max.
  std::vector<double> ts;
  const long n = static_cast<long>(std::ceil((t_max - t_min) / t_step)) + 1;
  for (long k = 1; k <= n; ++k) {
    double t = t_min + (k - 1) * t_step;
    if (t > t_max && t < t_max + 1) break;
    if (t > t_max + 1) t = t_max;
    ts.push_back(t);
  }
  return ts;
}

Control read_control(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) throw InputError(file.string(), "file not found (every run needs a CONTROL file)");
  const auto nl = io::Namelist::parse_file(file.string());
  Control c;
  c.file = file;
  refuse_unsupported(nl);

  const auto& alloc = nl.group("allocations");
  alloc.reject_unknown(kAllocations);
  const long nelements = in_range(alloc, "nelements", alloc.get_int("nelements"), 1, kMaxAtoms, "a number of elements");
  const long natoms = in_range(alloc, "natoms", alloc.get_int("natoms"), 1, kMaxAtoms, "a number of atoms in the unit cell");
  if (natoms < nelements) bad(alloc, "natoms", std::to_string(natoms), "at least nelements = " + std::to_string(nelements));
  const auto ngrid = alloc.get_ints("ngrid", {3});
  // Mesh indices are 32-bit integers (as in ShengBTE), so the mesh must hold at most INT_MAX points;
  // checked here, before any stage computes n1 n2 n3 and wraps.
  constexpr long max_points = std::numeric_limits<int>::max();
  long points = 1;
  for (int d = 0; d < 3; ++d) {
    if (ngrid[d] < 1) bad(alloc, "ngrid", "ngrid(" + std::to_string(d + 1) + ") = " + std::to_string(ngrid[d]), "three positive integers");
    if (ngrid[d] > max_points / points)
      bad(alloc, "ngrid",
          "ngrid(:) = " + std::to_string(ngrid[0]) + " " + std::to_string(ngrid[1]) + " " + std::to_string(ngrid[2]) + ", " +
              mesh_points_text(ngrid[0], ngrid[1], ngrid[2]) + " q-points",
          "a mesh of at most " + std::to_string(max_points) + " q-points (the q-point index is a 32-bit integer)");
    points *= ngrid[d];
    c.ngrid[d] = static_cast<int>(ngrid[d]);
  }
  if (alloc.get_int_or("norientations", 0) < 0) bad(alloc, "norientations", "a negative count", "0");

  const auto& cr = nl.group("crystal");
  cr.reject_unknown(kCrystal);
  Crystal& x = c.crystal;
  x.natoms = static_cast<int>(natoms);
  const double lfactor = cr.get_real_or("lfactor", 1.0);
  if (!cr.has("lattvec")) bad(cr, "lattvec", "nothing", "three lattice vectors lattvec(:,1..3)");
  const auto lv = cr.get_reals("lattvec", {3, 3}, std::nan(""));
  for (int i = 0; i < 3; ++i)
    for (int a = 0; a < 3; ++a) {
      const double v = lv[a + 3 * i];  // lattvec(a, i): component a of vector i
      if (std::isnan(v)) bad(cr, "lattvec", "lattvec(" + std::to_string(a + 1) + "," + std::to_string(i + 1) + ") unset", "all 9 components");
      x.lattice[i][a] = lfactor * v;
    }
  x.elements = cr.get_strings("elements", nelements);
  for (long e = 0; e < nelements; ++e)
    if (x.elements[e].empty()) bad(cr, "elements", std::to_string(x.elements.size()) + " symbols", std::to_string(nelements) + " (nelements)");
  const auto types = cr.get_ints("types", {natoms}, 0);
  for (long i = 0; i < natoms; ++i) {
    if (types[i] < 1 || types[i] > nelements)
      bad(cr, "types", "types(" + std::to_string(i + 1) + ") = " + std::to_string(types[i]), "an element index 1.." + std::to_string(nelements) + " for each of the natoms = " + std::to_string(natoms) + " atoms");
    x.types.push_back(static_cast<int>(types[i] - 1));
  }
  const auto pos = cr.get_reals("positions", {3, natoms}, std::nan(""));
  for (long i = 0; i < natoms; ++i) {
    Vec3 f{};
    for (int a = 0; a < 3; ++a) {
      f[a] = pos[a + 3 * i];
      if (std::isnan(f[a])) bad(cr, "positions", "positions(:," + std::to_string(i + 1) + ") unset", "3 fractional coordinates for each of the natoms = " + std::to_string(natoms) + " atoms");
    }
    x.fractional.push_back(f);
  }
  const auto scell = cr.get_ints("scell", {3}, -1);
  long supercell_atoms = natoms;
  for (int d = 0; d < 3; ++d) {
    if (scell[d] < 1 || scell[d] > kMaxScell)
      bad(cr, "scell", "scell(" + std::to_string(d + 1) + ") = " + std::to_string(scell[d]),
          "three integers in 1.." + std::to_string(kMaxScell) + " (the force-constant supercell)");
    supercell_atoms *= scell[d];  // <= 10^4 * 10^9: no overflow in long
    c.scell[d] = static_cast<int>(scell[d]);
  }
  if (supercell_atoms > kMaxSupercellAtoms)
    bad(cr, "scell",
        "scell(:) = " + std::to_string(scell[0]) + " " + std::to_string(scell[1]) + " " + std::to_string(scell[2]) + ", " +
            std::to_string(supercell_atoms) + " supercell atoms with natoms = " + std::to_string(natoms),
        "natoms*scell(1)*scell(2)*scell(3) in 1.." + std::to_string(kMaxSupercellAtoms));
  const auto eps = cr.get_reals("epsilon", {3, 3}, 0.0);
  const bool eps_given = cr.has("epsilon");
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) x.epsilon[a][b] = eps_given ? eps[a + 3 * b] : (a == b ? 1.0 : 0.0);
  const auto born = cr.get_reals("born", {3, 3, natoms}, 0.0);
  x.born.assign(natoms, Mat3{});
  for (long i = 0; i < natoms; ++i)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) x.born[i][a][b] = born[a + 3 * b + 9 * i];  // born(a, b, atom)

  const auto& par = nl.group("parameters");
  par.reject_unknown(kParameters);
  const double t = par.get_real_or("t", 0.0);
  if (t > 0) {
    c.temperatures = {t};
  } else {
    const double tmin = par.get_real_or("t_min", 0.0);
    if (!(tmin > 0) || !std::isfinite(tmin)) bad(par, par.has("t_min") ? "t_min" : "t", "no positive temperature", "T > 0, or T_min > 0 with T_max and T_step");
    const double tmax = par.get_real("t_max"), tstep = par.get_real("t_step");
    if (tmax < tmin) bad(par, "t_max", std::to_string(tmax), "T_max >= T_min = " + std::to_string(tmin));
    if (!(tstep > 0)) bad(par, "t_step", std::to_string(tstep), "a positive step");
    if (!std::isfinite(tmax) || (tmax - tmin) / tstep >= static_cast<double>(kMaxTemperatures))
      bad(par, "t_step", "T_min = " + std::to_string(tmin) + ", T_max = " + std::to_string(tmax) + ", T_step = " + std::to_string(tstep),
          "at most " + std::to_string(kMaxTemperatures) + " temperatures from T_min to T_max");
    c.temperatures = temperature_list(tmin, tmax, tstep);
  }
  c.scalebroad = par.get_real_or("scalebroad", 1.0);
  c.nticks = static_cast<int>(in_range(par, "nticks", par.get_int_or("nticks", 100), 1, kMaxTicks, "a number of DOS points"));
  c.maxiter = static_cast<int>(in_range(par, "maxiter", par.get_int_or("maxiter", 1000), 1, kMaxIterations, "a number of iterations"));
  c.eps = par.get_real_or("eps", double(1e-5f));
  if (!(c.eps > 0)) bad(par, "eps", std::to_string(c.eps), "a positive relative tolerance");
  if (c.scalebroad <= 0) bad(par, "scalebroad", std::to_string(c.scalebroad), "a positive broadening factor");
  c.boundary_length = par.get_real_or("l", 1.0);
  c.omega_max = par.get_real_or("omega_max", 1e100);
  if (!(c.omega_max > 0)) bad(par, "omega_max", std::to_string(c.omega_max), "a positive angular frequency in rad/ps");

  const auto& fl = nl.group("flags");
  fl.reject_unknown(kFlags);
  c.nonanalytic = fl.get_bool_or("nonanalytic", true);
  c.convergence = fl.get_bool_or("convergence", true);
  c.isotopes = fl.get_bool_or("isotopes", true);
  c.autoisotopes = fl.get_bool_or("autoisotopes", true);
  c.onlyharmonic = fl.get_bool_or("onlyharmonic", false);
  c.four_phonon = fl.get_bool_or("four_phonon", false);
  c.four_phonon_iteration = fl.get_bool_or("four_phonon_iteration", false);
  if (c.four_phonon_iteration && !(c.four_phonon && c.convergence))
    bad(fl, "four_phonon_iteration", ".true.", "four_phonon=.true. and convergence=.true. with it (FourPhonon's rule)");
  // FourPhonon's sampling estimator: -1 (exact) or a number of draws per mode and class; FourPhonon's rules,
  // and values it takes but cannot use (0 and below -1 divide by zero there), refused.
  const auto sample_key = [&](const char* key) {
    const long long n = par.get_int_or(key, -1);
    if (n != -1) in_range(par, key, n, 1, kMaxSamples, "-1 (no sampling) or a number of draws per mode and class");
    return n;
  };
  c.sample_3ph = sample_key("num_sample_process_3ph");
  c.sample_3ph_phase_space = sample_key("num_sample_process_3ph_phase_space");
  if (c.sample_3ph > 0 && c.convergence)
    bad(par, "num_sample_process_3ph", std::to_string(c.sample_3ph),
        "-1 with convergence=.true. (FourPhonon's rule: the sampled rates are for the RTA; the iteration needs every process)");
  c.sample_4ph = sample_key("num_sample_process_4ph");
  c.sample_4ph_phase_space = sample_key("num_sample_process_4ph_phase_space");
  for (const auto& [key, n] : {std::pair{"num_sample_process_4ph", c.sample_4ph}, std::pair{"num_sample_process_4ph_phase_space", c.sample_4ph_phase_space}})
    if (n > 0 && !c.four_phonon) bad(par, key, std::to_string(n), "-1 without four_phonon=.true. (FourPhonon's rule)");
  if (c.sample_4ph > 0 && c.four_phonon_iteration)
    bad(par, "num_sample_process_4ph", std::to_string(c.sample_4ph),
        "-1 with four_phonon_iteration=.true. (FourPhonon's rule: the iteration needs every process)");
  c.espresso = fl.get_bool_or("espresso", false);
  c.boundaries = fl.get_bool_or("boundaries", false);
  if (c.boundaries && !(c.boundary_length > 0)) bad(par, "l", std::to_string(c.boundary_length), "a positive grain size L in nm (boundaries=.true.)");

  // Masses: natural-abundance averages from the isotope table, or CONTROL's masses/gfactors.
  x.masses.resize(natoms);
  c.gfactors.assign(nelements, 0.0);
  std::vector<double> element_mass(nelements);
  if (c.autoisotopes) {
    // As in ShengBTE, the isotope table then decides; said, since autoisotopes is on by default.
    for (const char* key : {"masses", "gfactors"})
      if (cr.has(key))
        warn("phonon", file.string() + ": &crystal " + key + " is not used: autoisotopes=.true. (the default) takes masses and g-factors from the isotope table; set autoisotopes=.false. to use " + key);
    for (long e = 0; e < nelements; ++e) {
      const auto avg = natural_isotopes(x.elements[e]);
      element_mass[e] = avg.mass;
      c.gfactors[e] = avg.gfactor;
    }
  } else {
    const auto m = cr.get_reals("masses", {nelements}, 0.0);
    const auto g = cr.get_reals("gfactors", {nelements}, 0.0);
    for (long e = 0; e < nelements; ++e) {
      if (!(m[e] > 0)) bad(cr, "masses", "masses(" + std::to_string(e + 1) + ") = " + std::to_string(m[e]), "a positive mass in amu for every element (autoisotopes=.false.)");
      element_mass[e] = m[e];
      c.gfactors[e] = g[e];
    }
  }
  for (long i = 0; i < natoms; ++i) x.masses[i] = element_mass[x.types[i]];

  complete_crystal(x);
  return c;
}

}  // namespace quanta::phonon
