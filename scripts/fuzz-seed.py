#!/usr/bin/env python3
"""Seeds fuzz/corpus/<target>/ with real inputs.

Sources: the perft, bench and opening positions in data/, the weights files,
and a short `bushka selfplay --pdn --data` run of each game (made here with the
binary given by --bin, or with the PDN and data files given). Files are named
by content hash, so running it again adds nothing twice.

    scripts/fuzz-seed.py --bin target/release/bushka
    scripts/fuzz-seed.py --pdn a.pdn b.pdn --data a.data b.data
"""
import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
rng = random.Random(1)


def put(target, text):
    data = text.encode() if isinstance(text, str) else text
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def positions(path):
    out = []
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line.split("\t")[0])
    return list(dict.fromkeys(out))


def games(pdn_text):
    return [g for g in re.split(r"\n(?=\[Event )", pdn_text) if "[Round" in g]


def moves_of(game):
    body = " ".join(l for l in game.split("\n") if l and not l.startswith("["))
    return [t for t in body.split()
            if not re.match(r"^\d+\.+$", t) and t not in ("1-0", "0-1", "1/2-1/2", "*")]


def selfplay(binary, game, tmp):
    pdn, data = os.path.join(tmp, game + ".pdn"), os.path.join(tmp, game + ".data")
    subprocess.run([binary, "selfplay", "--game", game, "--engine", "name=a,nodes=300",
                    "--engine", "name=b,nodes=300", "--games", "12", "--concurrency", "1",
                    "--pdn", pdn, "--data", data, "--quiet"], check=True,
                   stdout=subprocess.DEVNULL)
    return pdn, data


def seed_game(game, pdn_path, data_path):
    text_target = "text_" + game
    pos = positions(os.path.join(ROOT, "data", "perft", game + ".txt"))
    pos += positions(os.path.join(ROOT, "data", "bench", game + ".txt"))
    pos += rng.sample(positions(os.path.join(ROOT, "data", "openings", game + ".txt")), 40)
    for p in pos:
        put(text_target, p + "\n")
    pdn_text = open(pdn_path).read()
    gs = games(pdn_text)
    data = [l for l in open(data_path).read().split("\n") if l]
    by_id = {}
    for l in data:
        f = l.split("\t")
        by_id.setdefault(f[0], []).append(f)
    # A position from the data file and the move the PDN played there, plus
    # the moves that follow (mostly illegal in that position) as junk.
    for g in gs:
        rnd = re.search(r'\[Round "(\d+)"\]', g).group(1)
        mv = moves_of(g)
        rows = by_id.get(str(int(rnd) - 1), [])
        for f in rng.sample(rows, min(6, len(rows))):
            ply = int(f[2])
            if ply < len(mv):
                put(text_target, f[1] + "\n" + "\n".join(mv[ply:ply + 3]) + "\n")
    # PDN: single games, pairs, and one whole small file.
    for g in gs:
        put("pdn", g.strip() + "\n\n")
    for a, b in zip(gs[::2], gs[1::2]):
        put("pdn", a.strip() + "\n\n" + b.strip() + "\n\n")
    put("pdn", "\n\n".join(g.strip() for g in gs[:6]) + "\n\n")
    # Training data: runs of consecutive lines.
    for i in range(0, min(len(data), 2000), 97):
        put("data", "\n".join(data[i:i + 12]) + "\n")
        put("tuner_data", "\n".join(data[i:i + 12]) + "\n")
    return gs, data


HUB_SCRIPTS = [
    "hub\ninit\npos start\nlevel nodes=200\ngo think\nping\nquit\n",
    "hub\ninit\nset-param name=game value=bashnya\nlevel depth=2\ngo think\nstop\n",
    'pos pos="W:We1,e2,d3,f3:Bc5,d4,e5,e6,e7,e8,e9,e0"\nlevel nodes=300\ngo think\n',
    "new-game\nlevel nodes=100\ngo think\ngo think\nping\nstop\nquit\n",
    "set-param name=threads value=2\nset-param name=hash value=2\nlevel nodes=500\ngo think\n",
    "set-param name=weights value=material\nlevel depth=2\ngo think\n",
    "set-param name=weights value=/nonexistent\nbogus\nlevel speed=3\nlevel depth=x\ngo\n",
    'pos pos="W:We1:Be0" moves="e12"\npos pos="bad"\npos moves="zz"\n',
    "level time=1 inc=0.1\ngo think\nstop\n",
    "level move-time=0.01\ngo think\nquit\ngo think\n",
    "level\ngo think\nping\nstop\n",
    'x v="a\\"b"\n=x\npos pos="unterminated\n',
]


def seed_hub(bushka_games, bashnya_games):
    for s in HUB_SCRIPTS:
        put("hub", s)
    for game, gs in (("bushka", bushka_games), ("bashnya", bashnya_games)):
        for g in gs[:10]:
            fen = re.search(r'\[FEN "([^"]*)"\]', g)
            mv = moves_of(g)[: rng.randrange(1, 12)]
            lines = [f"set-param name=game value={game}"]
            lines.append("pos " + (f'pos="{fen.group(1)}" ' if fen else "") + f'moves="{" ".join(mv)}"')
            lines += ["level nodes=200", "go think", "ping"]
            put("hub", "\n".join(lines) + "\n")


def seed_weights():
    for game in ("bushka", "bashnya"):
        text = open(os.path.join(ROOT, "data", "weights", game + ".json")).read()
        put("weights", text)
        w = json.loads(text)
        names = list(w["weights"])
        # Valid variants, then one broken field each.
        for i in range(4):
            v = json.loads(text)
            for n in rng.sample(names, 3):
                v["weights"][n] = {"mg": rng.randint(-3000, 3000), "eg": rng.randint(-3000, 3000)}
            put("weights", json.dumps(v, indent=1))
        v = json.loads(text); v["format"] = 99; put("weights", json.dumps(v))
        v = json.loads(text); del v["weights"][names[0]]; put("weights", json.dumps(v))
        v = json.loads(text); v["weights"][names[1]]["mg"] = 1e12; put("weights", json.dumps(v))
        v = json.loads(text); v["weights"][names[2]] = 5; put("weights", json.dumps(v))
        v = json.loads(text); v["extra"] = 1; put("weights", json.dumps(v))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", help="a built bushka binary, to make the PDN and data files")
    ap.add_argument("--pdn", nargs=2, metavar=("BUSHKA", "BASHNYA"))
    ap.add_argument("--data", nargs=2, metavar=("BUSHKA", "BASHNYA"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if a.pdn and a.data:
            files = {"bushka": (a.pdn[0], a.data[0]), "bashnya": (a.pdn[1], a.data[1])}
        elif a.bin:
            files = {g: selfplay(a.bin, g, tmp) for g in ("bushka", "bashnya")}
        else:
            ap.error("give --bin, or --pdn and --data")
        gs = {g: seed_game(g, *files[g]) for g in ("bushka", "bashnya")}
    seed_hub(gs["bushka"][0], gs["bashnya"][0])
    seed_weights()
    for t in sorted(os.listdir(CORPUS)):
        print(t, len(os.listdir(os.path.join(CORPUS, t))))


if __name__ == "__main__":
    main()
