#pragma once
// The Newton-Raphson linear system of the Schroedinger-Poisson block (seed eq. 8-12) and its solvers.
//
// Row (i, j) of L V^{k+1} = R (units V/nm^2, C = q/eps0):
//   -div(eps_r grad V^{k+1})_{ij} + C sum_j' A_{i,j,j'} V^{k+1}_{i,j'} w_j'
//       = C (N_D - N^{(k)})_{ij} + C sum_j' A_{i,j,j'} V^{(k)}_{i,j'} w_j',
// the 5-point divergence of eq. 11 (permittivities averaged to the half points) and the trapezoid
// weights w_j' of eq. 12 (dz/2 at the ends, dz inside). Dirichlet nodes (contacts, gates) have the row
// V = value; elsewhere homogeneous Neumann by a mirrored ghost node. Every row is divided by its diagonal
// (the seed's left preconditioning by D^-1), so the diagonal is 1.
//
// Storage (the seed's rectangular banded array): rows [nx*nz][nz+2]; entries 0..nz-1 multiply
// V[i][0..nz-1] (the column's dense block: z-Laplacian, diagonal, nonlocal term), entry nz multiplies
// V[i-1][j] and entry nz+1 multiplies V[i+1][j].
#include <cmath>
#include <cstddef>
#include <vector>

#include "quanta/core/hd.hpp"

namespace quanta::mosfet::kernels {

// A term of a max-norm: |x|, or +infinity when x is not finite. fmax and std::max drop a NaN, so a
// reduction of plain |x| would report a finite norm over a vector holding NaN; mapped to +infinity it
// survives every max and the Newton loop refuses it.
QUANTA_HD double norm_term(double x) { return std::isfinite(x) ? std::fabs(x) : INFINITY; }

// The seed's SRJ stopping quantity |r|_inf / |u|_inf; +infinity when either norm is not finite.
QUANTA_HD double srj_relative_residual(double r_max, double u_max) {
  return std::isfinite(r_max) && std::isfinite(u_max) ? r_max / std::fmax(u_max, 1e-300) : INFINITY;
}

struct LinearSystem {
  int nx = 0, nz = 0;
  double* rows = nullptr;  // [nx*nz][nz+2]
  double* rhs = nullptr;   // [nx*nz]
  double* diag = nullptr;  // [nx*nz] the diagonal each row was divided by (V/nm^2 per V)
  int width() const { return nz + 2; }
  std::size_t size() const { return static_cast<std::size_t>(nx) * nz; }
};

struct SystemBuild {
  int nx = 0, nz = 0;
  double dx = 0, dz = 0;
  const double* eps_r = nullptr;            // [nx][nz]
  const double* doping = nullptr;           // [nx][nz] nm^-3
  const unsigned char* dirichlet = nullptr; // [nx][nz]
  const double* boundary_value = nullptr;   // [nx][nz]
  const double* potential = nullptr;        // [nx][nz] V^{(k)}
  const double* density = nullptr;          // [nx][nz] N^{(k)}
  const double* frechet = nullptr;          // [nx][nz][nz] A^{(k)}, or null: the plain Poisson equation
  double source_scale = 0;                  // C = q/eps0 in V nm
  LinearSystem out;
};

// The 5-point divergence's coefficients at node (i, j) (permittivities averaged to the half points) and its
// neighbours, the mirrored ghosts standing in for the Neumann sides.
struct Stencil {
  double cw = 0, ce = 0, cs = 0, cn = 0;  // V/nm^2 per V
  int iw = 0, ie = 0, js = 0, jn = 0;
};
QUANTA_HD Stencil stencil(const SystemBuild& b, int i, int j) {
  const int nz = b.nz;
  auto eps = [&](int ii, int jj) { return b.eps_r[static_cast<std::size_t>(ii) * nz + jj]; };
  Stencil st;
  st.iw = i > 0 ? i - 1 : i + 1;
  st.ie = i + 1 < b.nx ? i + 1 : i - 1;
  st.js = j > 0 ? j - 1 : j + 1;
  st.jn = j + 1 < nz ? j + 1 : j - 1;
  const double hx = 1.0 / (b.dx * b.dx), hz = 1.0 / (b.dz * b.dz);
  st.cw = 0.5 * (eps(st.iw, j) + eps(i, j)) * hx;
  st.ce = 0.5 * (eps(st.ie, j) + eps(i, j)) * hx;
  st.cs = 0.5 * (eps(i, st.js) + eps(i, j)) * hz;
  st.cn = 0.5 * (eps(i, st.jn) + eps(i, j)) * hz;
  return st;
}

// Row (i, j): see the file comment. Each stored entry is computed whole and written once (the row is not
// accumulated in place: on the GPU a thread's row is strided across the warp, and read-modify-write
// passes over it would each wait on memory).
QUANTA_HD void system_row(const SystemBuild& b, int i, int j) {
  const int nz = b.nz, w = nz + 2;
  const std::size_t r = static_cast<std::size_t>(i) * nz + j;
  double* row = b.out.rows + r * w;
  if (b.dirichlet[r]) {
    for (int k = 0; k < w; ++k) row[k] = k == j ? 1.0 : 0.0;
    b.out.rhs[r] = b.boundary_value[r];
    b.out.diag[r] = 1.0;
    return;
  }
  const Stencil st = stencil(b, i, j);
  // The nonlocal term C A_{i,j,j'} w_j' (trapezoid weights), and the entry multiplying V[i][k].
  const double* a = b.frechet ? b.frechet + r * nz : nullptr;
  auto nonlocal = [&](int jp) {
    if (!a) return 0.0;
    const double weight = (jp == 0 || jp == nz - 1) ? 0.5 * b.dz : b.dz;
    return b.source_scale * a[jp] * weight;
  };
  auto column_entry = [&](int k) {
    double v = nonlocal(k);
    if (k == j) v += st.cw + st.ce + st.cs + st.cn;
    if (k == st.js) v -= st.cs;
    if (k == st.jn) v -= st.cn;
    return v;
  };
  const double dg = column_entry(j);
  const double* v = b.potential + static_cast<std::size_t>(i) * nz;
  double rhs = b.source_scale * (b.doping[r] - b.density[r]);
  for (int k = 0; k < nz; ++k) {
    const double c = nonlocal(k);
    rhs += c * v[k];
    row[k] = column_entry(k) / dg;
  }
  // x neighbours: at a Neumann end both are the same node.
  const double west = st.iw == st.ie ? (i > 0 ? -(st.cw + st.ce) : 0.0) : -st.cw;
  const double east = st.iw == st.ie ? (i > 0 ? 0.0 : -(st.cw + st.ce)) : -st.ce;
  row[nz] = west / dg;
  row[nz + 1] = east / dg;
  b.out.rhs[r] = rhs / dg;
  b.out.diag[r] = dg;
}

// The chord (simplified Newton) step's right-hand side at row (i, j), written to b.out.rhs: with the rows of
// an earlier system (their diagonals b.out.diag), J dV = -P[V] for the current potential and density is
//   rows dV = -P[V]_r / diag_r,   -P[V] = C (N_D - N) + div(eps grad V)   (the Frechet terms cancel),
// and dV = value - V at a Dirichlet node. Returns the row's term of |P[V]|_inf (as newton_residual_cpu:
// |value - V| at a Dirichlet node).
QUANTA_HD double chord_row(const SystemBuild& b, int i, int j) {
  const int nz = b.nz;
  const std::size_t r = static_cast<std::size_t>(i) * nz + j;
  const double* v = b.potential;
  if (b.dirichlet[r]) {
    b.out.rhs[r] = b.boundary_value[r] - v[r];
    return norm_term(b.out.rhs[r]);
  }
  const Stencil st = stencil(b, i, j);
  const double laplacian = (st.cw + st.ce + st.cs + st.cn) * v[r] - st.cw * v[static_cast<std::size_t>(st.iw) * nz + j] -
                           st.ce * v[static_cast<std::size_t>(st.ie) * nz + j] - st.cs * v[static_cast<std::size_t>(i) * nz + st.js] -
                           st.cn * v[static_cast<std::size_t>(i) * nz + st.jn];
  const double defect = b.source_scale * (b.doping[r] - b.density[r]) - laplacian;
  b.out.rhs[r] = defect / b.out.diag[r];
  return norm_term(defect);
}

// (A u)_r for the stored rows.
QUANTA_HD double row_product(const LinearSystem& s, std::size_t r, const double* u) {
  const int nz = s.nz, w = nz + 2;
  const std::size_t i = r / nz, j = r % nz;
  const double* row = s.rows + r * w;
  const double* col = u + i * nz;
  double sum = 0.0;
  for (int k = 0; k < nz; ++k) sum += row[k] * col[k];
  if (row[nz] != 0.0) sum += row[nz] * u[(i - 1) * nz + j];
  if (row[nz + 1] != 0.0) sum += row[nz + 1] * u[(i + 1) * nz + j];
  return sum;
}

// The Scheduled Relaxation Jacobi cycle of the seed (P = 7, M = 93; Adsuara et al. 2016, N = 32):
// relaxation factors omega_i used q_i times each, the over-relaxations spread evenly over the cycle
// (Yang & Mittal 2014). Returns the M factors in the order they are applied.
std::vector<double> srj_schedule();

// The SRJ driver stops when the relative residual reaches the tolerance (converged), when it is not
// finite (a diverging or NaN iterate: there is no point in more cycles), or after max_cycles cycles.
struct SrjStats {
  int cycles = 0, steps = 0;
  double residual = 0;  // |b - A u|_inf / |u|_inf at exit (the seed's criterion); +inf when not finite
  bool converged = false;
};

void construct_system_cpu(const SystemBuild& b);
// One relaxed Jacobi step (seed eq. 13-16): r = b - A u, u_next = u + omega r.
void srj_step_cpu(const LinearSystem& s, const double* u, double omega, double* u_next, double* r);
// |r|_inf and |u|_inf together (the seed's joint reduction).
void joint_max_norm_cpu(std::size_t n, const double* r, const double* u, double* r_max, double* u_max);
// |diag (b - A u)|_inf: the unpreconditioned residual, i.e. |P[V^k]|_inf when u = V^k (V/nm^2).
double newton_residual_cpu(const LinearSystem& s, const double* u);
// Solves the system by SRJ cycles from u (the last potential) until the seed's criterion is met.
SrjStats srj_solve_cpu(const LinearSystem& s, double* u, double tol, int max_cycles, std::vector<double>& scratch);
// The direct solver: block cyclic (odd-even) reduction over the x columns. The system is block tridiagonal,
//   L_i u_{i-1} + D_i u_i + U_i u_{i+1} = b_i,
// with dense nz x nz blocks D_i (the column's rows: z-Laplacian, diagonal and nonlocal term) and couplings
// L_i = diag(entry nz), U_i = diag(entry nz+1) at the start. Level s = 1, 2, 4, ... eliminates the columns
// j = s, 3s, 5s, ... (all independent of one another):
//   XL_j = D_j^-1 L_j,  XU_j = D_j^-1 U_j,  Xb_j = D_j^-1 b_j,
// and updates the columns k = 0, 2s, 4s, ... that stay (left neighbour l = k - s, right r = k + s, each
// only where it exists):
//   D_k -= L_k XU_l + U_k XL_r,  b_k -= L_k Xb_l + U_k Xb_r,  L_k <- -L_k XL_l,  U_k <- -U_k XU_r,
// which couples column k to k - 2s and k + 2s: a system of the same form on half the columns. When only
// column 0 is left, its "elimination" at the root stride (the first power of two >= nx, no neighbours)
// gives u_0 = Xb_0; going back down the levels, u_j = Xb_j - XL_j u_{j-s} - XU_j u_{j+s}.
// ceil(log2 nx) levels of independent work, against nx dependent steps in block Thomas: the GPU's solve
// is parallel over the columns of a level. The blocks are eliminated without pivoting (the preconditioned
// system is block diagonally dominant, and so are its Schur complements); a zero pivot is an Error.
// Every level's couplings are kept (L and U hold the blocks of the columns k = 0, s, 2s, ... of each stride
// s), and so are the factored D_j (LU on the CPU, the inverse on the GPU) and XL_j, XU_j: a right-hand side
// of the same matrix is then solved by replaying the reduction of b alone (direct_resolve), a few
// matrix-vector products per column instead of the eliminations.
struct CyclicReduction {
  int nx = 0, nz = 0;
  double* D = nullptr;   // [nx][nz][nz] row-major: column i's diagonal block at the current level; factored once eliminated
  double* L = nullptr;   // [coupling_blocks(nx)][nz][nz] the coupling to the left neighbour at each level (coupling())
  double* U = nullptr;   // [coupling_blocks(nx)][nz][nz] the coupling to the right neighbour
  double* b = nullptr;   // [nx][nz]
  double* XL = nullptr;  // [nx][nz][nz] D_j^-1 L_j of an eliminated column j
  double* XU = nullptr;  // [nx][nz][nz] D_j^-1 U_j
  double* Xb = nullptr;  // [nx][nz] D_j^-1 b_j
  QUANTA_HD std::size_t block() const { return static_cast<std::size_t>(nz) * nz; }
  // Where column k's coupling block at stride s (k a multiple of s) starts in L and U (doubles).
  QUANTA_HD std::size_t coupling(int s, int k) const {
    std::size_t before = 0;
    for (int t = 1; t < s; t *= 2) before += static_cast<std::size_t>((nx - 1) / t + 1);
    return (before + static_cast<std::size_t>(k / s)) * block();
  }
  // The coupling blocks of all levels, the root's included: sum over the strides of ceil(nx / s).
  static std::size_t coupling_blocks(int nx) {
    std::size_t n = 0;
    for (int t = 1;; t *= 2) {
      n += static_cast<std::size_t>((nx - 1) / t + 1);
      if (t >= nx) break;
    }
    return n;
  }

  // The doubles of the arrays above, carved from one allocation by carve().
  static std::size_t doubles(int nx, int nz) {
    const std::size_t blk = static_cast<std::size_t>(nz) * nz;
    return (3 * static_cast<std::size_t>(nx) + 2 * coupling_blocks(nx)) * blk + 2 * static_cast<std::size_t>(nx) * nz;
  }
  static CyclicReduction carve(int nx, int nz, double* base) {
    CyclicReduction w;
    w.nx = nx;
    w.nz = nz;
    const std::size_t mat = static_cast<std::size_t>(nx) * nz * nz, vec = static_cast<std::size_t>(nx) * nz;
    const std::size_t couplings = coupling_blocks(nx) * nz * nz;
    w.D = base;
    w.XL = w.D + mat;
    w.XU = w.XL + mat;
    w.L = w.XU + mat;
    w.U = w.L + couplings;
    w.b = w.U + couplings;
    w.Xb = w.b + vec;
    return w;
  }
};

// The levels' strides 1, 2, 4, ... < nx, then the root's (the first power of two >= nx).
std::vector<int> reduction_strides(int nx);
// Columns eliminated at stride s: j = first + m step, m < count (the root: 0, 1 column).
struct ReductionLevel {
  int stride = 0, first = 0, step = 0, count = 0;
};
inline ReductionLevel reduction_level(int nx, int s) {
  if (s >= nx) return {s, 0, 2 * s, 1};
  return {s, s, 2 * s, (nx - 1 - s) / (2 * s) + 1};
}

// Entry (j, c) of column i's blocks from the stored rows: D from entries 0..nz-1, L and U diagonal.
QUANTA_HD void reduction_load(const LinearSystem& s, const CyclicReduction& w, int i, int j, int c) {
  const int nz = s.nz, width = nz + 2;
  const std::size_t r = static_cast<std::size_t>(i) * nz + j;
  const std::size_t entry = static_cast<std::size_t>(j) * nz + c, at = static_cast<std::size_t>(i) * w.block() + entry;
  const double* row = s.rows + r * width;
  w.D[at] = row[c];
  w.L[w.coupling(1, i) + entry] = c == j ? row[nz] : 0.0;
  w.U[w.coupling(1, i) + entry] = c == j ? row[nz + 1] : 0.0;
  if (c == 0) w.b[r] = s.rhs[r];
}

// Solves the system; work: CyclicReduction::doubles(nx, nz) doubles, resized here. Throws Error on a zero
// pivot, naming the x column and the row.
void direct_solve_cpu(const LinearSystem& s, double* u, std::vector<double>& work);
// Solves the matrix factored by the last direct_solve_cpu on `work` for another right-hand side rhs [nx*nz]
// (rows preconditioned as that system's), into u [nx*nz].
void direct_resolve_cpu(int nx, int nz, const double* rhs, double* u, std::vector<double>& work);
// The chord step's right-hand side (chord_row) into b.out.rhs; returns |P[V]|_inf.
double chord_rhs_cpu(const SystemBuild& b);

}  // namespace quanta::mosfet::kernels
