#!/bin/sh
# record.sh TSCHED — records conformance/tests/record/prog.py with each
# tinygrad checkout named by TSCHED_TINYGRAD_0_9_1, TSCHED_TINYGRAD_0_10_0,
# TSCHED_TINYGRAD_0_10_2 (or any TSCHED_TINYGRAD_<version> with its dots as
# underscores), through `tsched record`, and checks that every capture
# replays and that `tsched compare` puts them side by side. Without any such
# variable it says so and exits 77 (CTest: skipped).
set -u
tsched=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a Python with numpy (tinygrad needs it): $TSCHED_PYTHON, the system's, or the first on PATH
for py in "${TSCHED_PYTHON:-}" /usr/bin/python3 python3; do
  [ -n "$py" ] && "$py" -c "import numpy" 2>/dev/null && break
done
export TSCHED_PYTHON=$py
found=0
for var in $(env | sed -n 's/^\(TSCHED_TINYGRAD_[0-9_A-Za-z]*\)=.*/\1/p' | sort); do
  eval checkout=\$$var
  version=$(echo "${var#TSCHED_TINYGRAD_}" | tr _ .)
  found=$((found + 1))
  echo "# recording prog.py with $checkout ($var)"
  "$tsched" record --tinygrad "$checkout" --out "$tmp/prog-$version.jsonl.gz" "$here/prog.py" 1 || { echo "not ok - record with $var"; exit 1; }
  "$tsched" replay "$tmp/prog-$version.jsonl.gz" || { echo "not ok - replay of the $version recording"; exit 1; }
  n=$("$tsched" ls -r -n prog "$tmp/prog-$version.jsonl.gz" | grep -c .)
  [ "$n" -gt 0 ] || { echo "not ok - no capture named prog#k in the $version recording"; exit 1; }
  echo "ok - $version: $n captures recorded and replayed"
done
if [ $found = 0 ]; then
  echo "skipped: set TSCHED_TINYGRAD_0_10_2=/path/to/a/tinygrad/checkout (or _0_9_1, _0_10_0, ...) to record a program"
  exit 77
fi
"$tsched" compare --name prog "$tmp"/prog-*.jsonl.gz || { echo "not ok - compare"; exit 1; }
echo "ok - compare"
