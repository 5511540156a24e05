#pragma once
// The time-local single-particle Hamiltonian h(k;t) (the seed's get_h): band energies, the -U(t) shift of
// the conduction band (seed eq. (3)), the dipole coupling to E(t) (seed eq. (4)) and the Hartree-Fock
// self-energy of the interaction U(t)/nk sum c+_{v,k1+q} c+_{c,k2-q} c_{c,k2} c_{v,k1} = U(t) sum_i n_{v,i} n_{c,i}.
// With rho_{ab}(k) = <c+_{bk} c_{ak}> = -i G<_{ab}(k;t,t) and rhob = (1/nk) sum_k rho(k):
//   Sigma_HF = U [[ rhob_cc, -rhob_vc ], [ -rhob_cv, rhob_vv ]]   (Hartree on the diagonal, Fock off it).
#include "matrix2.hpp"

namespace quanta::kbe::kernels {

QUANTA_HD M2 hartree_fock(double u, const M2& rho_mean) {
  return {{cplx(u * rho_mean.m[3].re), -u * rho_mean.m[1], -u * rho_mean.m[2], cplx(u * rho_mean.m[0].re)}};
}

// h0(k;t) = [[eps_v, E d*], [E d, eps_c - U]]: everything one-body in H_s + H_ext.
QUANTA_HD M2 bare_hamiltonian(double eps_v, double eps_c, double field, cplx dipole, double u) {
  return {{cplx(eps_v), field * conj(dipole), field * dipole, cplx(eps_c - u)}};
}

}  // namespace quanta::kbe::kernels
