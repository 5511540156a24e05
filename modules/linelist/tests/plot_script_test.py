"""Checks of tools/python/plot_linelist.py: the Doppler cross-section conserves each line's intensity (lines
narrower or wider than the grid step), has the Doppler width HWHM = nu/c sqrt(2 ln2 kT/m), and the whole
script runs on a results file when h5py and matplotlib are present; every plot_linelist.py command shown in
docs/linelist.md is one the script accepts.

    plot_script_test.py PATH/plot_linelist.py PATH/docs/linelist.md
"""
import importlib.util
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("numpy is not installed: plot_linelist.py not tested (skipped)")
    sys.exit(77)

spec = importlib.util.spec_from_file_location("plot_linelist", sys.argv[1])
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


# Independent constants (CODATA 2018) for the expected width.
c, k, amu = 2.99792458e10, 1.380649e-23 * 1e7, 1.66053906660e-24

# A broad line: water-like mass 18 amu at 296 K, nu = 5000 cm^-1 (HWHM about 0.0085 cm^-1), grid 1e-4.
nu0, T, m = 5000.0, 296.0, 18.0
grid = np.arange(4999.8, 5000.2, 1e-4)
xs = plot.cross_section(np.array([nu0]), np.array([2.5e-20]), T, m, grid)
hwhm = nu0 / c * math.sqrt(2 * math.log(2) * k * T / (m * amu))
above = grid[xs >= xs.max() / 2]
# The profile is cut at +-6 sigma: the tails beyond hold 2.0e-9 of it, and the cut falls inside a bin.
check(abs(xs.sum() * 1e-4 / 2.5e-20 - 1) < 1e-8, f"broad line: integral {xs.sum() * 1e-4:.10e} = intensity 2.5e-20")
check(abs((above[-1] - above[0]) / 2 - hwhm) < 2e-4, f"broad line: HWHM {(above[-1] - above[0]) / 2:.5f} vs {hwhm:.5f} cm^-1 (grid 1e-4)")
check(abs(grid[np.argmax(xs)] - nu0) < 1e-4, "broad line: peak at its wavenumber")

# Narrow lines (HWHM ~1e-3 cm^-1 on a 0.01 grid), anywhere between grid points: intensity kept.
rng = np.random.default_rng(1)
nus = rng.uniform(1000, 1010, 200)
ints = rng.uniform(0, 1, 200) * 1e-22
grid = np.arange(999, 1011, 0.01)
xs = plot.cross_section(nus, ints, 500.0, 30.0, grid)
check(abs(xs.sum() * 0.01 / ints.sum() - 1) < 1e-9, f"narrow lines: integral / sum of intensities - 1 = {xs.sum() * 0.01 / ints.sum() - 1:.2e}")

# The commands the user docs show, as written there (placeholders: M a mass, T a temperature).
docs = open(sys.argv[2]).read()
shown = re.findall(r"plot_linelist\.py([^`\n]*)", docs)
check(len(shown) > 0, f"docs/linelist.md shows plot_linelist.py commands ({len(shown)})")
for args in shown:
    words = [{"M": "30", "T": "296"}.get(w, w) for w in shlex.split(args)]
    try:
        plot.parser().parse_args(words)
        ok = True
    except SystemExit:
        ok = False
    check(ok, f"docs/linelist.md: 'plot_linelist.py{args}' is accepted by the script")

# The whole script on a small results file.
try:
    import h5py  # noqa: F401
    import matplotlib  # noqa: F401
except ImportError as e:
    print(f"skip  full run: {e}")
else:
    with tempfile.TemporaryDirectory() as d:
        results = os.path.join(d, "quanta-linelist.h5")
        with h5py.File(results, "w") as f:
            f["transitions/wavenumber"] = nus
            f["transitions/intensity"] = ints
            f["parameters/temperature"] = 500.0
        png = os.path.join(d, "spectrum.png")
        out = subprocess.run([sys.executable, sys.argv[1], results, "--mass", "30", "-o", png], capture_output=True, text=True)
        print(out.stdout.strip(), out.stderr.strip())
        check(out.returncode == 0 and os.path.getsize(png) > 0, "full run writes the figure")
        words = out.stdout.split()
        check(words[words.index("cross-section") + 1] == words[words.index("intensities") + 1], "full run: integral printed equal to the sum")

sys.exit(1 if failures else 0)
