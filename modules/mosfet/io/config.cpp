// The mosfet TOML config, read strictly (core/io/toml_reader.hpp). The device must be stated in the
// config (its geometry, doping, temperature and gate voltage); only the materials (the seed's silicon and
// SiO2), the grid and the solver's numerics have defaults. Every value has a physical range, checked here.
#include "quanta/mosfet/config.hpp"

#include <optional>

#include "quanta/core/error.hpp"
#include "quanta/core/io/input_file.hpp"
#include "quanta/core/io/toml_reader.hpp"

namespace quanta::mosfet {
namespace {

using io::TomlReader;

// A closed range [lo, hi] with its unit, for the check and for the message.
struct Range {
  double lo, hi;
  std::string what;  // "a length in nm"
  bool contains(double x) const { return x >= lo && x <= hi; }
  std::string expected() const { return what + " in [" + TomlReader::fmt(lo) + ", " + TomlReader::fmt(hi) + "]"; }
};

double number(const TomlReader& r, const std::string& table, const std::string& key, std::optional<double> fallback,
              const Range& range) {
  return r.number(table, key, fallback, [&](double x) { return range.contains(x); }, range.expected());
}

// A list of exactly three numbers (one per valley), each within the range.
std::array<double, 3> per_valley(const TomlReader& r, const std::string& key, std::array<double, 3> fallback,
                                 const Range& range) {
  const std::string expected = "a list of 3 numbers, one per valley, each " + range.expected();
  const toml::node* n = r.get("device.valleys", key);
  if (!n) return fallback;
  const std::vector<double> v = r.numbers("device.valleys", key, expected);
  if (v.size() != 3) throw InputError(r.file(), r.line(*n), "device.valleys." + key, "a list of " + std::to_string(v.size()) + " numbers", expected);
  for (double x : v)
    if (!range.contains(x)) throw InputError(r.file(), r.line(*n), "device.valleys." + key, "the value " + TomlReader::fmt(x), expected);
  return {v[0], v[1], v[2]};
}

// The physical ranges (docs/mosfet.md gives the reason for each).
const Range device_length{1.0, 1000.0, "a length in nm"};
const Range oxide_length{0.3, 50.0, "a thickness in nm"};
const Range film_length{1.0, 100.0, "a thickness in nm"};
const Range temperature{10.0, 1000.0, "a temperature in K"};
const Range contact_doping{1e21, 1e27, "a donor density in m^-3"};
const Range channel_doping{0.0, 1e27, "a donor density in m^-3"};
const Range permittivity{1.0, 100.0, "a relative permittivity"};
const Range mass{0.01, 10.0, "an effective mass in m_e"};
const Range barrier{0.1, 10.0, "a conduction-band offset in eV"};
const Range kane_alpha{0.0, 5.0, "a non-parabolicity in 1/eV"};
const Range gate_voltage{-3.0, 3.0, "a voltage in V"};
const Range drain_voltage{-3.0, 3.0, "a voltage in V"};
const Range newton_tolerance{1e-13, 1e-3, "a potential change in V"};
const Range srj_tolerance{1e-15, 1e-6, "a relative residual"};
const Range eigen_tolerance{1e-15, 1e-6, "an absolute tolerance in eV"};

// A list of exactly six numbers (the intervalley phonons g-TA, g-LA, g-LO, f-TA, f-LA, f-TO), each within the range.
std::array<double, 6> per_phonon(const TomlReader& r, const std::string& key, std::array<double, 6> fallback, const Range& range) {
  const std::string table = "transport.phonons", expected = "a list of 6 numbers (g-TA, g-LA, g-LO, f-TA, f-LA, f-TO), each " + range.expected();
  const toml::node* n = r.get(table, key);
  if (!n) return fallback;
  const std::vector<double> v = r.numbers(table, key, expected);
  if (v.size() != 6) throw InputError(r.file(), r.line(*n), table + "." + key, "a list of " + std::to_string(v.size()) + " numbers", expected);
  for (double x : v)
    if (!range.contains(x)) throw InputError(r.file(), r.line(*n), table + "." + key, "the value " + TomlReader::fmt(x), expected);
  return {v[0], v[1], v[2], v[3], v[4], v[5]};
}

void parse_transport(const TomlReader& r, TransportRun& t) {
  t.end_time = number(r, "transport", "end_time", t.end_time * 1e12, Range{1e-6, 1e4, "a time in ps"}) * 1e-12;
  t.output_interval = number(r, "transport", "output_interval", t.output_interval * 1e12, Range{1e-6, 1e4, "a time in ps"}) * 1e-12;
  t.steady_tolerance = number(r, "transport", "steady_tolerance", 0.0, Range{0.0, 0.5, "a relative change of the drain current (0: off)"});
  t.checkpoint_minutes = number(r, "transport", "checkpoint_minutes", t.checkpoint_minutes, Range{0.1, 1e4, "a wall time in minutes"});
  TransportOptions& o = t.options;
  o.nw = r.integer("transport", "nw", o.nw, [](std::int64_t v) { return v >= 8 && v <= 1500; }, "an integer 8 <= nw <= 1500 (energy cells)");
  o.nphi = r.integer("transport", "nphi", o.nphi, [](std::int64_t v) { return v >= 6 && v <= 1024 && v % 2 == 0; },
                     "an even integer 6 <= nphi <= 1024 (the w = 0 boundary pairs each angle with its opposite)");
  o.w_max = number(r, "transport", "w_max", 0.0, Range{0.0, 500.0, "the energy grid's extent in k_B T (0: 15 x 63 meV, the seed's)"});
  if (o.w_max != 0 && o.w_max < 5) {
    const toml::node* n = r.get("transport", "w_max");
    throw InputError(r.file(), n ? r.line(*n) : 0, "transport.w_max", "the value " + TomlReader::fmt(o.w_max), "0 or at least 5 (k_B T)");
  }
  o.cfl = number(r, "transport", "cfl", o.cfl, Range{0.01, 1.0, "a CFL number (the seed's 0.6)"});
  o.rates = r.string("transport", "rate_convention", "golden_rule", {"golden_rule", "seed_code"}) == "golden_rule" ? RateConvention::GoldenRule
                                                                                                                     : RateConvention::SeedCode;
  o.occupation = r.string("transport", "fphonon_occupation", "bose", {"bose", "seed_code"}) == "bose" ? IntervalleyOccupation::Bose
                                                                                                      : IntervalleyOccupation::SeedCode;
  o.reuse_jacobian = r.boolean("transport", "reuse_jacobian", true);
  o.contacts = r.string("transport", "contacts", "flat", {"flat", "seed_code"}) == "flat" ? ContactModel::Flat : ContactModel::SeedCode;
  // Surface roughness: on when the table is present (its keys default to the seed's code's values).
  if (r.find_table("transport.roughness")) {
    RoughnessOptions& sr = o.roughness;
    sr.enabled = true;
    sr.length = number(r, "transport.roughness", "length", sr.length, Range{0.01, 100.0, "a correlation length in nm"});
    sr.displacement = number(r, "transport.roughness", "displacement", sr.displacement, Range{0.0, 5.0, "a displacement in nm"});
    sr.stretch = number(r, "transport.roughness", "stretch", sr.stretch, Range{0.01, 1.0, "a fraction of the z extent"});
    sr.nz = r.integer("transport.roughness", "nz", 0, [](std::int64_t v) { return v == 0 || (v >= 9 && v <= 4097); },
                      "0 (the interfaces on nodes, docs/mosfet.md) or an integer 9 <= nz <= 4097 (nodes of the extended z grid)");
    sr.shift = r.string("transport.roughness", "shift", "same_grid", {"same_grid", "seed_code"}) == "same_grid" ? RoughnessShift::SameGrid
                                                                                                              : RoughnessShift::SeedCode;
  }
  PhononParameters& p = o.phonons;
  p.acoustic_deformation_potential =
      number(r, "transport.phonons", "acoustic_deformation_potential", p.acoustic_deformation_potential, Range{0.1, 100.0, "a deformation potential in eV"});
  p.theta = per_phonon(r, "theta", p.theta, Range{1.0, 2000.0, "a phonon temperature in K"});
  p.coupling = per_phonon(r, "coupling", p.coupling, Range{0.0, 100.0, "a coupling D_t K in 1e8 eV/cm"});
  p.mass_density = number(r, "transport.phonons", "mass_density", p.mass_density, Range{100.0, 30000.0, "a mass density in kg/m^3"});
  p.sound_velocity = number(r, "transport.phonons", "sound_velocity", p.sound_velocity, Range{100.0, 30000.0, "a sound velocity in m/s"});
}

Config parse_table(const toml::table& root, const std::string& file) {
  if (root.empty())
    throw InputError(file, "the config is empty (expected a mosfet TOML config stating at least the device: [device] "
                           "temperature, [device.geometry], [device.doping] and [bias] gate_voltage; docs/mosfet.md)");
  const TomlReader r(root, file);
  r.check_keys("", {"device", "bias", "grid", "solver", "transport", "sweep"});
  r.check_keys("sweep", {"drain_voltages", "gate_voltages"});
  r.check_keys("transport", {"end_time", "output_interval", "steady_tolerance", "checkpoint_minutes", "nw", "nphi", "w_max", "cfl",
                             "rate_convention", "fphonon_occupation", "contacts", "reuse_jacobian", "phonons", "roughness"});
  r.check_keys("transport.roughness", {"length", "displacement", "stretch", "nz", "shift"});
  r.check_keys("transport.phonons", {"acoustic_deformation_potential", "theta", "coupling", "mass_density", "sound_velocity"});
  r.check_keys("device", {"temperature", "geometry", "doping", "materials", "valleys"});
  r.check_keys("device.geometry", {"source_length", "channel_length", "drain_length", "oxide_thickness",
                                   "silicon_thickness", "gate_start", "gate_end"});
  r.check_keys("device.doping", {"source_drain", "channel"});
  r.check_keys("device.materials", {"eps_si", "eps_ox", "m_ox", "barrier"});
  r.check_keys("device.valleys", {"mx", "my", "mz", "alpha"});
  r.check_keys("bias", {"gate_voltage", "drain_voltage"});
  r.check_keys("grid", {"nx", "nz", "interface_nodes"});
  r.check_keys("solver", {"subbands", "frechet_states", "linear_solver", "max_newton", "newton_tolerance",
                          "srj_tolerance", "srj_max_cycles", "eigen_tolerance", "multisection_points"});
  const std::nullopt_t required = std::nullopt;
  Config c;
  c.source = file;
  Device& d = c.device;
  d.temperature = number(r, "device", "temperature", required, temperature);
  Geometry& g = d.geometry;
  g.source_length = number(r, "device.geometry", "source_length", required, device_length);
  g.channel_length = number(r, "device.geometry", "channel_length", required, device_length);
  g.drain_length = number(r, "device.geometry", "drain_length", required, device_length);
  g.oxide_thickness = number(r, "device.geometry", "oxide_thickness", required, oxide_length);
  g.silicon_thickness = number(r, "device.geometry", "silicon_thickness", required, film_length);
  const Range position{0.0, g.length(), "a position along the device in nm"};
  g.gate_start = number(r, "device.geometry", "gate_start", g.source_length, position);
  g.gate_end = number(r, "device.geometry", "gate_end", g.source_length + g.channel_length, position);
  if (!(g.gate_end > g.gate_start)) {
    const toml::node* n = r.get("device.geometry", "gate_end");
    if (!n) n = r.get("device.geometry", "gate_start");
    throw InputError(file, n ? r.line(*n) : 0, "device.geometry.gate_end", "the gate [" + TomlReader::fmt(g.gate_start) +
                     ", " + TomlReader::fmt(g.gate_end) + "] nm", "gate_start < gate_end <= the device length " +
                     TomlReader::fmt(g.length()) + " nm");
  }
  d.doping.source_drain = number(r, "device.doping", "source_drain", required, contact_doping);
  d.doping.channel = number(r, "device.doping", "channel", required, channel_doping);
  Materials& m = d.materials;
  m.eps_si = number(r, "device.materials", "eps_si", m.eps_si, permittivity);
  m.eps_ox = number(r, "device.materials", "eps_ox", m.eps_ox, permittivity);
  m.m_ox = number(r, "device.materials", "m_ox", m.m_ox, mass);
  m.barrier = number(r, "device.materials", "barrier", m.barrier, barrier);
  const auto mx = per_valley(r, "mx", {m.valleys[0].mx, m.valleys[1].mx, m.valleys[2].mx}, mass);
  const auto my = per_valley(r, "my", {m.valleys[0].my, m.valleys[1].my, m.valleys[2].my}, mass);
  const auto mz = per_valley(r, "mz", {m.valleys[0].mz, m.valleys[1].mz, m.valleys[2].mz}, mass);
  const auto alpha = per_valley(r, "alpha", {m.valleys[0].alpha, m.valleys[1].alpha, m.valleys[2].alpha}, kane_alpha);
  for (int v = 0; v < 3; ++v) m.valleys[v] = Valley{mx[v], my[v], mz[v], alpha[v]};
  d.bias.gate_voltage = number(r, "bias", "gate_voltage", required, gate_voltage);
  c.transport.enabled = r.find_table("transport") != nullptr;
  if (c.transport.enabled)
    d.bias.drain_voltage = number(r, "bias", "drain_voltage", 0.0, drain_voltage);
  else
    d.bias.drain_voltage = r.number("bias", "drain_voltage", 0.0, [](double x) { return x == 0.0; },
                                    "0 (the equilibrium solution; a source-drain bias needs the transport phase: a [transport] table)");
  c.grid.nx = r.integer("grid", "nx", c.grid.nx, [](std::int64_t v) { return v >= 3 && v <= 4097; }, "an integer 3 <= nx <= 4097");
  c.grid.nz = r.integer("grid", "nz", c.grid.nz, [](std::int64_t v) { return v >= 9 && v <= 1025; }, "an integer 9 <= nz <= 1025");
  c.grid.interfaces = r.string("grid", "interface_nodes", "quanta", {"quanta", "seed_code"}) == "quanta" ? InterfaceNodes::Quanta
                                                                                                    : InterfaceNodes::SeedCode;
  BlockOptions& s = c.solver;
  s.subbands = r.integer("solver", "subbands", s.subbands, [&](std::int64_t v) { return v >= 1 && v <= c.grid.nz - 2; },
                         "an integer number of subbands per valley, 1 <= subbands <= nz - 2");
  s.frechet_states = r.integer("solver", "frechet_states", 0, [&](std::int64_t v) { return v >= 0 && v <= c.grid.nz - 2; },
                               "an integer 0 <= frechet_states <= nz - 2 (0: the subbands)");
  s.linear_solver = parse_linear_solver(r.string("solver", "linear_solver", "direct", {"direct", "srj"}));
  s.max_newton = r.integer("solver", "max_newton", s.max_newton, [](std::int64_t v) { return v >= 1 && v <= 1000; },
                           "an integer number of Newton-Raphson iterations in [1, 1000]");
  s.newton_tol = number(r, "solver", "newton_tolerance", s.newton_tol, newton_tolerance);
  s.srj_tol = number(r, "solver", "srj_tolerance", s.srj_tol, srj_tolerance);
  s.srj_max_cycles = r.integer("solver", "srj_max_cycles", s.srj_max_cycles, [](std::int64_t v) { return v >= 1 && v <= 1000000; },
                               "an integer number of SRJ cycles in [1, 1000000]");
  s.eigen_tol = number(r, "solver", "eigen_tolerance", s.eigen_tol, eigen_tolerance);
  s.n_multi = r.integer("solver", "multisection_points", s.n_multi, [](std::int64_t v) { return v >= 2 && v <= 33; },
                        "an integer 2 <= multisection_points <= 33 (sub-intervals; 33 fills a warp)");
  if (c.transport.enabled) {
    parse_transport(r, c.transport);
    const RoughnessOptions& sr = c.transport.options.roughness;
    if (sr.enabled && sr.stretch * g.width() > g.silicon_thickness) {
      const toml::node* n = r.get("transport.roughness", "stretch");
      throw InputError(file, n ? r.line(*n) : 0, "transport.roughness.stretch", "the value " + TomlReader::fmt(sr.stretch),
                       "at most silicon_thickness / (2 oxide_thickness + silicon_thickness) = " + TomlReader::fmt(g.silicon_thickness / g.width()) +
                           " (the stretched band, centred in the z extent, must lie inside the film)");
    }
    // The chord steps need the direct solver's factored matrix; by default they are off with SRJ.
    if (s.linear_solver == LinearSolver::Srj) {
      if (const toml::node* n = r.get("transport", "reuse_jacobian"); n && c.transport.options.reuse_jacobian)
        throw InputError(file, r.line(*n), "transport.reuse_jacobian", "true with linear_solver = \"srj\"",
                         "false, or linear_solver = \"direct\" (the chord steps re-use the direct solver's factored matrix)");
      c.transport.options.reuse_jacobian = false;
    }
  }
  c.sweep.enabled = r.find_table("sweep") != nullptr;
  if (c.sweep.enabled) {
    const std::string expected = "a list of voltages in V, each in [-3, 3]";
    for (auto [key, list] : {std::pair{"drain_voltages", &c.sweep.drain_voltages}, {"gate_voltages", &c.sweep.gate_voltages}}) {
      const toml::node* n = r.get("sweep", key);
      if (!n) continue;
      *list = r.numbers("sweep", key, expected);
      for (double v : *list)
        if (!drain_voltage.contains(v)) throw InputError(file, r.line(*n), std::string("sweep.") + key, "the value " + TomlReader::fmt(v), expected);
    }
    const toml::table* t = r.find_table("sweep");
    const int line = t ? static_cast<int>(t->source().begin.line) : 0;
    if (c.sweep.drain_voltages.empty() && c.sweep.gate_voltages.empty())
      throw InputError(file, line, "sweep", "no bias points", "drain_voltages and/or gate_voltages, each a non-empty list of voltages");
    if (!c.transport.enabled)
      throw InputError(file, line, "sweep", "a [sweep] table without [transport]", "a [transport] table (each bias point is a transport run)");
    if (!(c.transport.steady_tolerance > 0))
      throw InputError(file, line, "transport.steady_tolerance", "0 (off)",
                       "a relative change of I_D > 0: each point of a sweep runs to steady state (end_time is then the limit per point)");
  }
  return c;
}

}  // namespace

Config parse_config(const std::string& text, const std::string& source_name) {
  return parse_table(io::parse_toml(text, source_name), source_name);
}

Config read_config(const std::filesystem::path& file) {
  std::ifstream in = io::open_input_file(file, "a mosfet TOML config");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(file.string(), "could not be read to the end (expected a mosfet TOML config)");
  return parse_config(text.str(), file.string());
}

}  // namespace quanta::mosfet
