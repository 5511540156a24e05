#pragma once
#include <array>
#include <filesystem>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/phonon/control.hpp"
#include "quanta/phonon/force_constants.hpp"
#include "quanta/phonon/qgrid.hpp"
#include "quanta/phonon/spectrum.hpp"

namespace quanta::phonon {

// The allowed three-phonon processes of every irreducible mode and their |V|^2, which do not depend on
// temperature. Irreducible mode m = l * nb + i (l: irreducible q-point, i: band); its processes are
// [offset[m], offset[m+1]) of the arrays, each naming the second (q', j) and third (q'', k) phonons by
// their full-mesh mode index q * nb + band.
// A sampled list (FourPhonon's estimator, ThreePhononSample) holds the allowed ones of `draws` candidates
// drawn per mode (with replacement, so a process may appear twice): its sums times scale() = Nq nb^2 / draws
// estimate the exact ones.
struct ProcessList {
  std::vector<std::int64_t> offset;   // [nmodes + 1]
  std::vector<std::int32_t> mode2, mode3;
  std::vector<double> v2;             // |V|^2, (eV/A^3)^2 / amu^3 (empty when the matrix elements were not asked for)
  long long draws = -1;               // per mode; -1: every candidate was tested (exact)
  double candidates = 0;              // per mode, Nq nb^2 (sampled lists)
  std::size_t size() const { return mode2.size(); }
  std::int64_t listed(int m) const { return offset[m + 1] - offset[m]; }
  double scale() const { return draws > 0 ? candidates / double(draws) : 1.0; }
  // Mode m's number of allowed processes: counted, or estimated and truncated to an integer as FourPhonon's is.
  std::int64_t count(int m) const {
    return draws > 0 ? static_cast<std::int64_t>(double(listed(m)) / double(draws) * candidates) : listed(m);
  }
  std::int64_t total_count() const {
    std::int64_t n = 0;
    for (int m = 0; m + 1 < static_cast<int>(offset.size()); ++m) n += count(m);
    return n;
  }
};

struct ThreePhononProcesses {
  ProcessList plus, minus;            // absorption q + q' -> q'', emission q -> q' + q''
  // Under MPI the irreducible modes are shared out over the ranks: owner[m] is the rank holding mode m's
  // processes, and the lists of the others' modes are empty here. Empty: one process holds every mode.
  // The per-mode results computed from the lists (rates, phase spaces, the BTE's iterate) are joined over
  // the ranks by the functions that compute them.
  std::vector<int> owner;
  bool holds(int m) const;            // this rank holds mode m's processes
};
// The number of processes of a list, added over the MPI ranks that share the stage (collective).
std::int64_t joined_total_count(const ProcessList& l);

// How the CUDA backend works through the processes (the CPU backend loops over modes with OpenMP).
enum class ScatteringStrategy {
  Auto,      // all modes at once when the lists fit the device memory budget, else batches
  AllModes,  // every process of every mode in one launch
  Batched,   // batches of modes; the next batch is enumerated while the device evaluates the current one
};
enum class Enumeration { Auto, Cpu, Gpu };

// Which three-phonon candidates are tested: every one, or FourPhonon's sampling estimator
// (num_sample_process_3ph, num_sample_process_3ph_phase_space; Guo et al., npj Comput. Mater. 10, 31 (2024)):
// per irreducible mode and sign, `draws` candidates (q', j, k) drawn uniformly with replacement from the
// Nq nb^2 (kernels/sampling.hpp).
struct ThreePhononSample {
  long long draws = -1;               // -1: every candidate
  unsigned long long seed = 0;        // of the generator
  int purpose = 0;                    // tells independent samples of one run apart: 0 phase spaces, 1 rates
};

struct ScatteringOptions {
  Backend backend = Backend::Cpu;     // resolved: Cpu or Cuda
  ScatteringStrategy strategy = ScatteringStrategy::Auto;
  Enumeration enumeration = Enumeration::Auto;
  std::size_t gpu_mem_limit = 0;      // bytes, 0: free memory only
  std::size_t batch_modes = 0;        // modes per batch (Batched), 0: from the memory budget
  double omega_max = 1e100;           // rad/ps: irreducible modes above it get no processes (CONTROL's omega_max)
  bool quiet = true;
  // Three-phonon stage only: the candidates tested, and whether |V|^2 is evaluated (not for lists that
  // serve the phase spaces alone).
  ThreePhononSample sample;
  bool matrix_elements = true;
};

struct ScatteringStats {
  std::string strategy, enumeration;
  int batches = 0;
  std::size_t peak_device_bytes = 0;
  double seconds_enumerate = 0, seconds_vertex = 0, seconds_total = 0;
  std::vector<double> mode_cost;      // under MPI: the estimated cost of each irreducible mode, by which they were dealt
};

ScatteringStrategy parse_strategy(const std::string& s);   // auto | all-modes | batched
Enumeration parse_enumeration(const std::string& s);       // auto | cpu | gpu

// Enumerates the processes of all irreducible modes and evaluates their matrix elements.
ThreePhononProcesses three_phonon_processes(const Crystal& crystal, const QGrid& grid, const Spectrum& spectrum,
                                            const ThirdOrderFc& fc3, double scalebroad, const ScatteringOptions& options,
                                            ScatteringStats* stats = nullptr);

// Per irreducible mode ([nlist][nb], 1/ps or ps^4/rad^4 for WP3): the three-phonon rates and weighted phase
// spaces at one temperature, as ShengBTE defines them (the emission rate and WP3- carry ShengBTE's 1/2).
struct ThreePhononRates {
  std::vector<double> gamma_plus, gamma_minus, wp3_plus, wp3_minus;
  // Rate of each process (1/ps), for the iterative solution; same order as the ProcessList arrays.
  std::vector<double> process_plus, process_minus;
};
struct RateOptions {
  Backend backend = Backend::Cpu;     // resolved: Cpu or Cuda (falls back to the CPU when the device is full)
  std::size_t gpu_mem_limit = 0;      // bytes, 0: free memory only
  bool keep_process_rates = false;    // fill process_plus/process_minus (the iterative BTE needs them)
  bool quiet = true;                  // no progress report on stderr
};
ThreePhononRates three_phonon_rates(const Crystal& crystal, const QGrid& grid, const Spectrum& spectrum,
                                    const ThreePhononProcesses& p, double scalebroad, double temperature,
                                    const RateOptions& options);

// The phase spaces P3+ and P3- per irreducible mode ([nlist][nb]), temperature independent.
struct PhaseSpace {
  std::vector<double> plus, minus;
};
PhaseSpace three_phonon_phase_space(const QGrid& grid, const Spectrum& spectrum, const ThreePhononProcesses& p,
                                    double scalebroad, const Crystal& crystal);

// Four-phonon scattering (FourPhonon's four_phonon = .true.), classes [0] ++, [1] +-, [2] --: per irreducible
// mode ([nlist][nb]) the number of allowed processes and the phase space P4 (FourPhonon's N^3 nb^4
// normalization), and per temperature the rates (1/ps) and weighted phase spaces WP4 ((ps/rad)^4 ... as
// FourPhonon writes them). Without force constants (onlyharmonic) the rates are zero.
struct FourPhononScattering {
  std::array<std::vector<std::int64_t>, 3> count;
  std::array<std::vector<double>, 3> phase_space;
  struct AtTemperature {
    std::array<std::vector<double>, 3> gamma, wp4;
    std::array<std::vector<double>, 3> gamma_umklapp;  // the Umklapp part of gamma (kernels::umklapp4)
  };
  std::vector<AtTemperature> per_t;   // in the order of the temperatures given
  // With collision_rows (four_phonon_iteration): the four-phonon part of the BTE's collision sum, one row per
  // irreducible mode m over the full mesh's modes n, at each temperature:
  //   rows[(t * nmodes + m) * nfull + n] = sum over m's processes with n among modes 2-4 of their rate (1/ps)
  //   times its sign in D: ++ G (F4 - F2 - F3), +- G (F4 - F2 + F3), -- G (F4 + F2 + F3),
  // so that D(m) = sum_n rows[m][n] F(n): the processes themselves (~10^10 at 16^3) need not be kept, and the
  // rows hold nmodes x nfull numbers per temperature.
  std::vector<double> rows;
  std::size_t nfull = 0;
};
// FourPhonon's sampling estimator (num_sample_process_4ph, num_sample_process_4ph_phase_space): draws per
// irreducible mode and class for the rates and WP4, and for the counts and P4 (-1: every process), and the
// seed of the draws. A sampled quantity is the sample's sum times Nq^2 nb^3 / Ns (unbiased; relative error
// about 1 / sqrt(the number of allowed draws)); counts are truncated to integers, as in FourPhonon.
struct FourPhononSampling {
  long long rates = -1, phase_space = -1;
  unsigned long long seed = 0;
};
// Checkpoints of the stage (src/four_phonon_checkpoint.hpp): the output folder, the fingerprint of the
// inputs and options the results depend on, and whether to continue from the folder's checkpoints.
struct FourPhononCheckpointSpec {
  std::filesystem::path dir;
  std::string fingerprint;
  bool resume = false;
};
// The irreducible modes go in blocks of 16 (per pass: temperature group or sample), checkpointed as they
// complete; under MPI, every rank takes every size-th block and the sums are joined at the end.
FourPhononScattering four_phonon_scattering(const Crystal& crystal, const QGrid& grid, const Spectrum& spectrum,
                                            const FourthOrderFc& fc4, double scalebroad, const std::vector<double>& temperatures,
                                            const ScatteringOptions& options, bool collision_rows = false,
                                            const FourPhononSampling& sampling = {},
                                            const FourPhononCheckpointSpec* checkpoint = nullptr);

// Isotope scattering rates per irreducible mode ([nlist][nb], 1/ps) (Tamura's formula, ShengBTE's sums).
std::vector<double> isotope_rates(const Control& control, const QGrid& grid, const Spectrum& spectrum);

// Mode Grueneisen parameters on the full mesh ([nptk][nb]) from the third-order force constants, as
// ShengBTE defines them (zero where omega = 0). Inside a degenerate group only the group's sum is
// independent of the eigenvectors chosen.
std::vector<double> mode_gruneisen(const Crystal& crystal, const QGrid& grid, const Spectrum& spectrum, const ThirdOrderFc& fc3);
// Their average over the full mesh weighted by the mode heat capacities (ShengBTE's BTE.gruneisen_total).
double total_gruneisen(const Spectrum& spectrum, const std::vector<double>& gamma, double temperature);

}  // namespace quanta::phonon
