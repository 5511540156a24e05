#pragma once
// BerkeleyGW's silicon example (tests/data/si-bgw): the RunOptions of a `quanta gw` run on its mean-field files, with the
// keyword files of `inputs` (a folder of the example, e.g. "bgw-inputs" or "bgw-ff").
#include <string>

#include "quanta/gw/run.hpp"
#include "quanta/test/data.hpp"

inline quanta::gw::RunOptions si_bgw_run_options(const std::string& inputs) {
  const std::string si = quanta::test::data_path("gw/si-bgw").string() + "/";
  quanta::gw::RunOptions o;
  o.input_dir = si + inputs;
  o.wfn = si + "mean-field/02-wfn/WFN";
  o.wfnq = si + "mean-field/03-wfnq/WFNq";
  o.wfn_inner = si + "mean-field/04-wfn_co/WFN_co";
  o.rho = si + "mean-field/04-wfn_co/RHO";
  o.vxc = si + "mean-field/04-wfn_co/vxc.dat";
  return o;
}
