"""Plot a quanta mosfet run from quanta-mosfet.h5: the potential map V(x, z), the lowest subband energies
of each valley along x, the electron density map N(x, z) (log scale), and the Newton-Raphson history.

    python3 tools/python/plot_mosfet.py quanta-mosfet.h5 [-o mosfet.png]
"""
import argparse

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    """Return a dict of numpy arrays: x [nx], z [nz] (nm); V, N, doping [nx][nz] (V, nm^-3);
    energies and populations [3][nsub][nx] (eV, nm^-2); residual and change [iterations]."""
    with h5py.File(path, "r") as f:
        return {
            "x": f["grid/x"][...],
            "z": f["grid/z"][...],
            "V": f["potential"][...],
            "N": f["density"][...],
            "doping": f["device/doping"][...],
            "energies": f["subbands/energies"][...],
            "populations": f["subbands/populations"][...],
            "residual": f["convergence/residual"][...],
            "change": f["convergence/change"][...],
            "gate": float(f["device/gate_voltage"][()]),
        }


def plot(d, out):
    fig, ax = plt.subplots(2, 2, figsize=(11, 8))
    extent = [d["x"][0], d["x"][-1], d["z"][0], d["z"][-1]]
    im = ax[0, 0].imshow(d["V"].T, origin="lower", extent=extent, aspect="auto", cmap="viridis")
    fig.colorbar(im, ax=ax[0, 0], label="V [V]")
    ax[0, 0].set(xlabel="x [nm]", ylabel="z [nm]", title=f"potential, gates at V_s + {d['gate']:g} V")
    n_cm3 = np.maximum(d["N"], 1e-12) * 1e21  # nm^-3 -> cm^-3
    im = ax[0, 1].imshow(np.log10(n_cm3).T, origin="lower", extent=extent, aspect="auto", cmap="magma", vmin=14)
    fig.colorbar(im, ax=ax[0, 1], label="log10 N [cm^-3]")
    ax[0, 1].set(xlabel="x [nm]", ylabel="z [nm]", title="electron density")
    for v, style in zip(range(3), ["-", "--", ":"]):
        for p in range(min(3, d["energies"].shape[1])):
            ax[1, 0].plot(d["x"], d["energies"][v, p], style, color=f"C{p}", label=f"valley {v + 1}, p = {p}")
    ax[1, 0].axhline(0.0, color="k", lw=0.5)
    ax[1, 0].set(xlabel="x [nm]", ylabel="energy - E_F [eV]", title="subband energies")
    ax[1, 0].legend(fontsize=7, ncol=3)
    k = np.arange(len(d["change"]))
    ax[1, 1].semilogy(k, d["change"], "o-", label="|V^{k+1} - V^k| [V]")
    ax[1, 1].semilogy(k, d["residual"], "s-", label="|P[V^k]| [V/nm^2]")
    ax[1, 1].set(xlabel="Newton iteration k", title="Newton-Raphson convergence")
    ax[1, 1].legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("results", help="quanta-mosfet.h5")
    a.add_argument("-o", "--output", default="mosfet.png")
    args = a.parse_args()
    plot(load(args.results), args.output)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
