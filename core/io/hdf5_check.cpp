// check_hdf5_file (hdf5.hpp): a user's HDF5 file is first read by a separate process.
//
// HDF5 1.10 decodes a file's object headers, heaps and B-trees trusting what they say: a corrupt or cut
// file can make the library read out of bounds, copy through a null pointer or loop (docs/validation.md,
// "Fuzzing the readers"). quanta's own checks (hdf5.cpp) run before each read they can see, but the
// library's decoding of an object header happens inside H5Dopen, before any caller can look. So before a
// reader opens a file, this process runs itself again (/proc/self/exe) with QUANTA_HDF5_CHECK_FILE set:
// the static initializer below notices that before main, opens the file, walks every object, decodes
// every attribute, reads every dataset of up to 1 MiB in full and the first row of larger ones, and
// exits. A crash, a sanitizer report or a hang there is reported here as a corrupt file; a clean exit
// (whatever HDF5 errors it met, which the reader then reports itself) lets the reading go on.
#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "quanta/core/error.hpp"
#include "quanta/core/io/hdf5.hpp"

extern char** environ;

namespace quanta::io {
namespace {

constexpr const char* kCheckVariable = "QUANTA_HDF5_CHECK_FILE";
constexpr std::size_t kReadWhole = std::size_t(1) << 20;  // datasets read in full up to this size
// How long the check may take (headers and small datasets: far less in practice); QUANTA_HDF5_CHECK_SECONDS
// overrides it (the fuzz targets use a few seconds).
std::chrono::milliseconds check_limit() {
  if (const char* e = std::getenv("QUANTA_HDF5_CHECK_SECONDS"); e && std::atof(e) > 0)
    return std::chrono::milliseconds(static_cast<long long>(std::atof(e) * 1000));
  return std::chrono::seconds(60);
}

herr_t decode_attribute(hid_t object, const char* name, const H5A_info_t*, void*) {
  const hid_t a = H5Aopen(object, name, H5P_DEFAULT);
  if (a < 0) return 0;
  const hid_t type = H5Aget_type(a), space = H5Aget_space(a);
  if (type >= 0) H5Tclose(type);
  if (space >= 0) H5Sclose(space);
  H5Aclose(a);
  return 0;
}

// One dataset as the readers would read it, through H5File (and so through its own checks).
void read_dataset(const H5File& f, hid_t file, const std::string& name) {
  const hid_t ds = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  if (ds < 0) return;
  const hid_t type = H5Dget_type(ds), space = H5Dget_space(ds);
  const H5T_class_t cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
  const bool vlen_string = cls == H5T_STRING && H5Tis_variable_str(type) > 0;
  const hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  const std::size_t size = type >= 0 ? H5Tget_size(type) : 0;
  H5Aiterate2(ds, H5_INDEX_NAME, H5_ITER_INC, nullptr, decode_attribute, nullptr);
  if (type >= 0) H5Tclose(type);
  if (space >= 0) H5Sclose(space);
  H5Dclose(ds);
  if (n <= 0) return;
  if (cls == H5T_STRING && n == 1 && (vlen_string || size <= kMaxStringBytes)) {
    (void)f.read_string(name);
  } else if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
    f.require_stored(name);
    if (std::size_t(n) * size <= kReadWhole) (void)f.read_doubles(name);
    else {
      std::vector<double> row(1);
      const std::vector<std::size_t> d = f.dims(name);
      std::size_t row_size = 1;
      for (std::size_t i = 1; i < d.size(); ++i) row_size *= d[i];
      if (d.size() > 0 && row_size * sizeof(double) <= kReadWhole) {
        row.resize(row_size);
        f.read_rows(name, 0, 1, row.data());
      }
    }
  }
}

#if H5_VERSION_GE(1, 12, 0)
std::string object_key(hid_t obj) {
  H5O_info2_t info{};
  if (H5Oget_info3(obj, &info, H5O_INFO_BASIC) < 0) return {};
  return std::string(reinterpret_cast<const char*>(&info.token), sizeof info.token);
}
#else
std::string object_key(hid_t obj) {
  H5O_info_t info{};
  if (H5Oget_info2(obj, &info, H5O_INFO_BASIC) < 0) return {};
  return std::to_string(info.addr);
}
#endif

struct Walk {
  const H5File& f;
  hid_t file;
  std::set<std::string> seen;  // objects by address: a corrupt link back to a parent is not followed
  std::size_t budget = 100000;  // links looked at in all, far beyond a real file of these modules
};

// Every link of a group, one at a time by index, so that a corrupt one is skipped rather than ending the
// walk (H5Lvisit stops at the first); groups recursively, each object once.
void walk_group(Walk& w, const std::string& group, int depth) {
  if (depth > 64) return;
  const std::string here = group.empty() ? "/" : group;
  const hid_t g = H5Gopen2(w.file, here.c_str(), H5P_DEFAULT);
  if (g < 0) return;
  const std::string key = object_key(g);
  if (key.empty() || !w.seen.insert(key).second) {
    H5Gclose(g);
    return;
  }
  H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, nullptr, decode_attribute, nullptr);
  H5G_info_t info{};
  std::vector<std::string> names;
  int failures = 0;  // a corrupt link count: stop after a run of links that cannot be read
  for (hsize_t i = 0; H5Gget_info(g, &info) >= 0 && i < info.nlinks && w.budget > 0 && failures < 16; ++i, --w.budget) {
    char name[1024];
    const ssize_t length = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT);
    if (length > 0 && static_cast<std::size_t>(length) < sizeof name) {
      names.emplace_back(name);
      failures = 0;
    } else {
      ++failures;
    }
  }
  H5Gclose(g);
  for (const std::string& name : names) {
    const std::string path = group + "/" + name;
    const hid_t obj = H5Oopen(w.file, path.c_str(), H5P_DEFAULT);
    if (obj < 0) continue;
    const H5I_type_t kind = H5Iget_type(obj);
    const bool first_visit = kind != H5I_DATASET || w.seen.insert(object_key(obj)).second;
    H5Oclose(obj);
    if (kind == H5I_GROUP) walk_group(w, path, depth + 1);
    if (kind != H5I_DATASET || !first_visit) continue;
    try {
      read_dataset(w.f, w.file, path);
    } catch (...) {  // refused: the reader will say so; the other datasets are still walked
    }
  }
}

// The checking process's work; its exit status is all it reports.
[[noreturn]] void run_check(const char* path) {
  try {
    H5File f(path, H5File::Mode::Read);
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);  // the close degree of f's open of the same file
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    const hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (file >= 0) {
      Walk w{f, file, {}};
      walk_group(w, "", 0);
      H5Fclose(file);
    }
  } catch (...) {
  }
  _exit(0);
}

// Runs before main in the process started by check_hdf5_file, and only there.
const bool is_checking_process = [] {
  if (const char* path = std::getenv(kCheckVariable); path && *path) run_check(path);
  return false;
}();

std::string seconds(std::chrono::milliseconds t) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", static_cast<double>(t.count()) / 1000);
  return text;
}

}  // namespace

void check_hdf5_file(const std::filesystem::path& file) {
  (void)is_checking_process;
  std::error_code ec;
  const std::string path = std::filesystem::absolute(file, ec).string();
  if (ec || !std::filesystem::is_regular_file(path, ec)) return;  // the reader reports what is missing
  std::vector<std::string> env_strings;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, kCheckVariable, std::strlen(kCheckVariable)) != 0 || (*e)[std::strlen(kCheckVariable)] != '=')
      env_strings.emplace_back(*e);
  env_strings.push_back(std::string(kCheckVariable) + "=" + path);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  char exe[] = "/proc/self/exe";
  char* argv[] = {exe, nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, exe, &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return;  // no checking process (no /proc): the reader's own checks only
  int status = 0;
  pid_t done = 0;
  // Wait for the exit (a pidfd turns readable then), up to the limit.
  const auto limit = check_limit();
  const auto deadline = std::chrono::steady_clock::now() + limit;
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0) {
    for (;;) {  // a signal (a profiler's, a timer's) interrupts poll: wait again for what is left
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd p{pidfd, POLLIN, 0};
      const int ready = left.count() > 0 ? poll(&p, 1, static_cast<int>(left.count()) + 1) : 0;
      if (ready > 0) done = waitpid(pid, &status, 0);
      if (ready >= 0 || errno != EINTR) break;
    }
    close(pidfd);
  } else {  // kernels before 5.3: poll the child
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    throw Error("HDF5 file '" + file.string() + "': reading its structure did not finish within " +
                seconds(limit) + " s (the HDF5 library loops on it): a corrupt file, expected an intact HDF5 file");
  }
  if (done < 0) return;
  if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0))
    throw Error("HDF5 file '" + file.string() + "': the HDF5 library " +
                (WIFSIGNALED(status) ? "crashed (signal " + std::to_string(WTERMSIG(status)) + ")"
                                     : "failed (exit status " + std::to_string(WEXITSTATUS(status)) + ")") +
                " reading its structure: a corrupt or cut file, expected an intact HDF5 file");
}

}  // namespace quanta::io
