"""Plot a quanta kbe run: conduction-band occupation n_c(k, t), band occupations summed over k, and the
polarization vs time, from quanta-kbe.h5.

    python3 tools/python/plot_kbe.py quanta-kbe.h5 [-o kbe.png]
"""
import argparse

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    """Return a dict of numpy arrays: t [nt], k [nk], n_v and n_c [nt][nk], N, polarization, field and the
    energies [nt] (extensive: sums over the k-points)."""
    with h5py.File(path, "r") as f:
        obs = f["observables"]
        return {
            "t": f["time"][...],
            "k": f["k"][...],
            "field": f["field"][...],
            "n_v": f["occupations/valence"][...],
            "n_c": f["occupations/conduction"][...],
            "N": obs["particles"][...],
            "P": obs["polarization"][...],
            "E_kin": obs["energy_kinetic"][...],
            "E_int": obs["energy_interaction"][...],
            "E_tot": obs["energy_total"][...],
        }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", help="quanta-kbe.h5")
    ap.add_argument("-o", "--output", default="kbe.png", help="image to write (default kbe.png)")
    a = ap.parse_args()
    d = load(a.file)
    t, k = d["t"], d["k"]
    nk = len(k)
    print(f"{nk} k-points, {len(t)} times up to t = {t[-1]:.4g}; "
          f"max |N(t) - N(0)| = {abs(d['N'] - d['N'][0]).max():.2e}, "
          f"E_total(end) - E_total(0) = {d['E_tot'][-1] - d['E_tot'][0]:.4e}")

    fig, ax = plt.subplots(2, 2, figsize=(11, 8), constrained_layout=True)
    im = ax[0, 0].pcolormesh(k, t, d["n_c"], shading="nearest", cmap="viridis")
    ax[0, 0].set(xlabel="k", ylabel="t", title="conduction-band occupation n_c(k, t)")
    fig.colorbar(im, ax=ax[0, 0])

    ax[0, 1].plot(t, d["n_v"].mean(axis=1), label="valence (1/nk) sum_k n_v")
    ax[0, 1].plot(t, d["n_c"].mean(axis=1), label="conduction (1/nk) sum_k n_c")
    ax[0, 1].set(xlabel="t", ylabel="occupation per k-point", title="band occupations")
    ax[0, 1].legend()

    ax[1, 0].plot(t, d["P"] / nk, label="polarization per k-point")
    ax2 = ax[1, 0].twinx()
    ax2.plot(t, d["field"], color="gray", lw=0.8, label="E(t)")
    ax2.set_ylabel("E(t)", color="gray")
    ax[1, 0].set(xlabel="t", ylabel="P(t) / nk", title="polarization and pulse")

    for key, label in (("E_kin", "kinetic"), ("E_int", "interaction"), ("E_tot", "total")):
        ax[1, 1].plot(t, d[key] / nk, label=label)
    ax[1, 1].set(xlabel="t", ylabel="energy per k-point", title="energies (Galitskii-Migdal)")
    ax[1, 1].legend()
    fig.savefig(a.output, dpi=120)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
