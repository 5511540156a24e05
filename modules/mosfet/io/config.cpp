// The mosfet TOML config, read strictly (core/io/toml_reader.hpp).
#include "quanta/mosfet/config.hpp"

#include "quanta/core/error.hpp"
#include "quanta/core/io/toml_reader.hpp"

namespace quanta::mosfet {
namespace {

// A list of exactly three numbers (one per valley), each positive.
std::array<double, 3> per_valley(const io::TomlReader& r, const std::string& key, std::array<double, 3> fallback) {
  const std::string expected = "a list of 3 positive numbers, one per valley";
  const toml::node* n = r.get("device.valleys", key);
  if (!n) return fallback;
  const std::vector<double> v = r.numbers("device.valleys", key, expected);
  if (v.size() != 3) throw InputError(r.file(), r.line(*n), "device.valleys." + key, "a list of " + std::to_string(v.size()) + " numbers", expected);
  for (double x : v)
    if (!(x > 0)) throw InputError(r.file(), r.line(*n), "device.valleys." + key, "the value " + io::TomlReader::fmt(x), expected);
  return {v[0], v[1], v[2]};
}

Config parse_table(const toml::table& root, const std::string& file) {
  const io::TomlReader r(root, file);
  r.check_keys("", {"device", "bias", "grid", "solver"});
  r.check_keys("device", {"temperature", "geometry", "doping", "materials", "valleys"});
  r.check_keys("device.geometry", {"source_length", "channel_length", "drain_length", "oxide_thickness",
                                   "silicon_thickness", "gate_start", "gate_end"});
  r.check_keys("device.doping", {"source_drain", "channel"});
  r.check_keys("device.materials", {"eps_si", "eps_ox", "m_ox", "barrier"});
  r.check_keys("device.valleys", {"mx", "my", "mz", "alpha"});
  r.check_keys("bias", {"gate_voltage", "drain_voltage"});
  r.check_keys("grid", {"nx", "nz"});
  r.check_keys("solver", {"subbands", "frechet_states", "linear_solver", "max_newton", "newton_tolerance",
                          "srj_tolerance", "srj_max_cycles", "eigen_tolerance", "multisection_points"});
  auto positive = [](double x) { return x > 0; };
  auto non_negative = [](double x) { return x >= 0; };
  auto any = [](double) { return true; };
  Config c;
  c.source = file;
  Device& d = c.device;
  d.temperature = r.number("device", "temperature", 300.0, positive, "a positive temperature in K");
  Geometry& g = d.geometry;
  const std::string len = "a positive length in nm";
  g.source_length = r.number("device.geometry", "source_length", g.source_length, positive, len);
  g.channel_length = r.number("device.geometry", "channel_length", g.channel_length, positive, len);
  g.drain_length = r.number("device.geometry", "drain_length", g.drain_length, positive, len);
  g.oxide_thickness = r.number("device.geometry", "oxide_thickness", g.oxide_thickness, positive, len);
  g.silicon_thickness = r.number("device.geometry", "silicon_thickness", g.silicon_thickness, positive, len);
  g.gate_start = r.number("device.geometry", "gate_start", g.source_length, non_negative, "a position in nm >= 0");
  g.gate_end = r.number("device.geometry", "gate_end", g.source_length + g.channel_length, positive,
                        "a position in nm > 0");
  if (!(g.gate_end > g.gate_start && g.gate_end <= g.length() + 1e-9)) {
    const toml::node* n = r.get("device.geometry", "gate_end");
    throw InputError(file, n ? r.line(*n) : 0, "device.geometry.gate_end", "the gate [" + io::TomlReader::fmt(g.gate_start) +
                     ", " + io::TomlReader::fmt(g.gate_end) + "] nm", "gate_start < gate_end <= the device length " +
                     io::TomlReader::fmt(g.length()) + " nm");
  }
  d.doping.source_drain = r.number("device.doping", "source_drain", d.doping.source_drain, non_negative, "a donor density in m^-3 >= 0");
  d.doping.channel = r.number("device.doping", "channel", d.doping.channel, non_negative, "a donor density in m^-3 >= 0");
  Materials& m = d.materials;
  m.eps_si = r.number("device.materials", "eps_si", m.eps_si, positive, "a positive relative permittivity");
  m.eps_ox = r.number("device.materials", "eps_ox", m.eps_ox, positive, "a positive relative permittivity");
  m.m_ox = r.number("device.materials", "m_ox", m.m_ox, positive, "a positive effective mass in m_e");
  m.barrier = r.number("device.materials", "barrier", m.barrier, non_negative, "a non-negative barrier in eV");
  const auto mx = per_valley(r, "mx", {m.valleys[0].mx, m.valleys[1].mx, m.valleys[2].mx});
  const auto my = per_valley(r, "my", {m.valleys[0].my, m.valleys[1].my, m.valleys[2].my});
  const auto mz = per_valley(r, "mz", {m.valleys[0].mz, m.valleys[1].mz, m.valleys[2].mz});
  const auto alpha = per_valley(r, "alpha", {m.valleys[0].alpha, m.valleys[1].alpha, m.valleys[2].alpha});
  for (int v = 0; v < 3; ++v) m.valleys[v] = Valley{mx[v], my[v], mz[v], alpha[v]};
  d.bias.gate_voltage = r.number("bias", "gate_voltage", d.bias.gate_voltage, any, "a voltage in V");
  d.bias.drain_voltage = r.number("bias", "drain_voltage", 0.0, [](double x) { return x == 0.0; },
                                  "0 (the equilibrium solution; a source-drain bias needs the transport phase)");
  c.grid.nx = r.integer("grid", "nx", c.grid.nx, [](std::int64_t v) { return v >= 3 && v <= 4097; }, "an integer 3 <= nx <= 4097");
  c.grid.nz = r.integer("grid", "nz", c.grid.nz, [](std::int64_t v) { return v >= 9 && v <= 1025; }, "an integer 9 <= nz <= 1025");
  BlockOptions& s = c.solver;
  s.subbands = r.integer("solver", "subbands", s.subbands, [&](std::int64_t v) { return v >= 1 && v <= c.grid.nz - 2; },
                         "an integer number of subbands per valley, 1 <= subbands <= nz - 2");
  s.frechet_states = r.integer("solver", "frechet_states", 0, [&](std::int64_t v) { return v >= 0 && v <= c.grid.nz - 2; },
                               "an integer 0 <= frechet_states <= nz - 2 (0: the subbands)");
  s.linear_solver = parse_linear_solver(r.string("solver", "linear_solver", "direct", {"direct", "srj"}));
  s.max_newton = r.integer("solver", "max_newton", s.max_newton, [](std::int64_t v) { return v >= 1 && v <= 10000; }, "an integer in [1, 10000]");
  s.newton_tol = r.number("solver", "newton_tolerance", s.newton_tol, positive, "a positive potential change in V");
  s.srj_tol = r.number("solver", "srj_tolerance", s.srj_tol, positive, "a positive relative residual");
  s.srj_max_cycles = r.integer("solver", "srj_max_cycles", s.srj_max_cycles, [](std::int64_t v) { return v >= 1; }, "a positive integer");
  s.eigen_tol = r.number("solver", "eigen_tolerance", s.eigen_tol, positive, "a positive tolerance in eV");
  s.n_multi = r.integer("solver", "multisection_points", s.n_multi, [](std::int64_t v) { return v >= 2 && v <= 33; },
                        "an integer 2 <= multisection_points <= 33 (sub-intervals; 33 fills a warp)");
  return c;
}

}  // namespace

Config parse_config(const std::string& text, const std::string& source_name) {
  return parse_table(io::parse_toml(text, source_name), source_name);
}

Config read_config(const std::filesystem::path& file) {
  return parse_config(io::read_text_file(file, "the mosfet config file"), file.string());
}

}  // namespace quanta::mosfet
