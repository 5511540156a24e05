#pragma once
// Absorption cross sections sigma(nu; T, P) from a line list (ExoMol .states/.trans, or the transitions of a run
// as they are produced), at several temperatures and pressures in one pass over the lines, as ExoCross computes them
// (docs/linelist.md, "Cross sections"). For a line f <- i at nu = E_f - E_i with Einstein coefficient A, upper
// degeneracy g_f and lower energy E_i (cm^-1):
//   S(T) = a g_f A / (8 pi c nu^2) exp(-c2 E_i / T) (1 - exp(-c2 nu / T)) / Q(T)      cm/molecule (a: abundance)
//   alpha(T) = nu / c sqrt(2 ln2 k N_A T / m)                                         Doppler HWHM, cm^-1 (m in g/mol)
//   gamma(T, P) = sum_b x_b gamma_b (T0_b / T)^n_b P / P0_b                            Lorentz HWHM, cm^-1
// with gamma_b and n_b of each broadener b (mixing ratio x_b) from its ExoMol .broad file by the lower J (or its
// defaults), or one fixed HWHM; then the profile of kernels/xsec.hpp on the grid. Lines centred outside the grid's
// range, or with S below the threshold, are left out (ExoCross's rules). The constants are ExoCross's (c2 = 1.43877736
// cm K, k = 1.3806488e-16 erg/K, N_A = 6.02214129e23), so that its results are reproduced to rounding.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"

namespace quanta::linelist {

namespace kernels {
class XsecEngine;
}

// ExoMol's .broad data of one broadener, by the lower state's J (code a0): a J above the largest listed takes the
// largest's values, a J not listed below it the defaults (as ExoCross reads them).
struct BroadeningTable {
  std::string file;                    // where it was read ("" for defaults alone)
  double default_gamma = 0.05, default_n = 0.5;
  std::vector<double> gamma_by_j, n_by_j;  // index J''; gamma < 0: not listed
  double gamma(double j) const;
  double n(double j) const;
};
// Reads a .broad file: lines "a0 gamma n J''" (others refused by code, naming file and line).
BroadeningTable read_broadening(const std::filesystem::path& file, double default_gamma, double default_n);

struct Broadener {
  std::string name;
  double ratio = 1;  // mixing ratio x_b
  double t0 = 296, p0 = 1;  // reference temperature (K) and pressure (bar)
  BroadeningTable table;
};

// One (T, P) of the pass.
struct XsecCondition {
  double temperature = 296;       // K
  double pressure = 1;            // bar
  double partition_function = 0;  // Q(T); 0: from the states (sum of g exp(-c2 E / T))
};

enum class XsecProfile { Doppler, Gauss, Lorentz, Voigt };

struct XsecSpec {
  double nu_min = 0, nu_max = 0;  // grid end points, cm^-1 (both on the grid)
  long long points = 0;           // grid points (step (max - min) / (points - 1))
  XsecProfile profile = XsecProfile::Voigt;
  bool integrated = false;        // bin-integrated instead of sampled at the grid points
  bool renormalize = false;       // Lorentz, integrated: each line's bins scaled to its area between its end points
  double cutoff = 25;             // cm^-1 from a line's centre
  double mass = 1;                // molecular mass, Da (ExoCross's default is 1)
  double hwhm = 0;                // a fixed HWHM for every line (Gauss; Lorentz and Voigt without broadeners), cm^-1
  double threshold = 1e-70;       // lines with S(T) below this (cm/molecule) are skipped
  double abundance = 1;
  std::vector<XsecCondition> conditions;
  std::vector<Broadener> broadeners;  // Lorentz and Voigt
};

// The states a line list refers to: by ExoMol ID (1-based, gaps allowed), energy (cm^-1), total degeneracy and J.
struct StateTable {
  std::vector<double> energy, g, j;  // index ID - 1; g < 0: no state of that ID
};
StateTable read_exomol_states(const std::filesystem::path& file);
// Q(T) = sum_states g exp(-c2 E / T), over every state of the table.
double partition_function(const StateTable& states, double temperature);
// Q(T) interpolated linearly between the two rows of a (T, Q) table that bracket T (ExoCross's pffile).
double partition_function_from_file(const std::filesystem::path& file, double temperature);
// The line intensity S(T) of the formula above (cm/molecule).
double line_intensity(double nu, double a, double g_upper, double e_lower, double temperature, double q, double abundance = 1);

// A batch of lines, structure of arrays: wavenumber (E_f - E_i), A, upper degeneracy, lower energy, lower J.
struct LineBatch {
  std::vector<double> nu, a, g_upper, e_lower, j_lower;
  std::size_t size() const { return nu.size(); }
  void clear();
  void push(double nu_, double a_, double g, double e, double j);
};

// The pass: one engine per condition, lines added in batches, the grids at the end.
class XsecAccumulator {
 public:
  XsecAccumulator(Backend backend, const XsecSpec& spec);
  ~XsecAccumulator();
  void add(const LineBatch& lines);
  std::vector<double> wavenumbers() const;
  std::vector<std::vector<double>> results() const;  // one grid per condition
  std::size_t lines_added() const { return lines_; }
  std::size_t lines_used() const { return used_; }  // in the range and at or above the threshold, at the first condition

 private:
  XsecSpec spec_;
  std::vector<std::unique_ptr<kernels::XsecEngine>> engines_;
  std::size_t lines_ = 0, used_ = 0;
};

// An ExoMol .trans file streamed in batches of `batch` lines to `sink` (the wavenumber from the states: a fourth
// column is not read, as ExoCross does). Returns the lines read.
std::size_t read_exomol_transitions(const std::filesystem::path& file, const StateTable& states, const std::function<void(const LineBatch&)>& sink,
                                    std::size_t batch = std::size_t(1) << 20);

// ExoCross's input file, as ExoCross reads it for cross sections and sticks (docs/linelist.md lists the keywords;
// any other is refused by name). Temperature and pressure may list several values: every (T, P) pair is one condition.
struct ExoCrossInput {
  std::filesystem::path file;
  XsecSpec spec;
  bool stick = false;             // `stick`: nu and S per line instead of a grid
  std::string output;             // output name (ExoCross's `output`; default the input's stem)
  std::filesystem::path states;   // `States`
  std::vector<std::filesystem::path> transitions;  // `Transitions`
  std::filesystem::path pffile;   // `pffile` (Q by interpolation), or empty
  double pf = 0;                  // `PF` (Q given), or 0
  std::vector<double> temperatures, pressures;
  std::vector<std::string> notes;  // what differs from ExoCross's reading, printed by the caller
};
// `need_files`: States and Transitions are required (false when the lines come from a line-list run).
ExoCrossInput read_exocross_input(const std::filesystem::path& file, bool need_files = true);
// The conditions of the input with Q(T) from PF, pffile or the states.
void set_conditions(ExoCrossInput& in, const StateTable* states);

// The file of condition c: NAME + ext with one condition, NAME_T<T>K_P<P>bar + ext with several.
std::string xsec_file_name(const ExoCrossInput& in, std::size_t c, const std::string& ext);

// `.xsec` as ExoCross writes it: nu and sigma per line, format (2(1x,es16.8E3)); to a temporary name, then renamed.
void write_xsec(const std::filesystem::path& path, const std::vector<double>& nu, const std::vector<double>& sigma);

// The whole ExoCross-style run: the states and transitions the input names, every condition, the .xsec (or .stick)
// files in out_dir (one per condition: NAME.xsec, or NAME_T<T>K_P<P>bar.xsec with several). Returns the files written.
struct XsecRunSummary {
  std::vector<std::filesystem::path> files;
  std::size_t lines_read = 0, lines_used = 0;
  double seconds_read = 0, seconds_grid = 0;
};
XsecRunSummary run_exocross(const std::filesystem::path& input, const std::filesystem::path& out_dir, Backend backend, bool quiet);

}  // namespace quanta::linelist
