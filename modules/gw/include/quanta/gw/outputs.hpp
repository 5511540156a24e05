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

void write_sigma_hp_log(const std::filesystem::path& file, const Crystal& crystal, const SigmaParams& params,
                        const std::vector<SigmaK>& sigma);
// which = 0: Eqp0, 1: Eqp1.
void write_eqp(const std::filesystem::path& file, const std::vector<SigmaK>& sigma, int which);

struct RunMetadata {
  std::string backend, device;
  std::map<std::string, std::string> inputs;   // role -> file
  std::map<std::string, double> timings;       // stage -> seconds
};
void write_gw_h5(const std::filesystem::path& file, const std::vector<DielectricMatrix>& eps, bool with_epsinv,
                 const std::vector<SigmaK>& sigma, const RunMetadata& meta);

}  // namespace quanta::gw
