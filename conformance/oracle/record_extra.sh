#!/bin/sh
# Regenerate conformance/corpus-extra from three tinygrad checkouts:
#   conformance/oracle/record_extra.sh TG091 TG0100 TG0102 [MODULE ...]
# (each a checkout of tag v0.9.1 / v0.10.0 / v0.10.2 with tinygrad/ test/ examples/ extra/).
# Needs python3 with numpy and clang, like record_all.sh (which regenerates conformance/corpus
# and is not affected by this script).
#
# Writes, for every version:
#   conformance/corpus-extra/v<version>-<module>.jsonl.gz   scheduler calls of test/<module>.py
#       (the modules of MODULES, in all three releases, and those of MODULES_<version>, in that release only)
#   conformance/corpus-extra/v<version>-images.jsonl.gz     the "images" suite (image dtypes, scheduled only)
#   conformance/corpus-extra/v<version>-bigint.jsonl.gz     the "bigint" suite (uint64 constants above int64, scheduled only)
#   conformance/corpus-extra/v<version>-models.jsonl.gz     the "models" suite (small extra/models/ and examples/ models)
#   conformance/corpus-extra/v<version>-stress.jsonl.gz     the "stress" suite (big graphs for the speed targets, scheduled only)
# and conformance/corpus-extra/summary.json, prints the count table, runs the schema checker.
# A module that yields no capture in a version (all its tests skipped there) gets no file;
# its counts are still in summary.json.  With MODULE arguments only those are recorded
# ("images", "bigint", "models" and "stress" name the workload suites) and their counts replace theirs in summary.json:
# a module of MODULES_<version> only in that release, one of no list in every release whose checkout has it.
# The "symbolic" workload suite is part of conformance/corpus (record_all.sh), not of this directory.
#
# Every test module is recorded with --max-per-test $CAP (default 100): a test's scheduler
# calls after the first CAP run unrecorded (counted as capped_calls in summary.json).
# test_ops is recorded with --torch-mirror (see conformance/oracle/stubs/mirror/torch).
# TG0101=CHECKOUT (a checkout of tag v0.10.1) records 0.10.1 too, with MODULES_0101; VERSIONS="0.10.1 ..."
# records only those versions (the other checkout arguments are then not read).
# TG0100_2CA41D6=CHECKOUT (a checkout of commit 2ca41d6a44) records 0.10.0+2ca41d6 too, with 0.10.0's modules.
# TG092=CHECKOUT (tag v0.9.2) and TG092_197F8FD=CHECKOUT (commit 197f8fd986) record those versions with MODULES_092.
# TG0102_A0B4465=CHECKOUT (a checkout of commit a0b4465412) records 0.10.2+a0b4465 too, with MODULES_A0B4465.
# Each recording runs under `timeout $TIMEOUT` (default 3600 s).  LOGDIR=dir keeps the
# per-recording logs and --summary files there (use a fresh directory).  A recording that fails
# leaves the previous file of that module in place and makes the script exit 1.
set -eu
if [ $# -lt 3 ]; then echo "usage: $0 TG091 TG0100 TG0102 [MODULE ...]" >&2; exit 2; fi
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(cd "$HERE/.." && pwd)/corpus-extra
mkdir -p "$OUT"
PY=${PYTHON:-/usr/bin/python3}
CAP=${CAP:-100}
TIMEOUT=${TIMEOUT:-3600}
TG091=$1; TG0100=$2; TG0102=$3; shift 3
# test modules present in all three releases whose tests schedule something on the CPU
# device set (see conformance/corpus-extra/README.md for the ones left out and why)
MODULES="test_arange test_assign test_const_folding test_conv test_conv_shapetracker test_dtype test_dtype_alu
test_fusion_op test_gc test_graph test_image_dtype test_jit test_kernel_cache test_linearizer test_masked_st
test_method_cache test_multitensor test_nn test_ops test_optim test_pickle test_randomness test_sample test_setitem
test_specific_conv test_subbuffer test_symbolic_jit test_symbolic_ops test_tensor test_tensor_data
test_tensor_variable test_to_numpy test_uops test_uops_stats test_winograd test_zero_copy unit.test_device
unit.test_disk_tensor unit.test_shm_tensor models.test_train test_copy_speed test_linearizer_failures test_search
unit.test_helpers"
# test modules only some releases have, recorded in those.  models.test_real_world and models.test_train need
# the checkout's full extra/ and examples/ (the stubs stand in for PIL, sentencepiece, tiktoken, librosa).
# 0.9.1's models.test_real_world is left out: its examples/stable_diffusion.py downloads a vocabulary at import.
MODULES_091="test_lazybuffer test_lazyop test_print_tree unit.test_flopcounter"
MODULES_0100="models.test_real_world test_compile_failures test_lazybuffer test_rearrange_einops test_renderer_failures
test_tiny test_transcendental unit.test_verify_ast"
MODULES_0102="models.test_real_world test_compile_failures test_rearrange_einops test_renderer_failures test_tensor_uop
test_tiny test_transcendental unit.test_allreduce unit.test_gradient unit.test_tar unit.test_tensor_io
unit.test_tensor_uop_representation unit.test_verify_ast"
# 0.10.1: the test modules of the tag that schedule something on CLANG (conformance/corpus-extra/README.md, "0.10.1")
MODULES_0101="test_arange test_assign test_const_folding test_conv test_conv_shapetracker test_dtype test_dtype_alu
test_fusion_op test_gc test_graph test_jit test_kernel_cache test_linearizer test_masked_st test_multitensor test_nn test_ops
test_optim test_pickle test_randomness test_rearrange_einops test_sample test_setitem test_specific_conv test_subbuffer
test_symbolic_jit test_symbolic_ops test_tensor test_tensor_data test_tensor_uop test_tensor_variable test_tiny test_to_numpy
test_transcendental test_uops_stats test_winograd test_zero_copy unit.test_disk_tensor unit.test_gradient unit.test_shm_tensor
unit.test_tar unit.test_tensor_io unit.test_tensor_uop_representation unit.test_verify_ast models.test_real_world models.test_train"
# 0.10.2+a0b4465: the test modules 0.10.2 records (the passes it rewrote first: assign, fusion, conv, views, disk,
# random, gradients); test_ops is not recorded here (conformance/corpus-extra/README.md, "0.10.2+a0b4465")
MODULES_A0B4465="test_arange test_assign test_const_folding test_conv test_fusion_op test_nn test_optim test_pickle
test_randomness test_setitem test_subbuffer test_specific_conv test_tensor_variable test_winograd test_tiny test_uops_stats
test_tensor_uop test_zero_copy unit.test_gradient unit.test_disk_tensor
test_compile_failures test_conv_shapetracker test_copy_speed test_dtype_alu test_gc test_kernel_cache test_masked_st
test_method_cache test_rearrange_einops test_renderer_failures test_sample test_search test_tensor_data test_to_numpy
test_transcendental test_uops unit.test_allreduce unit.test_device unit.test_helpers unit.test_shm_tensor unit.test_tar
unit.test_tensor_io unit.test_tensor_uop_representation unit.test_verify_ast test_graph test_image_dtype
test_tensor test_linearizer test_linearizer_failures test_jit test_symbolic_ops test_symbolic_jit test_dtype test_multitensor
models.test_train models.test_real_world"
# 0.9.2 and 0.9.2+197f8fd: the modules of the LazyBuffer scheduler's changes (reduces, arange, assign, symbolic, padding)
# and every module of MODULES / MODULES_091 the commit has (test_lazyop only the tag: MODULES_092_TAG)
MODULES_092="test_arange test_assign test_const_folding test_fusion_op test_masked_st test_setitem test_subbuffer
test_symbolic_ops test_tensor_variable test_randomness test_kernel_cache test_gc test_pickle test_dtype_alu test_symbolic_jit
test_conv test_multitensor test_nn test_conv_shapetracker test_dtype test_graph test_image_dtype test_jit test_linearizer
test_method_cache test_ops test_optim test_sample test_specific_conv test_tensor test_tensor_data test_to_numpy test_uops
test_uops_stats test_winograd test_zero_copy unit.test_device unit.test_disk_tensor unit.test_shm_tensor models.test_train
test_copy_speed test_linearizer_failures test_search unit.test_helpers test_lazybuffer"
MODULES_092_TAG="test_lazyop"
ALLMODS=$MODULES
# shellcheck disable=SC2086
SOME=$(printf "%s " $MODULES_091 $MODULES_0100 $MODULES_0102 $MODULES_0101 $MODULES_A0B4465 $MODULES_092 $MODULES_092_TAG)
ALL=1
if [ $# -gt 0 ]; then MODULES="$*"; ALL=0; fi
if [ -n "${LOGDIR:-}" ]; then TMP=$LOGDIR; mkdir -p "$TMP"   # keep per-recording logs and summaries there
else TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT; fi
export PYTHONHASHSEED=0
FAILED=""
for pair in "0.9.1:$TG091" "0.10.0:$TG0100" "0.10.2:$TG0102" ${TG0101:+"0.10.1:$TG0101"} ${TG0100_2CA41D6:+"0.10.0+2ca41d6:$TG0100_2CA41D6"} \
    ${TG0102_A0B4465:+"0.10.2+a0b4465:$TG0102_A0B4465"} ${TG092:+"0.9.2:$TG092"} ${TG092_197F8FD:+"0.9.2+197f8fd:$TG092_197F8FD"}; do
  ver=${pair%%:*}; tg=${pair#*:}
  case " ${VERSIONS:-$ver} " in *" $ver "*) ;; *) continue ;; esac
  case $ver in 0.9.1) here="$ALLMODS $MODULES_091" ;; 0.10.0) here="$ALLMODS $MODULES_0100" ;; 0.10.1) here="$MODULES_0101" ;;
    0.10.0+2ca41d6) here="$ALLMODS $MODULES_0100" ;; 0.10.2+a0b4465) here="$MODULES_A0B4465" ;;
    0.9.2) here="$MODULES_092 $MODULES_092_TAG" ;; 0.9.2+197f8fd) here="$MODULES_092" ;;
    *) here="$ALLMODS $MODULES_0102" ;; esac
  # shellcheck disable=SC2086
  here=$(printf "%s " $here)  # one space between names, for the case patterns below
  if [ $ALL -eq 1 ]; then mods="$here images bigint models stress"; else mods=$MODULES; fi
  for m in $mods; do
    case " images bigint models stress symbolic $here " in
      *" $m "*) ;;
      *) case " $SOME " in
           *" $m "*) echo "== $ver $m: not recorded in this release" >&2; continue ;;  # another release's module
         esac
         if [ ! -f "$tg/test/$(echo "$m" | tr . /).py" ]; then echo "== $ver $m: not in this release" >&2; continue; fi ;;
    esac
    case $m in
      images|bigint|models|stress) args="--suite $m" ;;
      symbolic) echo "$0: the symbolic suite is recorded into conformance/corpus by record_all.sh" >&2; exit 2 ;;
      test_ops) args="--suite test:$m --max-per-test $CAP --torch-mirror" ;;
      *) args="--suite test:$m --max-per-test $CAP" ;;
    esac
    out="$OUT/v$ver-$m.jsonl.gz"
    echo "== $ver $m" >&2
    part="$TMP/v$ver-$m.jsonl.gz"  # written there, moved into place when complete
    # shellcheck disable=SC2086
    if timeout "$TIMEOUT" "$PY" "$HERE/record.py" --tinygrad "$tg" $args --out "$part" \
        --summary "$TMP/v$ver-$m.json" >"$TMP/v$ver-$m.log" 2>&1; then
      tail -1 "$TMP/v$ver-$m.log" >&2
      if [ "$(gzip -dc "$part" | head -c1 | wc -c)" -eq 0 ]; then rm -f "$part" "$out"; echo "   (no captures: no file)" >&2
      else mv -f "$part" "$out"; fi
    else
      rc=$?; rm -f "$part" "$TMP/v$ver-$m.json"; FAILED="$FAILED $ver:$m(rc=$rc)"
      tail -5 "$TMP/v$ver-$m.log" >&2
    fi
  done
done
if ls "$TMP"/*.json >/dev/null 2>&1; then
  if { [ $ALL -eq 1 ] && [ -z "${VERSIONS:-}" ]; } || [ ! -f "$OUT/summary.json" ]; then "$PY" "$HERE/summarize.py" "$TMP"/*.json > "$TMP/summary.new"
  else "$PY" "$HERE/summarize.py" --merge "$OUT/summary.json" "$TMP"/*.json > "$TMP/summary.new"; fi
  mv "$TMP/summary.new" "$OUT/summary.json"
  "$PY" "$HERE/summarize.py" --pivot "$OUT/summary.json"
fi
"$PY" "$HERE/check_schema.py" "$OUT"
if [ -n "$FAILED" ]; then echo "recordings that failed:$FAILED" >&2; exit 1; fi
