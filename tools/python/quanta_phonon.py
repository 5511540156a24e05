#!/usr/bin/env python3
"""Plots of a quanta phonon run, from the files it writes (the same as ShengBTE/FourPhonon's, so a
FourPhonon output folder works too):

  kappa_vs_T.png          thermal conductivity vs temperature (BTE.KappaTensorVsT_CONV, else _RTA)
  scattering_rates.png    three-phonon scattering rates vs frequency (T<T>K/BTE.w_3ph, or BTE.w)
  cumulative_kappa.png    cumulative conductivity vs frequency (T<T>K/BTE.cumulative_kappaVsOmega_tensor)
  dos.png                 phonon density of states (BTE.dos, BTE.pdos)

Run `python3 quanta_phonon.py --help`. `load()` reads quanta-phonon.h5 (h5py) for scripts of your own.
"""
import argparse
import os
import re
import sys

PLOTS = ("kappa", "rates", "cumulative", "dos")


def load(path):
    """quanta-phonon.h5 as a dict of numpy arrays: omega [nq][nb] rad/ps, velocity [nq][nb][3] km/s,
    eigenvectors [nq][nb][nb] complex, q_fractional [nq][3], irreducible, multiplicity, temperature, cv,
    energy, dos, pdos."""
    import h5py

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


def table(path):
    """Rows of numbers of a ShengBTE text file, as a 2-D array."""
    import numpy as np

    return np.atleast_2d(np.loadtxt(path))


def temperature_dirs(results):
    """The T<T>K folders of a run, sorted by temperature: [(T, path)]."""
    out = []
    for name in os.listdir(results):
        m = re.fullmatch(r"T(\d+)K", name)
        if m and os.path.isdir(os.path.join(results, name)):
            out.append((int(m.group(1)), os.path.join(results, name)))
    return sorted(out)


def plot_kappa(results, plt):
    """kappa_xx, kappa_yy, kappa_zz and their mean vs T; the converged (iterative) values when present."""
    for name, label in (("BTE.KappaTensorVsT_CONV", "iterative"), ("BTE.KappaTensorVsT_RTA", "RTA")):
        path = os.path.join(results, name)
        if os.path.exists(path):
            break
    else:
        raise FileNotFoundError(f"{results}: neither BTE.KappaTensorVsT_CONV nor BTE.KappaTensorVsT_RTA")
    k = table(path)
    t = k[:, 0]
    fig, ax = plt.subplots()
    for col, comp in ((1, "xx"), (5, "yy"), (9, "zz")):
        ax.plot(t, k[:, col], "o-", ms=4, label=f"kappa_{comp}")
    ax.plot(t, (k[:, 1] + k[:, 5] + k[:, 9]) / 3, "k--", label="mean")
    ax.set_xlabel("T (K)")
    ax.set_ylabel("kappa (W/mK)")
    ax.set_title(f"thermal conductivity ({label})")
    ax.legend()
    return fig


def plot_rates(results, temps, plt):
    """Per-mode three-phonon rates vs frequency at each temperature (log scale; zero rates left out)."""
    fig, ax = plt.subplots()
    for t, d in temps:
        path = next((os.path.join(d, f) for f in ("BTE.w_3ph", "BTE.w") if os.path.exists(os.path.join(d, f))), None)
        if path is None:
            continue
        w = table(path)
        keep = w[:, 1] > 0
        ax.scatter(w[keep, 0], w[keep, 1], s=6, label=f"{t} K ({os.path.basename(path)})")
    if not ax.collections:
        raise FileNotFoundError(f"{results}: no T<T>K/BTE.w_3ph or BTE.w")
    ax.set_yscale("log")
    ax.set_xlabel("omega (rad/ps)")
    ax.set_ylabel("scattering rate (1/ps)")
    ax.legend()
    return fig


def plot_cumulative(results, temps, plt):
    """Cumulative kappa (mean of the diagonal) vs frequency at each temperature."""
    fig, ax = plt.subplots()
    for t, d in temps:
        path = os.path.join(d, "BTE.cumulative_kappaVsOmega_tensor")
        if not os.path.exists(path):
            continue
        c = table(path)
        ax.plot(c[:, 0], (c[:, 1] + c[:, 5] + c[:, 9]) / 3, label=f"{t} K")
    if not ax.lines:
        raise FileNotFoundError(f"{results}: no T<T>K/BTE.cumulative_kappaVsOmega_tensor")
    ax.set_xlabel("omega (rad/ps)")
    ax.set_ylabel("cumulative kappa (W/mK)")
    ax.legend()
    return fig


def plot_dos(results, plt):
    """Total DOS and the per-atom projections."""
    d = table(os.path.join(results, "BTE.dos"))
    fig, ax = plt.subplots()
    ax.plot(d[:, 0], d[:, 1], label="total")
    pdos = os.path.join(results, "BTE.pdos")
    if os.path.exists(pdos):
        p = table(pdos)
        for a in range(1, p.shape[1]):
            ax.plot(p[:, 0], p[:, a], "--", label=f"atom {a}")
    ax.set_xlabel("omega (rad/ps)")
    ax.set_ylabel("DOS (states per rad/ps per cell)")
    ax.legend()
    return fig


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Plot the results of `quanta phonon` (or of ShengBTE/FourPhonon: the same files).",
        epilog="Example: python3 quanta_phonon.py si-out --out-dir plots",
    )
    p.add_argument("results", help="the run's output folder (holding BTE.* and T<T>K/)")
    p.add_argument("--out-dir", default=".", help="where the PNG files go (default: the current directory)")
    p.add_argument(
        "--plots",
        default=",".join(PLOTS),
        help="comma-separated subset of: " + ", ".join(PLOTS) + " (default: all)",
    )
    p.add_argument("--temperature", type=float, action="append",
                   help="temperature (K) of the rate and cumulative plots; repeat for several (default: every T<T>K folder)")
    p.add_argument("--dpi", type=int, default=120, help="resolution of the PNG files (default: 120)")
    args = p.parse_args(argv)
    args.plots = [s for s in args.plots.split(",") if s]
    unknown = [s for s in args.plots if s not in PLOTS]
    if unknown:
        p.error(f"--plots: unknown {', '.join(unknown)}; expected a subset of {', '.join(PLOTS)}")
    if not os.path.isdir(args.results):
        p.error(f"{args.results}: not a folder (expected the output folder of quanta phonon)")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    temps = temperature_dirs(args.results)
    if args.temperature:
        temps = [(t, d) for t, d in temps if any(abs(t - x) < 0.5 for x in args.temperature)]
    os.makedirs(args.out_dir, exist_ok=True)
    makers = {
        "kappa": ("kappa_vs_T.png", lambda: plot_kappa(args.results, plt)),
        "rates": ("scattering_rates.png", lambda: plot_rates(args.results, temps, plt)),
        "cumulative": ("cumulative_kappa.png", lambda: plot_cumulative(args.results, temps, plt)),
        "dos": ("dos.png", lambda: plot_dos(args.results, plt)),
    }
    status = 0
    for name in args.plots:
        png, make = makers[name]
        try:
            fig = make()
        except (OSError, ValueError) as e:
            print(f"quanta_phonon.py: {name}: {e}", file=sys.stderr)
            status = 1
            continue
        fig.tight_layout()
        out = os.path.join(args.out_dir, png)
        fig.savefig(out, dpi=args.dpi)
        plt.close(fig)
        print(out)
    return status


if __name__ == "__main__":
    sys.exit(main())
