// Checkpoints of the four-phonon stage (four_phonon_checkpoint.hpp).
#include "four_phonon_checkpoint.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

#include "quanta/core/comm.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/progress.hpp"

namespace quanta::phonon {
namespace {

constexpr char kMagic[8] = {'Q', '4', 'P', 'H', 'C', 'K', 'P', '1'};
constexpr std::uint64_t kRecord = 0x52454344345150ull;  // a record's mark
constexpr const char* kPrefix = "quanta-phonon-4ph.";

bool is_checkpoint(const std::filesystem::path& p) {
  const std::string name = p.filename().string();
  return name.rfind(kPrefix, 0) == 0 && p.extension() == ".ckpt";
}

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = 1469598103934665603ull) {
  const auto* b = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

template <class T>
bool get(std::ifstream& in, T& x) {
  return static_cast<bool>(in.read(reinterpret_cast<char*>(&x), sizeof x));
}

}  // namespace

FourPhononCheckpoint::FourPhononCheckpoint(const std::filesystem::path& dir, const std::string& fingerprint, bool resume, bool quiet)
    : dir_(dir), fingerprint_(fingerprint) {
  const Comm& comm = Comm::world();
  std::vector<std::filesystem::path> found;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && is_checkpoint(e.path())) found.push_back(e.path());
  if (!resume) {
    if (comm.root())
      for (const auto& p : found) {
        warn("phonon", p.string() + ": a four-phonon checkpoint of an earlier run, removed (--resume continues from it)");
        std::filesystem::remove(p);
      }
    found.clear();
  }
  std::size_t units = 0;
  for (const auto& p : found) {
    std::ifstream in(p, std::ios::binary);
    char magic[8];
    std::uint64_t n = 0;
    if (!in.read(magic, 8) || std::memcmp(magic, kMagic, 8) != 0 || !get(in, n) || n > (1u << 20))
      throw InputError(p.string(), "is not a quanta four-phonon checkpoint (remove it, or run without --resume)");
    std::string fp(n, '\0');
    if (!in.read(fp.data(), static_cast<std::streamsize>(n)) || fp != fingerprint)
      throw InputError(p.string(), "is the checkpoint of another input or other options (" + fp.substr(0, 200) +
                                       "); remove it, or run without --resume");
    for (;;) {
      std::uint64_t mark = 0, count = 0, sum = 0;
      std::int64_t ids[2];
      if (!get(in, mark)) break;  // the end
      if (mark != kRecord || !get(in, ids) || !get(in, count) || count > (std::uint64_t{1} << 36)) {
        warn("phonon", p.string() + ": a torn or corrupt record after " + std::to_string(units) + " units; the rest is recomputed");
        break;
      }
      std::vector<double> payload(count);
      if (!in.read(reinterpret_cast<char*>(payload.data()), static_cast<std::streamsize>(count * sizeof(double))) || !get(in, sum) ||
          sum != fnv1a(payload.data(), count * sizeof(double), fnv1a(ids, sizeof ids))) {
        warn("phonon", p.string() + ": a torn or corrupt record (the run was stopped while writing it); it is recomputed");
        break;
      }
      done_[{static_cast<int>(ids[0]), static_cast<int>(ids[1])}] = std::move(payload);
      ++units;
    }
  }
  if (resume)
    note("phonon", quiet, "four-phonon checkpoint: " + std::to_string(done_.size()) + " completed units read from " +
                              std::to_string(found.size()) + " file(s)" + (found.empty() ? " (nothing to resume)" : ""));
  // This run's own file, a name no earlier run used, created once every rank has read the folder.
  comm.max(0);
  const auto stamp = std::chrono::system_clock::now().time_since_epoch().count();
  file_ = dir / (std::string(kPrefix) + std::to_string(stamp) + "-" + std::to_string(::getpid()) + "." + std::to_string(comm.rank()) + ".ckpt");
  std::ofstream out(file_, std::ios::binary);
  const std::uint64_t n = fingerprint.size();
  out.write(kMagic, 8);
  out.write(reinterpret_cast<const char*>(&n), sizeof n);
  out.write(fingerprint.data(), static_cast<std::streamsize>(n));
  if (!out.flush()) throw Error("cannot write the four-phonon checkpoint " + file_.string());
}

void FourPhononCheckpoint::append(int pass, int block, const std::vector<double>& payload) {
  std::ofstream out(file_, std::ios::binary | std::ios::app);
  const std::int64_t ids[2] = {pass, block};
  const std::uint64_t count = payload.size();
  const std::uint64_t sum = fnv1a(payload.data(), count * sizeof(double), fnv1a(ids, sizeof ids));
  out.write(reinterpret_cast<const char*>(&kRecord), sizeof kRecord);
  out.write(reinterpret_cast<const char*>(ids), sizeof ids);
  out.write(reinterpret_cast<const char*>(&count), sizeof count);
  out.write(reinterpret_cast<const char*>(payload.data()), static_cast<std::streamsize>(count * sizeof(double)));
  out.write(reinterpret_cast<const char*>(&sum), sizeof sum);
  if (!out.flush()) throw Error("cannot write the four-phonon checkpoint " + file_.string());
}

void FourPhononCheckpoint::remove_all(const std::filesystem::path& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (is_checkpoint(e.path())) std::filesystem::remove(e.path(), ec);
}

}  // namespace quanta::phonon
