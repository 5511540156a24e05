#!/usr/bin/env python3
"""Stick spectrum and Doppler-broadened cross-section from quanta-linelist.h5.

    plot_linelist.py quanta-linelist.h5 --mass 30.0 [--step 0.01] [--range 0 10000] [-o spectrum.png]

The intensities are those of the run, at its TEMPERATURE: the temperature is read from the file
(parameters/temperature), not given on the command line (the intensities could not follow another one). The
cross-section sums Gaussian (Doppler) profiles, HWHM = nu / c * sqrt(2 ln 2 k T / m), on a uniform grid;
its integral over wavenumber equals the sum of the line intensities (cm/molecule -> cm^2/molecule).
"""
import argparse
import math

import numpy as np

C = 2.99792458e10  # cm/s
K = 1.380649e-16  # erg/K
AMU = 1.66053906660e-24  # g


def cross_section(nu, intensity, temperature, mass_amu, grid):
    """Sum of Gaussian (Doppler) profiles, each integrated over the grid's bins (bin j covers grid[j] +- step/2),
    so a line narrower than the step keeps its intensity: sum(xs) * step = sum(intensity) for lines inside the grid."""
    sigma = nu / C * np.sqrt(K * temperature / (mass_amu * AMU))  # Gaussian standard deviation, cm^-1
    xs = np.zeros_like(grid)
    step = grid[1] - grid[0]
    edges_of = np.vectorize(lambda z: 0.5 * math.erfc(-z / math.sqrt(2.0)))  # standard normal CDF
    for n, s, i in zip(nu, sigma, intensity):
        lo = max(int(np.floor((n - 6 * s - grid[0]) / step + 0.5)), 0)
        hi = min(int(np.floor((n + 6 * s - grid[0]) / step + 0.5)) + 1, len(grid))
        if hi <= lo:
            continue
        edges = grid[0] + (np.arange(lo, hi + 1) - 0.5) * step
        cdf = edges_of((edges - n) / s)
        xs[lo:hi] += i * np.diff(cdf) / step
    return xs


def parser():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", help="quanta-linelist.h5 of a quanta linelist run")
    p.add_argument("--mass", type=float, required=True, help="molecular mass in amu")
    p.add_argument("--step", type=float, default=0.01, help="grid step of the cross-section, cm^-1")
    p.add_argument("--range", type=float, nargs=2, default=None, help="wavenumber range, cm^-1")
    p.add_argument("-o", "--output", default="spectrum.png", help="the figure (default: spectrum.png)")
    return p


def main():
    a = parser().parse_args()
    import h5py
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with h5py.File(a.results, "r") as f:
        nu = f["transitions/wavenumber"][:]
        inten = f["transitions/intensity"][:]
        temperature = float(f["parameters/temperature"][()])
    lo, hi = a.range if a.range else (nu.min() - 1.0, nu.max() + 1.0)
    keep = (nu >= lo) & (nu <= hi)
    nu, inten = nu[keep], inten[keep]
    grid = np.arange(lo, hi + a.step, a.step)
    xs = cross_section(nu, inten, temperature, a.mass, grid)
    fig, ax = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    ax[0].vlines(nu, 0, inten, lw=0.5)
    ax[0].set_yscale("log")
    ax[0].set_ylim(max(inten.max() * 1e-12, inten[inten > 0].min()), inten.max() * 2)
    ax[0].set_ylabel("I (cm/molecule)")
    ax[0].set_title(f"{len(nu)} lines at T = {temperature:g} K")
    ax[1].plot(grid, xs, lw=0.6)
    ax[1].set_yscale("log")
    ax[1].set_ylim(max(xs.max() * 1e-12, 1e-40), xs.max() * 2)
    ax[1].set_xlabel("wavenumber (cm$^{-1}$)")
    ax[1].set_ylabel("cross-section (cm$^2$/molecule)")
    fig.tight_layout()
    fig.savefig(a.output, dpi=150)
    print(f"{a.output}: {len(nu)} lines, integrated cross-section {xs.sum() * a.step:.4e} vs sum of intensities {inten.sum():.4e}")


if __name__ == "__main__":
    main()
