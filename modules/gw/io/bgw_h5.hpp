#pragma once
// Reading BerkeleyGW's HDF5 files (wfn.h5, eps0mat.h5, epsmat.h5): datasets of an expected size, and counts
// checked on their 64-bit value before they are narrowed or enter a product (the datasets they size are
// read, and their stored bytes checked, by H5File, so 2^31 - 1 is the only cap). Errors are InputError
// naming the file, the dataset and the layout the file should have.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "quanta/core/error.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/gw/mean_field.hpp"

namespace quanta::gw {

// Whether the file starts with HDF5's signature (where BerkeleyGW's files have it); what: the file's role, for
// the message when it cannot be opened.
bool is_hdf5(const std::filesystem::path& file, const std::string& what);

// The mean field's header as BerkeleyGW writes /mf_header (layout version 1: 32-bit integers, scalars of rank
// 0, 48 symmetry slots, Fortran dimensions reversed): what read_wfn_h5 reads back, band energies for the
// bands `w` holds.
void write_mf_header(io::H5File& h, const Wavefunctions& w);
// Scalars as BerkeleyGW writes them: a 32-bit integer or a double in a rank-0 dataset.
inline void write_bgw_int(io::H5File& h, const std::string& name, int v) { h.write(name, std::vector<std::int32_t>{v}, {}); }
inline void write_bgw_real(io::H5File& h, const std::string& name, double v) { h.write(name, std::vector<double>{v}, {}); }

class BgwH5Reader {
 public:
  // layout: what the file should be, for the messages ("BerkeleyGW's wfn.h5 layout").
  BgwH5Reader(const std::filesystem::path& file, std::string layout)
      : h_(file, io::H5File::Mode::Read), f_(file.string()), layout_(std::move(layout)) {}

  std::vector<std::int64_t> ints(const std::string& name, std::size_t expected) const { return sized(h_.read_ints(name), name, expected); }
  std::vector<double> doubles(const std::string& name, std::size_t expected) const { return sized(h_.read_doubles(name), name, expected); }
  std::int64_t one_int(const std::string& name) const { return ints(name, 1)[0]; }
  double one_double(const std::string& name) const { return doubles(name, 1)[0]; }
  int count(const std::string& name, std::int64_t lo, std::int64_t hi = INT32_MAX) const {
    const std::int64_t v = one_int(name);
    if (v < lo || v > hi)
      throw InputError(f_, name + " " + std::to_string(v) + ": expected " + std::to_string(lo) + " .. " + std::to_string(hi) + " (" + layout_ + ")");
    return static_cast<int>(v);
  }
  const io::H5File& h5() const { return h_; }
  const std::string& file() const { return f_; }
  const std::string& layout() const { return layout_; }

 private:
  template <class T>
  std::vector<T> sized(std::vector<T> v, const std::string& name, std::size_t expected) const {
    if (v.size() != expected)
      throw InputError(f_, name + ": " + std::to_string(v.size()) + " values, expected " + std::to_string(expected) + " (" + layout_ + ")");
    return v;
  }
  io::H5File h_;
  std::string f_, layout_;
};

}  // namespace quanta::gw
