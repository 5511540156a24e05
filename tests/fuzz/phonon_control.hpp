#pragma once
// The fixed crystal the force-constant targets read against: silicon (2 atoms, diamond lattice, the
// lattice of examples/phonon/si) with a 2x2x2 force-constant supercell and Born charges, so that the
// non-analytic corrections are set up too.
// The seeds in corpus/{phonopy_fc2,espresso_ifc2,fc3,fc4}/seeds/ were written for it.
#include <string>

#include "fuzz_support.hpp"
#include "quanta/phonon/control.hpp"

namespace quanta::fuzz {

inline const quanta::phonon::Control& silicon_control() {
  static const quanta::phonon::Control control = [] {
    const std::string text = R"(&allocations
  nelements=1, natoms=2, ngrid(:)=4 4 4
&end
&crystal
  lfactor=0.53711490774,
  lattvec(:,1)=-0.5 0.0 0.5,
  lattvec(:,2)=0.0 0.5 0.5,
  lattvec(:,3)=-0.5 0.5 0.0,
  elements="Si"
  types=1 1,
  positions(:,1)=0.00 0.00 0.00,
  positions(:,2)=0.25 0.25 0.25,
  epsilon(:,1)=13.0 0.0 0.0,
  epsilon(:,2)=0.0 13.0 0.0,
  epsilon(:,3)=0.0 0.0 13.0,
  born(:,1,1)=0.1 0.0 0.0, born(:,2,1)=0.0 0.1 0.0, born(:,3,1)=0.0 0.0 0.1,
  born(:,1,2)=-0.1 0.0 0.0, born(:,2,2)=0.0 -0.1 0.0, born(:,3,2)=0.0 0.0 -0.1,
  scell(:)=2 2 2
&end
&parameters
  T=300
&end
&flags
  nonanalytic=.TRUE.
&end
)";
    const auto file = write_input("CONTROL.silicon", reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
    return quanta::phonon::read_control(file);
  }();
  return control;
}

}  // namespace quanta::fuzz
