#!/usr/bin/env bash
# Runs every fuzz target (fuzz/, cargo-fuzz layout) for a fixed budget and
# prints executions, coverage and speed per target.
#
#   scripts/fuzz.sh                  # every target, 60 s each
#   FUZZ_TIME=600 scripts/fuzz.sh hub pdn
#   MERGE=1 scripts/fuzz.sh          # also merge new coverage into fuzz/corpus
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). On a stable toolchain the
# script sets RUSTC_BOOTSTRAP=1, which lets cargo-fuzz pass its nightly flags
# (-Zsanitizer=address). New inputs go to fuzz/corpus-new/<target> (ignored
# by git); the committed corpus fuzz/corpus/<target> is only read unless
# MERGE=1. A crash leaves its input in fuzz/artifacts/<target>/ and makes the
# script exit non-zero (only a crash of this run counts; older artifacts are
# listed apart); turn it into a test in engine/tests/engine/regressions.rs.
set -u
cd "$(dirname "$0")/../fuzz" || exit 1

TIME=${FUZZ_TIME:-60}
SANITIZER=${SANITIZER:-address}
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
    TARGETS=(text_bushka text_bashnya pdn pdn_resume merge_summary hub weights weights_file pattern_weights data tuner_data web_api shard research tune_checkpoint specs tb_file)
fi
export RUSTC_BOOTSTRAP=${RUSTC_BOOTSTRAP:-1}
export CARGO_TARGET_DIR=${FUZZ_TARGET_DIR:-$PWD/target}

nice cargo fuzz build -O -s "$SANITIZER" || exit 1

status=0
summary=""
for t in "${TARGETS[@]}"; do
    mkdir -p "corpus/$t" "corpus-new/$t" "artifacts/$t" || exit 1
    log="corpus-new/$t.log"
    stamp="corpus-new/$t.start"
    : >"$stamp"
    old=$(find "artifacts/$t" -type f | wc -l)
    nice cargo fuzz run -O -s "$SANITIZER" "$t" "corpus-new/$t" "corpus/$t" -- \
        -max_total_time="$TIME" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
    crashes=$(find "artifacts/$t" -type f -newer "$stamp" | wc -l)
    [ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ] || status=1
    if [ "${MERGE:-0}" = 1 ]; then
        if ! nice cargo fuzz run -O -s "$SANITIZER" "$t" "corpus/$t" "corpus-new/$t" -- \
            -merge=1 >"corpus-new/$t.merge.log" 2>&1; then
            echo "$t: merging into corpus/$t failed; see fuzz/corpus-new/$t.merge.log" >&2
            status=1
        fi
    fi
    line=$(printf '%-13s %6ss %10s execs %7s exec/s  cov %5s  ft %6s  corpus %5s  exit %s  crashes %s (older %s)' \
        "$t" "$TIME" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$rc" "$crashes" "$old")
    echo "$line"
    summary="$summary$line"$'\n'
done
echo
echo "fuzz summary ($TIME s per target, sanitizer $SANITIZER):"
printf '%s' "$summary"
exit $status
