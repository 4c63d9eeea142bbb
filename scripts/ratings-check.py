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
Standard library only.
"""
import math

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


def tables():
    pts = [[0.0] * N for _ in range(N)]
    games = [[0.0] * N for _ in range(N)]
    for a, b, w, d, l in TABLE:
        pts[a][b] += w + d / 2
        pts[b][a] += l + d / 2
        games[a][b] += w + d + l
        games[b][a] += w + d + l
    return pts, games


def mm():
    pts, games = tables()
    gamma = [1.0] * N
    for _ in range(100000):
        new = []
        for i in range(N):
            w = sum(pts[i])
            den = sum(games[i][j] / (gamma[i] + gamma[j]) for j in range(N) if j != i)
            new.append(w / den)
        s = new[0]
        new = [g / s for g in new]
        if max(abs(x - y) for x, y in zip(new, gamma)) < 1e-15:
            gamma = new
            break
        gamma = new
    return [400 * math.log10(g) for g in gamma]


def loglik(r):
    pts, games = tables()
    total = 0.0
    for i in range(N):
        for j in range(i + 1, N):
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


def main():
    r = mm()
    free = list(range(1, N))
    h = 1e-2
    info = [[0.0] * len(free) for _ in free]
    for x, i in enumerate(free):
        for y, j in enumerate(free):
            def f(di, dj):
                q = r[:]
                q[i] += di
                q[j] += dj
                return loglik(q)
            d2 = (f(h, h) - f(h, -h) - f(-h, h) + f(-h, -h)) / (4 * h * h)
            info[x][y] = -d2
    hinv = inverse(info)
    k = len(free)
    j = [[0.0] * k for _ in range(k)]
    for a, b, w, d, l in TABLE:
        for s, count in ((1.0, w), (0.5, d), (0.0, l)):
            g = game_gradient(r, a, b, s, free, h)
            for x in range(k):
                for y in range(k):
                    j[x][y] += count * g[x] * g[y]
    cov = [[sum(hinv[x][u] * j[u][v] * hinv[v][y] for u in range(k) for v in range(k))
            for y in range(k)] for x in range(k)]
    z = 1.959963984540054
    print("elo", [round(v, 4) for v in r])
    print("95% half-width", [0.0] + [round(z * math.sqrt(cov[x][x]), 3) for x in range(k)])
    print("95% half-width of the Hessian alone", [0.0] + [round(z * math.sqrt(hinv[x][x]), 3) for x in range(k)])


main()
