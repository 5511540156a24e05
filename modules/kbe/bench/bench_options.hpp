#pragma once
// Command-line helpers shared by the kbe benchmark programs.
#include <sstream>
#include <string>
#include <vector>

namespace quanta::kbe::bench {

// "16,32,64" -> {16, 32, 64}; "1e-4,1e-6" -> {1e-4, 1e-6} with T = double.
template <class T = int>
std::vector<T> parse_list(const std::string& s) {
  std::vector<T> v;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) v.push_back(static_cast<T>(std::stod(item)));
  return v;
}

}  // namespace quanta::kbe::bench
