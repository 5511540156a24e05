#pragma once
// The linestrength in two steps (seed section 2):
//   half-linestrength (eq. 14)  h_{r'v'}(<- i) = sum_{r, a} T^a_{r'r} sum_v mu_a(v', v) c^i_{r v}
//   completion        (eq. 15)  s(f <- i)      = sum_{r'v'} c^f_{r'v'} h_{r'v'}(<- i)
// on the product basis (rotational function r = (k, tau)) x (J = 0 vibrational function v). T holds
// TROVE's rotational factors (3j symbol, Wang-basis phases) for each pair of rotational functions with
// |k - k'| <= 1 and names the one molecule-fixed component a = x, y, z it couples through.
//
// Two methods compute the half-linestrengths, on both backends:
//   Method::CacheReduce  the seed's Cache-and-Reduce scheme (eqs. 18-19), one lower state at a time;
//   Method::Gemm         a batch of lower states at once: P_a = mu_a C for all rotational blocks of all
//                        states is one matrix product ([mu_x; mu_y; mu_z] times the coefficient matrix),
//                        then h = sum T P (a sparse reduction over rotational blocks).
// The completion of a batch against the upper states of one (J', Gamma') is one matrix product.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/linelist/checkpoints.hpp"
#include "quanta/linelist/levels.hpp"

namespace quanta::linelist {

enum class Method { Gemm, CacheReduce };
Method parse_method(const std::string& text);  // "gemm" | "cr"
std::string to_string(Method m);

// T^a_{r'r} for lower J -> upper J': for upper rotational function r', entries first[r'] .. first[r'+1]-1.
struct RotationalCoupling {
  int nrot_lower = 0, nrot_upper = 0;
  std::vector<int> first;       // [nrot_upper + 1]
  std::vector<int> rot_lower;   // [nnz] r
  std::vector<int> component;   // [nnz] a: 0 = x, 1 = y, 2 = z
  std::vector<double> factor;   // [nnz] T
};
// 3j symbols with |3j| < thresh_coeff are dropped, as TROVE does.
RotationalCoupling rotational_coupling(const RotVibBasis& lower, const RotVibBasis& upper, double thresh_coeff);

// Wigner 3j symbol (J1 1 J2; k1, k2 - k1, -k2), from the closed forms of the Clebsch-Gordan coefficients
// <J1 k1; 1 q | J2 k2> (Edmonds, Table 2); 0 outside the triangle and projection rules.
double three_j_rank1(int J1, int k1, int J2, int k2);

// [mu_x; mu_y; mu_z] as one 3n x n column-major matrix, element (a n + i, j) = <i|mu_a|j>: the left
// operand of the products P = mu C, and (the matrices being symmetric) row v' of mu_a read as a column.
std::vector<double> stacked_dipole(const DipoleMatrices& dipole);

// Where a backend computes. One engine per run: it holds the dipole matrices (split into `dipole_blocks`
// column blocks of v when they must be streamed), a group of lower states and their half-linestrengths
// for one J'. The upper vectors stream past the resident half-linestrengths in chunks, through two
// slots so that the host fills one chunk and digests the amplitudes of another while the device
// computes (on a device backend start_completions returns at once).
struct EnginePlan {
  int lower_states = 1;  // lower states per set_lower (their half-linestrengths stay resident)
  int upper_chunk = 1;   // upper vectors per start_completions
};

// One start_completions on a device, in seconds since the engine's first one (EngineOptions::timeline): when
// the host queued it (host clock), and when the slot's stream reached its start and finished the upload of the upper
// vectors, the product and the download of the amplitudes (device events, from an event recorded on the first
// chunk's stream; the two clocks are not the same).
struct ChunkTimes {
  int slot = 0;
  double queued = 0, stream_start = 0, upload_end = 0, product_end = 0, download_end = 0;
};

class LinestrengthEngine {
 public:
  virtual ~LinestrengthEngine() = default;
  // How many lower states (product dimension dim_lower) and upper vectors (dim_upper) fit at once.
  virtual EnginePlan plan(std::size_t dim_lower, std::size_t dim_upper) const = 0;
  // Lower states of one J: coefficients [nstates][nrot * nvib] in the product basis, kept by the engine
  // (page-locked on a device, so their sub-batches upload at full link speed) until the next set_lower.
  virtual void set_lower(std::vector<double> coefficients, int nstates, int nrot) = 0;
  // Half-linestrengths of the current lower states for upper J' (kept by the engine): [nstates][nrot' * nvib].
  virtual void half_linestrengths(const RotationalCoupling& coupling) = 0;
  // The half-linestrengths back on the host (for tests and diagnostics).
  virtual std::vector<double> half_linestrengths_host() const = 0;
  // Host buffer of slot 0 or 1 for at least `count` doubles of upper vectors (page-locked on a device);
  // valid until the next call for the same slot.
  virtual double* upper_buffer(int slot, std::size_t count) = 0;
  // s[i][f] = sum_p h_i[p] upper[f][p] for the current half-linestrengths and the `nupper` vectors in
  // the slot's buffer. A slot must be finished before its buffer is refilled or the lower states change.
  virtual void start_completions(int slot, int nupper) = 0;
  // Waits for the slot's completions; the amplitudes [nstates][nupper], valid until the slot restarts.
  virtual const double* finish_completions(int slot) = 0;
  virtual int lower_states() const = 0;          // of the last set_lower
  virtual std::size_t upper_dim() const = 0;     // nrot' * nvib of the last half_linestrengths
  virtual std::string description() const = 0;
  virtual void synchronize() {}  // waits for queued device work (timing)
  // The finished completions in the order they were started (empty unless EngineOptions::timeline on a device).
  virtual std::vector<ChunkTimes> timeline() const { return {}; }

  // Synchronous completions through slot 0 (tests, small cases): amplitudes [lower_states()][nupper].
  void completions(const double* upper, int nupper, double* amplitudes);
};

struct EngineOptions {
  Method method = Method::Gemm;
  int max_lower_states = 0;              // cap on EnginePlan::lower_states (0: as memory allows)
  int max_upper_chunk = 0;               // cap on EnginePlan::upper_chunk (0: as memory allows)
  int dipole_blocks = 0;                 // 0: chosen from the memory budget; p >= 1: split into p blocks by v
  std::size_t memory_limit_bytes = 0;    // device memory budget (0: free memory)
  bool timeline = false;                 // record when each slot's upload, product and download end (ChunkTimes)
};


// The plan that fits `bytes`: two upper chunks of at most an eighth of it each (at most 4096 vectors), the
// rest shared by lower states, each taking `lower_bytes` plus its half-linestrengths and two amplitude rows;
// then the options' caps.
EnginePlan plan_within(std::size_t bytes, std::size_t lower_bytes, std::size_t dim_upper, const EngineOptions& options);

std::unique_ptr<LinestrengthEngine> make_cpu_engine(const DipoleMatrices& dipole, const EngineOptions& options);
std::unique_ptr<LinestrengthEngine> make_cuda_engine(const DipoleMatrices& dipole, const EngineOptions& options);
std::unique_ptr<LinestrengthEngine> make_engine(Backend backend, const DipoleMatrices& dipole, const EngineOptions& options);

}  // namespace quanta::linelist
