#include "quanta/linelist/levels.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

#include "quanta/core/error.hpp"
#include "quanta/core/io/input_file.hpp"

namespace quanta::linelist {

const RotVibBasis& Levels::basis(int J) const {
  for (std::size_t i = 0; i < jvalues.size(); ++i)
    if (jvalues[i] == J) return bases[i];
  throw Error("linelist: no basis loaded for J = " + std::to_string(J));
}

const ContractedBasis& Levels::contracted_basis(int J) const {
  for (std::size_t i = 0; i < jvalues.size(); ++i)
    if (jvalues[i] == J) return contracted[i];
  throw Error("linelist: no basis loaded for J = " + std::to_string(J));
}

RotVibBasis symmetric_top_basis(int J, int nvib) {
  RotVibBasis b;
  b.J = J;
  b.nvib = nvib;
  b.k.push_back(0);
  b.tau.push_back(J % 2);
  for (int k = 1; k <= J; ++k)
    for (int t = 0; t < 2; ++t) {
      b.k.push_back(k);
      b.tau.push_back(t);
    }
  return b;
}

namespace {

std::filesystem::path checkpoint(const std::filesystem::path& dir, const std::string& name) {
  const auto p = dir / name;
  if (!std::filesystem::exists(p))
    throw InputError(p.string(), "missing: the input's J range and GNS need this TROVE checkpoint (looked in " + dir.string() + ")");
  io::require_input_file(p, "TROVE's checkpoint " + name);
  return p;
}

RotVibBasis product_basis(const ContractedBasis& c, int nvib, const std::filesystem::path& file) {
  RotVibBasis b;
  b.J = c.J;
  b.nvib = nvib;
  b.k = c.rot_k;
  b.tau = c.rot_tau;
  std::vector<char> taken(b.size(), 0);
  for (int f = 0; f < c.ncontr(); ++f) {
    const std::size_t p = static_cast<std::size_t>(c.irot[f]) * nvib + c.ivib[f];
    if (taken[p]) throw InputError(file.string(), "two contracted functions are the same (k, tau, vibrational) product");
    taken[p] = 1;
  }
  return b;
}

}  // namespace

Levels read_levels(const std::filesystem::path& dir, const IntensityInput& input) {
  Levels L;
  L.group = &symmetry_group(input.symgroup);
  const int nrep = L.group->nirreps();
  if (static_cast<int>(input.gns.size()) != nrep)
    throw InputError(input.file.string(), "GNS: found " + std::to_string(input.gns.size()) + " values, expected " +
                                              std::to_string(nrep) + " (one per irrep of " + L.group->name + ")");
  std::vector<int> degen(nrep);
  for (int g = 0; g < nrep; ++g) degen[g] = L.group->degeneracy(g);

  L.jvalues.push_back(0);
  for (int j = std::max(input.jmin, 1); j <= input.jmax; ++j) L.jvalues.push_back(j);
  for (int J : L.jvalues) {
    const auto file = checkpoint(dir, "j0eigen_quanta" + std::to_string(J) + ".chk");
    L.contracted.push_back(read_contracted_basis(file, J, degen));
  }
  L.nclasses = L.contracted[0].nclasses;
  const int nvib = L.contracted[0].ncontr();
  for (std::size_t i = 0; i < L.jvalues.size(); ++i) {
    const auto file = dir / ("j0eigen_quanta" + std::to_string(L.jvalues[i]) + ".chk");
    if (L.contracted[i].nclasses != L.nclasses)
      throw InputError(file.string(), "Nclasses " + std::to_string(L.contracted[i].nclasses) + " differs from J = 0's " + std::to_string(L.nclasses));
    correlate_with_j0(L.contracted[i], L.contracted[0], file);
    L.bases.push_back(product_basis(L.contracted[i], nvib, file));
  }

  L.nmodes = read_nmodes(checkpoint(dir, "j0eigen_descr0_1.chk"));
  double zpe = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t ij = 0; ij < L.jvalues.size(); ++ij) {
    const int J = L.jvalues[ij];
    // TROVE's nsize_base: Nvib0 J^2 + the sizes of the Gammas read before; for a linear triatomic's basis (K = l, a
    // basis that grows linearly with J) Nvib0 J Nirreps instead of Nvib0 J^2 (tran.f90).
    int id_base = input.linear_basis ? nvib * J * nrep : nvib * J * J;
    for (int g = 1; g <= nrep; ++g) {
      const bool read = input.gns[g - 1] > 0 || (J == 0 && g == 1);
      if (!read) continue;
      const std::string tag = std::to_string(J) + "_" + std::to_string(g);
      const auto descr = checkpoint(dir, "j0eigen_descr" + tag + ".chk");
      RootsFile roots = read_root_descriptions(descr, L.nmodes, L.nclasses);
      const auto& irr = L.contracted[ij].irreps[g - 1];
      if (roots.dim != irr.ntotal)
        throw InputError(descr.string(), "dimension " + std::to_string(roots.dim) + " differs from the " +
                                             std::to_string(irr.ntotal) + " symmetrized functions of irrep " +
                                             std::to_string(g) + " in j0eigen_quanta" + std::to_string(J) + ".chk");
      LevelBlock block{J, g, roots.dim, dir / ("j0eigen_vectors" + tag + ".chk"), {}, {}};
      if (roots.nroots > 0) {
        const auto need = static_cast<std::uintmax_t>(roots.nroots) * roots.dim * 8;
        if (!std::filesystem::exists(block.vectors))
          throw InputError(block.vectors.string(), "missing: " + descr.filename().string() + " lists " + std::to_string(roots.nroots) + " roots");
        io::require_input_file(block.vectors, "TROVE's eigenvector checkpoint");
        const auto have = std::filesystem::file_size(block.vectors);
        if (have < need)
          throw InputError(block.vectors.string(), "truncated: " + std::to_string(have) + " bytes, expected " + std::to_string(need) +
                                                       " (" + std::to_string(roots.nroots) + " roots of dimension " + std::to_string(roots.dim) + " from " +
                                                       descr.filename().string() + ")");
      }
      if (J == 0 && g == 1 && !roots.roots.empty()) zpe = roots.roots[0].energy;
      // J = 0 levels take part only when the J range starts at 0 (TROVE reads J = 0 for the ZPE regardless).
      // Every block read is listed, as TROVE's .states lists every root it reads: with GNS 0 for the first
      // irrep (14NH3's A1' in D3h(M)) the J = 0 levels of that irrep, read for the ZPE, are written with
      // g_tot = 0. A block with GNS 0 takes part in no transition (compute_linelist, TROVE's intens_filter).
      if (J >= input.jmin) {
        for (auto& r : roots.roots) {
          if (r.gamma != g)
            throw InputError(descr.string(), "root " + std::to_string(r.record) + " has Gamma " + std::to_string(r.gamma) + ", expected " + std::to_string(g));
          Level lv;
          lv.J = J;
          lv.gamma = g;
          lv.id = r.level + id_base;
          lv.block = static_cast<int>(L.blocks.size());
          lv.energy = r.energy;
          lv.root = std::move(r);
          block.levels.push_back(static_cast<int>(L.levels.size()));
          L.levels.push_back(std::move(lv));
        }
        L.blocks.push_back(std::move(block));
      }
      id_base += roots.dim;
    }
  }
  if (input.have_zpe) L.zpe = input.zpe;
  else if (!std::isnan(zpe)) L.zpe = zpe;
  else throw InputError((dir / "j0eigen_descr0_1.chk").string(), "no roots, and the input gives no ZPE");
  return L;
}

std::vector<double> expanded_vectors(const Levels& L, const LevelBlock& block, std::span<const int> records, double thresh_coeff) {
  std::vector<double> out(records.size() * L.group->degeneracy(block.gamma - 1) * L.basis(block.J).size());
  expand_vectors(L, block, records, thresh_coeff, out.data());
  return out;
}

void read_vectors_h5(const Levels& L, const LevelBlock& block, std::span<const int> records, double* out);  // io/levels_h5.cpp

namespace {

// Vectors already in the product basis (a levels file), with THRESH_COEFF applied.
void read_product_vectors(const Levels& L, const LevelBlock& block, std::span<const int> records, double thresh_coeff, double* out) {
  read_vectors_h5(L, block, records, out);
  if (thresh_coeff < 0) return;
  const std::size_t n = records.size() * L.group->degeneracy(block.gamma - 1) * L.basis(block.J).size();
  for (std::size_t p = 0; p < n; ++p)
    if (std::abs(out[p]) <= thresh_coeff) out[p] = 0.0;
}

}  // namespace

void expand_vectors(const Levels& L, const LevelBlock& block, std::span<const int> records, double thresh_coeff, double* out) {
  if (!L.levels_file.empty()) return read_product_vectors(L, block, records, thresh_coeff, out);
  const ContractedBasis& c = L.contracted_basis(block.J);
  const RotVibBasis& b = L.basis(block.J);
  const auto& irr = c.irreps[block.gamma - 1];
  const int degen = irr.degen;
  std::fill_n(out, records.size() * degen * b.size(), 0.0);
  std::vector<std::size_t> product(c.ncontr());
  for (int f = 0; f < c.ncontr(); ++f) product[f] = static_cast<std::size_t>(c.irot[f]) * b.nvib + c.ivib[f];
  std::ifstream in = io::open_input_file(block.vectors, "TROVE's eigenvector checkpoint", std::ios::in | std::ios::binary);
  std::vector<double> v(block.dim);
  for (std::size_t i = 0; i < records.size(); ++i) {
    in.seekg(static_cast<std::streamoff>(records[i] - 1) * block.dim * 8);
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(block.dim) * 8);
    if (!in) throw InputError(block.vectors.string(), "truncated: cannot read record " + std::to_string(records[i]));
    for (int d = 0; d < degen; ++d) {
      double* o = out + (i * degen + d) * b.size();
      int s = 0;  // running symmetrized index
      for (int cs = 0; cs < c.ncases; ++cs) {
        const int first = c.case_first[cs], size = c.case_first[cs + 1] - first;
        for (int e = 0; e < irr.N[cs]; ++e, ++s) {
          const double* rep = irr.repres.data() + (static_cast<std::size_t>(s) * degen + d) * c.mat_size;
          for (int l = 0; l < size; ++l) o[product[first + l]] += v[s] * rep[l];
        }
      }
      if (thresh_coeff >= 0)
        for (std::size_t p = 0; p < b.size(); ++p)
          if (std::abs(o[p]) <= thresh_coeff) o[p] = 0.0;
    }
  }
}

}  // namespace quanta::linelist
