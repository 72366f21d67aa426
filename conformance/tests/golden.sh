#!/bin/sh
# golden.sh EXPECTED_FILE EXPECTED_STATUS CMD ARGS... — run CMD from the
# repository root, compare its stdout+stderr with EXPECTED_FILE and its exit
# status with EXPECTED_STATUS. TSCHED_UPDATE_GOLDEN=1 rewrites the file.
set -u
golden=$1; status=$2; shift 2
cd "$(dirname "$0")/../.."
out=$("$@" 2>&1); got=$?
# timings change from run to run
out=$(printf '%s\n' "$out" | sed -E 's/[0-9]+\.[0-9]+ s( |$)/T s\1/; s/"seconds": [0-9.e+-]+/"seconds": T/')
if [ "${TSCHED_UPDATE_GOLDEN:-0}" = 1 ]; then printf '%s\n' "$out" > "$golden"; fi
if [ "$got" != "$status" ]; then echo "exit status $got, expected $status"; printf '%s\n' "$out"; exit 1; fi
printf '%s\n' "$out" | diff -u "$golden" - || exit 1
