#pragma once
#include <string>

namespace quanta {

std::string version();                 // "0.1.0"
std::string build_description();       // backends and libraries compiled in, one per line

}  // namespace quanta
