#!/usr/bin/env python3
"""Independent NumPy/SciPy re-implementation of the ExoCross formulas described in README.md.

Usage:  python3 check_against_exocross.py CASE.inp [--data DIR] [--exact-voigt] [--no-species1-term]
  DIR holds the decompressed .states/.trans (default: current directory);
  the .xsec (or .xsec.xz) of the case is read next to CASE.inp.
Prints the maximum relative deviation from the ExoCross output.
"""
import sys, os, lzma, argparse
import numpy as np
from scipy.special import erf, wofz

C2 = 1.43877736; CLIGHT = 2.99792458e10; KB = 1.3806488e-16; NA = 6.02214129e23
SMALL = 2.220446049250313e-16

def fnint(x):  # Fortran NINT: round half away from zero
    return int(np.floor(x + 0.5)) if x >= 0 else -int(np.floor(-x + 0.5))

def parse(inp):
    d = {'cutoff': 25.0, 'hwhmunits': False, 'species': [], 'thresh': 1e-70, 'pressure': 1.0, 'hwhm': None, 'mass': 1.0}
    lines = open(inp).read().splitlines(); k = 0
    while k < len(lines):
        w = lines[k].split(); k += 1
        if not w: continue
        key = w[0].lower()
        if key == 'temperature': d['T'] = float(w[1])
        elif key == 'range': d['l'], d['r'] = float(w[1]), float(w[2])
        elif key == 'npoints': n = int(w[1]); d['N'] = n + 1 if n % 2 == 0 else n
        elif key in ('doppler', 'gaussian', 'lorentzian', 'lorentz0', 'voigt', 'stick'): d['prof'] = ' '.join(w).lower()
        elif key == 'hwhm': d['hwhm'] = float(w[1])
        elif key == 'mass': d['mass'] = float(w[1])
        elif key == 'pressure': d['pressure'] = float(w[1])
        elif key == 'threshold': d['thresh'] = float(w[1])
        elif key == 'cutoff': d['cutoff'] = float(w[1]); d['hwhmunits'] = len(w) > 2
        elif key == 'states': d['states'] = w[1]
        elif key == 'transitions': d['trans'] = w[1]
        elif key == 'species':
            while True:
                w = lines[k].split(); k += 1
                if w[0].lower() == 'end': break
                s = {'name': w[0], 'gamma': 0.05, 'n': 0.5, 't0': 296., 'p0': 1., 'ratio': 1., 'file': None}
                for j in range(1, len(w), 2):
                    s[w[j].lower()] = w[j + 1] if w[j].lower() == 'file' else float(w[j + 1])
                d['species'].append(s)
    return d

def broad_table(s, folder, jmax=50):
    g = np.full(jmax + 1, s['gamma']); n = np.full(jmax + 1, s['n'])
    if s['file']:
        last = 0
        for l in open(os.path.join(folder, s['file'])):
            p = l.split()
            if p and p[0].lower() == 'a0':
                J = int(float(p[3])); g[J] = float(p[1]); n[J] = float(p[2]); last = max(last, J)
        g[last + 1:] = g[last]; n[last + 1:] = n[last]
    return g, n

def humlicek(x, y):
    # ExoCross forms T=cmplx(y,-x) in default (single) precision
    t = complex(float(np.float32(y)), float(np.float32(-x))); s = abs(x) + y
    if s >= 15: return (t * 0.5641896 / (0.5 + t * t)).real
    if s >= 5.5:
        u = t * t; return (t * (1.410474 + u * 0.5641896) / (0.75 + u * (3.0 + u))).real
    if y >= 0.195 * abs(x) - 0.176:
        return ((16.4955 + t * (20.20933 + t * (11.96482 + t * (3.778987 + t * .5642236)))) /
                (16.4955 + t * (38.82363 + t * (39.27121 + t * (21.69274 + t * (6.699398 + t)))))).real
    u = t * t
    return (np.exp(u) - t * (36183.31 - u * (3321.9905 - u * (1540.787 - u * (219.0313 - u * (35.76683 - u * (1.320522 - u * .56419)))))) /
            (32066.6 - u * (24322.84 - u * (9022.228 - u * (2186.181 - u * (364.2191 - u * (61.57037 - u * (1.841439 - u)))))))).real

def lines(d, data):
    st = np.loadtxt(os.path.join(data, d['states']), usecols=(0, 1, 2, 3))
    idx = {int(r[0]): k for k, r in enumerate(st)}
    t = np.loadtxt(os.path.join(data, d['trans']), usecols=(0, 1, 2))
    f = np.array([idx[int(i)] for i in t[:, 0]]); i = np.array([idx[int(j)] for j in t[:, 1]])
    E, g, J = st[:, 1], st[:, 2], st[:, 3]; T = d['T']
    Q = np.sum(g * np.exp(-C2 * E / T))
    nu = E[f] - E[i]
    with np.errstate(all='ignore'):
        S = t[:, 2] * g[f] * np.exp(-C2 * E[i] / T) * (1 - np.exp(-C2 * nu / T)) / (8 * np.pi * CLIGHT * nu ** 2 * Q)
    m = (nu >= d['l']) & (nu <= d['r']) & (nu > SMALL)
    m[m] &= S[m] >= d['thresh']
    return nu[m], S[m], J[i][m], Q

def compute(inp, data, exact_voigt=False, species1_term=True):
    d = parse(inp); T = d['T']; folder = os.path.dirname(os.path.abspath(inp))
    nu, S, Jlow, Q = lines(d, data)
    N = d['N']; dnu = (d['r'] - d['l']) / (N - 1); fr = d['l'] + np.arange(N) * dnu; dnu2 = fr[1] - fr[0]
    out = np.zeros(N); prof = d['prof']; ln2 = np.log(2)
    dpw = np.sqrt(2 * ln2 * KB * NA) / CLIGHT * np.sqrt(T / d['mass'])
    if d['species']:
        gam = np.full(len(nu), d['species'][0]['gamma'] if species1_term else 0.0)
        for s in d['species']:
            gt, nt = broad_table(s, folder); Jpp = np.array([fnint(x) for x in Jlow])
            gam += s['ratio'] * gt[Jpp] * (s['t0'] / T) ** nt[Jpp] * d['pressure'] / s['p0']
    else:
        gam = np.full(len(nu), d['hwhm'] if d['hwhm'] else 0.01)
    cut = d['cutoff']
    for k in range(len(nu)):
        x0, Sk = nu[k], S[k]
        if prof in ('doppler', 'gaussian'):        # bin-averaged
            a = dpw * x0 if prof == 'doppler' else gam[k]
            cu = cut * a if d['hwhmunits'] else cut
            ib = max(fnint((x0 - cu - d['l']) / dnu) + 1, 1); ie = min(fnint((x0 + cu - d['l']) / dnu) + 1, N)
            if ie < ib: continue
            dd = fr[ib - 1:ie] - x0; xx = np.sqrt(ln2) / a
            out[ib - 1:ie] += Sk * 0.5 / dnu * (erf(xx * dd + xx * dnu * 0.5) - erf(xx * dd - xx * dnu * 0.5))
        elif prof in ('doppler sampling', 'gaussian sampling'):
            a = dpw * x0 if prof == 'doppler sampling' else d['hwhm']
            cu = cut * a if d['hwhmunits'] else cut
            ib = max(fnint((x0 - cu - fr[0]) / dnu2) + 1, 1); ie = min(fnint((x0 + cu - fr[0]) / dnu2) + 1, N)
            if ie < ib: continue
            dd = fr[ib - 1:ie] - x0
            out[ib - 1:ie] += Sk * np.sqrt(ln2 / np.pi) / a * np.exp(-ln2 / a ** 2 * dd ** 2)
        elif prof in ('lorentzian', 'lorentz0'):
            gk = gam[k]; cu = cut * gk if d['hwhmunits'] else cut
            ib = max(fnint((x0 - cu - d['l']) / dnu) + 1, 1)
            ie = min(fnint((x0 + cut - d['l']) / dnu) + 1, N)     # right edge ignores 'HWHM' units
            if ie < ib: continue
            dd = fr[ib - 1:ie] - x0
            if prof == 'lorentzian':
                out[ib - 1:ie] += gk / np.pi * Sk / (dd ** 2 + gk ** 2)
            else:
                b = 1 / (np.arctan((fr[ie - 1] - x0) / gk) - np.arctan((fr[ib - 1] - x0) / gk))
                out[ib - 1:ie] += Sk * (np.arctan((dd + dnu / 2) / gk) - np.arctan((dd - dnu / 2) / gk)) / dnu * b
        elif prof == 'voigt':
            gk = gam[k]; a = dpw * x0; cu = cut * gk if d['hwhmunits'] else cut
            ib = max(fnint((x0 - cu - fr[0]) / dnu2) + 1, 1); ie = min(fnint((x0 + cu - fr[0]) / dnu2) + 1, N)
            if ie <= ib: continue
            sig = a / 1.1774100225154747
            for ip in range(ib - 1, ie):
                x = (x0 - fr[ip]) / sig / 1.4142135623730951; y = gk / sig / 1.4142135623730951
                h = wofz(x + 1j * y).real if exact_voigt else humlicek(x, y)
                out[ip] += Sk * h / sig / 2.5066282746310002
    return fr, out, Q

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('inp'); ap.add_argument('--data', default='.')
    ap.add_argument('--exact-voigt', action='store_true'); ap.add_argument('--no-species1-term', action='store_true')
    a = ap.parse_args()
    base = a.inp[:-4] + '.xsec'
    ref = np.loadtxt(lzma.open(base + '.xz', 'rt') if os.path.exists(base + '.xz') else base)
    fr, out, Q = compute(a.inp, a.data, a.exact_voigt, not a.no_species1_term)
    big = np.abs(ref[:, 1]) > 1e-6 * np.abs(ref[:, 1]).max()
    rel = np.abs(out - ref[:, 1])[big] / np.abs(ref[:, 1])[big]
    print('%-50s Q=%.10f max|dnu|=%.1e max rel dev (points >1e-6*max) = %.2e'
          % (os.path.basename(base), Q, np.abs(fr - ref[:, 0]).max(), rel.max()))
