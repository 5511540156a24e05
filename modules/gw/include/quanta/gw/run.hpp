#pragma once
#include <filesystem>
#include <string>

#include "quanta/core/backend.hpp"

namespace quanta::gw {

// The files of a run; relative names are taken in input_dir. Defaults are BerkeleyGW's file names.
struct RunOptions {
  std::filesystem::path input_dir = ".";
  std::filesystem::path epsilon_input = "epsilon.inp", sigma_input = "sigma.inp";
  std::filesystem::path wfn = "WFN", wfnq = "WFNq", wfn_inner = "WFN_inner", rho = "RHO", vxc = "vxc.dat";
  std::filesystem::path vxc_potential = "VXC";  // used when vxc is absent
  // BerkeleyGW's Epsilon output: when eps0mat is given, Sigma uses these matrices and Epsilon does not run
  // (epsilon_input, wfn and wfnq are then not read); epsmat holds the q-points other than q0 (may be empty).
  std::filesystem::path eps0mat, epsmat;
  std::filesystem::path output_dir;  // default: input_dir
  Backend backend = Backend::Auto;
  std::size_t gpu_mem_limit = 0;     // bytes; 0: the free device memory less a margin
  int threads = 0;
  bool quiet = false;
  bool write_epsinv = false;         // eps^-1 matrices into quanta-gw.h5
};

struct RunSummary {
  int nq = 0, nk = 0, nbands_sigma = 0;
  int ranks = 1;                     // processes that shared the work (MPI)
  std::string backend;
  double seconds_epsilon = 0, seconds_sigma = 0;
  std::filesystem::path results;
};

// quanta gw: Epsilon (chi0, eps^-1 for each q of epsilon.inp), then Sigma (GPP) for each k of sigma.inp.
RunSummary run(const RunOptions& options);

}  // namespace quanta::gw
