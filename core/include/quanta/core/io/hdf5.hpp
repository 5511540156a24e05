#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace quanta::io {

inline constexpr std::size_t kMaxStringBytes = std::size_t(1) << 20;

// Thin RAII helpers over the HDF5 C API. Datasets are written row-major (C order) with the given
// dimensions (none: a scalar dataspace); names may contain '/' and missing groups are created. Errors throw Error naming the
// file and the dataset.
class H5File {
 public:
  enum class Mode { Create, Read };
  H5File(const std::filesystem::path& path, Mode mode);
  H5File(const H5File&) = delete;
  H5File& operator=(const H5File&) = delete;
  H5File(H5File&& o) noexcept;
  ~H5File();

  void write(const std::string& name, const std::vector<double>& data, const std::vector<std::size_t>& dims);
  void write(const std::string& name, const std::vector<std::int64_t>& data, const std::vector<std::size_t>& dims);
  // 32-bit integers (H5T_STD_I32LE), as Fortran codes write their default integers.
  void write(const std::string& name, const std::vector<std::int32_t>& data, const std::vector<std::size_t>& dims);
  void write_scalar(const std::string& name, double v);
  void write_string(const std::string& name, const std::string& v);
  void write_attribute(const std::string& object, const std::string& attr, const std::string& v);

  // Large arrays row by row (a row: everything after the first dimension), so neither side holds it all.
  void create_doubles(const std::string& name, const std::vector<std::size_t>& dims);
  void write_rows(const std::string& name, std::size_t first, std::size_t count, const double* data);
  void read_rows(const std::string& name, std::size_t first, std::size_t count, double* out) const;

  bool exists(const std::string& name) const;
  // The extents a dataset declares; they are not bounded by the file (see require_stored).
  std::vector<std::size_t> dims(const std::string& name) const;
  // Throws Error naming the file and the dataset unless the file stores every value the dataset declares
  // (uncompressed), or enough compressed bytes for them and the host has the memory. read_doubles and
  // read_ints check this themselves; call it before sizing a buffer from dims() for read_rows.
  void require_stored(const std::string& name) const;
  std::vector<double> read_doubles(const std::string& name) const;
  std::vector<std::int64_t> read_ints(const std::string& name) const;
  // A variable-length string longer than kMaxStringBytes is refused (strings here are names and tags).
  std::string read_string(const std::string& name) const;
  std::string read_attribute(const std::string& object, const std::string& attr) const;

  const std::filesystem::path& path() const { return path_; }
  void close();

 private:
  void ensure_parent_groups(const std::string& name);
  std::filesystem::path path_;
  std::int64_t id_ = -1;  // hid_t
};

// Before a reader opens a user's HDF5 file: the file is first opened by a separate process (this
// executable run again), which walks every object and reads every small dataset; a crash or hang of the
// HDF5 library there (HDF5 1.10 trusts a corrupt file's headers) throws Error naming the file, instead of
// crashing this process. A missing file is left to the reader to report. core/io/hdf5_check.cpp says how.
void check_hdf5_file(const std::filesystem::path& file);

std::string hdf5_library_version();

}  // namespace quanta::io
