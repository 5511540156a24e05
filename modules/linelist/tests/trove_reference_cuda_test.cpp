// quanta linelist against TROVE's own SiH2 line list on the GPU: both methods, the dipole resident and in
// blocks, small groups with the upper vectors streamed from the checkpoints (trove_reference.hpp).
#include <gtest/gtest.h>

#include "quanta/core/backend.hpp"
#include "trove_files.hpp"
#include "trove_reference.hpp"

using namespace quanta::linelist;
using namespace linelist_test;

TEST(LinelistTrove, CudaReproducesTrovesTable) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  expect_matches_trove(compute(quanta::Backend::Cuda, Method::Gemm));
  expect_matches_trove(compute(quanta::Backend::Cuda, Method::CacheReduce, 3));
  expect_matches_trove(compute(quanta::Backend::Cuda, Method::Gemm, 0, {7, 5, false}));
  expect_matches_trove(compute(quanta::Backend::Cuda, Method::CacheReduce, 2, {11, 3, true}));
}


// Every TROVE reference folder through the command on the GPU (`--backend cuda`): TROVE's .states identical and its
// .trans the same lines in the same order, A within 1e-7 relative (trove_files.hpp), as on the CPU
// (trove_reference_test.cpp). D2h(M), C3v(M) and D3h(M) with their degenerate irreps, Cs(M), C2h(M), and the linear
// triatomic's Csn group.
TEST(LinelistTrove, CudaReproducesEveryTroveReferenceFolder) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  expect_command_gives_troves_files("hooh-trove", "HOOH_J0-3_0_3", 50290, "H2O2, D2h(M), CUDA", false, "cuda");
  expect_command_gives_troves_files("nh3-trove", "NH3_J0-3_0_3", 4286, "NH3, C3v(M), CUDA", false, "cuda");
  expect_command_gives_troves_files("nh3-d3h-trove", "NH3_J0-3_0_3", 3576, "NH3, D3h(M), CUDA", false, "cuda");
  expect_command_gives_troves_files("sihd-trove", "SiHD_J0-3_0_3", 9072, "SiHD, Cs(M), CUDA", false, "cuda");
  expect_command_gives_troves_files("hpph-trove", "HPPH_J0-3_0_3", 7603, "HPPH, C2h(M), CUDA", false, "cuda");
  expect_command_gives_troves_files("n2o-trove", "N2O_J0-4_0_4", 6311, "N2O, Csn 4, CUDA", false, "cuda");
}
