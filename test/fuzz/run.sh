#!/bin/bash
# Run the libFuzzer targets of a build configured with CC=clang --enable-fuzz
# (after `make fuzz`), each on a copy of its corpus (test/fuzz/corpus/T,
# never written to) with its dictionary, and print one line a target:
#
#   PASS: fuzz_T: 412345 runs in 20 s (20617/s), cov 1234, ft 5678, corpus 40 (+13)
#   FAIL: fuzz_T: crash; reproducer: DIR/T/crash-0a1b...; log: DIR/T/log
#
# then "fuzz: N passed, N failed". A crash, a sanitizer report (leaks
# included), a failed property, an input running longer than the timeout or
# too much memory is a failure; its input is kept and named. doc/fuzzing.md.
#
#   test/fuzz/run.sh [-t SECONDS | -r RUNS] [-T TIMEOUT] [-o DIR] [-n] BUILDDIR [TARGET...]
#
#   -t SECONDS  fuzz each target this long (default 20)
#   -r RUNS     or this many executions (a long run: -r 10000000)
#   -T TIMEOUT  seconds one input may take (default 10)
#   -o DIR      work directory: corpora, logs, reproducers (default BUILDDIR/fuzz-runs)
#   -n          run at the lowest priority (nice -n 19), for long runs beside other work
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=20 runs= timeout=10 out= nice=

while getopts t:r:T:o:nh opt; do
	case $opt in
	t) secs=$OPTARG ;;
	r) runs=$OPTARG ;;
	T) timeout=$OPTARG ;;
	o) out=$OPTARG ;;
	n) nice="nice -n 19" ;;
	*) sed -n '2,22p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { sed -n '2,22p' "$0"; exit 2; }
build=$(cd "$1" && pwd) || exit 2
shift
out=${out:-$build/fuzz-runs}
targets=$*
[ -n "$targets" ] || targets=$(ls "$top/test/fuzz/corpus")

if [ -n "$runs" ]; then
	limit="-runs=$runs"
else
	limit="-max_total_time=$secs"
fi

passed=0 failed=0
for t in $targets; do
	bin="$build/test/fuzz/fuzz_$t"
	work="$out/$t"
	rm -rf "$work" && mkdir -p "$work/corpus" "$work/tmp" || exit 1
	if [ ! -x "$bin" ]; then
		echo "FAIL: fuzz_$t: $bin not built (make fuzz)"
		failed=$((failed + 1))
		continue
	fi
	dict="$top/test/fuzz/dict/$t.dict"
	[ -f "$dict" ] && dict="-dict=$dict" || dict=
	start=$(date +%s)
	# The scratch directories the targets make go under $work/tmp.
	# shellcheck disable=SC2086
	TMPDIR="$work/tmp" ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
	UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
		$nice "$bin" $limit -timeout="$timeout" -rss_limit_mb=2048 -print_final_stats=1 \
		$dict -artifact_prefix="$work/" "$work/corpus" "$top/test/fuzz/corpus/$t" \
		>"$work/log" 2>&1
	rc=$?
	end=$(date +%s)
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -1)
	last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$work/log" | tail -1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	seeds=$(ls "$top/test/fuzz/corpus/$t" | wc -l)
	new=$(ls "$work/corpus" | wc -l)
	if [ "$rc" -eq 0 ]; then
		echo "PASS: fuzz_$t: ${n:-?} runs in $((end - start)) s (${rate:-?}/s), cov ${cov:-?}, ft ${ft:-?}, corpus $seeds (+$new)"
		passed=$((passed + 1))
	else
		repro=$(ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* \
			"$work"/slow-unit-* 2>/dev/null | head -1)
		kind=$(basename "${repro:-exit-$rc}" | sed 's/-.*//')
		echo "FAIL: fuzz_$t: $kind; reproducer: ${repro:-none}; log: $work/log"
		grep -E 'ERROR: |SUMMARY: |runtime error|property failed' "$work/log" | head -5 | sed 's/^/  /'
		failed=$((failed + 1))
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
