#!/bin/sh
# edges.sh TSCHED [SANITIZED] — the command line at the edges of its input, as
# behaviour: folders with symbolic links, loops, FIFOs and unreadable
# folders; truncated gzip; binary garbage; empty recordings; options
# anywhere. Each check prints "ok - what" or "not ok - what"; the exit
# status is the number of failed checks. Made in a fresh temporary folder.
set -u
tsched=$1
sanitized=${2:-0}   # 1 in the ASan build: no memory measures there
root=$(cd "$(dirname "$0")/../../.." && pwd)
sample=$root/conformance/tests/tools/v0.9.1-sample.jsonl.gz
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
failed=0
check() { # check WHAT COMMAND... : the command must succeed
  what=$1; shift
  if "$@" >/dev/null 2>&1; then echo "ok - $what"; else echo "not ok - $what"; failed=$((failed + 1)); fi
}
# run EXPECTED_STATUS ARGS...: tsched's output in $tmp/out, within 60 s (a hang is a failure)
run() {
  want=$1; shift
  timeout 60 "$tsched" "$@" >"$tmp/out" 2>&1
  got=$?
  [ "$got" = "$want" ] || { echo "# tsched $*: exit $got, expected $want"; sed 's/^/#   /' "$tmp/out" | head -20; return 1; }
}
passes() { grep -Eq "^0\.9\.1 +$1 pass" "$tmp/out"; }

# -- folders
mkdir -p "$tmp/d/sub"
cp "$sample" "$tmp/d/sub/a.jsonl.gz"
n=$(zcat "$sample" | grep -c .)
run 0 replay "$tmp/d" && passes "$n"; check "a folder is walked" test $? = 0
ln -s . "$tmp/d/sub/self"; ln -s .. "$tmp/d/sub/up"; ln -s "$tmp/d" "$tmp/d/sub/back"
run 0 replay "$tmp/d" && passes "$n"; check "symbolic links in folders are not followed" test $? = 0
run 0 replay --follow "$tmp/d" && passes "$n" && grep -q "already walked" "$tmp/out"; check "--follow: loops detected, each capture once" test $? = 0
ln -s "$sample" "$tmp/d/link.jsonl.gz"
run 0 replay -L "$tmp/d" && passes $((2 * n)); check "--follow: a linked file is read" test $? = 0
rm "$tmp/d/link.jsonl.gz"
run 0 replay "$tmp/d/sub/self/a.jsonl.gz" && passes "$n"; check "a link named on the command line is followed" test $? = 0
mkfifo "$tmp/d/fifo.jsonl"
run 0 replay "$tmp/d" && passes "$n"; check "a FIFO in a folder is skipped, no hang" test $? = 0
rm "$tmp/d/fifo.jsonl"
if [ "$(id -u)" != 0 ]; then
  mkdir "$tmp/d/locked"; chmod 000 "$tmp/d/locked"
  run 1 replay "$tmp/d" && grep -q "locked: cannot read folder" "$tmp/out"; check "an unreadable folder is an error" test $? = 0
  chmod 755 "$tmp/d/locked"
else
  echo "ok - an unreadable folder is an error # SKIP running as root, who reads every folder"
fi

# -- empty recordings: nothing checked is not success
mkdir "$tmp/empty"; : > "$tmp/empty.jsonl"
run 3 replay "$tmp/empty"; check "an empty folder: exit 3" test $? = 0
run 3 replay "$tmp/empty.jsonl"; check "an empty file: exit 3" test $? = 0
run 0 replay --allow-empty "$tmp/empty"; check "--allow-empty: exit 0" test $? = 0
zcat "$sample" | sed 's/"generation": *"0.9.1"/"generation": "0.8.0"/' > "$tmp/unknown.jsonl"
run 3 replay "$tmp/unknown.jsonl" && grep -q "^$n captures of versions tsched does not know: unsupported" "$tmp/out"
check "a version tsched does not know: unsupported, nothing checked" test $? = 0

# -- files
size=$(wc -c < "$sample")
for cut in 1 4 8 9 20; do
  head -c $((size - cut)) "$sample" > "$tmp/cut.jsonl.gz"
  run 1 replay "$tmp/cut.jsonl.gz" && grep -q "truncated" "$tmp/out"; check "gzip cut by $cut bytes: truncated" test $? = 0
done
head -c 300000 "$tsched" > "$tmp/garbage.jsonl"
run 1 replay "$tmp/garbage.jsonl"; s=$?
lines=$(grep -c '^ERROR' "$tmp/out")
[ $s = 0 ] && [ "$lines" -le 6 ] && grep -q "the rest of the file is not read" "$tmp/out"; check "binary garbage: a few lines, then one error ($lines)" test $? = 0

# -- options anywhere, -- ends them
run 0 ls -r "$sample" --json -n 'workloads.casts#1' && grep -q '"name": "workloads.casts#1"' "$tmp/out"; check "options after the operands" test $? = 0
run 1 ls -r -- -n "$sample" && grep -q -- "-n: no such file" "$tmp/out"; check "-- ends the options" test $? = 0
run 0 ls --recorded --name=workloads.casts -j "$sample"; check "--opt=value" test $? = 0
run 0 ls -rjn 'workloads.casts#1' "$sample"; check "short options cluster, the last takes a value" test $? = 0
run 1 compare "$tmp/nosuch" && grep -q "nosuch: no such file or folder" "$tmp/out" && [ "$(grep -c . "$tmp/out")" = 1 ]
check "compare: a missing path is one error, no empty table" test $? = 0
# -- dot -TFORMAT reaches Graphviz as one argument (a stand-in `dot` on PATH says what it got)
mkdir "$tmp/bin"
printf '#!/bin/sh\necho "dot got $*"\ncat > /dev/null\n' > "$tmp/bin/dot"; chmod +x "$tmp/bin/dot"
PATH="$tmp/bin:$PATH" run 0 dot -r -n 'workloads.casts#1' -Tpng "$root/conformance/tests/tools/v0.10.2-sample.jsonl.gz" &&
  grep -qx "dot got -Tpng" "$tmp/out"; check "-Tpng is passed to Graphviz" test $? = 0
# -- big inputs: a 20,000-deep AST (its repr grows with the square of the depth),
# a 50 MB line of integers in a field tsched does not read
python3 - "$root/conformance/tests/tools/v0.10.2-sample.jsonl.gz" "$tmp" <<'PY'
import gzip, json, sys
line = gzip.open(sys.argv[1], "rt").readline()
c = json.loads(line)
depth = 20000
c["name"] = "deep.ast#0"
c["expected"]["schedule"][0]["ast"] = {"nodes": [["Ops.CONST", "dtypes.float", 1.0, []]] +
                                       [["Ops.NEG", "dtypes.float", None, [i]] for i in range(depth)], "roots": [depth]}
open(sys.argv[2] + "/deep.jsonl", "w").write(json.dumps(c) + "\n")
c = json.loads(line)
c["name"] = "wide.unknown#0"
with open(sys.argv[2] + "/wide.jsonl", "w") as f:
  f.write(json.dumps(c)[:-1] + ', "future_field": [' + ",".join(str(i % 100000) for i in range(8000000)) + "]}\n")
PY
peak_kib() { # peak_kib COMMAND...: the command's peak RSS in KiB ("" without GNU time)
  [ -x /usr/bin/time ] || return 0
  /usr/bin/time -f "%M" -o "$tmp/rss" "$@" > /dev/null 2>&1
  tail -n 1 "$tmp/rss"
}
run 1 ast -r --limit 16 "$tmp/deep.jsonl" && grep -q "longer than --limit 16 MiB: cut short" "$tmp/out"
check "a deep AST: cut short at --limit, an error" test $? = 0
run 0 replay "$tmp/wide.jsonl" && grep -Eq "^0\.10\.2 +1 pass" "$tmp/out"; check "a long unknown field: skipped" test $? = 0
if [ "$sanitized" = 0 ] && [ -x /usr/bin/time ]; then
  kib=$(peak_kib "$tsched" ast -r --limit 64 "$tmp/deep.jsonl")
  [ "$kib" -lt 200000 ]; check "a deep AST printed in bounded memory (${kib} KiB)" test $? = 0
  bytes=$(wc -c < "$tmp/wide.jsonl")
  kib=$(peak_kib "$tsched" replay "$tmp/wide.jsonl")
  [ $((kib * 1024)) -lt $((bytes * 2)) ]; check "a long unknown field costs less than 2x its line (${kib} KiB for $bytes bytes)" test $? = 0
else
  echo "ok - memory of big inputs # SKIP sanitized build or no GNU time"
fi
# -- captures written with spaces (json.dumps' default separators), not as the recorder writes
# them: the schedulers' readers of the input's text give way to its tree, with the same verdicts
python3 - "$root/conformance/tests/tools" "$tmp/spaced.jsonl" <<'PY'
import glob, gzip, json, sys
with open(sys.argv[2], "w") as out:
  for path in sorted(glob.glob(sys.argv[1] + "/v*-sample.jsonl.gz")):
    for line in gzip.open(path, "rt"):
      if line.strip(): out.write(json.dumps(json.loads(line)) + "\n")
PY
cat "$root"/conformance/tests/tools/v*-sample.jsonl.gz > "$tmp/compact.jsonl.gz"
"$tsched" replay --jobs 1 "$tmp/compact.jsonl.gz" 2>&1 | sed -E 's/ +[0-9]+\.[0-9]+ s$//' > "$tmp/compact.out"
"$tsched" replay --jobs 1 "$tmp/spaced.jsonl" 2>&1 | sed -E 's/ +[0-9]+\.[0-9]+ s$//; s/spaced\.jsonl/compact.jsonl.gz/' > "$tmp/spaced.out"
cmp -s "$tmp/compact.out" "$tmp/spaced.out" && grep -Eq "^0\.10\.2 +[1-9][0-9]* pass" "$tmp/compact.out"
check "captures with spaces: the verdicts of the compact ones" test $? = 0

# -- --jobs N: worker processes print and count what one process does, in the same order
same_jobs() { # same_jobs WHAT ARGS...: replay ARGS alone and with 3 workers, outputs alike but for the seconds
  what=$1; shift
  timeout 60 "$tsched" replay --jobs 1 "$@" > "$tmp/one" 2>&1; a=$?
  timeout 60 "$tsched" replay --jobs 3 "$@" > "$tmp/three" 2>&1; b=$?
  sed -E 's/ +[0-9]+\.[0-9]+ s$//; s/"seconds": [0-9.]+/"seconds": S/' "$tmp/one" > "$tmp/one.s"
  sed -E 's/ +[0-9]+\.[0-9]+ s$//; s/"seconds": [0-9.]+/"seconds": S/' "$tmp/three" > "$tmp/three.s"
  [ "$a" = "$b" ] && cmp -s "$tmp/one.s" "$tmp/three.s"; s=$?
  [ $s = 0 ] || { echo "# exit $a and $b"; diff "$tmp/one.s" "$tmp/three.s" | head -10 | sed 's/^/#   /'; }
  check "--jobs 3: $what" test $s = 0
}
bad=$root/conformance/tests/bad-input
{ zcat "$sample" | head -n 3; head -c 20000 "$tsched" | tr '\n' ' ' | fold -w 500; echo; zcat "$sample" | head -n 2; } > "$tmp/mixed.jsonl"
{ zcat "$sample" | head -n 2; printf 'not json\n\n  \n[1,\n{"a": 1}\n'; zcat "$sample" | tail -n 2; } > "$tmp/few-bad.jsonl"
same_jobs "failures, bad lines and a missing file" "$bad/one-failing.txt" "$bad/broken-captures.txt" "$bad/buffer-sizes.txt" "$tmp/nosuch.jsonl"
same_jobs "lines not JSON: the file given up at the same line" "$tmp/mixed.jsonl" "$tmp/few-bad.jsonl" "$tmp/garbage.jsonl"
same_jobs "--json --verbose, a vectors file skipped, an empty file" --json --verbose "$bad/one-failing.txt" \
  "$root/conformance/vectors/st-v0.9.1.jsonl.gz" "$tmp/empty.jsonl" "$root/conformance/tests/tools"
same_jobs "--trace" --trace "$root/conformance/tests/tools"
# a pipe is read by one process: the main one, in its turn among the files
zcat "$sample" > "$tmp/sample.jsonl"
for j in 1 3; do
  cat "$tmp/sample.jsonl" | timeout 60 "$tsched" replay --jobs $j "$root/conformance/tests/tools/v0.10.2-sample.jsonl.gz" \
    /dev/stdin "$tmp/sample.jsonl" 2>&1 | sed -E 's/ +[0-9]+\.[0-9]+ s$//' > "$tmp/pipe$j"
done
cmp -s "$tmp/pipe1" "$tmp/pipe3" && grep -Eq "^0\.9\.1 +$((2 * n)) pass" "$tmp/pipe3"; check "--jobs 3: a pipe named among files is read whole, once" test $? = 0
exit $failed
