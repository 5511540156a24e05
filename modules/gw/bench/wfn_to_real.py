#!/usr/bin/env python3
"""Converts a Complex-flavour BerkeleyGW WFN file (pw2bgw.x, real_or_complex = 2) into the Real flavour.

For a crystal with inversion symmetry about the origin, H(k) is real in the plane-wave basis, so each
set of degenerate states spans a space closed under complex conjugation and has a real orthonormal
basis. pw2bgw.x's own conversion (real_or_complex = 1) builds that basis with one pass of classical
Gram-Schmidt over the real and imaginary parts of the states and a fixed 1e-6 threshold; with the large
degenerate sets of a supercell it can keep a rounding residual as a state, which leaves states that
are neither orthonormal nor eigenstates. Here each set (consecutive energies within --tol Ry, as in
pw2bgw.x) is made real from the singular value decomposition of its real and imaginary parts: the
n leading right singular vectors. The conversion fails if the (n+1)-th singular value is not small,
i.e. the set is not closed under conjugation (a set cut by the last band, or no inversion symmetry).

--bands N keeps the first N bands; N must end a degenerate set (compute a few more bands than N).
Everything else in the file (header, G-vectors, energies, occupations) is copied.

Usage: wfn_to_real.py WFN_COMPLEX WFN_REAL [--bands N] [--tol RY]
"""
import argparse
import struct
import sys

import numpy as np


class Records:
    """Fortran sequential unformatted records (4-byte markers), read in order."""

    def __init__(self, path):
        self.f = open(path, "rb")

    def next(self):
        head = self.f.read(4)
        if len(head) < 4:
            raise EOFError("unexpected end of file")
        (n,) = struct.unpack("<i", head)
        data = self.f.read(n)
        (tail,) = struct.unpack("<i", self.f.read(4))
        if tail != n or len(data) != n:
            raise ValueError("bad record markers")
        return data


def put(out, data):
    out.write(struct.pack("<i", len(data)))
    out.write(data)
    out.write(struct.pack("<i", len(data)))


def copy_block(rec, out):
    """A data block: nrecord, then per record (count, payload); copied unchanged."""
    raw = rec.next()
    put(out, raw)
    (nrecord,) = struct.unpack("<i", raw)
    for _ in range(nrecord):
        put(out, rec.next())
        put(out, rec.next())


def read_block(rec, dtype):
    (nrecord,) = struct.unpack("<i", rec.next())
    parts = []
    for _ in range(nrecord):
        rec.next()
        parts.append(np.frombuffer(rec.next(), dtype=dtype))
    return np.concatenate(parts)


def degenerate_sets(e, tol):
    sets, start = [], 0
    for i in range(len(e)):
        if i == len(e) - 1 or abs(e[i + 1] - e[i]) > tol:
            sets.append((start, i + 1))
            start = i + 1
    return sets


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("wfn_complex")
    ap.add_argument("wfn_real")
    ap.add_argument("--bands", type=int, default=0, help="bands to keep (default: all but a set cut by the last band)")
    ap.add_argument("--tol", type=float, default=1e-5, help="degeneracy tolerance in Ry (default 1e-5, as pw2bgw.x)")
    a = ap.parse_args()

    rec = Records(a.wfn_complex)
    title = rec.next()
    if not title.startswith(b"WFN-Complex"):
        sys.exit(f"wfn_to_real: {a.wfn_complex}: title {title[:32]!r}, expected 'WFN-Complex'")
    sizes = bytearray(rec.next())
    nspin, ng, ntran, cell_sym, nat = struct.unpack_from("<5i", sizes, 0)
    nk, nb, ngkmax = struct.unpack_from("<3i", sizes, 28)
    if nspin != 1:
        sys.exit(f"wfn_to_real: nspin = {nspin}; only nspin = 1 is handled")
    header = [rec.next() for _ in range(6)]  # grids, cell, reciprocal cell, mtrx, tnp, atoms
    ngk = struct.unpack(f"<{nk}i", rec.next())
    kw, kpt, ifmin, ifmax = (rec.next() for _ in range(4))
    energies = np.frombuffer(rec.next(), dtype="<f8").reshape(nk, nb)
    occupations = np.frombuffer(rec.next(), dtype="<f8").reshape(nk, nb)
    if max(struct.unpack(f"<{nk}i", ifmax)) > (a.bands or nb):
        sys.exit("wfn_to_real: --bands is below the highest occupied band")

    # The bands kept: N, checked to end a degenerate set at every k.
    keep = a.bands or nb
    if keep > nb:
        sys.exit(f"wfn_to_real: --bands {keep}, but the file has {nb} bands")
    for k in range(nk):
        ends = [b for _, b in degenerate_sets(energies[k], a.tol)]
        if a.bands == 0:
            keep = min(keep, ends[-2] if len(ends) > 1 else nb)
        elif keep not in ends:
            lower = max([b for b in ends if b < keep], default=0)
            upper = min([b for b in ends if b > keep], default=nb)
            sys.exit(f"wfn_to_real: k-point {k + 1}: band {keep} does not end a degenerate set "
                     f"(sets end at {lower} and {upper}); choose one of those")
        elif keep == nb:
            sys.exit(f"wfn_to_real: --bands {keep} keeps the last band of the file, whose set may be cut; "
                     "compute more bands")

    out = open(a.wfn_real, "wb")
    put(out, b"WFN-Real".ljust(32) + title[32:])
    struct.pack_into("<i", sizes, 32, keep)
    put(out, bytes(sizes))
    for h in header:
        put(out, h)
    put(out, struct.pack(f"<{nk}i", *ngk))
    for r in (kw, kpt, ifmin, ifmax):
        put(out, r)
    put(out, np.ascontiguousarray(energies[:, :keep]).astype("<f8").tobytes())
    put(out, np.ascontiguousarray(occupations[:, :keep]).astype("<f8").tobytes())
    copy_block(rec, out)  # G-vectors of the density

    worst_noise = worst_ortho = 0.0
    for k in range(nk):
        copy_block(rec, out)  # G-vectors of k
        c = np.array([read_block(rec, "<c16") for _ in range(nb)])
        if c.shape[1] != ngk[k]:
            sys.exit(f"wfn_to_real: k-point {k + 1}: {c.shape[1]} coefficients per band, expected {ngk[k]}")
        real = np.empty((keep, ngk[k]))
        for lo, hi in degenerate_sets(energies[k][:keep], a.tol):
            n = hi - lo
            parts = np.vstack([c[lo:hi].real, c[lo:hi].imag])
            _, sv, vt = np.linalg.svd(parts, full_matrices=False)
            noise = sv[n] / sv[n - 1]
            worst_noise = max(worst_noise, noise)
            if noise > 1e-3:
                sys.exit(f"wfn_to_real: k-point {k + 1}, bands {lo + 1}..{hi}: the set is not closed under "
                         f"conjugation (singular values {sv[n - 1]:.3e}, {sv[n]:.3e}); no inversion symmetry, "
                         "or --tol too small")
            real[lo:hi] = vt[:n]
        worst_ortho = max(worst_ortho, np.abs(real @ real.T - np.eye(keep)).max())
        for band in real:
            put(out, struct.pack("<i", 1))
            put(out, struct.pack("<i", ngk[k]))
            put(out, band.astype("<f8").tobytes())
    out.close()
    print(f"wfn_to_real: {a.wfn_real}: {keep} of {nb} bands, {nk} k-point(s); largest residual of a set "
          f"outside its real span {worst_noise:.1e}, orthonormality error {worst_ortho:.1e}")
    if worst_ortho > 1e-8:
        sys.exit("wfn_to_real: the real states are not orthonormal")


if __name__ == "__main__":
    main()
