#!/bin/sh
# Record the rewrite steps (record.py --trace) of the main corpus, one companion file per corpus file:
#   conformance/oracle/record_traces.sh VERSION CHECKOUT [SUITE ...]
# writes conformance/traces/corpus/v<VERSION>-<SUITE>.trace.jsonl.gz (default suites: workloads test_schedule
# symbolic big) and checks that the captures recorded alongside equal conformance/corpus/v<VERSION>-<SUITE>.jsonl.gz
# apart from oracle_seconds: the names of any that differ are printed (the trace then describes the re-recorded
# call, not the committed one).
set -eu
if [ $# -lt 2 ]; then echo "usage: $0 VERSION CHECKOUT [SUITE ...]" >&2; exit 2; fi
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ver=$1; tg=$2; shift 2
PY=${PYTHON:-/usr/bin/python3}
OUT="$ROOT/conformance/traces/corpus"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export PYTHONHASHSEED=0
for suite in ${*:-workloads test_schedule symbolic big}; do
  dedupe=""; if [ "$suite" = symbolic ]; then dedupe="--dedupe"; fi
  echo "== $ver $suite" >&2
  # shellcheck disable=SC2086
  timeout 3600 "$PY" "$HERE/record.py" --tinygrad "$tg" --suite "$suite" $dedupe --out "$TMP/c.jsonl.gz" \
    --trace "$OUT/v$ver-$suite.trace.jsonl.gz" >"$TMP/log" 2>&1 || { tail -20 "$TMP/log" >&2; exit 1; }
  tail -1 "$TMP/log" >&2
  "$PY" "$HERE/rewrite_trace.py" --same "$ROOT/conformance/corpus/v$ver-$suite.jsonl.gz" "$TMP/c.jsonl.gz" >&2
done
