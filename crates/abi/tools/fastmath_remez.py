#!/usr/bin/env python3
"""Derives the polynomial coefficients of `src/fastmath.rs` (Remez exchange).

Each table approximates g(z) on [a, b] by a polynomial p of degree n,
minimising max |w(z) * (p(z) - g(z))| (w chosen so that the error of the
final function is relative). g is evaluated by its Taylor series in f64,
which is exact to ~1e-16 on these small intervals. Run:
`python3 crates/abi/tools/fastmath_remez.py`; it prints the tables
as Rust constants (f32, rounded to nearest) and the weighted error of each.
"""
import math
import struct


def series(coeffs):
    return lambda z: sum(c * z ** k for k, c in enumerate(coeffs))


def fact(n):
    return math.factorial(n)


# sin r = r + r^3 P(r^2):  P(z) = sum_k (-1)^k z^(k-1) / (2k+1)!, k >= 1
SIN = series([(-1) ** k / fact(2 * k + 1) for k in range(1, 12)])
# cos r = 1 - r^2/2 + r^4 Q(r^2):  Q(z) = sum_k (-1)^k z^(k-2) / (2k)!, k >= 2
COS = series([(-1) ** k / fact(2 * k) for k in range(2, 12)])
# exp r = 1 + r + r^2 E(r):  E(r) = sum_k r^(k-2) / k!, k >= 2
EXP = series([1 / fact(k) for k in range(2, 20)])
# log m = 2 atanh s = 2s + s^3 L(s^2):  L(z) = sum_k 2 z^(k-1) / (2k+1), k >= 1
LOG = series([2 / (2 * k + 1) for k in range(1, 30)])


def solve(a, b):
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def remez(g, w, a, b, n, iters=30, grid=4000):
    pts = [(a + b) / 2 - (b - a) / 2 * math.cos(math.pi * i / (n + 1)) for i in range(n + 2)]
    xs = [a + (b - a) * i / grid for i in range(grid + 1)]
    for _ in range(iters):
        rows = [[z ** k for k in range(n + 1)] + [(-1) ** i / w(z)] for i, z in enumerate(pts)]
        sol = solve(rows, [g(z) for z in pts])
        c = sol[:-1]
        err = lambda z: w(z) * (sum(ck * z ** k for k, ck in enumerate(c)) - g(z))
        # New reference: the extremum of each run of equal sign.
        es = [err(z) for z in xs]
        runs, cur = [], [0]
        for i in range(1, len(xs)):
            if (es[i] >= 0) == (es[cur[0]] >= 0):
                cur.append(i)
            else:
                runs.append(cur)
                cur = [i]
        runs.append(cur)
        ext = [max(r, key=lambda i: abs(es[i])) for r in runs]
        while len(ext) > n + 2:
            # Drop the smaller end.
            if abs(es[ext[0]]) < abs(es[ext[-1]]):
                ext.pop(0)
            else:
                ext.pop()
        if len(ext) < n + 2:
            break
        pts = [xs[i] for i in ext]
    return c, max(abs(err(z)) for z in xs)


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def table(name, g, w, a, b, n):
    c, e = remez(g, w, a, b, n)
    c32 = [f32(v) for v in c]
    xs = [a + (b - a) * i / 4000 for i in range(4001)]
    e32 = max(abs(w(z) * (sum(ck * z ** k for k, ck in enumerate(c32)) - g(z))) for z in xs)
    body = ", ".join(repr(v) for v in c32)
    print(f"// weighted max error: {e:.3e} (f64 coefficients), {e32:.3e} (f32)")
    print(f"pub const {name}: [f32; {n + 1}] = [{body}];")


def main():
    q = (math.pi / 4) ** 2
    # sin: error r^3 dP relative to sin r ~ r: weight z.
    table("SIN", SIN, lambda z: z, q * 1e-3, q, 2)
    # cos: error r^4 dQ, cos >= 0.7: weight z^2.
    table("COS", COS, lambda z: z * z, q * 1e-3, q, 2)
    h = math.log(2) / 2
    # exp: error r^2 dE relative to exp r >= 0.7: weight r^2.
    table("EXP", EXP, lambda r: r * r, -h, h, 4)
    s = (math.sqrt(2) - 1) / (math.sqrt(2) + 1)
    # log m (m in [sqrt(1/2), sqrt(2))): error s^3 dL relative to 2s: weight z.
    table("LOG", LOG, lambda z: z, s * s * 1e-3, s * s, 2)


main()
