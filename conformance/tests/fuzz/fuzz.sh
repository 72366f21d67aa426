#!/bin/sh
# fuzz.sh TSCHED SEED N [CORPUS_FILE...] — bad-input fuzzing: N mutated
# captures per corpus file (mutate.py, seeded), replayed by TSCHED; the
# --expected variant mutates what the comparator reads, --bytes the text. Passes when every
# replay ends with status 0 or 1 (pass / some capture did not pass): a
# crash, a sanitizer report (exit 99 below) or a timeout fails it. Run from
# the repository root; CTest runs it on the bundled corpus (tests.cmake),
# longer campaigns take more seeds: `for s in $(seq 100); do ...; done`.
set -u
tsched=$1; seed=$2; n=$3; shift 3
[ $# -gt 0 ] || set -- conformance/corpus/*.jsonl.gz
here=$(dirname "$0")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:exitcode=99:detect_leaks=1:hard_rss_limit_mb=4096" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}:exitcode=99:print_stacktrace=1"
# a capture that makes tsched take all memory must not take the machine's: ASan's
# hard_rss_limit_mb above, else a cap on the address space (ASan needs a huge one)
if ! nm "$tsched" 2>/dev/null | grep -q __asan_init; then ulimit -v 8388608; fi
status=0
for f in "$@"; do
  for mode in "" --expected --bytes; do
    python3 "$here/mutate.py" "$seed" "$f" "$tmp/m.jsonl" "$n" $mode || { echo "fuzz: mutate.py failed on $f"; exit 1; }
    timeout 300 "$tsched" replay --allow-empty "$tmp/m.jsonl" > "$tmp/out.txt" 2>&1   # a version without scheduler checks nothing
    rc=$?
    if [ $rc -gt 1 ]; then
      echo "fuzz: $f seed $seed $mode: exit status $rc"; grep -m5 -A12 "runtime error\|Sanitizer\|ERROR" "$tmp/out.txt"
      cp "$tmp/m.jsonl" "fuzz-failure-$seed-$(basename "$f" .jsonl.gz)${mode#--}.jsonl" && echo "fuzz: kept the captures as fuzz-failure-*.jsonl"
      status=1
    fi
  done
done
[ $status = 0 ] && echo "fuzz: seed $seed, $n captures per file and mode: no crash"
exit $status
