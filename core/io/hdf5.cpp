#include "quanta/core/io/hdf5.hpp"

#include <hdf5.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <numeric>
#include <utility>

#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"

namespace quanta::io {

static_assert(sizeof(hid_t) <= sizeof(std::int64_t), "H5File keeps the hid_t in an int64");

namespace {

// Owns one HDF5 identifier and closes it with the matching H5?close.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, -1)), close_(o.close_) {}
  Handle& operator=(Handle&&) = delete;
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  operator hid_t() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// The innermost entry of HDF5's error stack is the specific cause ("object 'x' doesn't exist",
// "unable to open file: ... errno = 2"); the outer ones only repeat "unable to open dataset".
std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* data) -> herr_t {
        if (n == 0 && e->desc) *static_cast<std::string*>(data) = e->desc;
        return 0;
      },
      &reason);
  H5Eclear2(H5E_DEFAULT);
  return reason.empty() ? "unknown HDF5 error" : reason;
}

// A variable-length UTF-8 string type, the form h5py and HDF5 tools read as a plain str.
Handle vlen_string_type() {
  Handle t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

}  // namespace

namespace {

// HDF5 (1.10) leaves a file whose close failed (disk full, file-size limit) half torn down, and the cleanup
// it registers with atexit then closes that file again and crashes in H5F__close_cb, after the run had
// reported its error. Without that cleanup nothing touches such a file again: the failed H5Fclose is
// reported once, the process exits normally, and every file that closed normally was complete already
// (H5File closes its file in its destructor). H5dont_atexit only works before HDF5 initializes itself,
// so every entry point of this file calls this first.
void init_hdf5() {
  static const bool done = [] {
    H5dont_atexit();
    return true;
  }();
  (void)done;
  // Our messages replace HDF5's own stack dump on stderr (a per-thread setting).
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

}  // namespace

H5File::H5File(const std::filesystem::path& path, Mode mode) : path_(path) {
  init_hdf5();
  // Closing the file closes whatever is still open in it, so a close never leaves an object of a failed
  // write dangling.
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
  const hid_t id = mode == Mode::Create ? H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                                        : H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
  if (id < 0)
    throw Error("HDF5 file '" + path.string() + "': cannot " + (mode == Mode::Create ? "create" : "open") +
                " it: " + hdf5_reason());
  id_ = id;
}

H5File::H5File(H5File&& o) noexcept : path_(std::move(o.path_)), id_(std::exchange(o.id_, -1)) {}

H5File::~H5File() {
  // One attempt only: a second H5Fclose of a file whose close failed crashes inside HDF5.
  if (id_ >= 0) H5Fclose(static_cast<hid_t>(std::exchange(id_, -1)));
  H5Eclear2(H5E_DEFAULT);
}

void H5File::close() {
  if (id_ < 0) return;
  const herr_t st = H5Fclose(static_cast<hid_t>(std::exchange(id_, -1)));
  if (st < 0)
    throw Error("HDF5 file '" + path_.string() + "': cannot close it (the disk may be full): " + hdf5_reason());
}

namespace {

std::string dataset(const std::string& name) { return "dataset '" + name + "'"; }
std::string object(const std::string& name) { return "object '" + name + "'"; }

// `label` names what failed within the file: "dataset '/a/b'" or "object '/'".
[[noreturn]] void fail(const std::filesystem::path& file, const std::string& label, const std::string& what) {
  throw Error("HDF5 file '" + file.string() + "', " + label + ": " + what + ": " + hdf5_reason());
}

// The file's identifier, or an Error when it was closed already.
hid_t live(std::int64_t id, const std::filesystem::path& file, const std::string& label) {
  if (id < 0) throw Error("HDF5 file '" + file.string() + "', " + label + ": the file is closed");
  return static_cast<hid_t>(id);
}

// H5Lexists needs every parent to exist, so the path is checked one component at a time.
bool path_exists(hid_t file, const std::string& name) {
  for (std::size_t pos = name.find('/', 1);; pos = name.find('/', pos + 1)) {
    const std::string prefix = name.substr(0, pos);
    if (prefix.empty() || prefix == "/") return true;
    if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
    if (pos == std::string::npos) return true;
  }
}

Handle open_dataset(std::int64_t id, const std::filesystem::path& path, const std::string& name) {
  const hid_t file = live(id, path, dataset(name));
  Handle ds(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.ok() && !path_exists(file, name))
    throw Error("HDF5 file '" + path.string() + "', " + dataset(name) + ": no such dataset in the file");
  if (!ds.ok()) fail(path, dataset(name), "cannot open it");
  return ds;
}

template <class T>
void write_numbers(hid_t file, const std::filesystem::path& path, const std::string& name, const std::vector<T>& data,
                   const std::vector<std::size_t>& dims, hid_t file_type, hid_t mem_type) {
  const std::size_t n = std::accumulate(dims.begin(), dims.end(), std::size_t{1}, std::multiplies<>());
  if (n != data.size())
    throw Error("HDF5 file '" + path.string() + "', " + dataset(name) + ": " + std::to_string(data.size()) +
                " values for dimensions holding " + std::to_string(n));
  const std::vector<hsize_t> hdims(dims.begin(), dims.end());
  Handle space(dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(dims.size()), hdims.data(), nullptr),
               H5Sclose);
  Handle ds(H5Dcreate2(file, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) fail(path, dataset(name), "cannot create it");
  if (n > 0 && H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) < 0)
    fail(path, dataset(name), "cannot write it");
}

// A dataset's dataspace may declare any extent whatever the file holds (storage allocated late or never,
// or compressed), and HDF5 as well as the caller allocate the declared size on a read. So before a
// buffer is sized from the dataspace, the declared bytes must be what the file stores: all of them
// without a filter; with only deflate, shuffle and Fletcher-32, at most deflate's largest expansion
// (1032:1) of the stored bytes; with other filters, no more than the host's free memory.
void require_stored(hid_t ds, const std::filesystem::path& file, const std::string& name) {
  Handle type(H5Dget_type(ds), H5Tclose);
  Handle space(H5Dget_space(ds), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if (n < 0) fail(file, dataset(name), "cannot read its dataspace");
  const std::size_t declared = bytes_of(H5Tget_size(type), static_cast<std::size_t>(n));
  if (declared == 0) return;
  Handle dcpl(H5Dget_create_plist(ds), H5Pclose);
  const int nfilters = H5Pget_nfilters(dcpl);
  const auto stored = static_cast<std::size_t>(H5Dget_storage_size(ds));
  H5Eclear2(H5E_DEFAULT);
  const std::string head = "HDF5 file '" + file.string() + "', " + dataset(name) + ": declares " + std::to_string(n) +
                           " values (" + std::to_string(declared) + " bytes), ";
  if (nfilters <= 0) {
    if (stored < declared)
      throw Error(head + "found " + std::to_string(stored) + " bytes stored for it, expected all " + std::to_string(declared) +
                  " (a dataset written in full)");
    return;
  }
  bool deflate_only = true;
  for (int i = 0; i < nfilters; ++i) {
    unsigned flags = 0;
    std::size_t nvalues = 0;
    const H5Z_filter_t id = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &nvalues, nullptr, 0, nullptr, nullptr);
    if (id != H5Z_FILTER_DEFLATE && id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32) deflate_only = false;
  }
  H5Eclear2(H5E_DEFAULT);
  if (deflate_only && declared / 1032 > stored)
    throw Error(head + "found " + std::to_string(stored) + " compressed bytes stored for it, expected at least " +
                std::to_string(declared / 1032) + " (deflate expands at most 1032-fold)");
  require_host_memory(declared, "HDF5 file '" + file.string() + "', " + dataset(name) + " (compressed, " + std::to_string(n) + " values)");
}

template <class T>
std::vector<T> read_numbers(std::int64_t file, const std::filesystem::path& path, const std::string& name, hid_t mem_type,
                            bool integers_only) {
  Handle ds = open_dataset(file, path, name);
  Handle type(H5Dget_type(ds), H5Tclose);
  const H5T_class_t cls = H5Tget_class(type);
  if (cls != H5T_INTEGER && (integers_only || cls != H5T_FLOAT))
    throw Error("HDF5 file '" + path.string() + "', " + dataset(name) + ": holds " +
                (cls == H5T_FLOAT ? "floating-point numbers" : "no numbers") + ", expected " +
                (integers_only ? "integers" : "numbers"));
  require_stored(ds, path, name);
  Handle space(H5Dget_space(ds), H5Sclose);
  std::vector<T> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  if (!out.empty() && H5Dread(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    fail(path, dataset(name), "cannot read it");
  return out;
}

// One string from a dataset or an attribute, stored with variable or fixed length (both occur in
// files written by other tools).
std::string read_one_string(hid_t type, hid_t space, const std::function<herr_t(hid_t, void*)>& read,
                            const std::filesystem::path& file, const std::string& label) {
  if (H5Tget_class(type) != H5T_STRING) fail(file, label, "it does not hold a string");
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if (n != 1) fail(file, label, "it holds " + std::to_string(n) + " elements, expected one string");
  if (H5Tis_variable_str(type) > 0) {
    Handle mem = vlen_string_type();
    H5Tset_cset(mem, H5Tget_cset(type));
    char* p = nullptr;
    if (read(mem, &p) < 0) fail(file, label, "cannot read it");
    std::string s = p ? p : "";
    H5free_memory(p);
    return s;
  }
  // A fixed length beyond any name or tag is a corrupt type: HDF5 would ask malloc for it and, when
  // that fails, copy through a null pointer.
  const std::size_t size = H5Tget_size(type);
  if (size == 0 || size > kMaxStringBytes)
    fail(file, label, "a fixed-length string of " + std::to_string(size) + " bytes, expected 1 to " +
                          std::to_string(kMaxStringBytes));
  Handle mem(H5Tcopy(type), H5Tclose);
  std::string s(size, '\0');
  if (read(mem, s.data()) < 0) fail(file, label, "cannot read it");
  if (H5Tget_strpad(type) == H5T_STR_SPACEPAD) s.erase(s.find_last_not_of(' ') + 1);
  else s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
  return s;
}

// HDF5 (1.10) allocates a variable-length string's whole stored length (the 32-bit count at the start of
// its element in the file) before it reads the characters from the global heap, so a corrupt count
// becomes a gigabyte allocation. Where the element lies in the file (contiguous storage), the count is
// read from there first.
// A variable-length string's bytes live in a global heap collection; HDF5 1.10 copies them without
// checking the collection against the file (a corrupt heap makes it read out of bounds inside the
// library). Walks the collection as the file format defines it ("GCOL", version, collection size, then
// objects: index, reference count, reserved, size, data padded to 8 bytes) and refuses a heap ID whose
// object is missing, shorter than the string or outside the collection. `in` is positioned after the
// string's 4-byte length, on its heap ID (collection address, object index).
void check_global_heap_object(hid_t ds, std::ifstream& in, const std::filesystem::path& file, const std::string& name,
                              std::uint32_t length) {
  const auto corrupt = [&](const std::string& what) {
    throw Error("HDF5 file '" + file.string() + "', " + dataset(name) + ": corrupt variable-length string (" + what + ")");
  };
  size_t sizeof_addr = 8, sizeof_size = 8;
  hsize_t userblock = 0;
  {
    Handle f(H5Iget_file_id(ds), H5Fclose);
    Handle fcpl(H5Fget_create_plist(f), H5Pclose);
    if (fcpl.ok()) {
      H5Pget_sizes(fcpl, &sizeof_addr, &sizeof_size);
      H5Pget_userblock(fcpl, &userblock);
    }
    H5Eclear2(H5E_DEFAULT);
  }
  if (sizeof_addr > 8 || sizeof_size > 8 || sizeof_addr == 0 || sizeof_size == 0) corrupt("offset or length size");
  const auto little = [](const unsigned char* p, std::size_t n) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t(p[i]) << (8 * i);
    return v;
  };
  unsigned char id[12];
  if (!in.read(reinterpret_cast<char*>(id), static_cast<std::streamsize>(sizeof_addr + 4))) corrupt("heap ID past the end of the file");
  const std::uint64_t collection = little(id, sizeof_addr) + userblock;
  const std::uint64_t index = little(id + sizeof_addr, 4);
  if (length == 0 && index == 0) return;  // an empty string has no heap object
  in.clear();
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<std::uint64_t>(in.tellg());
  const std::size_t header = 8 + sizeof_size;
  if (collection >= file_size || file_size - collection < header) corrupt("heap collection outside the file");
  std::vector<unsigned char> head(header);
  in.seekg(static_cast<std::streamoff>(collection));
  if (!in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(header)) ||
      std::memcmp(head.data(), "GCOL", 4) != 0)
    corrupt("no heap collection at its address");
  const std::uint64_t size = little(head.data() + 8, sizeof_size);
  if (size < header || size > file_size - collection) corrupt("heap collection larger than the file");
  std::vector<unsigned char> heap(static_cast<std::size_t>(size));
  in.seekg(static_cast<std::streamoff>(collection));
  if (!in.read(reinterpret_cast<char*>(heap.data()), static_cast<std::streamsize>(size))) corrupt("heap collection cut short");
  // Every object is checked, not only the string's: HDF5 parses the whole collection when it loads it,
  // and an object size that runs past the collection sends its parser past the end or round in a loop.
  bool found = false;
  for (std::size_t at = header; at + 8 + sizeof_size <= heap.size();) {
    const std::uint64_t object = little(&heap[at], 2), object_size = little(&heap[at + 8], sizeof_size);
    const std::size_t data = at + 8 + sizeof_size;
    if (object == 0) {  // free space: its size counts its own header
      if (object_size < 8 + sizeof_size || object_size > heap.size() - at) corrupt("free space of the heap out of bounds");
      at += static_cast<std::size_t>((object_size + 7) / 8 * 8);
      continue;
    }
    if (object_size > heap.size() - data) corrupt("heap object larger than its collection");
    if (object == index) {
      if (object_size < length) corrupt("heap object shorter than the string");
      found = true;
    }
    at = data + static_cast<std::size_t>((object_size + 7) / 8 * 8);
  }
  if (found) return;
  corrupt("heap object " + std::to_string(index) + " not in its collection");
}

void check_vlen_string_length(hid_t ds, const std::filesystem::path& file, const std::string& name) {
  const haddr_t offset = H5Dget_offset(ds);
  H5Eclear2(H5E_DEFAULT);
  // Only contiguous storage has a file offset where the string's heap reference can be checked before
  // HDF5 follows it; quanta writes its strings that way.
  if (offset == HADDR_UNDEF)
    throw Error("HDF5 file '" + file.string() + "', " + dataset(name) +
                ": a variable-length string not stored contiguously, expected contiguous storage (as quanta writes it)");
  std::ifstream in(file, std::ios::binary);
  unsigned char b[4];
  if (!in.seekg(static_cast<std::streamoff>(offset)) || !in.read(reinterpret_cast<char*>(b), 4)) return;  // HDF5's read reports it
  const std::uint32_t length = b[0] | (std::uint32_t(b[1]) << 8) | (std::uint32_t(b[2]) << 16) | (std::uint32_t(b[3]) << 24);
  if (length > kMaxStringBytes)
    throw Error("HDF5 file '" + file.string() + "', " + dataset(name) + ": found a string of " + std::to_string(length) +
                " bytes, expected at most " + std::to_string(kMaxStringBytes) + " (a name or a tag)");
  check_global_heap_object(ds, in, file, name, length);
}

}  // namespace

void H5File::ensure_parent_groups(const std::string& name) {
  for (std::size_t pos = name.find('/', 1); pos != std::string::npos; pos = name.find('/', pos + 1)) {
    const std::string group = name.substr(0, pos);
    if (H5Lexists(static_cast<hid_t>(id_), group.c_str(), H5P_DEFAULT) > 0) continue;
    Handle g(H5Gcreate2(static_cast<hid_t>(id_), group.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (!g.ok()) fail(path_, dataset(name), "cannot create the group '" + group + "'");
  }
}

void H5File::write(const std::string& name, const std::vector<double>& data, const std::vector<std::size_t>& dims) {
  const hid_t file = live(id_, path_, dataset(name));
  ensure_parent_groups(name);
  write_numbers(file, path_, name, data, dims, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE);
}

void H5File::write(const std::string& name, const std::vector<std::int64_t>& data,
                   const std::vector<std::size_t>& dims) {
  const hid_t file = live(id_, path_, dataset(name));
  ensure_parent_groups(name);
  write_numbers(file, path_, name, data, dims, H5T_STD_I64LE, H5T_NATIVE_INT64);
}

void H5File::write(const std::string& name, const std::vector<std::int32_t>& data,
                   const std::vector<std::size_t>& dims) {
  const hid_t file = live(id_, path_, dataset(name));
  ensure_parent_groups(name);
  write_numbers(file, path_, name, data, dims, H5T_STD_I32LE, H5T_NATIVE_INT32);
}

void H5File::write_scalar(const std::string& name, double v) { write(name, std::vector<double>{v}, {}); }

void H5File::write_string(const std::string& name, const std::string& v) {
  const hid_t file = live(id_, path_, dataset(name));
  ensure_parent_groups(name);
  Handle type = vlen_string_type();
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle ds(H5Dcreate2(file, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) fail(path_, dataset(name), "cannot create it");
  const char* p = v.c_str();
  if (H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &p) < 0) fail(path_, dataset(name), "cannot write it");
}

void H5File::write_attribute(const std::string& name, const std::string& attr, const std::string& v) {
  Handle obj(H5Oopen(live(id_, path_, object(name)), name.c_str(), H5P_DEFAULT), H5Oclose);
  if (!obj.ok()) fail(path_, object(name), "cannot open it to set attribute '" + attr + "'");
  // Rewriting an attribute replaces it, as assigning it again in h5py does.
  if (H5Aexists(obj, attr.c_str()) > 0 && H5Adelete(obj, attr.c_str()) < 0)
    fail(path_, object(name), "cannot replace attribute '" + attr + "'");
  Handle type = vlen_string_type();
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle a(H5Acreate2(obj, attr.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  const char* p = v.c_str();
  if (!a.ok() || H5Awrite(a, type, &p) < 0) fail(path_, object(name), "cannot write attribute '" + attr + "'");
}

bool H5File::exists(const std::string& name) const { return id_ >= 0 && path_exists(static_cast<hid_t>(id_), name); }

std::vector<std::size_t> H5File::dims(const std::string& name) const {
  Handle ds = open_dataset(id_, path_, name);
  Handle space(H5Dget_space(ds), H5Sclose);
  std::vector<hsize_t> d(static_cast<std::size_t>(std::max(H5Sget_simple_extent_ndims(space), 0)));
  H5Sget_simple_extent_dims(space, d.data(), nullptr);
  return {d.begin(), d.end()};
}

void H5File::require_stored(const std::string& name) const {
  Handle ds = open_dataset(id_, path_, name);
  quanta::io::require_stored(ds, path_, name);
}

std::vector<double> H5File::read_doubles(const std::string& name) const {
  return read_numbers<double>(id_, path_, name, H5T_NATIVE_DOUBLE, false);
}

std::vector<std::int64_t> H5File::read_ints(const std::string& name) const {
  return read_numbers<std::int64_t>(id_, path_, name, H5T_NATIVE_INT64, true);
}

std::string H5File::read_string(const std::string& name) const {
  Handle ds = open_dataset(id_, path_, name);
  Handle type(H5Dget_type(ds), H5Tclose);
  Handle space(H5Dget_space(ds), H5Sclose);
  // A dataset storing fewer bytes than its element (a compact one with none) makes HDF5 1.10 copy
  // through a null pointer.
  quanta::io::require_stored(ds, path_, name);
  if (H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0 && H5Sget_simple_extent_npoints(space) == 1)
    check_vlen_string_length(ds, path_, name);
  return read_one_string(
      type, space, [&](hid_t mem, void* buf) { return H5Dread(ds, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf); },
      path_, dataset(name));
}

std::string H5File::read_attribute(const std::string& name, const std::string& attr) const {
  const hid_t file = live(id_, path_, object(name));
  Handle a(H5Aopen_by_name(file, name.c_str(), attr.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!a.ok()) fail(path_, object(name), "cannot open attribute '" + attr + "'");
  Handle type(H5Aget_type(a), H5Tclose);
  Handle space(H5Aget_space(a), H5Sclose);
  return read_one_string(
      type, space, [&](hid_t mem, void* buf) { return H5Aread(a, mem, buf); },
      path_, object(name) + ", attribute '" + attr + "'");
}

namespace {

// Selects rows [first, first + count) of a dataset's space (a row: all the trailing dimensions) and
// returns the matching memory space; throws naming the dataset when the rows are not all there.
Handle row_slab(hid_t space, const std::filesystem::path& file, const std::string& name, std::size_t first, std::size_t count) {
  const int nd = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(nd, 1)), 1);
  if (nd > 0) H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  if (first + count > dims[0])
    throw Error("HDF5 file '" + file.string() + "', " + dataset(name) + ": rows " + std::to_string(first) + ".." +
                std::to_string(first + count - 1) + " asked for, the dataset has " + std::to_string(dims[0]));
  hsize_t row_size = 1;
  for (std::size_t d = 1; d < dims.size(); ++d) row_size *= dims[d];
  std::vector<hsize_t> start(dims.size(), 0), extent(dims.begin(), dims.end());
  start[0] = first;
  extent[0] = count;
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start.data(), nullptr, extent.data(), nullptr);
  const hsize_t n = count * row_size;
  return Handle(H5Screate_simple(1, &n, nullptr), H5Sclose);
}

}  // namespace

void H5File::create_doubles(const std::string& name, const std::vector<std::size_t>& dims) {
  const hid_t file = live(id_, path_, dataset(name));
  ensure_parent_groups(name);
  const std::vector<hsize_t> hdims(dims.begin(), dims.end());
  Handle space(H5Screate_simple(static_cast<int>(dims.size()), hdims.data(), nullptr), H5Sclose);
  Handle ds(H5Dcreate2(file, name.c_str(), H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) fail(path_, dataset(name), "cannot create it");
}

void H5File::write_rows(const std::string& name, std::size_t first, std::size_t count, const double* data) {
  Handle ds = open_dataset(id_, path_, name);
  Handle space(H5Dget_space(ds), H5Sclose);
  Handle mem = row_slab(space, path_, name, first, count);
  if (count > 0 && H5Dwrite(ds, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, data) < 0) fail(path_, dataset(name), "cannot write rows");
}

void H5File::read_rows(const std::string& name, std::size_t first, std::size_t count, double* out) const {
  Handle ds = open_dataset(id_, path_, name);
  Handle type(H5Dget_type(ds), H5Tclose);
  if (H5Tget_class(type) != H5T_FLOAT && H5Tget_class(type) != H5T_INTEGER)
    throw Error("HDF5 file '" + path_.string() + "', " + dataset(name) + ": holds no numbers, expected numbers");
  Handle space(H5Dget_space(ds), H5Sclose);
  Handle mem = row_slab(space, path_, name, first, count);
  if (count > 0 && H5Dread(ds, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, out) < 0) fail(path_, dataset(name), "cannot read rows");
}

std::string hdf5_library_version() {
  init_hdf5();
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

}  // namespace quanta::io
