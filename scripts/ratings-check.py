#!/usr/bin/env python3
"""Independent check of selfplay::ratings (joint Elo ratings).

Fits the Bradley-Terry model with a draw as half a win by the MM algorithm
of Hunter (2004) instead of Newton's method, and gets the standard errors
from the sandwich H^-1 J H^-1: H a finite-difference Hessian of the
log-likelihood, J the sum over the games of the outer products of each game's
finite-difference log-likelihood gradient (instead of the analytic forms).
Prints the ratings (anchor: engine 0 at 0 Elo) and the 95% half-widths of
the table used in selfplay/tests/selfplay/ratings.rs, and for comparison the
half-widths of the Hessian alone.

With --spread, checks the intervals themselves: on a three-engine table with
the draw rate of the 8.5+0.1 self-play run (docs/clocks-and-ratings.md), it
prints both half-widths and 1.96 standard deviations of the ratings refitted
on DRAWS tables drawn from the table's frequencies (--draws 1000, --seed 1).
Standard library only.
"""
import math
import random
import sys

# (a, b, a's wins, draws, a's losses). Engines 0, 1, 2 form a cycle:
# 0 beats 1, 1 beats 2, 2 beats 0; engine 3 is weaker than all.
TABLE = [
    (0, 1, 7, 2, 3),
    (1, 2, 6, 4, 2),
    (2, 0, 5, 5, 2),
    (0, 3, 8, 3, 1),
    (1, 3, 6, 4, 2),
    (2, 3, 5, 2, 5),
]
N = 4

# Three engines at 1,000 games a pairing, 57.5% draws as in the 8.5+0.1 run.
SPREAD_TABLE = [
    (0, 1, 225, 575, 200),
    (1, 2, 225, 575, 200),
    (0, 2, 240, 570, 190),
]


def tables(table=None, n=None):
    table = TABLE if table is None else table
    n = N if n is None else n
    pts = [[0.0] * n for _ in range(n)]
    games = [[0.0] * n for _ in range(n)]
    for a, b, w, d, l in table:
        pts[a][b] += w + d / 2
        pts[b][a] += l + d / 2
        games[a][b] += w + d + l
        games[b][a] += w + d + l
    return pts, games


def mm(table=None, n=None):
    n = N if n is None else n
    pts, games = tables(table, n)
    gamma = [1.0] * n
    for _ in range(100000):
        new = []
        for i in range(n):
            w = sum(pts[i])
            den = sum(games[i][j] / (gamma[i] + gamma[j]) for j in range(n) if j != i)
            new.append(w / den)
        s = new[0]
        new = [g / s for g in new]
        if max(abs(x - y) for x, y in zip(new, gamma)) < 1e-15:
            gamma = new
            break
        gamma = new
    return [400 * math.log10(g) for g in gamma]


def loglik(r, table=None, n=None):
    n = N if n is None else n
    pts, games = tables(table, n)
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            if games[i][j] == 0:
                continue
            p = 1 / (1 + 10 ** ((r[j] - r[i]) / 400))
            total += pts[i][j] * math.log(p) + pts[j][i] * math.log(1 - p)
    return total


def game_gradient(r, a, b, s, free, h):
    """The gradient over the free ratings of one game's log-likelihood,
    a against b, a scoring s (1, 1/2 or 0)."""
    def l(q):
        p = 1 / (1 + 10 ** ((q[b] - q[a]) / 400))
        return s * math.log(p) + (1 - s) * math.log(1 - p)
    out = []
    for i in free:
        up, down = r[:], r[:]
        up[i] += h
        down[i] -= h
        out.append((l(up) - l(down)) / (2 * h))
    return out


def inverse(m):
    k = len(m)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(k)] for i, row in enumerate(m)]
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        piv = a[c][c]
        a[c] = [x / piv for x in a[c]]
        for r in range(k):
            if r != c:
                f = a[r][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return [row[k:] for row in a]


def half_widths(table, n):
    """The fit, and the 95% half-widths of the sandwich and of the Hessian
    alone (anchor: engine 0)."""
    r = mm(table, n)
    free = list(range(1, n))
    h = 1e-2
    info = [[0.0] * len(free) for _ in free]
    for x, i in enumerate(free):
        for y, j in enumerate(free):
            def f(di, dj):
                q = r[:]
                q[i] += di
                q[j] += dj
                return loglik(q, table, n)
            d2 = (f(h, h) - f(h, -h) - f(-h, h) + f(-h, -h)) / (4 * h * h)
            info[x][y] = -d2
    hinv = inverse(info)
    k = len(free)
    j = [[0.0] * k for _ in range(k)]
    for a, b, w, d, l in table:
        for s, count in ((1.0, w), (0.5, d), (0.0, l)):
            g = game_gradient(r, a, b, s, free, h)
            for x in range(k):
                for y in range(k):
                    j[x][y] += count * g[x] * g[y]
    cov = [[sum(hinv[x][u] * j[u][v] * hinv[v][y] for u in range(k) for v in range(k))
            for y in range(k)] for x in range(k)]
    sandwich = [0.0] + [Z * math.sqrt(cov[x][x]) for x in range(k)]
    hessian = [0.0] + [Z * math.sqrt(hinv[x][x]) for x in range(k)]
    return r, sandwich, hessian


Z = 1.959963984540054


def spread(draws, seed):
    n = 3
    r, sandwich, hessian = half_widths(SPREAD_TABLE, n)
    rng = random.Random(seed)
    fits = []
    for _ in range(draws):
        table = []
        for a, b, w, d, l in SPREAD_TABLE:
            games = w + d + l
            cw, cd, cl = 0, 0, 0
            for _ in range(games):
                u = rng.random() * games
                if u < w:
                    cw += 1
                elif u < w + d:
                    cd += 1
                else:
                    cl += 1
            table.append((a, b, cw, cd, cl))
        fits.append(mm(table, n))
    sd = []
    for i in range(n):
        xs = [f[i] for f in fits]
        mean = sum(xs) / len(xs)
        sd.append(math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)))
    print("elo", [round(v, 2) for v in r])
    print("95% half-width, sandwich", [round(v, 1) for v in sandwich])
    print("95% half-width, Hessian alone", [round(v, 1) for v in hessian])
    print(f"1.96 x the standard deviation of {draws} refits (seed {seed})",
          [round(Z * v, 1) for v in sd])


def main():
    args = sys.argv[1:]
    if args and args[0] == "--spread":
        opts = dict(zip(args[1::2], args[2::2]))
        spread(int(opts.get("--draws", 1000)), int(opts.get("--seed", 1)))
        return
    r, sandwich, hessian = half_widths(TABLE, N)
    print("elo", [round(v, 4) for v in r])
    print("95% half-width", [round(v, 3) for v in sandwich])
    print("95% half-width of the Hessian alone", [round(v, 3) for v in hessian])


main()
