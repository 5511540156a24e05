// The checkpoint file (checkpoint.hpp): appended rows, written by a thread of its own. HDF5 C API: the
// datasets are allocated whole at creation (contiguous, never filled), which core's H5File does not offer.
#include "checkpoint.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "../kernels/layout.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/core/timer.hpp"

namespace quanta::kbe {
namespace {

constexpr const char* kFormat = "quanta-kbe checkpoint 4 (rows written into space allocated at creation; adaptive steps)";

struct Id {  // closes an HDF5 identifier with the function it was opened with
  hid_t id;
  herr_t (*close)(hid_t);
  Id(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  ~Id() {
    if (id >= 0) close(id);
  }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  operator hid_t() const { return id; }
};

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& what) {
  throw Error("kbe checkpoint " + file.string() + ": " + what + " failed");
}

void check(herr_t r, const std::filesystem::path& file, const std::string& what) {
  if (r < 0) fail(file, what);
}

// A 1-D dataset of `size` elements whose file space is allocated now and never filled (a sparse file until
// written): writing into it later changes raw data only, never the file's metadata.
void create_series(hid_t f, const std::filesystem::path& file, const std::string& name, hid_t type, hsize_t size) {
  size = std::max<hsize_t>(1, size);
  Id space(H5Screate_simple(1, &size, nullptr), H5Sclose);
  Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  check(H5Pset_layout(dcpl, H5D_CONTIGUOUS), file, "layout of " + name);
  check(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), file, "allocation of " + name);
  check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), file, "fill of " + name);
  check(H5Pset_create_intermediate_group(lcpl, 1), file, "groups of " + name);
  Id d(H5Dcreate2(f, name.c_str(), type, space, lcpl, dcpl, H5P_DEFAULT), H5Dclose);
  if (d < 0) fail(file, "creating " + name);
}

// Elements [offset, offset + count) of a 1-D dataset made by create_series.
void write_at(hid_t f, const std::filesystem::path& file, const std::string& name, hid_t type, hsize_t offset, hsize_t count,
              const void* data) {
  if (count == 0) return;
  Id d(H5Dopen2(f, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (d < 0) fail(file, "opening " + name);
  Id space(H5Dget_space(d), H5Sclose);
  hsize_t size = 0;
  H5Sget_simple_extent_dims(space, &size, nullptr);
  if (size < offset + count)
    fail(file, "writing " + name + " (" + std::to_string(offset + count) + " values into " + std::to_string(size) + ")");
  check(H5Sselect_hyperslab(space, H5S_SELECT_SET, &offset, nullptr, &count, nullptr), file, "selecting in " + name);
  Id mem(H5Screate_simple(1, &count, nullptr), H5Sclose);
  check(H5Dwrite(d, type, mem, space, H5P_DEFAULT, data), file, "writing " + name);
}

void read_at(hid_t f, const std::filesystem::path& file, const std::string& name, hid_t type, hsize_t offset, hsize_t count,
             void* out) {
  if (count == 0) return;
  Id d(H5Dopen2(f, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (d < 0) fail(file, "opening " + name);
  Id space(H5Dget_space(d), H5Sclose);
  hsize_t size = 0;
  H5Sget_simple_extent_dims(space, &size, nullptr);
  if (size < offset + count)
    throw InputError(file.string(), 0, name, std::to_string(size) + " values", "at least " + std::to_string(offset + count));
  check(H5Sselect_hyperslab(space, H5S_SELECT_SET, &offset, nullptr, &count, nullptr), file, "selecting in " + name);
  Id mem(H5Screate_simple(1, &count, nullptr), H5Sclose);
  check(H5Dread(d, type, mem, space, H5P_DEFAULT, out), file, "reading " + name);
}

// An int64 attribute of n values, written (or rewritten in place) by one H5Awrite.
void set_attribute(hid_t f, const std::filesystem::path& file, const char* name, const std::int64_t* v, hsize_t n) {
  Id space(n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
  Id a(H5Aexists(f, name) > 0 ? H5Aopen(f, name, H5P_DEFAULT) : H5Acreate2(f, name, H5T_NATIVE_INT64, space, H5P_DEFAULT, H5P_DEFAULT),
       H5Aclose);
  if (a < 0) fail(file, std::string("attribute ") + name);
  check(H5Awrite(a, H5T_NATIVE_INT64, v), file, std::string("writing attribute ") + name);
}

void set_attribute(hid_t f, const std::filesystem::path& file, const char* name, std::int64_t v) { set_attribute(f, file, name, &v, 1); }

void set_attribute(hid_t f, const std::filesystem::path& file, const char* name, const std::string& v) {
  Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, std::max<std::size_t>(1, v.size()));
  Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Id a(H5Acreate2(f, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (a < 0) fail(file, std::string("attribute ") + name);
  check(H5Awrite(a, type, v.data()), file, std::string("writing attribute ") + name);
}

bool has_attribute(hid_t f, const char* name) { return H5Aexists(f, name) > 0; }

std::vector<std::int64_t> int_attribute(hid_t f, const std::filesystem::path& file, const char* name, std::size_t n) {
  if (!has_attribute(f, name)) throw InputError(file.string(), 0, name, "no such attribute", "a checkpoint written by quanta kbe");
  Id a(H5Aopen(f, name, H5P_DEFAULT), H5Aclose);
  Id space(H5Aget_space(a), H5Sclose);
  if (static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)) != n)
    throw InputError(file.string(), 0, name, std::to_string(H5Sget_simple_extent_npoints(space)) + " values", std::to_string(n));
  std::vector<std::int64_t> v(n);
  check(H5Aread(a, H5T_NATIVE_INT64, v.data()), file, std::string("reading attribute ") + name);
  return v;
}

std::int64_t int_attribute(hid_t f, const std::filesystem::path& file, const char* name) { return int_attribute(f, file, name, 1)[0]; }

std::string string_attribute(hid_t f, const std::filesystem::path& file, const char* name) {
  if (!has_attribute(f, name)) return "";
  Id a(H5Aopen(f, name, H5P_DEFAULT), H5Aclose);
  Id type(H5Aget_type(a), H5Tclose);
  std::string v(H5Tget_size(type), '\0');
  Id mem(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(mem, v.size());
  check(H5Aread(a, mem, v.data()), file, std::string("reading attribute ") + name);
  return v.substr(0, v.find('\0'));
}

std::string slot_name(int slot, const char* what) { return "slot" + std::to_string(slot) + "/" + what; }

// A compressed history's side file: this magic line, the digest, the step and the count (int64 each), the values.
constexpr char kHistoryMagic[16] = "quanta-kbe hist";

void write_history_state(const std::filesystem::path& file, std::uint64_t digest, int step, const std::vector<double>& state) {
  io::AtomicFile out(file);
  const std::int64_t head[3] = {static_cast<std::int64_t>(digest), step, static_cast<std::int64_t>(state.size())};
  out.stream().write(kHistoryMagic, sizeof kHistoryMagic);
  out.stream().write(reinterpret_cast<const char*>(head), sizeof head);
  out.stream().write(reinterpret_cast<const char*>(state.data()), static_cast<std::streamsize>(state.size() * sizeof(double)));
  out.commit();
}

std::vector<double> read_history_state(const std::filesystem::path& file, std::uint64_t digest, int step) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file.string(), "--resume: the compressed history of the checkpoint is missing (expected next to its .h5)");
  char magic[sizeof kHistoryMagic] = {};
  std::int64_t head[3] = {};
  in.read(magic, sizeof magic);
  in.read(reinterpret_cast<char*>(head), sizeof head);
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  const std::uintmax_t header = sizeof magic + sizeof head;
  if (!in || std::memcmp(magic, kHistoryMagic, sizeof magic) != 0 || ec || head[2] < 0 ||
      size != header + static_cast<std::uintmax_t>(head[2]) * sizeof(double))
    throw InputError(file.string(), "--resume: not a complete compressed history written by quanta kbe");
  if (static_cast<std::uint64_t>(head[0]) != digest || head[1] != step)
    throw InputError(file.string(), "--resume: its compressed history is of another config or step (" + std::to_string(head[1]) + ", expected " +
                                        std::to_string(step) + ")");
  std::vector<double> state(static_cast<std::size_t>(head[2]));
  in.read(reinterpret_cast<char*>(state.data()), static_cast<std::streamsize>(state.size() * sizeof(double)));
  if (!in) throw InputError(file.string(), "--resume: its compressed history could not be read whole");
  return state;
}

}  // namespace

struct CheckpointWriter::Job {
  int step = 0;
  std::vector<cplx> i_less, i_greater;
  std::vector<double> history_state;  // a compressed history's store
  double next_dt = 0;
  std::vector<cplx> before;
  History added;  // the history entries since the last checkpoint
};

CheckpointWriter::CheckpointWriter(std::filesystem::path file, std::uint64_t digest, int nk, int last_step,
                                   std::unique_ptr<HalfPlaneReader> reader, const CheckpointPosition* resumed)
    : file_(std::move(file)), digest_(digest), nk_(nk), last_step_(last_step), reader_(std::move(reader)) {
  if (resumed) {
    done_ = *resumed;
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    file_id_ = H5Fopen(file_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    if (file_id_ < 0) fail(file_, "opening to continue it");
  }
}

CheckpointWriter::~CheckpointWriter() {
  if (thread_.joinable()) thread_.join();
  if (file_id_ >= 0) H5Fclose(file_id_);
}

void CheckpointWriter::wait() {
  WallTimer t;
  if (thread_.joinable()) thread_.join();
  seconds_waited_ += t.seconds();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void CheckpointWriter::abandon() {
  abandoned_ = true;
  wait();
}

void CheckpointWriter::begin(int step, std::vector<cplx> i_less, std::vector<cplx> i_greater, const History& h,
                             std::vector<double> history_state, double next_dt, std::vector<cplx> before) {
  wait();
  if (!reader_ == history_state.empty())
    throw Error("kbe checkpoint: a " + std::string(reader_ ? "dense history's checkpoint given a compressed store" : "compressed history's checkpoint without its store"));
  auto job = std::make_shared<Job>();
  job->step = step;
  job->history_state = std::move(history_state);
  job->next_dt = next_dt;
  job->before = std::move(before);
  job->i_less = std::move(i_less);
  job->i_greater = std::move(i_greater);
  const std::size_t from = static_cast<std::size_t>(done_.step + 1);
  job->added.nk = h.nk;
  auto source = const_cast<History&>(h).series();  // read only
  auto target = job->added.series();
  for (std::size_t s = 0; s < source.size(); ++s)
    target[s].values->assign(source[s].values->begin() + from * source[s].per_step, source[s].values->end());
  job->added.corrector_passes.assign(h.corrector_passes.begin() + from, h.corrector_passes.end());
  running_ = true;
  thread_ = std::thread([this, job] {
    WallTimer t;
    try {
      write(*job);
    } catch (...) {
      error_ = std::current_exception();
    }
    seconds_writing_ += t.seconds();
    running_ = false;
  });
}

void CheckpointWriter::write(const Job& job) {
  const std::size_t bs = kernels::block_size(nk_), doubles_per_block = 2 * bs;
  const bool fresh = file_id_ < 0;
  const std::filesystem::path target = fresh ? io::temporary_path_for(file_) : file_;
  if (fresh) {  // the first checkpoint of a run: a new file under a temporary name
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    file_id_ = H5Fcreate(target.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file_id_ < 0) fail(target, "creating");
    set_attribute(file_id_, target, "format", kFormat);
    char digest[17];
    std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(digest_));
    set_attribute(file_id_, target, "digest", digest);
    set_attribute(file_id_, target, "nk", std::int64_t{nk_});
    set_attribute(file_id_, target, "history_nk", std::int64_t{job.added.nk});
    // Every dataset at its size at the last step: later checkpoints write raw data only.
    const hsize_t steps = static_cast<hsize_t>(last_step_) + 1;
    if (reader_)  // a compressed history's store goes to the side files
      for (const char* g : {"g_less", "g_greater"})
        create_series(file_id_, target, g, H5T_NATIVE_DOUBLE, kernels::tri_count(last_step_ + 1) * doubles_per_block);
    for (int slot = 0; slot < 2; ++slot) {
      for (const char* g : {"i_less", "i_greater"})
        create_series(file_id_, target, slot_name(slot, g), H5T_NATIVE_DOUBLE, steps * doubles_per_block);
      create_series(file_id_, target, slot_name(slot, "next_dt"), H5T_NATIVE_DOUBLE, 1);
      create_series(file_id_, target, slot_name(slot, "before"), H5T_NATIVE_DOUBLE, doubles_per_block + 8);
    }
    History empty;
    empty.nk = job.added.nk;
    for (const HistorySeries& s : empty.series())
      create_series(file_id_, target, std::string("history/") + s.name, H5T_NATIVE_DOUBLE, steps * s.per_step);
    create_series(file_id_, target, "history/solver/corrector_passes", H5T_NATIVE_INT64, steps);
    done_ = CheckpointPosition{-1, 1};
  }
  const hid_t f = file_id_;
  // 1. The rows done_.step + 1 .. job.step of the half-plane, piece by piece.
  const std::size_t first = kernels::tri_count(done_.step + 1), end = kernels::tri_count(job.step + 1);
  const auto stopped = [&] {
    if (!abandoned_) return false;
    if (fresh) {  // a first checkpoint never completed: no file
      H5Fclose(file_id_);
      file_id_ = -1;
      std::error_code ec;
      std::filesystem::remove(target, ec);
      for (int slot = 0; slot < 2; ++slot) std::filesystem::remove(checkpoint_history_path(file_, slot), ec);
    }
    return true;
  };
  for (std::size_t b = first; reader_ && b < end; b += reader_->max_blocks()) {
    if (stopped()) return;
    const std::size_t count = std::min(reader_->max_blocks(), end - b);
    const auto [less, greater] = reader_->blocks(b, count);
    write_at(f, target, "g_less", H5T_NATIVE_DOUBLE, b * doubles_per_block, count * doubles_per_block, less);
    write_at(f, target, "g_greater", H5T_NATIVE_DOUBLE, b * doubles_per_block, count * doubles_per_block, greater);
  }
  // 2. The history entries since the last checkpoint; 3. I<>(t_step, .) into the slot not in use.
  const std::size_t from = static_cast<std::size_t>(done_.step + 1);
  for (const HistorySeries& s : const_cast<History&>(job.added).series())
    write_at(f, target, std::string("history/") + s.name, H5T_NATIVE_DOUBLE, from * s.per_step, s.values->size(), s.values->data());
  write_at(f, target, "history/solver/corrector_passes", H5T_NATIVE_INT64, from, job.added.corrector_passes.size(),
           job.added.corrector_passes.data());
  const int slot = 1 - done_.slot;
  if (!reader_) {
    if (stopped()) return;
    write_history_state(checkpoint_history_path(file_, slot), digest_, job.step, job.history_state);
  }
  write_at(f, target, slot_name(slot, "i_less"), H5T_NATIVE_DOUBLE, 0, 2 * job.i_less.size(), job.i_less.data());
  write_at(f, target, slot_name(slot, "i_greater"), H5T_NATIVE_DOUBLE, 0, 2 * job.i_greater.size(), job.i_greater.data());
  write_at(f, target, slot_name(slot, "next_dt"), H5T_NATIVE_DOUBLE, 0, 1, &job.next_dt);
  write_at(f, target, slot_name(slot, "before"), H5T_NATIVE_DOUBLE, 0, 2 * job.before.size(), job.before.data());
  // 4. Everything on disk, then the one attribute that makes it the state (step and slot in one message, one
  // write), then that on disk.
  if (stopped()) return;
  check(H5Fflush(f, H5F_SCOPE_GLOBAL), target, "flushing");
  const std::int64_t position[2] = {job.step, slot};
  set_attribute(f, target, "position", position, 2);
  check(H5Fflush(f, H5F_SCOPE_GLOBAL), target, "flushing");
  done_ = CheckpointPosition{job.step, slot};
  if (fresh) {
    const herr_t closed = H5Fclose(file_id_);
    file_id_ = -1;
    check(closed, target, "closing");
    io::commit_rename(target, file_);
    file_id_ = H5Fopen(file_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    if (file_id_ < 0) fail(file_, "reopening");
  }
}

std::filesystem::path checkpoint_history_path(const std::filesystem::path& file, int slot) {
  return file.string() + ".history" + std::to_string(slot);
}

void remove_checkpoint(const std::filesystem::path& file) {
  std::filesystem::remove(file);
  for (int slot = 0; slot < 2; ++slot) std::filesystem::remove(checkpoint_history_path(file, slot));
}

std::uintmax_t checkpoint_bytes(int nk, int last_step, int history_nk, std::uintmax_t compressed_state_values) {
  const std::uintmax_t block = kernels::block_size(nk) * sizeof(cplx), steps = static_cast<std::uintmax_t>(last_step) + 1;
  const std::uintmax_t history = compressed_state_values > 0 ? 2 * compressed_state_values * sizeof(double)  // two side files
                                                             : 2 * kernels::tri_count(last_step + 1) * block;
  // The two slots' collision rows, next_dt and `before`; the corrector passes.
  std::uintmax_t bytes = history + 4 * steps * block + 2 * (1 + 2 * kernels::block_size(nk) + 8) * sizeof(double) + steps * sizeof(std::int64_t);
  History empty;
  empty.nk = history_nk;
  for (const HistorySeries& s : empty.series()) bytes += steps * s.per_step * sizeof(double);
  return bytes;
}

CheckpointPosition read_checkpoint_position(const std::filesystem::path& file, std::uint64_t digest) {
  if (!std::filesystem::exists(file))
    throw InputError(file.string(), "--resume: found no checkpoint file, expected one written by an earlier run of this config");
  io::check_hdf5_file(file);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Id f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (f < 0) throw InputError(file.string(), "--resume: cannot be opened as HDF5 (is another run still writing it?)");
  const std::string format = string_attribute(f, file, "format");
  if (format != kFormat)
    throw InputError(file.string(), 0, "format", format.empty() ? "no format attribute" : format,
                     std::string(kFormat) + " (a checkpoint of this quanta version; start the run again without --resume)");
  char expected[17];
  std::snprintf(expected, sizeof expected, "%016llx", static_cast<unsigned long long>(digest));
  const std::string found = string_attribute(f, file, "digest");
  if (found != expected)
    throw InputError(file.string(), 0, "digest", found, std::string(expected) + " (the checkpoint was written for another config)");
  CheckpointPosition at;
  at.digest = digest;
  const auto position = int_attribute(f, file, "position", 2);
  at.step = static_cast<int>(position[0]);
  at.slot = static_cast<int>(position[1]);
  if (at.step < 0 || (at.slot != 0 && at.slot != 1))
    throw InputError(file.string(), 0, "position", std::to_string(at.step) + ", " + std::to_string(at.slot),
                     "a completed step and slot 0 or 1");
  return at;
}

void restore_checkpoint(const std::filesystem::path& file, const CheckpointPosition& at, Propagator& prop, History& h) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Id f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (f < 0) throw InputError(file.string(), "--resume: cannot be opened as HDF5");
  const int nk = static_cast<int>(int_attribute(f, file, "nk"));
  if (nk != prop.nk())
    throw InputError(file.string(), 0, "nk", std::to_string(nk), std::to_string(prop.nk()) + " k-points (this process's share)");
  const std::size_t bs = kernels::block_size(nk), entries = static_cast<std::size_t>(at.step + 1);
  std::vector<cplx> i_less(entries * bs), i_greater(entries * bs);
  read_at(f, file, slot_name(at.slot, "i_less"), H5T_NATIVE_DOUBLE, 0, 2 * i_less.size(), i_less.data());
  read_at(f, file, slot_name(at.slot, "i_greater"), H5T_NATIVE_DOUBLE, 0, 2 * i_greater.size(), i_greater.data());
  if (prop.compressed_history()) {
    const std::filesystem::path side = checkpoint_history_path(file, at.slot);
    prop.restore_compressed(at.step, read_history_state(side, at.digest, at.step), i_less, i_greater, side.string());
  } else {
    prop.restore_rows(
        at.step,
        [&](std::size_t first, std::size_t count, cplx* less, cplx* greater) {
          read_at(f, file, "g_less", H5T_NATIVE_DOUBLE, 2 * first * bs, 2 * count * bs, less);
          read_at(f, file, "g_greater", H5T_NATIVE_DOUBLE, 2 * first * bs, 2 * count * bs, greater);
        },
        i_less, i_greater);
  }
  h = History{};
  h.nk = static_cast<int>(int_attribute(f, file, "history_nk"));  // every k of the run, on every process
  for (const HistorySeries& s : h.series()) {
    s.values->resize(entries * s.per_step);
    read_at(f, file, std::string("history/") + s.name, H5T_NATIVE_DOUBLE, 0, s.values->size(), s.values->data());
  }
  h.corrector_passes.resize(entries);
  read_at(f, file, "history/solver/corrector_passes", H5T_NATIVE_INT64, 0, entries, h.corrector_passes.data());
  double next_dt = 0;
  read_at(f, file, slot_name(at.slot, "next_dt"), H5T_NATIVE_DOUBLE, 0, 1, &next_dt);
  std::vector<cplx> before(prop.adaptive_state_before().size());
  read_at(f, file, slot_name(at.slot, "before"), H5T_NATIVE_DOUBLE, 0, 2 * before.size(), before.data());
  prop.restore_time_grid(h.time, next_dt, before);
}

}  // namespace quanta::kbe
