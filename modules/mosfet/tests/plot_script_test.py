"""tools/python/plot_mosfet.py on small quanta mosfet runs: the equilibrium example, a transport run (and one with
surface roughness), its checkpoint, and a sweep (its HDF5 file and its table), each PNG written; a file that is no quanta output
refused with exit 1. Exit 77 (CTest: skipped) without numpy, h5py or matplotlib.

usage: plot_script_test.py QUANTA_BINARY plot_mosfet.py REPOSITORY_ROOT
"""
import os
import subprocess
import sys
import tempfile

quanta, script, root = sys.argv[1:4]
try:
    import h5py  # noqa: F401
    import matplotlib  # noqa: F401
    import numpy  # noqa: F401
except ImportError as e:
    print(f"skipped: {e} (python3-numpy, python3-h5py and python3-matplotlib: scripts/install-deps.sh)")
    sys.exit(77)


def small_transport(text):
    """The transport example on a coarse grid, 4 fs (the command test's grid)."""
    for old, new in (("nx = 65", "nx = 9"), ("nz = 65", "nz = 17"), ("subbands = 6", "subbands = 2"),
                     ("nw = 300", "nw = 24\nw_max = 14"), ("nphi = 48", "nphi = 8"),
                     ("end_time = 0.1", "end_time = 0.004"), ("output_interval = 0.01", "output_interval = 0.002")):
        assert old in text, old
        text = text.replace(old, new)
    return text


def plot(path, png, expect=0):
    r = subprocess.run([sys.executable, script, path, "-o", png], capture_output=True, text=True)
    assert r.returncode == expect, f"{path}: exit {r.returncode}\n{r.stderr}"
    if expect == 0:
        with open(png, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", f"{png} is not a PNG file"
        assert os.path.getsize(png) > 20000, f"{png}: {os.path.getsize(png)} bytes, an empty plot?"
    return r


with tempfile.TemporaryDirectory() as tmp:
    run = lambda *args: subprocess.run([quanta, "mosfet", "--backend", "cpu", "-q", *args], cwd=tmp)  # noqa: E731
    eq = os.path.join(root, "examples/mosfet/dg-equilibrium/mosfet.toml")
    assert run(eq, "-o", "eq").returncode == 0
    with open(os.path.join(root, "examples/mosfet/dg-transport/mosfet.toml")) as f:
        config = small_transport(f.read())
    with open(os.path.join(tmp, "transport.toml"), "w") as f:
        f.write(config)
    assert run("transport.toml", "-o", "tr").returncode == 0
    with open(os.path.join(tmp, "rough.toml"), "w") as f:
        f.write(config + "\n[transport.roughness]\n")
    assert run("rough.toml", "-o", "sr").returncode == 0
    sweep = config.replace("cfl = 0.6", "cfl = 0.6\nsteady_tolerance = 1e-6") + "\n[sweep]\ndrain_voltages = [0.05, 0.1]\n"
    with open(os.path.join(tmp, "sweep.toml"), "w") as f:
        f.write(sweep)
    assert run("sweep", "sweep.toml", "-o", "sw").returncode == 1  # the points do not settle in 4 fs: marked, exit 1

    out = lambda *p: os.path.join(tmp, *p)  # noqa: E731
    plot(out("eq", "quanta-mosfet.h5"), out("eq.png"))
    plot(out("tr", "quanta-mosfet.h5"), out("transport.png"))
    plot(out("sr", "quanta-mosfet.h5"), out("roughness.png"))
    plot(out("tr", "quanta-mosfet-checkpoint.h5"), out("distribution.png"))
    plot(out("sw", "quanta-mosfet-sweep.h5"), out("iv-h5.png"))
    plot(out("sw", "quanta-mosfet-iv.dat"), out("iv-dat.png"))
    bad = plot(out("tr", "quanta-mosfet-scalars.dat"), out("bad.png"), expect=1)
    assert "is not a quanta mosfet output" in bad.stderr, bad.stderr
    assert not os.path.exists(out("bad.png"))
print("plot_mosfet.py: 6 plots written, a foreign file refused")
