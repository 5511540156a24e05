#pragma once
// BerkeleyGW's keyword input files: epsilon.inp and sigma.inp ("keyword value" lines, flags alone on a
// line, "begin qpoints/kpoints ... end" blocks, '#' comments). Unknown keywords and keywords of
// features quanta does not implement are errors naming the file, line and keyword; values out of
// range are refused with the range; of a repeated keyword the last wins, with a warning (BerkeleyGW's rule).
#include <filesystem>

#include "quanta/gw/epsilon.hpp"
#include "quanta/gw/sigma.hpp"

namespace quanta::gw {

EpsilonParams read_epsilon_inp(const std::filesystem::path& file);
SigmaParams read_sigma_inp(const std::filesystem::path& file);

// The keywords against the wavefunction files' headers (read_wfn_header), before any computation, as
// BerkeleyGW checks them: number_bands at most the file's bands less one and not splitting a degenerate
// set (nor, for Sigma, band_index_min/max at its k-points) unless degeneracy_check_override is set
// (then a warning); cutoffs within the density's sphere; Sigma's k-points in WFN_inner and the
// q-points generating its grid. InputError names `input` (the keyword file) and the keyword.
void check_epsilon_inputs(const std::filesystem::path& input, const EpsilonParams& params, const Wavefunctions& wfn,
                          const Wavefunctions* wfnq);
void check_sigma_inputs(const std::filesystem::path& input, const SigmaParams& params, const EpsilonParams& epsilon,
                        const Wavefunctions& inner);

}  // namespace quanta::gw
