#pragma once
// Launchers of the mosfet CUDA kernels (one file each, matching kernels/cpu/), used by engine_cuda.cu.
// Every pointer in the structs and arguments is device memory; shapes and equations as in the CPU
// kernels' headers (schrodinger.hpp, frechet.hpp, linear_system.hpp). Every launcher checks its launches;
// the ones returning a number synchronize through the copy of that number to the host.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "../frechet.hpp"
#include "../linear_system.hpp"
#include "../roughness.hpp"
#include "../schrodinger.hpp"

namespace quanta::mosfet::kernels {

// --- schrodinger_cuda.cu ------------------------------------------------------------------------
// d, e [nx][3][nz-2] for the potential [nx][nz]: one thread per (i, v, jj).
void build_schrodinger_cuda(const SchrodingerBuild& b);
// Multi-section from the Gershgorin interval (seed sec. 4.1.1): one warp per eigenvalue (i, v, p).
void eigenvalues_multisection_cuda(const EigenProblem& p);
// Safeguarded Newton-Raphson from the eigenvalues in p.eigenvalues (seed sec. 4.2): one thread each.
void eigenvalues_newton_cuda(const EigenProblem& p);
// Inverse iteration (seed Algorithm 2, the seed's kernel A): one thread per eigenvector, p.scratch on the
// device. Unlike eigenvectors_cpu it does not return the iteration count (nothing reads it, and fetching
// it would cost a synchronization).
void eigenvectors_cuda(const EigenProblem& p);
// The subbands' overlaps (kernels/schrodinger.hpp), one thread per entry; o's arrays on the device.
void overlaps_cuda(const Overlaps& o);

// --- frechet_cuda.cu ----------------------------------------------------------------------------
// N [nx][nz]: one thread per (i, j).
void electron_density_cuda(const DensityInput& in);
// A [nx][nz][nz] (seed eq. 10): one thread per (i, j, j').
void frechet_derivative_cuda(const DensityInput& in);

// --- linear_system_cuda.cu ----------------------------------------------------------------------
// Scratch of the reductions below: reduction_scratch() doubles.
std::size_t reduction_scratch();

// Rows, rhs, diag of the preconditioned system: one thread per row.
void construct_system_cuda(const SystemBuild& b);
// A Newton step's results with one synchronization: newton_residual_cuda leaves |diag (b - A u)|_inf (see
// newton_residual_cpu) on the device, direct_solve_cuda its zero-pivot status (direct_status), and
// step_norms_cuda reduces |a - b|_inf over n entries (the potential's change) and fetches all of them.
// scratch: reduction_scratch() doubles, the same for all three calls, zeroed once when allocated.
struct StepResults {
  double residual = 0, change = 0;
  double status[3] = {0, 0, 0};  // the direct solver's: x column + 1 of a zero pivot (0: none), its row, its value
};
void newton_residual_cuda(const LinearSystem& s, const double* u, double* scratch);
void step_norms_cuda(std::size_t n, const double* a, const double* b, double* scratch, StepResults* out);
// Where in scratch the direct solver records a zero pivot; throws the solver's Error if `status` holds one.
double* direct_status(double* scratch);
void check_direct_status(const double status[3]);

// The SRJ solver (seed Algorithm 1) from u, in place, with the stopping rule of srj_solve_cpu.
struct SrjWork {
  double* other = nullptr;    // [nx*nz] the ping-pong partner of u
  double* residual = nullptr; // [nx*nz] r = b - A u of the last step
  double* scratch = nullptr;  // [reduction_scratch()]
};

// One SRJ cycle (the M relaxed steps, then the joint max-norm reduction) recorded as a CUDA graph, so that
// a cycle costs one graph launch instead of M + 2 kernel launches (the steps of a small grid are
// launch-bound). Two graphs: a cycle of odd length (M = 93) ends in the other buffer, so cycles alternate
// between starting from u and from work.other. Recorded on first use for a set of arrays and reused while
// the arrays stay the same (an engine's arrays live as long as it does). Runs on a blocking stream of its
// own, so that it stays ordered with the legacy default stream, where every other launch here goes.
class SrjCycleGraphs {
 public:
  SrjCycleGraphs() = default;
  SrjCycleGraphs(const SrjCycleGraphs&) = delete;
  SrjCycleGraphs& operator=(const SrjCycleGraphs&) = delete;
  ~SrjCycleGraphs();

  // Records the two graphs unless they are recorded for these very arrays and factors.
  void prepare(const LinearSystem& s, double* u, const std::vector<double>& omegas, const SrjWork& work);
  // Runs the cycle starting from u (parity 0) or work.other (parity 1); returns |r|_inf, |u|_inf.
  void run(int parity, double* r_max, double* u_max);

 private:
  void release() noexcept;
  struct Key {
    const double *rows = nullptr, *rhs = nullptr;
    double *u = nullptr, *other = nullptr, *residual = nullptr, *scratch = nullptr;
    int nx = 0, nz = 0;
    std::vector<double> omegas;
    bool operator==(const Key&) const = default;
  } key_;
  cudaStream_t stream_ = nullptr;
  cudaGraphExec_t exec_[2] = {nullptr, nullptr};
  const double* norms_ = nullptr;  // [2] on the device: the cycle's |r|_inf, |u|_inf
};

// omegas: the cycle's factors (srj_schedule()); graphs: the recorded cycles (see above).
SrjStats srj_solve_cuda(const LinearSystem& s, double* u, double tol, int max_cycles, const std::vector<double>& omegas,
                        const SrjWork& work, SrjCycleGraphs& graphs);

// The direct solver: block cyclic reduction with the levels of direct_solve_cpu, each eliminated block
// inverted by Gauss-Jordan without pivoting (same pivots as the CPU's LU) by one thread block, in registers
// (nz <= 160), else in shared or global memory. Enqueues only: a zero pivot is recorded in status (zeroed
// here first), which step_norms_cuda fetches and check_direct_status turns into the CPU's Error.
struct DirectWork {
  CyclicReduction reduction;  // CyclicReduction::doubles(nx, nz) doubles
  double* status = nullptr;   // [3] direct_status(scratch)
};
// Where an elimination keeps its blocks: D_j^-1 in place in global memory (Global), in shared memory
// (Inverse), or that and L_j, U_j too (Couplings: copied in while the inversion runs, so that the two
// products after it read shared memory rather than wait on L2 at every step).
enum class DirectStaging : int { Global, Inverse, Couplings };
// The launch configuration of a grid's solves, fixed by nx, nz and the device: made once (by the engine,
// with its work arrays), it also gives the elimination kernel its shared-memory opt-in. Throws Error for
// an nz beyond the solver's blocks.
struct DirectPlan {
  int nx = 0, nz = 0;
  int slots = 0;                    // register-tile column slots of the elimination (beyond 5: shared memory)
  DirectStaging staging = DirectStaging::Global;
  std::size_t eliminate_bytes = 0;  // its dynamic shared memory
  std::vector<int> strides;         // reduction_strides(nx)
};
DirectPlan plan_direct_solve(int nx, int nz);
void direct_solve_cuda(const LinearSystem& s, double* u, const DirectWork& work, const DirectPlan& plan);
// The matrix factored by the last direct_solve_cuda on `work`, for another right-hand side rhs [nx*nz] (see
// direct_resolve_cpu), into u [nx*nz]: the reduction of b replayed (a kernel per level), then the back substitution.
void direct_resolve_cuda(const double* rhs, double* u, const DirectWork& work, const DirectPlan& plan);
// The chord step's right-hand side into b.out.rhs (chord_row; one thread per row), leaving |P[V]|_inf on the
// device like newton_residual_cuda.
void chord_rhs_cuda(const SystemBuild& b, double* scratch);
// u += du over n entries.
void add_cuda(std::size_t n, const double* du, double* u);

// --- roughness_cuda.cu --------------------------------------------------------------------------
// An extended problem's right-hand side (kernels/roughness.hpp): one thread per extended node (i, J).
void extended_rhs_cuda(const ExtendedRhs& b);
// The form factors: one thread per (i, v p).
void form_factors_cuda(const FormFactors& f);

// The current device's shared memory per block with opt-in, bytes.
std::size_t shared_memory_optin();

}  // namespace quanta::mosfet::kernels
