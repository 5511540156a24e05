// quanta-kbe.h5 and the checkpoint file.
#include <cstdio>
#include <cstring>

#include "../kernels/layout.hpp"
#include "outputs.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/core/version.hpp"

namespace quanta::kbe {
namespace {

std::vector<double> as_doubles(const std::vector<cplx>& v) {
  std::vector<double> d(2 * v.size());
  std::memcpy(d.data(), v.data(), d.size() * sizeof(double));
  return d;
}

std::vector<cplx> as_complex(const std::vector<double>& d) {
  std::vector<cplx> v(d.size() / 2);
  std::memcpy(static_cast<void*>(v.data()), d.data(), 2 * v.size() * sizeof(double));
  return v;
}

void write_history(io::H5File& f, const std::string& g, const History& h) {
  const std::size_t n = h.size(), nk = static_cast<std::size_t>(h.nk);
  f.write(g + "time", h.time, {n});
  f.write(g + "field", h.field, {n});
  f.write(g + "interaction_u", h.u, {n});
  f.write(g + "occupations/valence", h.n_valence, {n, nk});
  f.write(g + "occupations/conduction", h.n_conduction, {n, nk});
  f.write(g + "observables/particles", h.particles, {n});
  f.write(g + "observables/polarization", h.polarization, {n});
  f.write(g + "observables/energy_kinetic", h.energy_kinetic, {n});
  f.write(g + "observables/energy_interaction", h.energy_interaction, {n});
  f.write(g + "observables/energy_correlation", h.energy_correlation, {n});
  f.write(g + "observables/energy_total", h.energy_total, {n});
  f.write(g + "observables/energy_field", h.energy_field, {n});
  f.write(g + "solver/corrector_passes", h.corrector_passes, {n});
}

void read_history(const io::H5File& f, const std::string& g, int nk, History& h) {
  h = History{};
  h.nk = nk;
  h.time = f.read_doubles(g + "time");
  h.field = f.read_doubles(g + "field");
  h.u = f.read_doubles(g + "interaction_u");
  h.n_valence = f.read_doubles(g + "occupations/valence");
  h.n_conduction = f.read_doubles(g + "occupations/conduction");
  h.particles = f.read_doubles(g + "observables/particles");
  h.polarization = f.read_doubles(g + "observables/polarization");
  h.energy_kinetic = f.read_doubles(g + "observables/energy_kinetic");
  h.energy_interaction = f.read_doubles(g + "observables/energy_interaction");
  h.energy_correlation = f.read_doubles(g + "observables/energy_correlation");
  h.energy_total = f.read_doubles(g + "observables/energy_total");
  h.energy_field = f.read_doubles(g + "observables/energy_field");
  h.corrector_passes = f.read_ints(g + "solver/corrector_passes");
}

}  // namespace

void History::append(const Observables& o, int passes) {
  nk = static_cast<int>(o.n_valence.size());
  time.push_back(o.time);
  field.push_back(o.field);
  u.push_back(o.u);
  particles.push_back(o.particles);
  polarization.push_back(o.polarization);
  energy_kinetic.push_back(o.energy_kinetic);
  energy_interaction.push_back(o.energy_interaction);
  energy_correlation.push_back(o.energy_correlation);
  energy_total.push_back(o.energy_total);
  energy_field.push_back(o.energy_field);
  n_valence.insert(n_valence.end(), o.n_valence.begin(), o.n_valence.end());
  n_conduction.insert(n_conduction.end(), o.n_conduction.begin(), o.n_conduction.end());
  corrector_passes.push_back(passes);
}

std::string hex_digest(std::uint64_t d) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(d));
  return buf;
}

void write_results(const std::filesystem::path& file, const Config& c, const History& h, const std::vector<cplx>* green_less,
                   const std::vector<cplx>* green_greater, const RunMetadata& meta) {
  const auto tmp = io::temporary_path_for(file);
  {
    io::H5File f(tmp, io::H5File::Mode::Create);
    const int nk = c.model.nk;
    std::vector<double> k(nk);
    for (int i = 0; i < nk; ++i) k[i] = kernels::k_value(i, nk);
    f.write("k", k, {static_cast<std::size_t>(nk)});
    write_history(f, "", h);
    if (green_less && green_greater) {
      const std::size_t nb = kernels::tri_count(c.time.steps + 1);
      const std::vector<std::size_t> dims = {nb, 4, static_cast<std::size_t>(nk), 2};
      f.write("green/lesser", as_doubles(*green_less), dims);
      f.write("green/greater", as_doubles(*green_greater), dims);
      f.write_attribute("green/lesser", "layout",
                        "block (n, j), j <= n, at n(n+1)/2 + j; [4] band pairs v-v, v-c, c-v, c-c; [nk]; [re, im]; "
                        "G(t_j, t_n) = -G(t_n, t_j)^dagger");
    }
    f.write_string("metadata/quanta_version", version());
    f.write_string("metadata/backend", meta.backend);
    f.write_string("metadata/device", meta.device);
    f.write_scalar("metadata/processes", meta.processes);
    f.write_string("metadata/row_transposition", meta.transpose);
    f.write_string("metadata/config_file", meta.config_file);
    f.write_string("metadata/config_digest", hex_digest(meta.digest));
    f.write_string("metadata/self_energy", to_string(c.solver.self_energy));
    f.write_scalar("metadata/dt", c.time.dt);
    f.write_scalar("metadata/nk", nk);
    f.write_scalar("metadata/interaction_u", c.model.interaction.u);
    for (const auto& [name, seconds] : meta.timings) f.write_scalar("metadata/timings/" + name, seconds);
    f.close();
  }
  io::commit_rename(tmp, file);
}

void write_checkpoint(const std::filesystem::path& file, const PropagatorState& s, const History& h, std::uint64_t digest) {
  const auto tmp = io::temporary_path_for(file);
  {
    io::H5File f(tmp, io::H5File::Mode::Create);
    f.write_string("digest", hex_digest(digest));
    f.write("step", std::vector<std::int64_t>{s.step}, {1});
    f.write("state/g_less", as_doubles(s.g_less), {2 * s.g_less.size()});
    f.write("state/g_greater", as_doubles(s.g_greater), {2 * s.g_greater.size()});
    f.write("state/i_less", as_doubles(s.i_less), {2 * s.i_less.size()});
    f.write("state/i_greater", as_doubles(s.i_greater), {2 * s.i_greater.size()});
    write_history(f, "history/", h);
    f.close();
  }
  io::commit_rename(tmp, file);
}

void read_checkpoint(const std::filesystem::path& file, std::uint64_t digest, PropagatorState& s, History& h) {
  if (!std::filesystem::exists(file))
    throw InputError(file.string(), "--resume: found no checkpoint file, expected one written by an earlier run of this config");
  io::H5File f(file, io::H5File::Mode::Read);
  const std::string found = f.read_string("digest");
  if (found != hex_digest(digest))
    throw InputError(file.string(), 0, "digest", found, hex_digest(digest) + " (the checkpoint was written for another config)");
  s.step = static_cast<int>(f.read_ints("step").at(0));
  s.g_less = as_complex(f.read_doubles("state/g_less"));
  s.g_greater = as_complex(f.read_doubles("state/g_greater"));
  s.i_less = as_complex(f.read_doubles("state/i_less"));
  s.i_greater = as_complex(f.read_doubles("state/i_greater"));
  const int nk = static_cast<int>(f.dims("history/occupations/valence").at(1));
  read_history(f, "history/", nk, h);
  if (static_cast<int>(h.size()) != s.step + 1)
    throw InputError(file.string(), 0, "history/time", std::to_string(h.size()) + " entries",
                     std::to_string(s.step + 1) + " (one per completed step)");
}

}  // namespace quanta::kbe
