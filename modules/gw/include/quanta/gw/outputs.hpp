#pragma once
// The files a BerkeleyGW user's scripts read (sigma_hp.log, eqp0.dat, eqp1.dat, in BerkeleyGW's formats)
// and quanta-gw.h5 with every result and the run's metadata. All are written through a temporary name.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "quanta/gw/epsilon.hpp"
#include "quanta/gw/sigma.hpp"

namespace quanta::gw {

// With off-diagonal elements, their section follows each k-point's table, as BerkeleyGW 3.0 writes it
// (complex_flavour: the imaginary parts too), which its offdiag.x reads.
void write_sigma_hp_log(const std::filesystem::path& file, const Crystal& crystal, const SigmaParams& params,
                        const std::vector<SigmaK>& sigma, bool complex_flavour = false);
// With sigma_matrix: the eigenvalues of each k-point's quasiparticle Hamiltonian (solve_dyson_matrix), as
// BerkeleyGW's offdiag.x prints them from sigma_hp.log.
void write_offdiag_log(const std::filesystem::path& file, const SigmaParams& params, const std::vector<SigmaK>& sigma, bool complex_flavour);
// With sigma_matrix_frequency_grid: the self-consistent solutions of Dyson's equation in eqp.dat's layout (the
// i-th mean-field energy of the window and the real part of the i-th solution, both by increasing energy).
void write_eqp_dyson(const std::filesystem::path& file, const SigmaParams& params, const std::vector<SigmaK>& sigma);
// which = 0: Eqp0, 1: Eqp1, 2: full frequency's linearized solution (SigmaBand::eqp_lin).
void write_eqp(const std::filesystem::path& file, const std::vector<SigmaK>& sigma, int which);

struct RunMetadata {
  std::string backend, device;
  std::map<std::string, std::string> inputs;   // role -> file
  std::map<std::string, double> timings;       // stage -> seconds
};
void write_gw_h5(const std::filesystem::path& file, const std::vector<DielectricMatrix>& eps, bool with_epsinv,
                 const std::vector<SigmaK>& sigma, const RunMetadata& meta);

}  // namespace quanta::gw
