"""Read quanta-phonon.h5 and plot the phonon DOS (python3 quanta_phonon.py quanta-phonon.h5 [dos.png])."""
import sys

import h5py
import numpy as np


def load(path):
    """Return a dict of numpy arrays: omega [nq][nb] rad/ps, velocity [nq][nb][3] km/s, eigenvectors
    [nq][nb][nb] complex, q_fractional [nq][3], irreducible, multiplicity, temperature, cv, dos, pdos."""
    with h5py.File(path, "r") as f:
        ev = f["spectrum/eigenvectors"][...]
        return {
            "omega": f["spectrum/omega_rad_per_ps"][...],
            "velocity": f["spectrum/group_velocity_km_per_s"][...],
            "eigenvectors": ev[..., 0] + 1j * ev[..., 1],
            "q_fractional": f["qgrid/q_fractional"][...],
            "irreducible": f["qgrid/irreducible"][...],
            "multiplicity": f["qgrid/multiplicity"][...],
            "temperature": f["thermal/temperature_K"][...],
            "cv": f["thermal/specific_heat_J_per_m3K"][...],
            "energy": f["dos/energy_rad_per_ps"][...],
            "dos": f["dos/dos"][...],
            "pdos": f["dos/pdos"][...],
        }


def main():
    d = load(sys.argv[1])
    print(f"{d['omega'].shape[0]} q-points, {d['omega'].shape[1]} branches, max omega {d['omega'].max():.4f} rad/ps")
    for t, c in zip(d["temperature"], d["cv"]):
        print(f"T = {t:g} K: cv = {c:.6e} J/(m^3 K)")
    if len(sys.argv) > 2:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        plt.plot(d["energy"], d["dos"], label="total")
        for a in range(d["pdos"].shape[1]):
            plt.plot(d["energy"], d["pdos"][:, a], "--", label=f"atom {a + 1}")
        plt.xlabel("omega (rad/ps)")
        plt.ylabel("DOS (states per rad/ps per cell)")
        plt.legend()
        plt.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
