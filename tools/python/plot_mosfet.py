"""Plot the outputs of quanta mosfet: an equilibrium or a transport run, a transport checkpoint, or a sweep.

    python3 tools/python/plot_mosfet.py DIR/quanta-mosfet.h5 [-o mosfet.png]
        equilibrium run: the potential map V(x, z), the electron density map N(x, z) (log scale), the
        lowest subband energies of each valley along x and the Newton-Raphson history
    python3 tools/python/plot_mosfet.py DIR/quanta-mosfet.h5 [-o mosfet-transport.png]
        transport run: surface density and current density j(x) at the stored output times, I_D, the
        Newton iterations and the time step against time, the final potential and density maps, the
        mean kinetic energy and velocity of each valley along x at the last output time, and with surface
        roughness on the potential shifts dV_up, dV_low of the displaced interfaces
    python3 tools/python/plot_mosfet.py DIR/quanta-mosfet-checkpoint.h5 [--x-node I] [-o mosfet-distribution.png]
        transport checkpoint: the distribution function Phi(w, phi) of the lowest subband of each valley
        at x node I (default: the middle node), and Phi(x, w) averaged over phi
    python3 tools/python/plot_mosfet.py DIR/quanta-mosfet-sweep.h5 [-o mosfet-iv.png]
    python3 tools/python/plot_mosfet.py DIR/quanta-mosfet-iv.dat [-o mosfet-iv.png]
        sweep: the I_D-V_DS and/or I_D-V_GS curves (the gate curve on linear and log scales), the points
        that did not reach steady state marked

The kind of file is read from its content, not its name; any other file is refused (exit code 1).
"""
import argparse
import os
import sys

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

VALLEY_STYLES = ["-", "--", ":"]

# Columns of history/steps (transport_outputs.cpp): time [s], I_D = mean_x j [A/m], next dt [s], Newton
# iterations of the step's last Schroedinger-Poisson solve.
STEP_TIME, STEP_CURRENT, STEP_DT, STEP_NEWTON = 0, 2, 4, 8

DEFAULT_OUTPUT = {
    "equilibrium": "mosfet.png",
    "transport": "mosfet-transport.png",
    "checkpoint": "mosfet-distribution.png",
    "sweep": "mosfet-iv.png",
    "iv-table": "mosfet-iv.png",
}


def kind_of(path):
    """The kind of quanta mosfet output in `path` (a key of DEFAULT_OUTPUT), or None."""
    if h5py.is_hdf5(path):
        with h5py.File(path, "r") as f:
            if "distribution" in f and "run" in f:  # a checkpoint also holds history/ and profiles/
                return "checkpoint"
            if "iv/drain_current" in f:
                return "sweep"
            if "history/steps" in f and "profiles/time" in f:
                return "transport"
            if "convergence/residual" in f:
                return "equilibrium"
        return None
    with open(path, "rb") as f:
        first = f.readline()
    return "iv-table" if first.startswith(b"# quanta") and b"mosfet sweep" in first else None


def map_panel(fig, ax, x, z, values, label, title, cmap, vmin=None, zlabel="z [nm]"):
    """A colour map of values [nx][nz] over x (nm) and z."""
    extent = [x[0], x[-1], z[0], z[-1]]
    im = ax.imshow(values.T, origin="lower", extent=extent, aspect="auto", cmap=cmap, vmin=vmin)
    fig.colorbar(im, ax=ax, label=label)
    ax.set(xlabel="x [nm]", ylabel=zlabel, title=title)


def log_density_cm3(n_nm3):
    """log10 of an electron density in nm^-3, in cm^-3 (1 nm^-3 = 1e21 cm^-3)."""
    return np.log10(np.maximum(n_nm3, 1e-12) * 1e21)


# --- equilibrium run (mosfet_h5.cpp) ---


def load_equilibrium(path):
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


def plot_equilibrium(d, out):
    fig, ax = plt.subplots(2, 2, figsize=(11, 8))
    map_panel(fig, ax[0, 0], d["x"], d["z"], d["V"], "V [V]", f"potential, gates at V_s + {d['gate']:g} V", "viridis")
    map_panel(fig, ax[0, 1], d["x"], d["z"], log_density_cm3(d["N"]), "log10 N [cm^-3]", "electron density", "magma", vmin=14)
    for v, style in enumerate(VALLEY_STYLES):
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


# --- transport run (transport_outputs.cpp, write_transport_results) ---


def load_transport(path):
    """Return a dict: x [nx] (nm); t [nt] (s) the output times; density [nt][nx] (m^-2, both spins, all
    valleys) and current [nt][nx] (A/m, source to drain > 0); velocity [nt][3][nx] (m/s) and energy
    [nt][3][nx] (eV, mean kinetic) per valley; steps [nsteps][10] (history/steps); V [nx][nz] (V) and N
    [nx][nz] (nm^-3, None when absent) at the last time; the bias (V)."""
    with h5py.File(path, "r") as f:
        p = f["profiles"]
        nt, nx = p["density"].shape
        return {
            "x": p["x"][...],
            "t": p["time"][...],
            "density": p["density"][...],
            "current": p["current"][...],
            "velocity": p["valley_velocity"][...].reshape(nt, 3, nx),
            "energy": p["valley_energy"][...].reshape(nt, 3, nx),
            "steps": f["history/steps"][...],
            "V": f["potential"][...],
            "N": f["density"][...] if "density" in f else None,
            "gate": float(f["device/gate_voltage"][()]),
            "drain": float(f["device/drain_voltage"][()]),
            # "seed_code": the gates at V_G from the Fermi level, the contacts at the profile V_b(z) (docs/mosfet.md)
            "contacts": f["device/contacts"][()].decode() if "device/contacts" in f else "flat",
            # surface roughness on: dV_up, dV_low [2][nx][nz] (V) at the last time
            "dV": f["roughness/potential_shifts"][...] if "roughness/potential_shifts" in f else None,
        }


def spread_indices(n, most=8):
    """At most `most` indices of 0 .. n-1, evenly spread, the first and the last included."""
    return np.unique(np.linspace(0, n - 1, min(n, most)).round().astype(int))


def plot_profiles(ax, d):
    """Surface density and current density along x at (at most 8 of) the output times."""
    shown = spread_indices(len(d["t"]))
    colors = plt.cm.viridis(np.linspace(0, 1, len(shown)))
    for k, color in zip(shown, colors):
        label = f"t = {d['t'][k] * 1e12:.4g} ps"
        ax[0].plot(d["x"], d["density"][k], color=color, label=label)
        ax[1].plot(d["x"], d["current"][k], color=color, label=label)
    ax[0].set(xlabel="x [nm]", ylabel="surface density [m^-2]", title="electrons per area (both spins, all valleys)")
    ax[1].set(xlabel="x [nm]", ylabel="j [A/m = uA/um]", title="current density (source to drain > 0)")
    ax[0].legend(fontsize=7)


def plot_history(ax, steps):
    """I_D, the Newton iterations and the time step against the simulated time, one point per step."""
    t_ps = steps[:, STEP_TIME] * 1e12
    ax[0].plot(t_ps, steps[:, STEP_CURRENT], ".-")
    ax[0].set(xlabel="t [ps]", ylabel="I_D [A/m = uA/um]", title="drain current (mean over x of j)")
    ax[1].step(t_ps, steps[:, STEP_NEWTON], where="post", color="C0")
    ax[1].set(xlabel="t [ps]", title="Newton-Raphson iterations and time step")
    ax[1].set_ylabel("Newton iterations (last solve of the step)", color="C0")
    dt_axis = ax[1].twinx()
    dt_axis.plot(t_ps, steps[:, STEP_DT] * 1e15, color="C1")
    dt_axis.set_ylabel("next dt [fs]", color="C1")


def plot_valleys(ax, d):
    """Mean kinetic energy and mean velocity along x of each valley at the last output time."""
    for v, style in enumerate(VALLEY_STYLES):
        ax[0].plot(d["x"], d["energy"][-1, v], style, label=f"valley {v + 1}")
        ax[1].plot(d["x"], d["velocity"][-1, v], style, label=f"valley {v + 1}")
    when = f"t = {d['t'][-1] * 1e12:.4g} ps"
    ax[0].set(xlabel="x [nm]", ylabel="mean kinetic energy [eV]", title=f"mean kinetic energy per valley, {when}")
    ax[1].set(xlabel="x [nm]", ylabel="mean velocity along x [m/s]", title=f"mean velocity per valley, {when}")
    ax[0].legend()
    ax[1].legend()


def plot_transport(d, out):
    rows = 4 if d["dV"] is None else 5
    fig, ax = plt.subplots(rows, 2, figsize=(12, 15 if rows == 4 else 18.5))
    plot_profiles(ax[0], d)
    plot_history(ax[1], d["steps"])
    # The run's file has no z coordinates: the maps are drawn against the z node index of the uniform grid.
    z = np.arange(d["V"].shape[1])
    when = f"t = {d['steps'][-1, STEP_TIME] * 1e12:.4g} ps"
    map_panel(fig, ax[2, 0], d["x"], z, d["V"], "V [V]", f"potential at {when}", "viridis", zlabel="z node")
    if d["N"] is None:
        ax[2, 1].set_axis_off()
    else:
        map_panel(fig, ax[2, 1], d["x"], z, log_density_cm3(d["N"]), "log10 N [cm^-3]", f"electron density at {when}", "magma",
                  vmin=14, zlabel="z node")
    plot_valleys(ax[3], d)
    if d["dV"] is not None:
        for side, name in enumerate(("upper", "lower")):
            map_panel(fig, ax[4, side], d["x"], z, d["dV"][side], "dV [V]",
                      f"roughness dV, {name} interface displaced", "coolwarm", zlabel="z node")
    if d["contacts"] == "seed_code":
        fig.suptitle(f"transport run: gates at {d['gate']:g} V, drain at V_b(z) + {d['drain']:g} V (the seed code's contacts)")
    else:
        fig.suptitle(f"transport run: gates at V_s + {d['gate']:g} V, drain at V_s + {d['drain']:g} V")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


# --- transport checkpoint (simulation.cpp, Simulation::save_checkpoint) ---


def load_checkpoint(path):
    """Return a dict: phi [3][nx][nw][nphi], the lowest subband's distribution of each valley
    (dimensionless: dw dphi sum_{w, phi} Phi = rho / rho*, rho* = m_e k_B T / hbar^2); x [nx] (nm);
    w [nw] (k_B T, cell centres); angle [nphi] (rad, nodes); time (s) and step."""
    with h5py.File(path, "r") as f:
        phi = f["distribution"][:, 0]  # [valley][subband][x][w][phi]: read the lowest subband only
        nx, nw, nphi = phi.shape[1:]
        dw = f["run/w_max"][()] / (nw - 1)  # the seed's code's spacing: w_max / (nw - 1)
        return {
            "phi": phi,
            "x": np.linspace(0.0, f["run/length"][()], nx),
            "w": (np.arange(nw) + 0.5) * dw,
            "angle": np.arange(nphi) * 2 * np.pi / nphi,
            "time": float(f["time"][()]),
            "step": int(f["step"][()]),
        }


def cell_edges(centres):
    """The edges of cells of a uniform grid around its centres."""
    h = centres[1] - centres[0]
    return np.append(centres - h / 2, centres[-1] + h / 2)


def log_phi(values, top, decades=10):
    """log10 of Phi, floored `decades` below `top` (Phi < 0 by round-off is floored too)."""
    return np.log10(np.maximum(values, top * 10.0**-decades))


def plot_distribution(d, out, x_node):
    phi, x, w, angle = d["phi"], d["x"], d["w"], d["angle"]
    top = phi.max()
    low = np.log10(top) - 10
    fig = plt.figure(figsize=(15, 9.5))
    for v in range(3):
        # Phi(w, phi) at the x node on polar axes: radius w, angle phi (phi = 0: velocity along +x, towards the drain).
        ax = fig.add_subplot(2, 3, v + 1, projection="polar")
        im = ax.pcolormesh(cell_edges(angle), cell_edges(w), log_phi(phi[v, x_node], top), cmap="inferno", vmin=low,
                           vmax=np.log10(top))
        ax.set_title(f"valley {v + 1}, lowest subband: Phi(w, phi) at x = {x[x_node]:.3g} nm\n"
                     "radius w [k_B T], angle phi (0: towards the drain)", fontsize=9)
        fig.colorbar(im, ax=ax, label="log10 Phi", pad=0.1)
        # Phi averaged over phi, along x.
        ax = fig.add_subplot(2, 3, v + 4)
        im = ax.pcolormesh(x, w, log_phi(phi[v].mean(axis=2), top).T, shading="nearest", cmap="inferno", vmin=low,
                           vmax=np.log10(top))
        ax.axvline(x[x_node], color="w", ls="--", lw=0.8)
        ax.set(xlabel="x [nm]", ylabel="w [k_B T]", title=f"valley {v + 1}, lowest subband: Phi(x, w) averaged over phi")
        fig.colorbar(im, ax=ax, label="log10 Phi")
    fig.suptitle(f"distribution function at t = {d['time'] * 1e12:.4g} ps (step {d['step']}); Phi dimensionless: "
                 "dw dphi sum Phi = rho / rho*, rho* = m_e k_B T / hbar^2")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


# --- sweep (transport_outputs.cpp, write_sweep) ---


def load_sweep(path):
    """Return a dict of arrays over the bias points: curve ("id_vds" or "id_vgs"), gate and drain voltages
    (V, relative to the source contact), I_D (A/m = uA/um), steady (bool)."""
    with h5py.File(path, "r") as f:
        iv = f["iv"]
        return {
            "curve": np.where(iv["curve"][...] == 0, "id_vds", "id_vgs"),
            "gate": iv["gate_voltage"][...],
            "drain": iv["drain_voltage"][...],
            "current": iv["drain_current"][...],
            "steady": iv["steady"][...] == 1,
        }


def load_iv_table(path):
    """The same dict from quanta-mosfet-iv.dat: curve, V_GS, V_DS, I_D, spread, simulated time, steps, steady."""
    with open(path) as f:
        rows = [line.split() for line in f if line.strip() and not line.startswith("#")]
    return {
        "curve": np.array([r[0] for r in rows]),
        "gate": np.array([float(r[1]) for r in rows]),
        "drain": np.array([float(r[2]) for r in rows]),
        "current": np.array([float(r[3]) for r in rows]),
        "steady": np.array([r[7] == "yes" for r in rows]),
    }


def iv_curve(ax, v, current, steady, xlabel, title, log=False):
    """I_D against a voltage; the points that did not reach steady state circled in red."""
    i = np.abs(current) if log else current
    (ax.semilogy if log else ax.plot)(v, i, "o-", label="I_D")
    if not steady.all():
        ax.plot(v[~steady], i[~steady], "o", ms=12, mfc="none", mec="red", label="not steady within end_time")
    ylabel = "|I_D| [A/m = uA/um]" if log else "I_D [A/m = uA/um]"
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    ax.legend(fontsize=8)


def plot_iv(d, out):
    vds, vgs = d["curve"] == "id_vds", d["curve"] == "id_vgs"
    panels = int(vds.any()) + 2 * int(vgs.any())
    fig, ax = plt.subplots(1, panels, figsize=(5.5 * panels, 4.5), squeeze=False)
    ax = list(ax[0])
    if vds.any():
        iv_curve(ax.pop(0), d["drain"][vds], d["current"][vds], d["steady"][vds], "V_DS [V]",
                 f"I_D-V_DS at V_GS = {d['gate'][vds][0]:g} V")
    if vgs.any():
        title = f"I_D-V_GS at V_DS = {d['drain'][vgs][0]:g} V"
        iv_curve(ax[0], d["gate"][vgs], d["current"][vgs], d["steady"][vgs], "V_GS [V]", title)
        iv_curve(ax[1], d["gate"][vgs], d["current"][vgs], d["steady"][vgs], "V_GS [V]", title + " (log)", log=True)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__.split("\n", 2)[2],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("file", help="quanta-mosfet.h5, quanta-mosfet-checkpoint.h5, quanta-mosfet-sweep.h5 or quanta-mosfet-iv.dat")
    a.add_argument("-o", "--output", help="image to write (default: by kind, " + ", ".join(sorted(set(DEFAULT_OUTPUT.values()))) + ")")
    a.add_argument("--x-node", type=int, help="checkpoint: the x node of the Phi(w, phi) slices (default: the middle node)")
    args = a.parse_args()
    if not os.path.isfile(args.file):
        sys.exit(f"plot_mosfet.py: {args.file}: no such file")
    kind = kind_of(args.file)
    if kind is None:
        sys.exit(f"plot_mosfet.py: {args.file} is not a quanta mosfet output (an equilibrium or transport run's quanta-mosfet.h5, "
                 "quanta-mosfet-checkpoint.h5, quanta-mosfet-sweep.h5 or quanta-mosfet-iv.dat)")
    out = args.output or DEFAULT_OUTPUT[kind]
    if kind == "equilibrium":
        plot_equilibrium(load_equilibrium(args.file), out)
    elif kind == "transport":
        plot_transport(load_transport(args.file), out)
    elif kind == "checkpoint":
        d = load_checkpoint(args.file)
        nx = len(d["x"])
        x_node = nx // 2 if args.x_node is None else args.x_node
        if not 0 <= x_node < nx:
            sys.exit(f"plot_mosfet.py: --x-node {x_node} is outside the checkpoint's x nodes 0 .. {nx - 1}")
        plot_distribution(d, out, x_node)
    else:
        plot_iv(load_sweep(args.file) if kind == "sweep" else load_iv_table(args.file), out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
