// quanta-mosfet.h5 and quanta-mosfet-scalars.dat of a Boltzmann-Schroedinger-Poisson run.
#include "transport_outputs.hpp"

#include <cstdio>

#include "quanta/core/error.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/version.hpp"

namespace quanta::mosfet {
namespace {

// The profiles' arrays, each stored [n profiles][...].
struct ProfileField {
  const char* name;
  std::vector<double> Observables::*member;
  const char* units;
};
const ProfileField kProfileFields[] = {
    {"density", &Observables::density, "m^-2, both spins and both valleys of each pair"},
    {"current", &Observables::current, "A/m per unit width, electrons from source to drain > 0"},
    {"subband_density", &Observables::subband_density, "m^-2 per valley of a pair, [valley][subband][x]"},
    {"subband_current", &Observables::subband_current, "A/m per valley of a pair, [valley][subband][x]"},
    {"valley_velocity", &Observables::valley_velocity, "m/s, mean velocity along x, [valley][x]"},
    {"valley_energy", &Observables::valley_energy, "eV, mean kinetic energy, [valley][x]"},
};

std::vector<double> flatten(const std::vector<StepRecord>& steps) {
  std::vector<double> out;
  out.reserve(steps.size() * StepRecord::kFields);
  for (const StepRecord& s : steps)
    for (double v : {s.time, s.mass, s.drain_current, s.step, s.dt, s.top_cell, s.excess_source, s.excess_drain, s.newton, s.current_spread})
      out.push_back(v);
  return out;
}

}  // namespace

StepRecord record_of(const Simulation& sim, const Observables& o) {
  return {o.time, o.mass, o.drain_current, static_cast<double>(o.step), sim.next_dt(), o.top_cell, o.contact_excess[0],
          o.contact_excess[1], static_cast<double>(sim.last_newton_iterations()), o.current_spread};
}

void TransportHistory::write(io::H5File& f) const {
  f.write("history/steps", flatten(steps), {steps.size(), static_cast<std::size_t>(StepRecord::kFields)});
  f.write_attribute("history/steps", "columns",
                    "time [s], mass = int density dx [m^-1], drain current = mean_x j [A/m], step, next dt [s], last energy cell "
                    "(dimensionless), source and drain electrons minus donors [m^-2], Newton iterations, max_x |j - mean| / |mean|");
  const std::size_t n = profiles.size();
  std::vector<double> times;
  for (const Observables& o : profiles) times.push_back(o.time);
  f.write("profiles/time", times, {n});
  f.write_attribute("profiles/time", "units", "s");
  if (n == 0) return;
  f.write("profiles/x", profiles[0].x, {profiles[0].x.size()});
  f.write_attribute("profiles/x", "units", "nm");
  for (const ProfileField& field : kProfileFields) {
    std::vector<double> all;
    for (const Observables& o : profiles) all.insert(all.end(), (o.*field.member).begin(), (o.*field.member).end());
    const std::string name = std::string("profiles/") + field.name;
    f.write(name, all, {n, all.size() / n});
    f.write_attribute(name, "units", field.units);
  }
}

void TransportHistory::read(const io::H5File& f) {
  const std::vector<double> flat = f.read_doubles("history/steps");
  steps.clear();
  for (std::size_t k = 0; k + StepRecord::kFields <= flat.size(); k += StepRecord::kFields) {
    const double* v = flat.data() + k;
    steps.push_back({v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]});
  }
  profiles.clear();
  const std::vector<double> times = f.read_doubles("profiles/time");
  if (times.empty()) return;
  const std::vector<double> x = f.read_doubles("profiles/x");
  profiles.resize(times.size());
  for (std::size_t p = 0; p < times.size(); ++p) {
    profiles[p].time = times[p];
    profiles[p].x = x;
  }
  for (const ProfileField& field : kProfileFields) {
    const std::vector<double> all = f.read_doubles(std::string("profiles/") + field.name);
    const std::size_t per = all.size() / times.size();
    for (std::size_t p = 0; p < times.size(); ++p) (profiles[p].*field.member).assign(all.begin() + p * per, all.begin() + (p + 1) * per);
  }
}

void write_transport_results(const std::filesystem::path& path, const Config& config, const Simulation& sim, const TransportHistory& history,
                             const RunMetadata& meta) {
  const SchrodingerPoisson& block = sim.block();
  const DeviceGrid& g = block.grid();
  const std::size_t nx = g.nx, nz = g.nz, ns = config.solver.subbands;
  io::TemporaryPath temp(path);
  {
    io::H5File f(temp.path(), io::H5File::Mode::Create);
    f.write_scalar("device/source_potential", g.source_potential);
    f.write_attribute("device/source_potential", "units", "V, the source contact's potential at the film's centre");
    f.write("device/contact_profile", sim.contacts().profile, {nz});
    f.write_attribute("device/contact_profile", "units", "V, the source column's boundary values [z] (silicon nodes; the drain's are these + V_DS)");
    f.write_scalar("device/fermi_level", sim.fermi_level());
    f.write_attribute("device/fermi_level", "units", "eV, the Fermi level of the Maxwell-Boltzmann equilibrium that starts the run");
    f.write_string("device/contacts", config.transport.options.contacts == ContactModel::SeedCode ? "seed_code" : "flat");
    f.write_scalar("device/gate_voltage", config.device.bias.gate_voltage);
    f.write_scalar("device/drain_voltage", config.device.bias.drain_voltage);
    f.write_scalar("device/temperature", config.device.temperature);
    f.write("potential", block.potential(), {nx, nz});
    f.write_attribute("potential", "units", "V, at the last time");
    f.write("density", block.density(), {nx, nz});
    f.write_attribute("density", "units", "nm^-3 (electrons), at the last time");
    f.write("subbands/energies", block.eigenvalues(), {nx, 3, ns});
    f.write_attribute("subbands/energies", "units", "eV (the energy zero: the Fermi level of the contacts' metal), [x][valley][subband], at the last time");
    if (config.transport.options.roughness.enabled) {  // the surface-roughness state of the last time
      f.write("roughness/potential_shifts", block.roughness_potential_shifts(), {2, nx, nz});
      f.write_attribute("roughness/potential_shifts", "units",
                        "V, [interface][x][z]: dV_up = V - V_ext(z), dV_low = V - V_ext(z + Delta_SR) (docs/mosfet-surface-roughness.md)");
      f.write("roughness/form_factors", sim.roughness_form_factors(), {nx, 3, ns});
      f.write_attribute("roughness/form_factors", "units", "(k_B T)^2, [x][valley][subband], at the last time");
    }
    history.write(f);
    f.write_scalar("transport/time", sim.time());
    f.write_scalar("transport/steps", static_cast<double>(sim.steps()));
    f.write_scalar("transport/drain_current", history.steps.empty() ? 0.0 : history.steps.back().drain_current);
    f.write_attribute("transport/drain_current", "units", "A/m (= uA/um) per unit width, the mean over x of j at the last time");
    f.write_string("metadata/quanta_version", version());
    f.write_string("metadata/config_file", meta.config_file);
    f.write_string("metadata/backend", meta.backend);
    f.write_string("metadata/device", meta.device);
    for (const auto& [name, s] : meta.timings) f.write_scalar("metadata/timings/" + name, s);
    f.close();
  }
  temp.commit();
}

void write_scalars(const std::filesystem::path& path, const Config& config, const TransportHistory& history) {
  io::AtomicFile out(path);
  auto& s = out.stream();
  s << "# quanta " << version() << " mosfet transport (" << config.source << "): V_G " << config.device.bias.gate_voltage << " V, V_DS "
    << config.device.bias.drain_voltage << " V, T " << config.device.temperature << " K\n";
  s << "# time[s]  mass[m^-1]  I_D[A/m]  step  dt[s]  last_energy_cell  source_excess[m^-2]  drain_excess[m^-2]  newton  current_spread\n";
  char line[320];
  for (const StepRecord& r : history.steps) {
    std::snprintf(line, sizeof line, "%.10e %.10e %.10e %8.0f %.6e %.3e %.6e %.6e %3.0f %.4e\n", r.time, r.mass, r.drain_current, r.step, r.dt,
                  r.top_cell, r.excess_source, r.excess_drain, r.newton, r.current_spread);
    s << line;
  }
  out.commit();
}

void write_sweep(const std::filesystem::path& table, const std::filesystem::path& results, const Config& config,
                 const std::vector<SweepPoint>& points, const RunMetadata& meta) {
  {
    io::AtomicFile out(table);
    auto& s = out.stream();
    s << "# quanta " << version() << " mosfet sweep (" << config.source << "): T " << config.device.temperature
      << " K; each point from the previous one's steady state (steady: I_D changed by less than " << config.transport.steady_tolerance
      << " over " << config.transport.output_interval * 1e12 << " ps)\n";
    s << "# curve  V_GS[V]  V_DS[V]  I_D[A/m=uA/um]  spread  simulated[ps]  steps  steady\n";
    char line[200];
    for (const SweepPoint& p : points) {
      std::snprintf(line, sizeof line, "%s %.6f %.6f %.9e %.4e %.6f %ld %s\n", p.curve.c_str(), p.gate_voltage, p.drain_voltage, p.drain_current,
                    p.current_spread, p.time * 1e12, p.steps, p.steady ? "yes" : "no");
      s << line;
    }
    out.commit();
  }
  io::TemporaryPath temp(results);
  {
    io::H5File f(temp.path(), io::H5File::Mode::Create);
    write_sweep_points(f, config, points);
    f.write_string("metadata/quanta_version", version());
    f.write_string("metadata/config_file", meta.config_file);
    f.write_string("metadata/backend", meta.backend);
    f.write_string("metadata/device", meta.device);
    f.close();
  }
  temp.commit();
}

void write_sweep_points(io::H5File& f, const Config& config, const std::vector<SweepPoint>& points) {
  const std::size_t n = points.size();
  std::vector<double> vg, vd, id, spread, steady, curve, time, steps;
  for (const SweepPoint& p : points) {
    vg.push_back(p.gate_voltage);
    vd.push_back(p.drain_voltage);
    id.push_back(p.drain_current);
    spread.push_back(p.current_spread);
    steady.push_back(p.steady ? 1.0 : 0.0);
    curve.push_back(p.curve == "id_vds" ? 0.0 : 1.0);
    time.push_back(p.time);
    steps.push_back(static_cast<double>(p.steps));
  }
  f.write("iv/gate_voltage", vg, {n});
  f.write("iv/drain_voltage", vd, {n});
  f.write("iv/drain_current", id, {n});
  f.write_attribute("iv/drain_current", "units", "A/m (= uA/um) per unit width");
  f.write("iv/current_spread", spread, {n});
  f.write("iv/steady", steady, {n});
  f.write("iv/curve", curve, {n});
  f.write_attribute("iv/curve", "meaning", "0: I_D-V_DS at the [bias] gate voltage, 1: I_D-V_GS at the [bias] drain voltage");
  f.write("iv/simulated_time", time, {n});
  f.write_attribute("iv/simulated_time", "units", "s (this point's run)");
  f.write("iv/steps", steps, {n});
  for (std::size_t k = 0; k < n; ++k) {
    const std::string g = "points/" + std::to_string(k) + "/";
    const Observables& o = points[k].profile;
    f.write(g + "x", o.x, {o.x.size()});
    for (const ProfileField& field : kProfileFields) {
      f.write(g + field.name, o.*field.member, {(o.*field.member).size()});
      f.write_attribute(g + field.name, "units", field.units);
    }
    f.write(g + "potential", points[k].potential, {static_cast<std::size_t>(config.grid.nx), static_cast<std::size_t>(config.grid.nz)});
    f.write_attribute(g + "potential", "units", "V");
  }
}

std::vector<SweepPoint> read_sweep_points(const io::H5File& f) {
  const std::vector<double> vg = f.read_doubles("iv/gate_voltage"), vd = f.read_doubles("iv/drain_voltage"),
                            id = f.read_doubles("iv/drain_current"), spread = f.read_doubles("iv/current_spread"),
                            steady = f.read_doubles("iv/steady"), curve = f.read_doubles("iv/curve"),
                            time = f.read_doubles("iv/simulated_time"), steps = f.read_doubles("iv/steps");
  const std::size_t n = vg.size();
  for (const auto* column : {&vd, &id, &spread, &steady, &curve, &time, &steps})
    if (column->size() != n) throw Error(f.path().string() + ": the sweep's iv/ columns differ in length");
  std::vector<SweepPoint> points(n);
  for (std::size_t k = 0; k < n; ++k) {
    SweepPoint& p = points[k];
    p.curve = curve[k] == 0.0 ? "id_vds" : "id_vgs";
    p.gate_voltage = vg[k];
    p.drain_voltage = vd[k];
    p.drain_current = id[k];
    p.current_spread = spread[k];
    p.steady = steady[k] != 0.0;
    p.time = time[k];
    p.steps = static_cast<long>(steps[k]);
    const std::string g = "points/" + std::to_string(k) + "/";
    p.profile.x = f.read_doubles(g + "x");
    for (const ProfileField& field : kProfileFields) p.profile.*field.member = f.read_doubles(g + field.name);
    p.profile.drain_current = p.drain_current;
    p.profile.current_spread = p.current_spread;
    p.potential = f.read_doubles(g + "potential");
  }
  return points;
}

}  // namespace quanta::mosfet
