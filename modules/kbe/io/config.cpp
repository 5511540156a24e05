// The kbe TOML config: strict reading (unknown keys, wrong types and out-of-range values are errors,
// each naming file, line, key, what was found and what was expected).
#include "quanta/kbe/config.hpp"

#include <toml++/toml.h>

#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "quanta/core/error.hpp"

namespace quanta::kbe {
namespace {

class Reader {
 public:
  Reader(const toml::table& root, std::string file) : root_(root), file_(std::move(file)) {}

  // Every key of every table must be one the reader knows.
  void check_keys(const std::string& table, const std::set<std::string>& allowed) const {
    const toml::table* t = table.empty() ? &root_ : find_table(table);
    if (!t) return;
    for (const auto& [key, node] : *t) {
      if (allowed.count(std::string(key.str()))) continue;
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw InputError(file_, line(node), name(table, std::string(key.str())), "an unknown key",
                       "one of: " + list);
    }
  }

  const toml::table* find_table(const std::string& path) const {
    const toml::node* n = root_.at_path(path).node();
    if (!n) return nullptr;
    if (!n->is_table()) throw InputError(file_, line(*n), path, describe(*n), "a table [" + path + "]");
    return n->as_table();
  }

  const toml::node* get(const std::string& table, const std::string& key) const {
    const toml::table* t = find_table(table);
    return t ? t->get(key) : nullptr;
  }

  double number(const std::string& table, const std::string& key, std::optional<double> fallback,
                const std::function<bool(double)>& ok, const std::string& expected) const {
    const toml::node* n = get(table, key);
    if (!n) return require_present(table, key, fallback, expected);
    if (!n->is_number()) throw InputError(file_, line(*n), name(table, key), describe(*n), expected);
    const double v = n->value<double>().value();
    if (!std::isfinite(v) || !ok(v)) throw InputError(file_, line(*n), name(table, key), describe(*n), expected);
    return v;
  }

  int integer(const std::string& table, const std::string& key, std::optional<int> fallback,
              const std::function<bool(std::int64_t)>& ok, const std::string& expected) const {
    const toml::node* n = get(table, key);
    if (!n) return static_cast<int>(require_present(table, key, fallback ? std::optional<double>(*fallback) : std::nullopt, expected));
    if (!n->is_integer()) throw InputError(file_, line(*n), name(table, key), describe(*n), expected);
    const std::int64_t v = n->value<std::int64_t>().value();
    if (!ok(v) || v > 2000000000 || v < -2000000000) throw InputError(file_, line(*n), name(table, key), describe(*n), expected);
    return static_cast<int>(v);
  }

  bool boolean(const std::string& table, const std::string& key, bool fallback) const {
    const toml::node* n = get(table, key);
    if (!n) return fallback;
    if (!n->is_boolean()) throw InputError(file_, line(*n), name(table, key), describe(*n), "true or false");
    return n->value<bool>().value();
  }

  std::string string(const std::string& table, const std::string& key, const std::string& fallback,
                     const std::set<std::string>& choices) const {
    const toml::node* n = get(table, key);
    if (!n) return fallback;
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : " or ") + ("\"" + c + "\"");
    if (!n->is_string() || !choices.count(n->value<std::string>().value()))
      throw InputError(file_, line(*n), name(table, key), describe(*n), list);
    return n->value<std::string>().value();
  }

  // A list of numbers (each checked), or nothing.
  std::vector<double> numbers(const std::string& table, const std::string& key, const std::string& expected) const {
    const toml::node* n = get(table, key);
    if (!n) return {};
    if (!n->is_array()) throw InputError(file_, line(*n), name(table, key), describe(*n), expected);
    std::vector<double> v;
    for (const auto& e : *n->as_array()) {
      if (!e.is_number() || !std::isfinite(e.value<double>().value()))
        throw InputError(file_, line(e), name(table, key), describe(e) + " in the list", expected);
      v.push_back(e.value<double>().value());
    }
    return v;
  }

  // An occupation: one number for every k, or a list of nk numbers, each in [0, 1].
  std::vector<double> occupations(const std::string& key, double fallback, int nk) const {
    const std::string expected = "a number in [0, 1] or a list of nk = " + std::to_string(nk) + " such numbers";
    const toml::node* n = get("initial", key);
    if (!n) return std::vector<double>(nk, fallback);
    std::vector<double> v;
    if (n->is_number()) {
      v.assign(nk, n->value<double>().value());
    } else if (n->is_array()) {
      v = numbers("initial", key, expected);
      if (static_cast<int>(v.size()) != nk)
        throw InputError(file_, line(*n), name("initial", key), "a list of " + std::to_string(v.size()) + " numbers", expected);
    } else {
      throw InputError(file_, line(*n), name("initial", key), describe(*n), expected);
    }
    for (double x : v)
      if (!(x >= 0.0 && x <= 1.0)) throw InputError(file_, line(*n), name("initial", key), "the value " + fmt(x), expected);
    return v;
  }

  int line(const toml::node& n) const { return static_cast<int>(n.source().begin.line); }
  static std::string name(const std::string& table, const std::string& key) {
    return table.empty() ? key : table + "." + key;
  }
  static std::string fmt(double x) {
    std::ostringstream s;
    s << x;
    return s.str();
  }
  static std::string describe(const toml::node& n) {
    std::ostringstream s;
    switch (n.type()) {
      case toml::node_type::string: s << "the string \"" << n.value<std::string>().value() << "\""; break;
      case toml::node_type::integer: s << "the integer " << n.value<std::int64_t>().value(); break;
      case toml::node_type::floating_point: s << "the number " << n.value<double>().value(); break;
      case toml::node_type::boolean: s << "the boolean " << (n.value<bool>().value() ? "true" : "false"); break;
      case toml::node_type::array: s << "a list"; break;
      case toml::node_type::table: s << "a table"; break;
      default: s << "a date/time"; break;
    }
    return s.str();
  }

 private:
  double require_present(const std::string& table, const std::string& key, std::optional<double> fallback,
                         const std::string& expected) const {
    if (fallback) return *fallback;
    const toml::table* t = table.empty() ? &root_ : find_table(table);
    throw InputError(file_, t ? line(*t) : 0, name(table, key), "nothing (the key is missing)", expected);
  }
  const toml::table& root_;
  std::string file_;
};

Config parse_table(const toml::table& root, const std::string& file) {
  const Reader r(root, file);
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
  m.n_valence = r.occupations("valence", 1.0, m.nk);
  m.n_conduction = r.occupations("conduction", 0.0, m.nk);
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
  toml::table root;
  try {
    root = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    throw InputError(source_name, static_cast<int>(e.source().begin.line), "TOML syntax",
                     std::string("\"") + std::string(e.description()) + "\"", "a valid TOML document");
  }
  return parse_table(root, source_name);
}

Config read_config(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string(), "cannot open the kbe config file (expected a readable TOML file)");
  std::ostringstream s;
  s << in.rdbuf();
  return parse_config(s.str(), file.string());
}

}  // namespace quanta::kbe
