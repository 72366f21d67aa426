#!/bin/sh
# install.sh BUILD_DIR — `cmake --install` into a temporary prefix, then the
# installed tsched, run from another folder with only the prefix on its
# PATH, finds its data (the bundled corpus of `compare`, the recorder of
# `record`) and its manual pages are there.
set -u
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
failed=0
check() { # check WHAT COMMAND...
  what=$1; shift
  if "$@" >/dev/null 2>&1; then echo "ok - $what"; else echo "not ok - $what"; failed=$((failed + 1)); fi
}
cmake --install "$build" --prefix "$prefix" > "$prefix/install.log" 2>&1
check "cmake --install" test $? = 0
cd "$prefix" || exit 1
export PATH="$prefix/bin:/usr/bin:/bin"
check "tsched is on the PATH" tsched --version
check "compare finds the installed corpus from another folder" sh -c "tsched compare -r -n 'workloads.casts#1' | grep -q '^=== workloads.casts#1'"
check "record runs the installed recorder" sh -c "tsched record --tinygrad /nonexistent --out x.jsonl --python echo prog.py | grep -q '^$prefix/bin/../share/tsched/conformance/oracle/record.py --tinygrad /nonexistent --out x.jsonl --script prog.py'"
check "man pages: tsched.1 and one per command" test -f share/man/man1/tsched.1 -a -f share/man/man1/tsched-replay.1 -a -f share/man/man1/tsched-ls.1
check "a man page holds the --help text" grep -q "^tsched ls - list the captures of a recording" share/man/man1/tsched-ls.1
exit $failed
