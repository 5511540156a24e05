// quanta linelist against TROVE's own SiH2 line list on the GPU: both methods, the dipole resident and in
// blocks, small groups with the upper vectors streamed from the checkpoints (trove_reference.hpp).
#include <gtest/gtest.h>

#include "quanta/core/backend.hpp"
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

