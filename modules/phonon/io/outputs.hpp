#pragma once
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "quanta/phonon/control.hpp"
#include "quanta/phonon/harmonic.hpp"
#include "quanta/phonon/qgrid.hpp"
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

// ShengBTE's text files (BTE.qpoints, BTE.omega, BTE.v, ..., T<T>K/BTE.cv), each written atomically.
void write_bte_files(const std::filesystem::path& dir, const HarmonicResults& r);

// Run metadata for quanta-phonon.h5.
struct RunMetadata {
  std::string backend, device, symmetry_finder, force_constants_file;
  std::vector<std::pair<std::string, std::string>> input_hashes;  // file -> FNV-1a 64 hex digest
  std::vector<std::pair<std::string, double>> timings;             // stage -> seconds
};
void write_phonon_h5(const std::filesystem::path& file, const HarmonicResults& r, const RunMetadata& meta);

std::string file_digest(const std::filesystem::path& file);  // FNV-1a 64 of the contents, hex

}  // namespace quanta::phonon
