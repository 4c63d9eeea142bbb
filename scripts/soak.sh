#!/usr/bin/env bash
# Self-play soak of both games through the real command line: many fast games
# (small node limits, one engine with 2 search threads sharing its transposition
# table), then checks that every game replays legally, that no game is lost or
# written twice, that the training data matches the records line for line, that
# nothing panicked, and that memory stayed within the configured hash plus a
# constant. Ends with a summary; exits non-zero when any check fails.
#
#   scripts/soak.sh                       # 10000 games per game
#   GAMES=200 scripts/soak.sh             # a quick run
#   GAMES_LIST="bashnya" scripts/soak.sh  # one game only
#   RESUME=1 scripts/soak.sh              # continue a stopped soak (its files in OUT)
#
# A line a minute tells the games written so far. With RESUME=1 the games
# already in OUT are kept and the run continues them (`selfplay --resume`);
# its memory figure is then that of the last process only.
# Settings (environment): GAMES (per game, default 10000), NODES (300),
# HASH (MB per engine instance, 16), CONCURRENCY (2), OUT (/tmp/soak),
# SLACK_MB (the constant allowed above the hash tables, 96), BIN (a built
# bushka binary; default: cargo build --release).
set -u
cd "$(dirname "$0")/.."

GAMES=${GAMES:-10000}
NODES=${NODES:-300}
HASH=${HASH:-16}
CONCURRENCY=${CONCURRENCY:-2}
OUT=${OUT:-/tmp/soak}
SLACK_MB=${SLACK_MB:-96}
GAMES_LIST=${GAMES_LIST:-"bushka bashnya"}
RESUME=${RESUME:-0}

if [ -z "${BIN:-}" ]; then
    nice cargo build --release --quiet || exit 1
    BIN="${CARGO_TARGET_DIR:-target}/release/bushka"
fi
[ -x "$BIN" ] || { echo "no binary at $BIN"; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (Debian package 'time')"; exit 1; }
mkdir -p "$OUT"

# Each worker keeps one player per (engine, colour): concurrency x 2 engines x
# 2 colours transposition tables of HASH MB each.
TABLES=$((CONCURRENCY * 2 * 2))
BOUND_MB=$((TABLES * HASH + SLACK_MB))
EXPECTED=$(((GAMES + 1) / 2 * 2))
status=0
summary=""

for game in $GAMES_LIST; do
    pdn="$OUT/$game.pdn"
    data="$OUT/$game.data"
    resume=()
    if [ "$RESUME" = 1 ] && [ -s "$pdn" ]; then
        resume=(--resume)
    else
        rm -f "$pdn" "$data"
    fi
    rm -f "$OUT/$game.time" "$OUT/$game.log" "$OUT/$game.err"
    echo "$game: $EXPECTED games${resume:+ (resumed)}"
    (while sleep 60; do
        n=$(grep -c '^\[Round ' "$pdn" 2>/dev/null)
        echo "  $game: ${n:-0}/$EXPECTED games"
    done) &
    ticker=$!
    trap 'kill "$ticker" 2>/dev/null' EXIT
    start=$(date +%s)
    /usr/bin/time -v -o "$OUT/$game.time" nice "$BIN" selfplay --game "$game" \
        --engine "name=a,nodes=$NODES,threads=2,hash=$HASH" \
        --engine "name=b,nodes=$NODES,hash=$HASH" \
        --games "$GAMES" --concurrency "$CONCURRENCY" \
        --pdn "$pdn" --data "$data" --quiet "${resume[@]}" >"$OUT/$game.log" 2>"$OUT/$game.err"
    rc=$?
    kill "$ticker" 2>/dev/null
    wait "$ticker" 2>/dev/null
    trap - EXIT
    secs=$(($(date +%s) - start))
    rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/$game.time")
    rss_mb=$((rss_kb / 1024))
    panics=$(grep -c 'panicked' "$OUT/$game.err")

    check=$("$BIN" pdn check "$pdn" 2>&1 | tail -1)
    illegal=$(echo "$check" | sed -n 's/.* games legal, \([0-9]*\) with errors/\1/p')
    legal=$(echo "$check" | sed -n 's/^\([0-9]*\) games legal.*/\1/p')

    # Rounds: every scheduled game exactly once.
    rounds=$(grep -c '^\[Round ' "$pdn")
    unique=$(grep '^\[Round ' "$pdn" | sort -u | wc -l)
    missing=$(comm -23 <(seq 1 "$EXPECTED" | sort) \
        <(grep '^\[Round ' "$pdn" | sed 's/.*"\(.*\)".*/\1/' | sort -u) | wc -l)

    # Data: one line per position of each game (plies + 1), ids = rounds - 1.
    data_lines=$(wc -l <"$data")
    data_check=$(python3 - "$pdn" "$data" <<'PY'
import re, sys, collections
pdn, data = sys.argv[1], sys.argv[2]
per_id = collections.Counter()
with open(data) as f:
    for line in f:
        per_id[line.split('\t', 1)[0]] += 1
bad = 0
games = 0
for g in re.split(r'\n(?=\[Event )', open(pdn).read()):
    m = re.search(r'\[Round "(\d+)"\]', g)
    if not m:
        continue
    games += 1
    body = ' '.join(l for l in g.split('\n') if l and not l.startswith('['))
    moves = [t for t in body.split()
             if not re.match(r'^\d+\.+$', t) and t not in ('1-0', '0-1', '1/2-1/2', '*')]
    if per_id.pop(str(int(m.group(1)) - 1), 0) != len(moves) + 1:
        bad += 1
print(bad + len(per_id))
PY
)
    ok=yes
    [ "$rc" -eq 0 ] || ok=no
    [ "$panics" -eq 0 ] || ok=no
    [ "${illegal:-x}" = 0 ] || ok=no
    [ "${legal:-x}" = "$EXPECTED" ] || ok=no
    [ "$rounds" -eq "$EXPECTED" ] && [ "$unique" -eq "$EXPECTED" ] && [ "$missing" -eq 0 ] || ok=no
    [ "$data_check" = 0 ] || ok=no
    [ "$rss_mb" -le "$BOUND_MB" ] || ok=no
    [ "$ok" = yes ] || status=1
    line="$game: $EXPECTED games scheduled, exit $rc, ${secs}s; pdn check: ${legal:-?} legal, ${illegal:-?} with errors; rounds $rounds ($unique unique, $missing missing); data $data_lines lines ($data_check games with a wrong line count); panics $panics; max RSS ${rss_mb} MB (bound $TABLES x ${HASH} MB + ${SLACK_MB} MB = ${BOUND_MB} MB); ok=$ok"
    echo "$line"
    summary="$summary$line"$'\n'
done

# Streaming: a PDN of millions of lines (the soak's records repeated) is
# checked game by game; its max RSS must stay far below the file size.
BIG_LINES=${BIG_LINES:-3000000}
first=$(echo $GAMES_LIST | awk '{print $1}')
src="$OUT/$first.pdn"
if [ "$BIG_LINES" -gt 0 ] && [ -s "$src" ]; then
    big="$OUT/big.pdn"
    per=$(wc -l <"$src")
    copies=$(((BIG_LINES + per - 1) / per))
    : >"$big"
    for _ in $(seq 1 "$copies"); do cat "$src" >>"$big"; done
    big_lines=$(wc -l <"$big")
    big_mb=$(($(stat -c %s "$big") / 1048576))
    start=$(date +%s)
    check=$(/usr/bin/time -f 'RSS %M' -o "$OUT/big.time" nice "$BIN" pdn check --game "$first" "$big" 2>&1 | tail -1)
    secs=$(($(date +%s) - start))
    big_rss=$(($(awk '/RSS/ {print $2}' "$OUT/big.time") / 1024))
    ok=yes
    [ "$big_rss" -le 64 ] || ok=no
    case "$check" in *" 0 with errors") ;; *) ok=no ;; esac
    [ "$ok" = yes ] || status=1
    line="streaming: pdn check of $big_lines lines ($big_mb MB): $check in ${secs}s, max RSS ${big_rss} MB (bound 64 MB); ok=$ok"
    echo "$line"
    summary="$summary$line"$'\n'
    rm -f "$big"
fi

echo
echo "soak summary (nodes=$NODES, hash=$HASH MB, concurrency $CONCURRENCY, engine a threads=2):"
printf '%s' "$summary"
exit $status
