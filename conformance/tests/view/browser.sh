#!/bin/sh
# browser.sh TSCHED OUTDIR — `tsched view` pages opened in a real browser
# (Debian's chromium, headless): a small capture, a big graph and a workload
# in three versions, and a capture with no recorded trace (its steps are the
# C scheduler's, and the page says so). For each page the DOM after the scripts ran must say the
# layout finished (body data-ready), hold one column per version with the
# right kernel count, and, where a step is selected (#step=R.S), highlight
# the input nodes that step rewrote. Screenshots go to OUTDIR. Exits 77
# (skipped) when chromium is not installed; ./dev installs it.
set -u
tsched=$1; out=$2
cd "$(dirname "$0")/../../.."
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then echo "chromium not installed: skipped"; exit 77; fi
mkdir -p "$out"
fail=0
chrome() { # chrome URL ARGS... (a fresh profile each time; no sandbox: CI runs as root)
  url=$1; shift
  timeout 300 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$out/profile" \
    --virtual-time-budget=120000 --window-size=1400,1000 "$@" "$url" 2>/dev/null
}
check() { # check NAME PAGE HASH "GEN:KERNELS ..." MIN_HIGHLIGHTED
  name=$1 page=$2 hash=$3 want=$4 minhl=$5
  chrome "file://$page#$hash" --dump-dom > "$out/$name.dom.html"
  dom="$out/$name.dom.html"
  if ! grep -q 'data-ready="1"' "$dom"; then echo "$name: the layout did not finish"; fail=1; return; fi
  got=$(grep -o '<div class="column" data-kernels="[0-9]*" data-generation="[^"]*"' "$dom" |
        sed 's/.*data-kernels="\([0-9]*\)" data-generation="\([^"]*\)"/\2:\1/' | tr '\n' ' ' | sed 's/ $//')
  if [ "$got" != "$want" ]; then echo "$name: columns $got, expected $want"; fail=1; fi
  hl=$(grep -o '<g class="node[^"]* hl[^"]*"' "$dom" | wc -l)
  if [ "$hl" -lt "$minhl" ]; then echo "$name: $hl highlighted nodes, expected at least $minhl"; fail=1; fi
  chrome "file://$page#$hash" --screenshot="$out/$name.png" >/dev/null
  [ -s "$out/$name.png" ] || { echo "$name: no screenshot"; fail=1; }
  echo "$name: $got, $hl highlighted"
}
corpus=$(pwd)/conformance/corpus
"$tsched" view -n 'workloads.casts#1' -o "$out/small.html" "$corpus/v0.10.2-workloads.jsonl.gz" || fail=1
"$tsched" view -n 'big.resnet50_train_step#3' -o "$out/big.html" "$corpus/v0.10.2-big.jsonl.gz" || fail=1
"$tsched" view -n 'workloads.softmax_norms#2' -o "$out/versions.html" "$corpus/v0.9.1-workloads.jsonl.gz" \
  "$corpus/v0.10.0-workloads.jsonl.gz" "$corpus/v0.10.2-workloads.jsonl.gz" || fail=1
"$tsched" view -n 'test_assign.TestAssign.test_assign_add#0' -o "$out/computed.html" \
  "$(pwd)/conformance/corpus-extra/v0.10.2-test_assign.jsonl.gz" || fail=1
# step 2.0 of casts#1 is create_kernel on the CAST: its input node is highlighted
check small "$out/small.html" "step=2.0" "0.10.2:1" 1
check big "$out/big.html" "kernel=5" "0.10.2:928" 0
check versions "$out/versions.html" "step=2.0" "0.9.1:3 0.10.0:3 0.10.2:3" 1
check computed "$out/computed.html" "step=2.0" "0.10.2:2" 1
grep -q "these are the steps tsched" "$out/computed.dom.html" || { echo "computed: no note that the steps are tsched's"; fail=1; }
exit $fail
