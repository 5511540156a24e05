"""tools/python/quanta_phonon.py on a small quanta phonon run (silicon, 4x4x4, 200 and 300 K): --help, each
PNG written, and a bad --plots refused. Exit 77 (CTest: skipped) without numpy or matplotlib.

usage: plot_script_test.py QUANTA_BINARY quanta_phonon.py examples/phonon/si
"""
import os
import shutil
import subprocess
import sys
import tempfile

quanta, script, example = sys.argv[1:4]
try:
    import matplotlib  # noqa: F401
    import numpy  # noqa: F401
except ImportError as e:
    print(f"skipped: {e} (python3-numpy and python3-matplotlib: scripts/install-deps.sh)")
    sys.exit(77)

with tempfile.TemporaryDirectory() as tmp:
    inp = os.path.join(tmp, "in")
    os.makedirs(inp)
    with open(os.path.join(example, "CONTROL")) as f:
        control = f.read().replace("ngrid(:)= 8 8 8", "ngrid(:)= 4 4 4").replace("T=300", "T_min=200 T_max=300 T_step=100")
    with open(os.path.join(inp, "CONTROL"), "w") as f:
        f.write(control)
    for name in ("espresso.ifc2", "FORCE_CONSTANTS_3RD"):
        shutil.copy(os.path.join(example, name), inp)
    out = os.path.join(tmp, "out")
    subprocess.run([quanta, "phonon", "--backend", "cpu", "-q", inp, "--output-dir", out], check=True)

    help_text = subprocess.run([sys.executable, script, "--help"], check=True, capture_output=True, text=True).stdout
    for option in ("--out-dir", "--plots", "--temperature", "--dpi", "results"):
        assert option in help_text, f"--help lacks {option}:\n{help_text}"

    plots = os.path.join(tmp, "plots")
    subprocess.run([sys.executable, script, out, "--out-dir", plots], check=True)
    for png in ("kappa_vs_T.png", "scattering_rates.png", "cumulative_kappa.png", "dos.png"):
        path = os.path.join(plots, png)
        assert os.path.exists(path), f"{png} not written"
        with open(path, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", f"{png} is not a PNG file"
        assert os.path.getsize(path) > 5000, f"{png}: {os.path.getsize(path)} bytes, an empty plot?"

    bad = subprocess.run([sys.executable, script, out, "--plots", "kappa,phase"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown phase" in bad.stderr, bad.stderr
print("quanta_phonon.py: 4 plots written")
