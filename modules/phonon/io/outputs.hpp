#pragma once
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "quanta/phonon/bte.hpp"
#include "quanta/phonon/control.hpp"
#include "quanta/phonon/harmonic.hpp"
#include "quanta/phonon/qgrid.hpp"
#include "quanta/phonon/scattering.hpp"
#include "quanta/phonon/spectrum.hpp"

namespace quanta::phonon {

// Everything the harmonic stage produces, gathered so that the writers see one object.
struct HarmonicResults {
  const Control* control = nullptr;
  const QGrid* grid = nullptr;
  const Spectrum* spectrum = nullptr;   // on the full mesh, symmetrized
  DensityOfStates dos;
  std::vector<double> temperatures;
  std::vector<double> cv;                          // [nT] J/(m^3 K)
  std::vector<std::array<double, 9>> kappa_sg;     // [nT] W/(m K nm)
};

// The anharmonic stage: three-phonon and isotope scattering and the BTE solutions, per temperature.
struct TemperatureResults {
  double temperature = 0;
  ThreePhononRates rates;             // process rates dropped once the BTE is solved
  std::vector<double> total_rate;     // [nlist][nb] what tau uses: 3ph + isotopes (+ boundary when asked)
  BteSolution bte;
  CumulativeKappa cumulative;
  double gruneisen_total = 0;         // heat-capacity-weighted average of the mode Grueneisen parameters
};
struct ScatteringResults {
  PhaseSpace p3;
  std::vector<double> isotopic;       // [nlist][nb]
  std::vector<double> boundary;       // [nlist][nb] |v| / L (L = 1 nm unless boundaries are on)
  std::vector<double> gruneisen;      // [nptk][nb] mode Grueneisen parameters on the full mesh
  std::vector<TemperatureResults> per_t;
  std::int64_t nplus = 0, nminus = 0;
  bool four_phonon = false;           // CONTROL's four_phonon: p4 holds the four-phonon results
  FourPhononScattering p4;
  // CONTROL's onlyharmonic: phase spaces only (P3, isotopes, WP3 per temperature); no rates, Grueneisen
  // parameters or BTE.
  bool harmonic_only = false;
};

// ShengBTE's text files (BTE.qpoints, BTE.omega, BTE.v, ..., T<T>K/BTE.cv), each written atomically.
void write_bte_files(const std::filesystem::path& dir, const HarmonicResults& r);

// The anharmonic stage's text files (BTE.P3*, BTE.w_isotopic, BTE.gruneisen, T<T>K/BTE.w_3ph*, BTE.kappa*,
// ...); with harmonic_only the phase-space files alone, as FourPhonon's onlyharmonic run writes them.
void write_scattering_files(const std::filesystem::path& dir, const HarmonicResults& h, const ScatteringResults& r);

// At the start of a run: creates `dir` if needed and checks that it can be written (Error naming it
// otherwise), removes temporaries of these outputs left by a killed run, and warns when earlier results
// (BTE.*, quanta-phonon.h5) are there to be replaced.
void prepare_output_dir(const std::filesystem::path& dir);

// Run metadata for quanta-phonon.h5.
struct RunMetadata {
  std::string backend, device, symmetry_finder, force_constants_file;
  std::vector<std::pair<std::string, std::string>> input_hashes;  // file -> FNV-1a 64 hex digest
  std::vector<std::pair<std::string, double>> timings;             // stage -> seconds
};
void write_phonon_h5(const std::filesystem::path& file, const HarmonicResults& r, const RunMetadata& meta,
                     const ScatteringResults* scattering = nullptr);

std::string file_digest(const std::filesystem::path& file);  // FNV-1a 64 of the contents, hex

}  // namespace quanta::phonon
