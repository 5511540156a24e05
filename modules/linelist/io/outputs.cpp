#include "outputs.hpp"

#include <fcntl.h>
#include <unistd.h>

#if QUANTA_HAVE_BZIP2
#include <bzlib.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <memory>
#include <ctime>
#include <limits>

#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/core/io/printf_format.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/core/version.hpp"

namespace quanta::linelist {
namespace {

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

std::string label(const SymmetryGroup& g, int gamma1) {
  return gamma1 >= 1 && gamma1 <= g.nirreps() ? g.irreps[gamma1 - 1] : "?";
}

}  // namespace

void write_exomol_states(const std::filesystem::path& path, const Levels& L, const IntensityInput& in, const std::vector<double>* decay) {
  if (decay && decay->size() != L.levels.size())
    throw Error("the lifetimes: " + std::to_string(decay->size()) + " decay rates for " + std::to_string(L.levels.size()) + " levels");
  io::AtomicFile f(path);
  const SymmetryGroup& G = *L.group;
  for (std::size_t i = 0; i < L.levels.size(); ++i) {
    const Level& l = L.levels[i];
    const RootDescription& r = l.root;
    std::string line = format("%12d %12.6f %6d %7d", l.id, l.energy - L.zpe, static_cast<int>(in.gns[l.gamma - 1]) * (2 * l.J + 1), l.J);
    if (decay) line += (*decay)[i] > 0 ? format(" %12.4E", 1.0 / (*decay)[i]) : std::string("          Inf");
    line += format("  %-3s  ", label(G, l.gamma).c_str());
    if (!L.trove_assignments) {
      // Levels from another code: its assignment columns as given.
      for (int q : r.quanta) line += format("%3d", q);
      f.stream() << line << '\n';
      continue;
    }
    for (int m = 1; m <= L.nmodes; ++m) line += format("%3d", r.quanta[m]);
    line += " ";
    for (int c = 1; c <= L.nclasses; ++c) line += format(" %-3s", label(G, r.cgamma[c]).c_str());
    // TROVE's rotational label q0: 0 -> (0, J mod 2), 2k-1 -> (k, 0), 2k -> (k, 1).
    const int q0 = r.quanta[0];
    const int k = (q0 + 1) / 2, tau = q0 == 0 ? l.J % 2 : (q0 % 2 == 1 ? 0 : 1);
    // TROVE marks the levels of the run's highest J ":;" (their transitions to J + 1 are not in the list).
    line += format("%4d%4d %-3s  %5.2f %s %9d ", k, tau, label(G, r.cgamma[0]).c_str(), r.largest_coeff, l.J == in.jmax ? ":;" : "::", r.level);
    for (int m = 1; m <= L.nmodes; ++m) line += format("%3d", r.normal[m]);
    line += format(" %8d\n", r.vib_index);
    f.stream() << line;
  }
  f.commit();
}

bool in_trans_file(const Transition& t) { return t.einstein_a > std::numeric_limits<double>::epsilon(); }

void add_decay_rates(const std::vector<Transition>& transitions, std::vector<double>& decay) {
  for (const Transition& t : transitions)
    if (in_trans_file(t)) decay[static_cast<std::size_t>(t.upper)] += t.einstein_a;
}

namespace {

// One .trans line, "%12d %12d  %16.8E %16.6f\n", appended to out (printf's text without its per-call parsing: the
// range-split writer formats 10^9 of them).
void append_trans_line(std::string& out, int upper_id, int lower_id, double a, double nu) {
  io::append_printf_d(out, upper_id, 12);
  out += ' ';
  io::append_printf_d(out, lower_id, 12);
  out += "  ";
  io::append_printf_E(out, a, 16, 8);
  out += ' ';
  io::append_printf_f(out, nu, 16, 6);
  out += '\n';
}

std::string trans_line(int upper_id, int lower_id, double a, double nu) {
  std::string line;
  append_trans_line(line, upper_id, lower_id, a, nu);
  return line;
}

}  // namespace

void write_exomol_trans(const std::filesystem::path& path, const Levels& L, const LineList& list) {
  io::AtomicFile f(path);
  for (const Transition& t : list.transitions)
    if (in_trans_file(t)) f.stream() << trans_line(L.levels[t.upper].id, L.levels[t.lower].id, t.einstein_a, t.wavenumber);
  f.commit();
}

void write_exomol_pf(const std::filesystem::path& path, const Levels& L, const IntensityInput& in, int tmax) {
  if (tmax < 1) throw Error("--pf: the highest temperature must be at least 1 K");
  io::AtomicFile f(path);
  for (int t = 1; t <= tmax; ++t) {
    const double q = partition_function(L, in, t);
    if (!std::isfinite(q)) throw Error("the partition function at " + std::to_string(t) + " K is not finite (" + path.string() + " not written)");
    f.stream() << format("%8.1f %15.4f\n", static_cast<double>(t), q);
  }
  f.commit();
}

namespace {

struct Isotope {
  int number = 0;
  std::string symbol;
};

// "O1" -> "O", "Si" -> "Si"; the mass number from the mass (the nearest integer).
Isotope isotope_of(const IntensityInput::Atom& a, const std::string& file) {
  std::string sym;
  for (char c : a.label)
    if (std::isalpha(static_cast<unsigned char>(c))) sym += c;
  if (sym.empty() || !std::isupper(static_cast<unsigned char>(sym[0])) || sym.size() > 2)
    throw InputError(file, "ZMAT atom '" + a.label + "': expected an element symbol (e.g. O, Si, O1) for the .def file");
  return {static_cast<int>(std::lround(a.mass)), sym};
}

}  // namespace

void write_exomol_def(const std::filesystem::path& path, const Levels& L, const IntensityInput& in, const DefInfo& info) {
  const std::string file = in.file.string();
  if (in.atoms.empty())
    throw InputError(file, "no ZMAT block whose lines end with each atom's mass: the .def file (--def) needs the atoms and their masses");
  std::vector<Isotope> atoms;
  double mass = 0;
  for (const auto& a : in.atoms) {
    atoms.push_back(isotope_of(a, file));
    mass += a.mass;
  }
  // Formula and slug: each isotope once, in order of first appearance, with its count.
  std::vector<std::pair<Isotope, int>> groups;
  for (const auto& a : atoms) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first.number == a.number && g.first.symbol == a.symbol; });
    if (it == groups.end()) groups.push_back({a, 1});
    else ++it->second;
  }
  std::string formula, slug;
  for (const auto& [iso, n] : groups) {
    formula += format("(%d%s)", iso.number, iso.symbol.c_str()) + (n > 1 ? std::to_string(n) : "");
    slug += (slug.empty() ? "" : "-") + std::to_string(iso.number) + iso.symbol + (n > 1 ? std::to_string(n) : "");
  }
  // The .states columns after J, as write_exomol_states writes them.
  struct Quantum {
    std::string label, fmt, description;
  };
  std::vector<Quantum> q;
  const SymmetryGroup& G = *L.group;
  if (L.trove_assignments) {
    q.push_back({"Gamma", "%-3s", "total symmetry in " + G.name});
    for (int m = 1; m <= L.nmodes; ++m) q.push_back({"v" + std::to_string(m), "%3d", "vibrational quantum number " + std::to_string(m) + " (TROVE's local mode)"});
    for (int c = 1; c <= L.nclasses; ++c) q.push_back({"Gamma_vib" + std::to_string(c), "%-3s", "symmetry of vibrational class " + std::to_string(c)});
    q.push_back({"K", "%4d", "projection of J on the molecule-fixed z axis"});
    q.push_back({"tau", "%4d", "rotational parity (0 or 1)"});
    q.push_back({"Gamma_rot", "%-3s", "rotational symmetry"});
    q.push_back({"Ci", "%5.2f", "largest coefficient of the eigenvector"});
    q.push_back({"sep", "%2s", "TROVE's separator: '::' (':;' for the highest J of the list)"});
    q.push_back({"n", "%9d", "TROVE's level number within its J and symmetry"});
    for (int m = 1; m <= L.nmodes; ++m) q.push_back({"n" + std::to_string(m), "%3d", "normal-mode quantum number " + std::to_string(m)});
    q.push_back({"i_vib", "%8d", "TROVE's index of the vibrational (J = 0) function"});
  } else if (!L.levels.empty()) {
    for (std::size_t i = 0; i < L.levels[0].root.quanta.size(); ++i)
      q.push_back({"q" + std::to_string(i + 1), "%3d", "assignment column " + std::to_string(i + 1) + " of the levels file"});
  }
  std::time_t now = std::time(nullptr);
  char date[16];
  std::strftime(date, sizeof date, "%Y%m%d", std::gmtime(&now));
  io::AtomicFile f(path);
  auto put = [&](const std::string& value, const std::string& description) { f.stream() << format("%-40s # %s\n", value.c_str(), description.c_str()); };
  put("EXOMOL.def", "ID");
  put(formula, "IsoFormula");
  put(slug, "Iso-slug");
  put(info.dataset, "Isotopologue dataset name");
  put(date, "Version number with format YYYYMMDD");
  put("unknown", "Inchi key of molecule");
  put(std::to_string(atoms.size()), "Number of atoms");
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    put(std::to_string(atoms[i].number), "Isotope number " + std::to_string(i + 1));
    put(atoms[i].symbol, "Element symbol " + std::to_string(i + 1));
  }
  put(format("%.8f %.8E", mass, mass * 1.66053906660e-27), "Isotopologue mass (Da) and (kg)");
  put(G.name, "Symmetry group");
  put(std::to_string(G.nirreps()), "Number of irreducible representations");
  for (int g = 0; g < G.nirreps(); ++g) {
    put(std::to_string(g + 1), "Irreducible representation ID");
    put(G.irreps[g], "Irreducible representation label");
    put(std::to_string(static_cast<long long>(std::llround(in.gns[g]))), "Nuclear spin degeneracy");
  }
  put(format("%.1f", info.max_temperature), "Maximum temperature of linelist");
  put("0", "No. of pressure broadeners available");
  put("0", "Dipole availability (1=yes, 0=no)");
  put(std::to_string(info.xsec_files), "No. of cross section files available");
  put("0", "No. of k-coefficient files available");
  put(info.lifetimes ? "1" : "0", "Lifetime availability (1=yes, 0=no)");
  put("0", "Lande g-factor availability (1=yes, 0=no)");
  put(std::to_string(L.levels.size()), "No. of states in .states file");
  put("1", "No. of quanta cases");
  put("TROVE", "Quantum case label");
  put(std::to_string(q.size()), "No. of quanta defined");
  for (std::size_t i = 0; i < q.size(); ++i) {
    put(q[i].label, "Quantum label " + std::to_string(i + 1));
    put(q[i].fmt, "Format quantum label " + std::to_string(i + 1));
    put(q[i].description, "Description quantum label " + std::to_string(i + 1));
  }
  put(std::to_string(info.transitions), "Total number of transitions");
  put(std::to_string(info.trans_files), "No. of transition files");
  put(format("%.6f", info.max_wavenumber), "Maximum wavenumber (in cm-1)");
  put(format("%.6f", info.complete_energy), "Higher energy with complete set of transitions (in cm-1)");
  put("0.0700", "Default value of Lorentzian half-width for all lines");
  put("0.500", "Default value of temperature exponent for all lines");
  f.commit();
}

namespace {
struct SpillRecord {
  std::int32_t upper, lower;
  double a, nu;
};
static_assert(sizeof(SpillRecord) == 24);
}  // namespace

// One wavenumber range's spill file, its records gathered and written in blocks (one fwrite per record cost a lock
// and a call per line).
struct SplitTransWriter::Range {
  std::size_t pending_records = 4096;  // records gathered between writes: 96 KiB, 6 KiB beyond the first 1024 ranges
  std::filesystem::path spill;
  std::FILE* file = nullptr;
  std::vector<SpillRecord> pending;
  std::size_t records = 0;
  void flush() {
    if (pending.empty()) return;
    if (std::fwrite(pending.data(), sizeof(SpillRecord), pending.size(), file) != pending.size())
      throw Error("cannot write the spill file " + spill.string() + ": " + std::strerror(errno) + " (disk full?)");
    pending.clear();
  }
};

namespace {

#if QUANTA_HAVE_BZIP2
// text replaced by one bzip2 stream of it (900 k blocks, as `bzip2 -9`); 0, or libbzip2's error code.
int bzip2_in_place(std::string& text) {
  std::string packed(text.size() + text.size() / 100 + 600, '\0');  // libbzip2's bound on the output
  auto length = static_cast<unsigned int>(packed.size());
  const int rc = BZ2_bzBuffToBuffCompress(packed.data(), &length, text.data(), static_cast<unsigned int>(text.size()), 9, 0, 0);
  if (rc != BZ_OK) return rc;
  packed.resize(length);
  text.swap(packed);
  return 0;
}
#endif

// The .trans lines of the ranges' records, in order, on their way to the files: blocks of records formatted by the
// host's threads, each into its own text (with bzip2, compressed there into a stream of its own), into one of two
// sets of texts, while a thread of its own writes the other set to its file with direct I/O (io::DirectAtomicFile:
// the page cache's write-back ran at a quarter of the disk's rate on the GPU hosts). So the formatting of a range
// (and the reading and sorting of the next) overlaps the writing of the previous lines.
class TransTextPipeline {
 public:
  TransTextPipeline(bool bzip2, SplitTransWriter::Times& times) : threads_(max_threads()), bzip2_(bzip2), times_(times) {
#if !QUANTA_HAVE_BZIP2
    (void)bzip2_;  // refused before: the writer is not made with bzip2 in such a build
#endif
    for (auto& set : sets_) set.resize(pieces());
  }
  ~TransTextPipeline() {
    if (pending_.valid()) pending_.wait();  // an error path: the file is removed by its AtomicFile
  }
  TransTextPipeline(const TransTextPipeline&) = delete;
  TransTextPipeline& operator=(const TransTextPipeline&) = delete;

  // recs' lines into `file`, committed after the last of them is written (by the writing thread).
  void add(const std::shared_ptr<io::DirectAtomicFile>& file, const std::vector<SpillRecord>& recs) {
    const std::size_t piece = std::size_t{1} << 18;  // records per piece of text (about 16 MB)
    for (std::size_t b0 = 0; b0 < recs.size(); b0 += piece * pieces()) {
      const std::size_t b1 = std::min(recs.size(), b0 + piece * pieces());
      std::vector<std::string>& text = sets_[current_];
      WallTimer t;
      format(text, recs, b0, b1);
      times_.format += t.seconds();
      wait_for_writer();
      const bool last = b1 == recs.size();
      pending_ = std::async(std::launch::async, [this, file, &text, last] {
        WallTimer w;
        for (const auto& s : text) file->write(s.data(), s.size());
        if (last) file->commit();
        times_.write += w.seconds();
      });
      current_ ^= 1;
    }
  }
  void finish() { wait_for_writer(); }

 private:
  // Four pieces per thread, taken as threads come free: the writing thread shares the cores.
  int pieces() const { return 4 * threads_; }
  void format(std::vector<std::string>& text, const std::vector<SpillRecord>& recs, std::size_t b0, std::size_t b1) {
    const int n = pieces();
    const std::size_t per = (b1 - b0 + n - 1) / n;
    std::vector<int> failure(n, 0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
    for (int t = 0; t < n; ++t) {
      std::string& s = text[t];
      s.clear();
      const std::size_t i0 = std::min(b1, b0 + t * per), i1 = std::min(b1, i0 + per);
      s.reserve((i1 - i0) * 62);
      for (std::size_t i = i0; i < i1; ++i) append_trans_line(s, recs[i].upper, recs[i].lower, recs[i].a, recs[i].nu);
#if QUANTA_HAVE_BZIP2
      if (bzip2_ && !s.empty()) failure[t] = bzip2_in_place(s);
#endif
    }
    for (const int rc : failure)
      if (rc != 0) throw Error("--bzip2: libbzip2 failed to compress a block of lines (error " + std::to_string(rc) + ")");
  }
  void wait_for_writer() {
    if (!pending_.valid()) return;
    WallTimer t;
    pending_.get();  // rethrows the writer's error
    times_.wait += t.seconds();
  }

  int threads_;
  bool bzip2_;
  SplitTransWriter::Times& times_;
  std::vector<std::string> sets_[2];
  int current_ = 0;
  std::future<void> pending_;
};

// A range file's order: wavenumber, then upper and lower ID (a total order over distinct lines).
bool spill_less(const SpillRecord& a, const SpillRecord& b) {
  if (a.nu != b.nu) return a.nu < b.nu;
  if (a.upper != b.upper) return a.upper < b.upper;
  return a.lower < b.lower;
}

// recs sorted by spill_less on the host's threads, as one std::sort would: a sample sort. Splitters taken from a
// regular sample cut the records into 4 buckets per thread; each of 4 chunks per thread counts its records per
// bucket, scatters them into `scratch`, and the buckets are sorted at once. Chunks and buckets are taken by the
// threads as they come free (a thread of the range writer runs beside them). `scratch` and `bucket` are kept by the
// caller from range to range, so their pages are touched once. Memory: 26 more bytes per record.
void sort_spill_records(std::vector<SpillRecord>& recs, std::vector<SpillRecord>& scratch, std::vector<std::uint16_t>& bucket) {
  const std::size_t n = recs.size();
  const int threads = max_threads();
  if (threads < 2 || n < (std::size_t{1} << 16)) {
    std::sort(recs.begin(), recs.end(), spill_less);
    return;
  }
  require_host_memory(bytes_of(sizeof(SpillRecord) + sizeof(std::uint16_t), n > scratch.capacity() ? n : 0), "sorting a --trans-split range");
  const int parts = std::min(4 * threads, 65535), per_part = 32, chunks = 4 * threads;
  std::vector<SpillRecord> sample;
  const std::size_t stride = std::max<std::size_t>(1, n / (static_cast<std::size_t>(parts) * per_part));
  for (std::size_t i = 0; i < n; i += stride) sample.push_back(recs[i]);
  std::sort(sample.begin(), sample.end(), spill_less);
  std::vector<SpillRecord> splitters;  // parts - 1 of them, ascending
  for (int p = 1; p < parts; ++p) splitters.push_back(sample[std::min(sample.size() - 1, p * sample.size() / parts)]);
  bucket.resize(n);
  std::vector<std::size_t> count(static_cast<std::size_t>(chunks) * parts, 0);
  const std::size_t chunk = (n + chunks - 1) / chunks;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int c = 0; c < chunks; ++c)
    for (std::size_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) {
      const auto b = std::upper_bound(splitters.begin(), splitters.end(), recs[i], spill_less) - splitters.begin();
      bucket[i] = static_cast<std::uint16_t>(b);
      ++count[static_cast<std::size_t>(c) * parts + b];
    }
  // Where each chunk's records of each bucket go: buckets in order, chunks in order within a bucket.
  std::vector<std::size_t> start(parts + 1, 0), place(count.size());
  std::size_t at = 0;
  for (int p = 0; p < parts; ++p) {
    start[p] = at;
    for (int c = 0; c < chunks; ++c) {
      place[static_cast<std::size_t>(c) * parts + p] = at;
      at += count[static_cast<std::size_t>(c) * parts + p];
    }
  }
  start[parts] = at;
  scratch.resize(n);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int c = 0; c < chunks; ++c) {
    std::size_t* where = place.data() + static_cast<std::size_t>(c) * parts;
    for (std::size_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) scratch[where[bucket[i]]++] = recs[i];
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int p = 0; p < parts; ++p) std::sort(scratch.begin() + start[p], scratch.begin() + start[p + 1], spill_less);
  recs.swap(scratch);
}

// The records of a spill file appended to recs, read by the host's threads in parallel pieces.
void read_spill_file(const std::filesystem::path& spill, std::vector<SpillRecord>& recs) {
  const auto bytes = std::filesystem::file_size(spill);
  if (bytes % sizeof(SpillRecord) != 0)
    throw Error("the spill file " + spill.string() + " holds " + std::to_string(bytes) + " bytes, not whole " + std::to_string(sizeof(SpillRecord)) +
                "-byte records (written by another run, or cut short)");
  const std::size_t first = recs.size(), count = bytes / sizeof(SpillRecord);
  recs.resize(first + count);
  const int fd = ::open(spill.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot read back the spill file " + spill.string() + ": " + std::strerror(errno));
  const int threads = max_threads();
  const std::size_t piece = std::max<std::size_t>(1, (count + 4 * threads - 1) / (4 * threads));
  int failure = 0;  // the errno of a failed read (each thread's own), or -1 for a file shorter than its size said
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(max : failure)
  for (std::size_t p0 = 0; p0 < count; p0 += piece) {
    char* to = reinterpret_cast<char*>(recs.data() + first + p0);
    std::size_t left = std::min(piece, count - p0) * sizeof(SpillRecord);
    off_t at = static_cast<off_t>(p0 * sizeof(SpillRecord));
    while (left > 0) {
      const ssize_t got = ::pread(fd, to, left, at);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        failure = std::max(failure, got < 0 ? errno : -1);
        break;
      }
      to += got, at += got, left -= static_cast<std::size_t>(got);
    }
  }
  ::close(fd);
  if (failure != 0)
    throw Error("cannot read back the spill file " + spill.string() + ": " + (failure > 0 ? std::strerror(failure) : "it ended before its size"));
}
}  // namespace

SplitTransWriter::SplitTransWriter(std::filesystem::path dir, std::string stem, int width, const Levels& levels, const Comm& comm, bool bzip2)
    : dir_(std::move(dir)), stem_(std::move(stem)), width_(width), bzip2_(bzip2), levels_(levels), comm_(comm) {
  if (width_ < 1) throw Error("--trans-split: the range width must be at least 1 cm^-1");
  if (bzip2_) require_bzip2();
}

void SplitTransWriter::require_bzip2() {
#if !QUANTA_HAVE_BZIP2
  throw Error("--bzip2: this build has no bzip2 library (libbz2-dev when quanta was built)");
#endif
}

// Named by range and process (not by process id), so that the first process finds every process's files.
std::filesystem::path SplitTransWriter::spill_path(std::size_t range, int rank) const {
  return dir_ / format(".%s.range%zu.rank%d.spill", stem_.c_str(), range, rank);
}

SplitTransWriter::~SplitTransWriter() {
  for (auto& r : ranges_)
    if (r) {
      if (r->file) std::fclose(r->file);
      std::error_code ec;
      if (!r->spill.empty()) std::filesystem::remove(r->spill, ec);
    }
}

void SplitTransWriter::add(const std::vector<Transition>& transitions) {
  WallTimer timer;
  for (const Transition& t : transitions) {
    if (!in_trans_file(t)) continue;
    const auto k = static_cast<std::size_t>(std::max(0.0, std::floor(t.wavenumber / width_)));
    if (k >= ranges_.size()) ranges_.resize(k + 1);
    if (!ranges_[k]) {
      ranges_[k] = std::make_unique<Range>();
      ranges_[k]->spill = spill_path(k, comm_.rank());
      ranges_[k]->file = std::fopen(ranges_[k]->spill.string().c_str(), "w+b");
      if (!ranges_[k]->file) throw Error("cannot write the spill file " + ranges_[k]->spill.string() + ": " + std::strerror(errno));
      if (ranges_.size() > 1024) ranges_[k]->pending_records = 256;
      ranges_[k]->pending.reserve(ranges_[k]->pending_records);
    }
    Range& r = *ranges_[k];
    r.pending.push_back(SpillRecord{levels_.levels[t.upper].id, levels_.levels[t.lower].id, t.einstein_a, t.wavenumber});
    if (r.pending.size() == r.pending_records) r.flush();
    ++r.records;
    ++lines_;
    max_nu_ = std::max(max_nu_, t.wavenumber);
  }
  times_.spill += timer.seconds();
}

std::size_t SplitTransWriter::largest_range_bytes() const {
  std::size_t most = 0;
  for (const auto& r : ranges_)
    if (r) most = std::max(most, r->records * sizeof(SpillRecord));
  return most;
}

std::vector<std::filesystem::path> SplitTransWriter::finish() {
  // Every process's spill files complete on disk, then the first process reads them range by range.
  for (auto& r : ranges_)
    if (r && r->file) {
      r->flush();
      if (std::fclose(r->file) != 0) throw Error("cannot close the spill file " + r->spill.string() + ": " + std::strerror(errno));
      r->file = nullptr;
    }
  const int nranges = comm_.max(static_cast<int>(ranges_.size()));  // also every process's files closed from here
  double counts[1] = {static_cast<double>(lines_)};
  comm_.sum(counts, 1);
  lines_ = static_cast<std::size_t>(counts[0]);
  max_nu_ = comm_.max(max_nu_);
  std::vector<std::filesystem::path> files;
  if (comm_.root()) {
    TransTextPipeline pipeline(bzip2_, times_);
    std::vector<SpillRecord> recs, scratch;  // kept from range to range (their pages touched once)
    std::vector<std::uint16_t> bucket;
    for (int k = 0; k < nranges; ++k) {
      WallTimer t;
      recs.clear();
      for (int rank = 0; rank < comm_.size(); ++rank) {
        const auto spill = spill_path(static_cast<std::size_t>(k), rank);
        std::error_code ec;
        if (!std::filesystem::exists(spill, ec)) continue;
        read_spill_file(spill, recs);
        std::filesystem::remove(spill, ec);
      }
      times_.read += t.seconds();
      if (recs.empty()) continue;
      t.reset();
      sort_spill_records(recs, scratch, bucket);
      times_.sort += t.seconds();
      const auto lo = static_cast<long long>(k) * width_, hi = lo + width_;
      const auto path = dir_ / format("%s__%05lld-%05lld.trans%s", stem_.c_str(), lo, hi, bzip2_ ? ".bz2" : "");
      pipeline.add(std::make_shared<io::DirectAtomicFile>(path), recs);
      files.push_back(path);
    }
    pipeline.finish();
  }
  // The first process removed every spill file it read; the others' writers must not remove them before that.
  for (auto& r : ranges_)
    if (r) r->spill.clear();
  comm_.max(0);
  return files;
}

void write_gain_table(const std::filesystem::path& path, const Levels& L, const LineList& list) {
  io::AtomicFile f(path);
  // One comment line, then rows of numbers only, so that numpy.loadtxt (and any column reader) takes
  // the file as it is: upper (f) columns, then lower (i) columns.
  f.stream() << "#  nu_if (cm-1)     nf   Jf  Gf  <-    ni   Ji  Gi     A_fi (1/s)       I (cm/molecule)  S (Debye^2)\n";
  for (const Transition& t : list.transitions) {
    const Level& u = L.levels[t.upper];
    const Level& l = L.levels[t.lower];
    f.stream() << format("  %14.6f %6d %4d %3d     %6d %4d %3d %16.8E %16.8E %16.8E\n", t.wavenumber, u.root.level, u.J, u.gamma,
                         l.root.level, l.J, l.gamma, t.einstein_a, t.intensity, t.linestrength);
  }
  f.commit();
}

void write_results(const std::filesystem::path& path, const Levels& L, const IntensityInput& in, const LineList& list,
                   const RunMetadata& meta) {
  io::TemporaryPath tmp(path);
  {
    io::H5File h5(tmp.path(), io::H5File::Mode::Create);
    const std::size_t nl = L.levels.size(), nt = list.transitions.size();
    std::vector<std::int64_t> id(nl), J(nl), gamma(nl), level(nl);
    std::vector<double> energy(nl);
    for (std::size_t i = 0; i < nl; ++i) {
      id[i] = L.levels[i].id;
      J[i] = L.levels[i].J;
      gamma[i] = L.levels[i].gamma;
      level[i] = L.levels[i].root.level;
      energy[i] = L.levels[i].energy - L.zpe;
    }
    h5.write("levels/id", id, {nl});
    h5.write("levels/J", J, {nl});
    h5.write("levels/gamma", gamma, {nl});
    h5.write("levels/level", level, {nl});
    h5.write("levels/energy", energy, {nl});
    h5.write_attribute("levels/energy", "units", "cm^-1 above the ZPE");
    std::vector<std::int64_t> up(nt), lo(nt);
    std::vector<double> nu(nt), S(nt), A(nt), I(nt);
    for (std::size_t i = 0; i < nt; ++i) {
      const Transition& t = list.transitions[i];
      up[i] = L.levels[t.upper].id;
      lo[i] = L.levels[t.lower].id;
      nu[i] = t.wavenumber;
      S[i] = t.linestrength;
      A[i] = t.einstein_a;
      I[i] = t.intensity;
    }
    h5.write("transitions/upper_id", up, {nt});
    h5.write("transitions/lower_id", lo, {nt});
    h5.write("transitions/wavenumber", nu, {nt});
    h5.write("transitions/linestrength", S, {nt});
    h5.write("transitions/einstein_a", A, {nt});
    h5.write("transitions/intensity", I, {nt});
    h5.write_attribute("transitions/wavenumber", "units", "cm^-1");
    h5.write_attribute("transitions/linestrength", "units", "Debye^2");
    h5.write_attribute("transitions/einstein_a", "units", "1/s");
    h5.write_attribute("transitions/intensity", "units", "cm/molecule");
    h5.write_scalar("parameters/temperature", in.temperature);
    h5.write_scalar("parameters/partition_function", list.partition_function);
    h5.write_scalar("parameters/zpe", L.zpe);
    h5.write_string("parameters/symmetry_group", L.group->name);
    h5.write_string("metadata/quanta_version", version());
    h5.write_string("metadata/input_file", meta.input_file);
    h5.write_string("metadata/checkpoint_dir", meta.checkpoint_dir);
    h5.write_string("metadata/backend", meta.backend);
    h5.write_string("metadata/device", meta.device);
    h5.write_string("metadata/engine", meta.engine);
    h5.write("metadata/processes", std::vector<std::int64_t>{meta.processes}, {});
    for (const auto& [stage, s] : meta.timings) h5.write_scalar("metadata/timings/" + stage, s);
    h5.close();
  }
  tmp.commit();
}

}  // namespace quanta::linelist
