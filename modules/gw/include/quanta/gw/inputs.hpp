#pragma once
// BerkeleyGW's keyword input files: epsilon.inp and sigma.inp ("keyword value" lines, flags alone on a
// line, "begin qpoints/kpoints ... end" blocks, '#' comments). Unknown keywords and keywords of
// features quanta does not implement are errors naming the file and line.
#include <filesystem>

#include "quanta/gw/epsilon.hpp"
#include "quanta/gw/sigma.hpp"

namespace quanta::gw {

EpsilonParams read_epsilon_inp(const std::filesystem::path& file);
SigmaParams read_sigma_inp(const std::filesystem::path& file);

}  // namespace quanta::gw
