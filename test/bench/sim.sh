#!/bin/bash
# Benchmark of wseq_sim: the wall time of one run a strategy over a large
# scenario -- by default 10,000 hosts, 1,000 components of 30 segments,
# 180 virtual days (the default host model of doc/wseq_sim.md). A benchmark,
# not a test: it prints figures and fails only when the simulator does.
# Measure an optimised build without sanitizers for figures to quote
# (WSEQ_BUILDDIR=..., or _build_bench when it exists); see doc/bench.md.
set -u

prog=sim.sh
hosts=10000 comps=1000 segs=30 days=180 strategies="giant chunk seq"
usage() {
	cat <<EOT
usage: $prog [options]
  -H N          hosts (default: $hosts)
  -S N          components (default: $comps)
  -s N          segments a component, each one reference-CPU day (default: $segs)
  -d N          virtual days (default: $days)
  -t LIST       strategies, blank-separated (default: "$strategies")
EOT
}
while getopts H:S:s:d:t:h o; do
	case $o in
	H) hosts=$OPTARG ;; S) comps=$OPTARG ;; s) segs=$OPTARG ;; d) days=$OPTARG ;;
	t) strategies=$OPTARG ;; h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
	esac
done

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ -z "${WSEQ_BUILDDIR:-}" ]; then
	if [ -d "$src/_build_bench" ]; then WSEQ_BUILDDIR=$src/_build_bench; else WSEQ_BUILDDIR=$src/_build; fi
fi
sim=$WSEQ_BUILDDIR/sim/wseq_sim
[ -x "$sim" ] || { echo "$prog: $sim not built" >&2; exit 1; }
[ -n "${EPOCHREALTIME:-}" ] || { echo "$prog: bash 5 or later is needed" >&2; exit 1; }
san=$(sed -n 's/^SAN_CFLAGS = *//p' "$WSEQ_BUILDDIR/Makefile")
cflags=$(sed -n 's/^CFLAGS = *//p' "$WSEQ_BUILDDIR/Makefile")

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/scenario" <<EOT
seed 1
hosts $hosts
sequences $comps
length_days $segs
segment_days 1
horizon_days $days
EOT

echo "wseq_sim: $hosts hosts, $comps components x $segs segments, $days virtual days"
echo "build: $WSEQ_BUILDDIR (CFLAGS ${cflags:-none}${san:+, sanitizers: $san})"
for st in $strategies; do
	t0=$EPOCHREALTIME
	"$sim" --strategy "$st" --csv "$tmp/$st.csv" "$tmp/scenario" >"$tmp/$st.out" ||
		{ cat "$tmp/$st.out" >&2; echo "$prog: wseq_sim failed" >&2; exit 1; }
	t1=$EPOCHREALTIME
	row=$(sed -n 2p "$tmp/$st.csv")
	awk -v st="$st" -v a="$t0" -v b="$t1" -v row="$row" 'BEGIN {
		split(row, f, ",")
		printf "%-6s %7.2f s   finished %s, never %s, median %.1f d\n", st, b - a, f[3], f[4], f[5]
	}'
done
