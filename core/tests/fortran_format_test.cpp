// Every expected string below was printed by gfortran 12.2 (Debian 12) from the same value with the same
// edit descriptor (`write(*,'(E20.10)') x`, `write(*,*) x`, ...), so these tests compare quanta's output
// with the Fortran runtime whose files users' scripts read.
#include <gtest/gtest.h>

#include <limits>

#include "quanta/core/error.hpp"
#include "quanta/core/io/fortran_format.hpp"

using namespace quanta::io;

TEST(FortranFormat, ListDirectedReal) {
  EXPECT_EQ(fortran_list_real(1694199.24490521), "   1694199.2449052101     ");
  EXPECT_EQ(fortran_list_real(0.0), "   0.0000000000000000     ");
  EXPECT_EQ(fortran_list_real(-0.0), "  -0.0000000000000000     ");
  EXPECT_EQ(fortran_list_real(-3.035089010), "  -3.0350890100000001     ");
  EXPECT_EQ(fortran_list_real(1.0e-5), "   1.0000000000000001E-005");
  EXPECT_EQ(fortran_list_real(1.0e20), "   1.0000000000000000E+020");
  EXPECT_EQ(fortran_list_real(300.0), "   300.00000000000000     ");
  EXPECT_EQ(fortran_list_real(1.0), "   1.0000000000000000     ");
  EXPECT_EQ(fortran_list_real(0.1), "  0.10000000000000001     ");
  EXPECT_EQ(fortran_list_real(-0.2), " -0.20000000000000001     ");
  EXPECT_EQ(fortran_list_real(123456789012345678.0), "   1.2345678901234568E+017");
  EXPECT_EQ(fortran_list_real(1.0e16), "   10000000000000000.     ");
  EXPECT_EQ(fortran_list_real(1.0e15), "   1000000000000000.0     ");
  EXPECT_EQ(fortran_list_real(0.09), "   8.9999999999999997E-002");
  EXPECT_EQ(fortran_list_real(1.0e-300), "   1.0000000000000000E-300");
  EXPECT_EQ(fortran_list_real(1.7976931348623157e308), "   1.7976931348623157E+308");
  EXPECT_EQ(fortran_list_real(-1.0e100), "  -1.0000000000000000E+100");
  EXPECT_EQ(fortran_list_real(98.33847790), "   98.338477900000001     ");
  EXPECT_EQ(fortran_list_real(2.5), "   2.5000000000000000     ");
  EXPECT_EQ(fortran_list_real(1.0e17), "   1.0000000000000000E+017");
  EXPECT_EQ(fortran_list_real(0.5), "  0.50000000000000000     ");
  EXPECT_EQ(fortran_list_real(99999999999999984.0), "   99999999999999984.     ");
  EXPECT_EQ(fortran_list_real(12345.678), "   12345.678000000000     ");
  EXPECT_EQ(fortran_list_real(-1.0e-10), "  -1.0000000000000000E-010");
  EXPECT_EQ(fortran_list_real(6.02214076e23), "   6.0221407599999999E+023");
  EXPECT_EQ(fortran_list_real(1.0e-310), "   9.9999999999999694E-311");
  EXPECT_EQ(fortran_list_real(0.099999999999999992), "   9.9999999999999992E-002");
  EXPECT_EQ(fortran_list_real(-99999999999999984.0), "  -99999999999999984.     ");
  EXPECT_EQ(fortran_list_real(273.15), "   273.14999999999998     ");
  EXPECT_EQ(fortran_list_real(1.0e-2), "   1.0000000000000000E-002");
}

TEST(FortranFormat, EditDescriptorE) {
  EXPECT_EQ(fortran_E(98.33847790, 20, 10), "    0.9833847790E+02");
  EXPECT_EQ(fortran_E(0.0, 20, 10), "    0.0000000000E+00");
  EXPECT_EQ(fortran_E(-0.0, 20, 10), "   -0.0000000000E+00");
  EXPECT_EQ(fortran_E(-3.035089010, 20, 10), "   -0.3035089010E+01");
  EXPECT_EQ(fortran_E(1694199.2449, 12, 5), " 0.16942E+07");
  EXPECT_EQ(fortran_E(1.0e100, 20, 10), "    0.1000000000+101");
  EXPECT_EQ(fortran_E(1.0e-100, 20, 10), "    0.1000000000E-99");
  EXPECT_EQ(fortran_E(-2.5e-123, 20, 10), "   -0.2500000000-122");
  EXPECT_EQ(fortran_E(1.0e99, 20, 10), "    0.1000000000+100");
  EXPECT_EQ(fortran_E(9.99999999995e99, 20, 10), "    0.1000000000+101");
  EXPECT_EQ(fortran_E(98.3, 9, 3), "0.983E+02");
  EXPECT_EQ(fortran_E(98.3, 8, 3), ".983E+02");
  EXPECT_EQ(fortran_E(-98.3, 9, 3), "-.983E+02");
  EXPECT_EQ(fortran_E(-98.3, 8, 3), "********");
  EXPECT_EQ(fortran_E(98.3, 7, 3), "*******");
  EXPECT_EQ(fortran_E(0.99999999, 15, 7), "  0.1000000E+01");
  EXPECT_EQ(fortran_E(1.0e-308, 15, 7), "  0.1000000-307");
  EXPECT_EQ(fortran_E(1.7976931348623157e308, 15, 7), "  0.1797693+309");
  EXPECT_EQ(fortran_E(0.125, 10, 1), "   0.1E+00");
  EXPECT_EQ(fortran_E(0.375, 10, 1), "   0.4E+00");
  EXPECT_EQ(fortran_E(1.0, 5, 1), "*****");
  EXPECT_EQ(fortran_E(-1.0, 5, 1), "*****");
  EXPECT_EQ(fortran_E(12.5, 24, 16), "  0.1250000000000000E+02");
  EXPECT_EQ(fortran_E(1.0e-310, 20, 10), "    0.1000000000-309");
  EXPECT_EQ(fortran_E(-7.25e-5, 16, 8), " -0.72500000E-04");
}

TEST(FortranFormat, EditDescriptorES) {
  EXPECT_EQ(fortran_ES(12.3456789, 18, 9), "   1.234567890E+01");
  EXPECT_EQ(fortran_ES(-0.00123, 18, 9), "  -1.230000000E-03");
  EXPECT_EQ(fortran_ES(0.0, 18, 9), "   0.000000000E+00");
  EXPECT_EQ(fortran_ES(1.0e100, 18, 9), "   1.000000000+100");
  EXPECT_EQ(fortran_ES(9.9999999999, 18, 9), "   1.000000000E+01");
  EXPECT_EQ(fortran_ES(9.96, 6, 1), "******");
  EXPECT_EQ(fortran_ES(9.96, 7, 1), "1.0E+01");
  EXPECT_EQ(fortran_ES(-9.96, 7, 1), "*******");
  EXPECT_EQ(fortran_ES(-9.96, 8, 1), "-1.0E+01");
  EXPECT_EQ(fortran_ES(6.02214076e23, 15, 8), " 6.02214076E+23");
}

TEST(FortranFormat, EditDescriptorF) {
  EXPECT_EQ(fortran_F(300.0, 7, 1), "  300.0");
  EXPECT_EQ(fortran_F(-0.01, 7, 1), "   -0.0");
  EXPECT_EQ(fortran_F(-0.0, 7, 1), "   -0.0");
  EXPECT_EQ(fortran_F(0.0, 7, 1), "    0.0");
  EXPECT_EQ(fortran_F(0.5, 3, 1), "0.5");
  EXPECT_EQ(fortran_F(0.5, 2, 1), ".5");
  EXPECT_EQ(fortran_F(-0.5, 4, 1), "-0.5");
  EXPECT_EQ(fortran_F(-0.5, 3, 1), "-.5");
  EXPECT_EQ(fortran_F(-0.5, 2, 1), "**");
  EXPECT_EQ(fortran_F(0.125, 5, 2), " 0.12");
  EXPECT_EQ(fortran_F(0.375, 5, 2), " 0.38");
  EXPECT_EQ(fortran_F(0.25, 4, 1), " 0.2");
  EXPECT_EQ(fortran_F(0.35, 4, 1), " 0.3");
  EXPECT_EQ(fortran_F(2.5, 3, 0), " 2.");
  EXPECT_EQ(fortran_F(3.5, 3, 0), " 4.");
  EXPECT_EQ(fortran_F(0.4, 3, 0), " 0.");
  EXPECT_EQ(fortran_F(-0.4, 3, 0), "-0.");
  EXPECT_EQ(fortran_F(-0.4, 2, 0), "**");
  EXPECT_EQ(fortran_F(0.4, 1, 0), "*");
  EXPECT_EQ(fortran_F(12345.6, 5, 1), "*****");
  EXPECT_EQ(fortran_F(3.14159265, 10, 4), "    3.1416");
  EXPECT_EQ(fortran_F(-273.15, 12, 6), " -273.150000");
  EXPECT_EQ(fortran_F(1.0e20, 25, 10), "*************************");
  EXPECT_EQ(fortran_F(9999.9999, 8, 3), "********");
  EXPECT_EQ(fortran_F(3.14159, 0, 3), "3.142");
  EXPECT_EQ(fortran_F(-0.14159, 0, 3), "-.142");
  EXPECT_EQ(fortran_F(0.0, 0, 0), "0.");
  EXPECT_EQ(fortran_F(5.0, 0, 0), "5.");
  EXPECT_EQ(fortran_F(123.456, 0, 2), "123.46");
  EXPECT_EQ(fortran_F(0.0004, 6, 3), " 0.000");
  EXPECT_EQ(fortran_F(-0.0004, 6, 3), "-0.000");
  EXPECT_EQ(fortran_F(-0.0004, 5, 3), "-.000");
  EXPECT_EQ(fortran_F(1.0e20, 30, 2), "      100000000000000000000.00");
}

TEST(FortranFormat, EditDescriptorI) {
  EXPECT_EQ(fortran_I(42L, 5), "   42");
  EXPECT_EQ(fortran_I(-42L, 5), "  -42");
  EXPECT_EQ(fortran_I(123L, 2), "**");
  EXPECT_EQ(fortran_I(-5L, 2), "-5");
  EXPECT_EQ(fortran_I(-5L, 1), "*");
  EXPECT_EQ(fortran_I(-12345L, 0), "-12345");
  EXPECT_EQ(fortran_I(0L, 5), "    0");
  EXPECT_EQ(fortran_I(0L, 0), "0");
  EXPECT_EQ(fortran_I(2147483648L, 12), "  2147483648");
}
TEST(FortranFormat, InfinityAndNaN) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(fortran_list_real(inf), "                  Infinity");
  EXPECT_EQ(fortran_list_real(-inf), "                 -Infinity");
  EXPECT_EQ(fortran_list_real(nan), "                       NaN");
  EXPECT_EQ(fortran_E(inf, 20, 10), "            Infinity");
  EXPECT_EQ(fortran_E(-inf, 20, 10), "           -Infinity");
  EXPECT_EQ(fortran_E(nan, 20, 10), "                 NaN");
  EXPECT_EQ(fortran_E(inf, 3, 1), "Inf");
  EXPECT_EQ(fortran_E(-inf, 8, 1), "    -Inf");
  EXPECT_EQ(fortran_E(-inf, 9, 1), "-Infinity");
  EXPECT_EQ(fortran_E(-inf, 3, 1), "***");
  EXPECT_EQ(fortran_E(nan, 2, 1), "**");
  EXPECT_EQ(fortran_ES(inf, 8, 1), "Infinity");
  EXPECT_EQ(fortran_F(inf, 7, 1), "    Inf");
  EXPECT_EQ(fortran_F(inf, 0, 1), "Inf");
  EXPECT_EQ(fortran_F(-inf, 0, 1), "-Inf");
  EXPECT_EQ(fortran_F(nan, 0, 1), "NaN");
}

// gfortran prints `write(*,*) 1d0, 2d0` as one line: the items concatenate.
TEST(FortranFormat, ListItemsConcatenateToOneLine) {
  EXPECT_EQ(fortran_list_real(1.0) + fortran_list_real(2.0), "   1.0000000000000000        2.0000000000000000     ");
}

TEST(FortranFormat, InvalidDescriptorsAreErrors) {
  EXPECT_THROW(fortran_E(1.0, 10, 0), quanta::Error);  // gfortran: "Scale factor out of range"
  EXPECT_THROW(fortran_E(1.0, 0, 3), quanta::Error);
  EXPECT_THROW(fortran_ES(1.0, -1, 3), quanta::Error);
  EXPECT_THROW(fortran_F(1.0, -1, 3), quanta::Error);
  EXPECT_THROW(fortran_I(1, -1), quanta::Error);
}
