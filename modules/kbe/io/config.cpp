// The kbe TOML config: strict reading (unknown keys, wrong types and out-of-range values are errors,
// each naming file, line, key, what was found and what was expected).
#include "quanta/kbe/config.hpp"

#include <cmath>

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
    v.assign(nk, io::TomlReader::as_double(*n));
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
  r.check_keys("time", {"dt", "steps", "adaptive", "end", "tolerance", "dt_max"});
  r.check_keys("solver", {"self_energy", "second_born", "corrector_iterations", "corrector_tolerance", "history", "history_tolerance",
                          "history_leaf"});
  r.check_keys("output", {"write_green", "checkpoint_every"});

  // Energies, fields and times are in the model's units (band widths of order 1). The bounds refuse values
  // no propagation can resolve (a product like U^2 G^3 dt or E0 d dt overflowing, a NaN from step 1),
  // while leaving several orders of magnitude beyond any physical use.
  auto within = [](double bound) { return [bound](double x) { return std::abs(x) <= bound; }; };
  auto in_range = [](double lo, double hi) { return [lo, hi](double x) { return x > lo && x <= hi; }; };
  const auto energy = within(1e3), time = within(1e6);
  Config c;
  c.source = file;
  Model& m = c.model;
  m.nk = r.integer("model", "nk", std::nullopt, [](std::int64_t v) { return v >= 1 && v <= (1 << 24); },
                   "an integer number of k-points, 1 <= nk <= 16777216");
  m.dipole = r.number("model", "dipole", 1.0, energy, "a number in [-1000, 1000] (the dipole matrix element d_k)");
  for (auto [band, b] : {std::pair{"model.valence", &m.valence}, std::pair{"model.conduction", &m.conduction}}) {
    b->onsite = r.number(band, "onsite", std::nullopt, energy, "a number in [-1000, 1000] (the band's on-site energy)");
    const std::string expected = "a list of at most 1000 numbers, each in [-1000, 1000] (hoppings to the 1st, 2nd, ... neighbour)";
    b->hopping = r.numbers(band, "hopping", expected);
    if (const toml::node* n = r.get(band, "hopping")) {
      if (b->hopping.size() > 1000)
        throw InputError(r.file(), r.line(*n), io::TomlReader::name(band, "hopping"),
                         "a list of " + std::to_string(b->hopping.size()) + " numbers", expected);
      for (double x : b->hopping)
        if (!energy(x))
          throw InputError(r.file(), r.line(*n), io::TomlReader::name(band, "hopping"), "the value " + io::TomlReader::fmt(x), expected);
    }
  }
  m.interaction.u = r.number("interaction", "u", 0.0, energy, "a number in [-1000, 1000] (the interband interaction U)");
  m.interaction.ramp = r.number("interaction", "ramp", 0.0, [](double x) { return x >= 0 && x <= 1e6; },
                                "a switch-on time in [0, 1e6]");
  m.pulse.amplitude = r.number("pulse", "amplitude", 0.0, energy, "a number in [-1000, 1000] (peak field E0)");
  m.pulse.center = r.number("pulse", "center", 0.0, time, "a number in [-1e6, 1e6] (time of the pulse maximum)");
  m.pulse.width = r.number("pulse", "width", 1.0, in_range(0, 1e6), "a positive number up to 1e6 (Gaussian width sigma)");
  m.pulse.frequency = r.number("pulse", "frequency", 0.0, energy, "a number in [-1000, 1000] (carrier frequency; 0: no carrier)");
  m.n_valence = occupations(r, "valence", 1.0, m.nk);
  m.n_conduction = occupations(r, "conduction", 0.0, m.nk);
  c.time.dt = r.number("time", "dt", std::nullopt, in_range(0, 100), "a positive time step up to 100");
  c.time.steps = r.integer("time", "steps", std::nullopt, [](std::int64_t v) { return v >= 1 && v <= 1000000; },
                           "an integer number of steps, 1 <= steps <= 1000000");
  c.time.adaptive = r.boolean("time", "adaptive", false);
  if (c.time.adaptive) {
    c.time.end = r.number("time", "end", std::nullopt, in_range(0, 1e6), "the final time of the adaptive steps, in (0, 1e6]");
    c.time.tolerance = r.number("time", "tolerance", 1e-6, in_range(0, 1), "the error allowed per step, in (0, 1]");
    c.time.dt_max = r.number("time", "dt_max", 10 * c.time.dt, in_range(0, 100), "the largest step, in (0, 100]");
    if (c.time.dt_max < c.time.dt) {
      const toml::node* n = r.get("time", "dt_max");
      throw InputError(r.file(), n ? r.line(*n) : 0, "time.dt_max", "the value " + io::TomlReader::fmt(c.time.dt_max),
                       "a step at least time.dt = " + io::TomlReader::fmt(c.time.dt));
    }
  } else {
    for (const char* key : {"end", "tolerance", "dt_max"})
      if (const toml::node* n = r.get("time", key))
        throw InputError(r.file(), r.line(*n), io::TomlReader::name("time", key), "a setting of the adaptive steps",
                         "time.adaptive = true with it (a fixed grid runs time.steps steps of time.dt)");
  }
  c.solver.self_energy = parse_self_energy_method(r.string("solver", "self_energy", "fft", {"fft", "direct"}));
  c.solver.second_born = r.boolean("solver", "second_born", true);
  c.solver.corrector_iterations = r.integer("solver", "corrector_iterations", 20,
                                            [](std::int64_t v) { return v >= 1 && v <= 1000; }, "an integer in [1, 1000]");
  c.solver.corrector_tolerance = r.number("solver", "corrector_tolerance", 1e-11, in_range(0, 1), "a number in (0, 1]");
  c.solver.history = parse_history_storage(r.string("solver", "history", "dense", {"dense", "compressed"}));
  c.solver.history_tolerance = r.number("solver", "history_tolerance", 1e-8, [](double x) { return x >= 0 && x <= 0.1; },
                                        "a number in [0, 0.1] (the singular values dropped from the compressed history; |G| <= 1)");
  c.solver.history_leaf = r.integer("solver", "history_leaf", 32, [](std::int64_t v) { return v >= 2 && v <= 4096; },
                                    "an integer in [2, 4096] (times per dense diagonal leaf of the compressed history)");
  if (c.solver.history == HistoryStorage::Dense)
    for (const char* key : {"history_tolerance", "history_leaf"})
      if (const toml::node* n = r.get("solver", key))
        throw InputError(r.file(), r.line(*n), io::TomlReader::name("solver", key), "a setting of the compressed history",
                         "solver.history = \"compressed\" with it (the dense history keeps every value)");
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
