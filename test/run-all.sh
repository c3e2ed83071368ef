#!/bin/bash
# The one test command (README, .ci/run): on a fresh Debian machine it
# installs every package wseq needs, builds with warnings as errors and the
# sanitizers, runs every unit and integration test against real services
# (private MariaDB, Apache, BOINC clients -- each test starts and stops its
# own), builds the libFuzzer targets with clang and runs each for a short
# while (doc/fuzzing.md), checks `make distcheck`, stops anything left
# running, and prints a last line "N passed, N failed".
#
#   test/run-all.sh [--no-install] [--no-distcheck] [--no-fuzz] [--fuzz-seconds S] [-j N]
#
# as root: in a root shell as it is, else under sudo (sandbox/as-root.sh).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/sandbox/as-root.sh" "$0" "$@"
build="$top/_ci_build"
install=1 distcheck=1 fuzz=1 fuzz_seconds=20 jobs=2

while [ $# -gt 0 ]; do
	case "$1" in
	--no-install) install=0 ;;
	--no-distcheck) distcheck=0 ;;
	--no-fuzz) fuzz=0 ;;
	--fuzz-seconds) fuzz_seconds=$2; shift ;;
	-j) jobs=$2; shift ;;
	-h | --help) sed -n '2,12p' "$0"; exit 0 ;;
	*) echo "run-all.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

passed=0 failed=0
fail_step() {
	echo "run-all.sh: $1 failed" >&2
	failed=$((failed + 1))
}

cleanup_services() {
	# Whatever a killed test left behind under the build tree: stop it by its pid file.
	local f
	for f in $(find "$build" -path '*/trash.*' \( -name 'mariadbd.pid' -o -name 'httpd.pid' \
		-o -name '*.pid' \) 2>/dev/null); do
		kill -TERM "$(cat "$f" 2>/dev/null)" 2>/dev/null
	done
}
trap cleanup_services EXIT

if [ "$install" = 1 ]; then
	"$top/sandbox/install-deps.sh" || { echo "0 passed, 1 failed"; exit 1; }
fi

cd "$top" || exit 1
./autogen.sh >/dev/null 2>&1 || { autoreconf -i; echo "0 passed, 1 failed"; exit 1; }
rm -rf "$build" && mkdir -p "$build" && cd "$build" || exit 1
../configure --enable-sanitizers >configure.log 2>&1 || { tail -20 configure.log; echo "0 passed, 1 failed"; exit 1; }
make -j"$jobs" >make.log 2>&1 || { grep -E 'error|warning' make.log | head -40; echo "0 passed, 1 failed"; exit 1; }

make -j"$jobs" check
if [ -f test-suite.log ]; then
	count() { sed -n "s/^# $1: *\([0-9]*\).*/\1/p" test-suite.log | head -1; }
	passed=$(( $(count PASS) + $(count XFAIL) ))
	failed=$(( $(count FAIL) + $(count XPASS) + $(count ERROR) ))
	skipped=$(count SKIP)
	grep -E '^(FAIL|ERROR|XPASS):' test-suite.log | sed 's/^/  /' | head -50 || true
	# what a failed script printed last, so a failure on a CI machine can be read
	for log in $(sed -n 's/^\(FAIL\|ERROR\): \(test\/[^ ]*\)\.sh.*/\2.log/p' test-suite.log | sort -u | head -5); do
		echo "---- the end of $log:"
		tail -60 "$log" | cut -c1-300
	done
else
	fail_step "make check"
fi

# Every test stops what it started: anything still running from the test
# trash directories is a failure (and is stopped here).
left=$(pgrep -f "$build/test/trash" 2>/dev/null | wc -l)
if [ "$left" -gt 0 ]; then
	echo "run-all.sh: $left processes were left running by the tests:" >&2
	pgrep -af "$build/test/trash" | head -20 >&2
	pkill -9 -f "$build/test/trash" 2>/dev/null
	failed=$((failed + 1))
else
	passed=$((passed + 1))
	echo "PASS: no test left a service running"
fi

# Every program the tests ran was built with the sanitizers: a report from
# any of them (a daemon's log, Apache's error log, a tool's stderr kept in a
# trash directory) fails the run, even when the test that ran it passed.
# Text files only: the sweep's client bundles in the trash carry libasan itself.
reports=$(grep -rlIE --exclude-dir=copy 'ERROR: (Address|Leak)Sanitizer|: runtime error: ' \
	test/trash.* 2>/dev/null | head -20)
if [ -n "$reports" ]; then
	echo "run-all.sh: sanitizer reports in:" >&2
	for f in $reports; do
		echo "  $f"; grep -m1 -A12 -IE 'ERROR: (Address|Leak)Sanitizer|: runtime error: ' "$f" | cut -c1-200
	done
	failed=$((failed + 1))
	echo "FAIL: no sanitizer report in any test's logs"
else
	passed=$((passed + 1))
	echo "PASS: no sanitizer report in any test's logs"
fi

# The fuzz smoke run: every libFuzzer target, built with clang in a tree of
# its own, fuzzes for a short while; each counts as one test. A crash, a
# sanitizer report, a leak or a timeout fails it and names the reproducer.
fuzz_smoke() {
	local fb="$build/fuzz" line
	mkdir -p "$fb" && cd "$fb" || return
	if ! CC=clang "$top/configure" --enable-fuzz --disable-integration-tests >configure.log 2>&1; then
		tail -5 configure.log
		fail_step "the fuzz build (configure CC=clang --enable-fuzz)"
	elif ! make -j"$jobs" fuzz >make.log 2>&1; then
		grep -E 'error|warning' make.log | head -20
		fail_step "the fuzz build (make fuzz)"
	else
		"$top/test/fuzz/run.sh" -t "$fuzz_seconds" -o "$fb/runs" "$fb" >run.log 2>&1
		while IFS= read -r line; do
			case $line in
			PASS:*) passed=$((passed + 1)); echo "$line" ;;
			FAIL:*) failed=$((failed + 1)); echo "$line" ;;
			"  "*) echo "$line" ;;
			esac
		done <run.log
	fi
	cd "$build" || exit 1
}
[ "$fuzz" = 1 ] && fuzz_smoke

if [ "$distcheck" = 1 ]; then
	if make -j"$jobs" distcheck >distcheck.log 2>&1; then
		passed=$((passed + 1))
		echo "PASS: make distcheck"
	else
		tail -40 distcheck.log
		fail_step "make distcheck"
	fi
fi

cleanup_services
echo "${passed} passed, ${failed} failed${skipped:+, $skipped skipped}"
[ "$failed" -eq 0 ]
