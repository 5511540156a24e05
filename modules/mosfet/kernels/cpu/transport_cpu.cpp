// CPU backend of the transport terms (kernels/transport_terms.hpp): OpenMP over the lines of each direction,
// one direction after the other (lines of one direction write disjoint points).
#include "../transport_terms.hpp"

namespace quanta::mosfet::kernels {

void add_transport_cpu(const PhaseGrid& g, const TransportInputs& in, const double* phi, double* rhs) {
  const int nvp = kValleys * g.nsbn, half = g.nphi / 2;
#pragma omp parallel for collapse(2) schedule(static)
  for (int vp = 0; vp < nvp; ++vp)
    for (int lm = 0; lm < g.nw * g.nphi; ++lm) add_x_transport(g, in, phi, rhs, vp / g.nsbn, vp % g.nsbn, lm / g.nphi, lm % g.nphi);
#pragma omp parallel for collapse(2) schedule(static)
  for (int vp = 0; vp < nvp; ++vp)
    for (int im = 0; im < g.nx * half; ++im) add_w_transport(g, in, phi, rhs, vp / g.nsbn, vp % g.nsbn, im / half, im % half);
#pragma omp parallel for collapse(2) schedule(static)
  for (int vp = 0; vp < nvp; ++vp)
    for (int il = 0; il < g.nx * g.nw; ++il) add_phi_transport(g, in, phi, rhs, vp / g.nsbn, vp % g.nsbn, il / g.nw, il % g.nw);
}

}  // namespace quanta::mosfet::kernels
