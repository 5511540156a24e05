#pragma once
#include <string>

namespace quanta::io {

// Fortran edit descriptors, so quanta's text outputs are byte-compatible with the Fortran codes whose
// files users' scripts read.
std::string fortran_E(double v, int width, int digits);    // Ew.d: "   0.1234567890E+02"
std::string fortran_ES(double v, int width, int digits);   // ESw.d: "   1.234567890E+01"
std::string fortran_F(double v, int width, int digits);    // Fw.d
std::string fortran_I(long v, int width);                  // Iw
// List-directed output of one REAL(8) item as gfortran writes it: a separating blank, then a 25-wide
// field with 17 significant digits (1PG25.17E3), e.g. " " + "  1694199.2449052101     ". Items
// concatenate to the line `write(*,*) a, b` prints.
std::string fortran_list_real(double v);

}  // namespace quanta::io
