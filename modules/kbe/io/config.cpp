// The kbe TOML config: strict reading (unknown keys, wrong types and out-of-range values are errors,
// each naming file, line, key, what was found and what was expected).
#include "quanta/kbe/config.hpp"

#include "quanta/core/error.hpp"
#include "quanta/core/io/toml_reader.hpp"

namespace quanta::kbe {
namespace {

// An occupation: one number for every k, or a list of nk numbers, each in [0, 1].
std::vector<double> occupations(const io::TomlReader& r, const std::string& key, double fallback, int nk) {
  const std::string expected = "a number in [0, 1] or a list of nk = " + std::to_string(nk) + " such numbers";
  const toml::node* n = r.get("initial", key);
  if (!n) return std::vector<double>(nk, fallback);
  std::vector<double> v;
  if (n->is_number()) {
    v.assign(nk, n->value<double>().value());
  } else if (n->is_array()) {
    v = r.numbers("initial", key, expected);
    if (static_cast<int>(v.size()) != nk)
      throw InputError(r.file(), r.line(*n), io::TomlReader::name("initial", key), "a list of " + std::to_string(v.size()) + " numbers", expected);
  } else {
    throw InputError(r.file(), r.line(*n), io::TomlReader::name("initial", key), io::TomlReader::describe(*n), expected);
  }
  for (double x : v)
    if (!(x >= 0.0 && x <= 1.0)) throw InputError(r.file(), r.line(*n), io::TomlReader::name("initial", key), "the value " + io::TomlReader::fmt(x), expected);
  return v;
}

Config parse_table(const toml::table& root, const std::string& file) {
  const io::TomlReader r(root, file);
  r.check_keys("", {"model", "interaction", "pulse", "initial", "time", "solver", "output"});
  r.check_keys("model", {"nk", "dipole", "valence", "conduction"});
  r.check_keys("model.valence", {"onsite", "hopping"});
  r.check_keys("model.conduction", {"onsite", "hopping"});
  r.check_keys("interaction", {"u", "ramp"});
  r.check_keys("pulse", {"amplitude", "center", "width", "frequency"});
  r.check_keys("initial", {"valence", "conduction"});
  r.check_keys("time", {"dt", "steps"});
  r.check_keys("solver", {"self_energy", "second_born", "corrector_iterations", "corrector_tolerance"});
  r.check_keys("output", {"write_green", "checkpoint_every"});

  auto any = [](double) { return true; };
  auto positive = [](double x) { return x > 0; };
  Config c;
  c.source = file;
  Model& m = c.model;
  m.nk = r.integer("model", "nk", std::nullopt, [](std::int64_t v) { return v >= 1 && v <= (1 << 24); },
                   "an integer number of k-points, 1 <= nk <= 16777216");
  m.dipole = r.number("model", "dipole", 1.0, any, "a number (the dipole matrix element d_k)");
  for (auto [band, b] : {std::pair{"model.valence", &m.valence}, std::pair{"model.conduction", &m.conduction}}) {
    b->onsite = r.number(band, "onsite", std::nullopt, any, "a number (the band's on-site energy)");
    b->hopping = r.numbers(band, "hopping", "a list of numbers (hoppings to the 1st, 2nd, ... neighbour)");
  }
  m.interaction.u = r.number("interaction", "u", 0.0, any, "a number (the interband interaction U)");
  m.interaction.ramp = r.number("interaction", "ramp", 0.0, [](double x) { return x >= 0; }, "a non-negative switch-on time");
  m.pulse.amplitude = r.number("pulse", "amplitude", 0.0, any, "a number (peak field E0)");
  m.pulse.center = r.number("pulse", "center", 0.0, any, "a number (time of the pulse maximum)");
  m.pulse.width = r.number("pulse", "width", 1.0, positive, "a positive number (Gaussian width sigma)");
  m.pulse.frequency = r.number("pulse", "frequency", 0.0, any, "a number (carrier frequency; 0: no carrier)");
  m.n_valence = occupations(r, "valence", 1.0, m.nk);
  m.n_conduction = occupations(r, "conduction", 0.0, m.nk);
  c.time.dt = r.number("time", "dt", std::nullopt, positive, "a positive time step");
  c.time.steps = r.integer("time", "steps", std::nullopt, [](std::int64_t v) { return v >= 1 && v <= 1000000; },
                           "an integer number of steps, 1 <= steps <= 1000000");
  c.solver.self_energy = parse_self_energy_method(r.string("solver", "self_energy", "fft", {"fft", "direct"}));
  c.solver.second_born = r.boolean("solver", "second_born", true);
  c.solver.corrector_iterations = r.integer("solver", "corrector_iterations", 20,
                                            [](std::int64_t v) { return v >= 1 && v <= 1000; }, "an integer in [1, 1000]");
  c.solver.corrector_tolerance = r.number("solver", "corrector_tolerance", 1e-11, positive, "a positive number");
  c.output.write_green = r.boolean("output", "write_green", false);
  c.output.checkpoint_every = r.integer("output", "checkpoint_every", 0, [](std::int64_t v) { return v >= 0; },
                                        "a non-negative integer (0: no checkpoints)");
  return c;
}

}  // namespace

Config parse_config(const std::string& text, const std::string& source_name) {
  return parse_table(io::parse_toml(text, source_name), source_name);
}

Config read_config(const std::filesystem::path& file) {
  return parse_config(io::read_text_file(file, "the kbe config file"), file.string());
}

}  // namespace quanta::kbe
