#pragma once
// QUANTA_HD marks inline functions shared by the CPU and CUDA backends, so that one formula serves both.
#if defined(__CUDACC__)
#define QUANTA_HD __host__ __device__ inline
#else
#define QUANTA_HD inline
#endif
