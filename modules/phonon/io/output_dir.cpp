// The output folder, checked when the run starts: created if absent and proven writable, temporaries of an earlier run
// that was killed removed, and results of an earlier run that this one replaces named.
#include <algorithm>
#include <regex>

#include "outputs.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/io/output_folder.hpp"
#include "quanta/core/progress.hpp"

namespace quanta::phonon {
namespace {

namespace fs = std::filesystem;

// What quanta phonon writes: ShengBTE's BTE.* files (also in the T<T>K folders) and quanta-phonon.h5.
bool is_output_name(const std::string& name) { return name.rfind("BTE.", 0) == 0 || name == "quanta-phonon.h5"; }

// The folders of one run's outputs: the folder itself and its T<T>K subfolders.
std::vector<fs::path> output_folders(const fs::path& dir) {
  std::vector<fs::path> out{dir};
  static const std::regex temperature_folder(R"(T[0-9]+K)");
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec) && std::regex_match(e.path().filename().string(), temperature_folder))
      out.push_back(e.path());
  return out;
}

}  // namespace

void prepare_output_dir(const fs::path& dir) {
  io::require_writable_folder(dir, "the output folder, --output-dir");
  std::error_code ec;

  std::vector<std::string> replaced;
  for (const auto& folder : output_folders(dir)) {
    static const std::regex temporary(R"((.+)\.tmp\.[0-9]+)");
    for (const auto& e : fs::directory_iterator(folder, ec)) {
      const std::string name = e.path().filename().string();
      std::smatch m;
      if (std::regex_match(name, m, temporary) && is_output_name(m[1])) {
        io::temporary_path_for(folder / m[1].str());  // removes, with a warning, those of
                                                      // processes that are gone
      } else if (is_output_name(name) && e.is_regular_file(ec)) {
        replaced.push_back(fs::relative(e.path(), dir, ec).string());
      }
    }
  }
  if (!replaced.empty()) {
    // quanta-phonon.h5 first (it says which run wrote the folder), then the BTE.* files in order.
    std::sort(replaced.begin(), replaced.end(), [](const std::string& a, const std::string& b) {
      return std::make_pair(a != "quanta-phonon.h5", a) < std::make_pair(b != "quanta-phonon.h5", b);
    });
    std::string list;
    for (std::size_t i = 0; i < replaced.size() && i < 6; ++i) list += (i ? ", " : "") + replaced[i];
    if (replaced.size() > 6) list += ", ...";
    warn("phonon", "'" + dir.string() + "' holds " + std::to_string(replaced.size()) + " results of an earlier run (" +
                       list + "); this run replaces those it writes");
  }
}

}  // namespace quanta::phonon
