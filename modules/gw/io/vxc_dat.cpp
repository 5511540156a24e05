// vxc.dat (pw2bgw.x): per k-point "kx ky kz ndiag noffdiag", then ndiag lines "spin band Re Im" and
// noffdiag lines "spin band1 band2 Re Im"; energies in eV, k in crystal coordinates.
#include <cmath>

#include "quanta/core/error.hpp"
#include "quanta/core/io/input_file.hpp"
#include "quanta/core/io/text_reader.hpp"
#include "quanta/gw/mean_field.hpp"

namespace quanta::gw {

VxcTable read_vxc_dat(const std::filesystem::path& file) {
  io::require_input_file(file, "pw2bgw.x's vxc.dat");
  io::TextReader r(file.string());
  VxcTable t;
  t.file = file.string();
  while (!r.at_end()) {
    VxcTable::Block b;
    for (auto& x : b.k) x = r.read_real("k-point");
    const long ndiag = r.read_int("ndiag");
    const long noff = r.read_int("noffdiag");
    if (ndiag < 0 || noff < 0) r.fail("ndiag, noffdiag", std::to_string(ndiag) + ", " + std::to_string(noff), "counts >= 0");
    for (long i = 0; i < ndiag; ++i) {
      b.spin.push_back(static_cast<int>(r.read_int("spin")));
      b.band.push_back(static_cast<int>(r.read_int("band")));
      const double re = r.read_real("Re Vxc");
      const double im = r.read_real("Im Vxc");
      b.value.push_back(cplx(re, im));
    }
    for (long i = 0; i < noff; ++i) {
      b.off_spin.push_back(static_cast<int>(r.read_int("spin")));
      b.off_band1.push_back(static_cast<int>(r.read_int("band1")));
      b.off_band2.push_back(static_cast<int>(r.read_int("band2")));
      const double re = r.read_real("Re Vxc");
      const double im = r.read_real("Im Vxc");
      b.off_value.push_back(cplx(re, im));
    }
    t.blocks.push_back(std::move(b));
  }
  if (t.blocks.empty()) throw InputError(t.file, "no k-point blocks (expected vxc.dat as written by pw2bgw.x)");
  return t;
}

namespace {
std::string k_text(const Vec3& k) { return "(" + std::to_string(k[0]) + ", " + std::to_string(k[1]) + ", " + std::to_string(k[2]) + ")"; }
}  // namespace

cplx VxcTable::element(const Vec3& k, int n, int m, int spin) const {
  if (n == m) return cplx(diagonal(k, n, spin));
  for (const auto& b : blocks) {
    if (std::abs(b.k[0] - k[0]) + std::abs(b.k[1] - k[1]) + std::abs(b.k[2] - k[2]) > 1e-6) continue;
    for (std::size_t i = 0; i < b.off_band1.size(); ++i)
      if (b.off_band1[i] == n && b.off_band2[i] == m && b.off_spin[i] == spin) return b.off_value[i];
    throw InputError(file, "k-point " + k_text(k) + ": no off-diagonal element <" + std::to_string(n) + "|Vxc|" + std::to_string(m) +
                               "> (expected vxc_offdiag_nmin..nmax of pw2bgw.x to cover it, or the potential VXC with dont_use_vxcdat)");
  }
  throw InputError(file, "no block for k-point " + k_text(k));
}

double VxcTable::diagonal(const Vec3& k, int band, int spin) const {
  for (const auto& b : blocks) {
    if (std::abs(b.k[0] - k[0]) + std::abs(b.k[1] - k[1]) + std::abs(b.k[2] - k[2]) > 1e-6) continue;
    for (std::size_t i = 0; i < b.band.size(); ++i)
      if (b.band[i] == band && b.spin[i] == spin) return b.value[i].re;
    throw InputError(file, "k-point (" + std::to_string(k[0]) + ", " + std::to_string(k[1]) + ", " + std::to_string(k[2]) +
                               "): no diagonal element for band " + std::to_string(band) + " (expected vxc_diag_nmin..nmax to cover it)");
  }
  throw InputError(file, "no block for k-point (" + std::to_string(k[0]) + ", " + std::to_string(k[1]) + ", " + std::to_string(k[2]) + ")");
}

}  // namespace quanta::gw
