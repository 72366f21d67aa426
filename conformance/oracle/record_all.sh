#!/bin/sh
# Regenerate the whole oracle corpus from three tinygrad checkouts:
#   conformance/oracle/record_all.sh TG091 TG0100 TG0102
# (each a checkout of tag v0.9.1 / v0.10.0 / v0.10.2 with tinygrad/ test/ examples/ extra/).
# Needs python3 with numpy and clang (the default CLANG/CPU device compiles kernels).
# Writes conformance/corpus/v<version>-{test_schedule,workloads,big,symbolic}.jsonl.gz and
# conformance/corpus/summary.json, then runs the schema checker.  The symbolic suite is recorded
# with --dedupe: a capture identical to an earlier one apart from its name is not written.
#
# SUITES="symbolic" (any subset of the four, space-separated) records only those suites; their
# counts replace theirs in summary.json and the other files stay as they are.
# TG0101=CHECKOUT (tag v0.10.1) records 0.10.1 too, TG0102_A0B4465=CHECKOUT (commit a0b4465412)
# 0.10.2+a0b4465, TG092 (tag v0.9.2) 0.9.2, TG092_197F8FD (197f8fd986) 0.9.2+197f8fd;
# VERSIONS="0.10.1 ..." records only those versions
# (their counts merged into summary.json).
set -eu
if [ $# -ne 3 ]; then echo "usage: [SUITES=...] $0 TG091 TG0100 TG0102" >&2; exit 2; fi
HERE=$(cd "$(dirname "$0")" && pwd)
CORPUS=$(cd "$HERE/../corpus" && pwd)
PY=${PYTHON:-/usr/bin/python3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export PYTHONHASHSEED=0
for pair in "0.9.1:$1" "0.10.0:$2" "0.10.2:$3" ${TG0101:+"0.10.1:$TG0101"} \
    ${TG0102_A0B4465:+"0.10.2+a0b4465:$TG0102_A0B4465"} \
    ${TG092:+"0.9.2:$TG092"} ${TG092_197F8FD:+"0.9.2+197f8fd:$TG092_197F8FD"}; do
  ver=${pair%%:*}; tg=${pair#*:}
  case " ${VERSIONS:-$ver} " in *" $ver "*) ;; *) continue ;; esac
  for suite in ${SUITES:-test_schedule workloads big symbolic}; do
    echo "== $ver $suite ($tg)" >&2
    dedupe=""; if [ "$suite" = symbolic ]; then dedupe="--dedupe"; fi
    # shellcheck disable=SC2086
    timeout 3600 "$PY" "$HERE/record.py" --tinygrad "$tg" --suite "$suite" $dedupe \
      --out "$CORPUS/v$ver-$suite.jsonl.gz" --summary "$TMP/v$ver-$suite.json" >"$TMP/v$ver-$suite.log" 2>&1 \
      || { tail -20 "$TMP/v$ver-$suite.log" >&2; exit 1; }
    tail -1 "$TMP/v$ver-$suite.log" >&2
  done
done
if [ -n "${SUITES:-}" ] || [ -n "${VERSIONS:-}" ]; then "$PY" "$HERE/summarize.py" --merge "$CORPUS/summary.json" "$TMP"/*.json > "$TMP/summary.new"
else "$PY" "$HERE/summarize.py" "$TMP"/*.json > "$TMP/summary.new"; fi
mv "$TMP/summary.new" "$CORPUS/summary.json"
"$PY" "$HERE/summarize.py" --table "$CORPUS/summary.json"
"$PY" "$HERE/check_schema.py"
