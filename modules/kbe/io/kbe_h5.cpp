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

void write_history(io::H5File& f, const History& h) {
  const std::size_t n = h.size(), nk = static_cast<std::size_t>(h.nk);
  for (const HistorySeries& x : const_cast<History&>(h).series())  // read only
    x.per_step == 1 ? f.write(x.name, *x.values, {n}) : f.write(x.name, *x.values, {n, nk});
  f.write("solver/corrector_passes", h.corrector_passes, {n});
}

}  // namespace

std::vector<HistorySeries> History::series() {
  const std::size_t k = static_cast<std::size_t>(nk);
  return {{"time", &time, 1},
          {"field", &field, 1},
          {"interaction_u", &u, 1},
          {"occupations/valence", &n_valence, k},
          {"occupations/conduction", &n_conduction, k},
          {"observables/particles", &particles, 1},
          {"observables/polarization", &polarization, 1},
          {"observables/energy_kinetic", &energy_kinetic, 1},
          {"observables/energy_interaction", &energy_interaction, 1},
          {"observables/energy_correlation", &energy_correlation, 1},
          {"observables/energy_total", &energy_total, 1},
          {"observables/energy_field", &energy_field, 1},
          {"solver/corrector_change", &corrector_change, 1},
          {"solver/step_error", &step_error, 1},
          {"solver/rejected_steps", &rejected_steps, 1}};
}

void History::append(const Observables& o, const StepStats& st) {
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
  corrector_passes.push_back(st.corrector_passes);
  corrector_change.push_back(st.last_change);
  step_error.push_back(st.error);
  rejected_steps.push_back(st.rejected);
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
    write_history(f, h);
    if (green_less && green_greater) {
      const std::size_t nb = kernels::tri_count(static_cast<int>(h.size()));  // the rows of the steps taken
      const std::vector<std::size_t> dims = {nb, 4, static_cast<std::size_t>(nk), 2};
      // Straight from the half-plane ([re, im] pairs are the doubles' layout): no copy of it.
      for (const auto& [name, g] : {std::pair{"green/lesser", green_less}, std::pair{"green/greater", green_greater}}) {
        f.create_doubles(name, dims);
        f.write_rows(name, 0, nb, reinterpret_cast<const double*>(g->data()));
      }
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
    f.write_scalar("metadata/adaptive", c.time.adaptive ? 1.0 : 0.0);
    if (c.time.adaptive) {
      f.write_scalar("metadata/time_end", c.time.end);
      f.write_scalar("metadata/time_tolerance", c.time.tolerance);
      f.write_scalar("metadata/dt_max", c.time.largest_step());
    }
    f.write_scalar("metadata/nk", nk);
    f.write_scalar("metadata/interaction_u", c.model.interaction.u);
    f.write_string("metadata/history/storage", meta.history.storage);
    f.write_scalar("metadata/history/numbers", static_cast<double>(meta.history.numbers));
    f.write_scalar("metadata/history/dense_numbers", static_cast<double>(meta.history.dense_numbers));
    if (c.solver.history == HistoryStorage::Compressed) {
      f.write_scalar("metadata/history/tolerance", c.solver.history_tolerance);
      f.write_scalar("metadata/history/leaf", c.solver.history_leaf);
      f.write_scalar("metadata/history/blocks", meta.history.blocks);
      f.write_scalar("metadata/history/max_rank", meta.history.max_rank);
    }
    for (const auto& [name, seconds] : meta.timings) f.write_scalar("metadata/timings/" + name, seconds);
    f.close();
  }
  io::commit_rename(tmp, file);
}

}  // namespace quanta::kbe
