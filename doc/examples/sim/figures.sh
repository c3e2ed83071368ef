#!/bin/sh
# The README's wseq_sim figures ("Choosing N, M and the segment length"):
# each example's grid, table and plots, and the advice, from the scenarios
# beside this script. The plots are copied to doc/images/sim-*.png.
#   doc/examples/sim/figures.sh [WSEQ_SIM]    (default: wseq_sim from PATH)
# 1,000 hosts and 100 components each: under a minute.
set -e
sim=${1:-wseq_sim}
top=$(cd "$(dirname "$0")/../../.." && pwd)
out=${TMPDIR:-/tmp}/wseq-sim-figures
mkdir -p "$out" "$top/doc/images"

run() {         # NAME M-LIST SEGMENT-LIST
	echo "== $1"
	"$sim" --grid "M=$2" --grid "segment=$3" --plot "$out/$1" "$top/doc/examples/sim/$1.txt"
	echo
	"$sim" advise --waste_within 1000 --finish_within 30 --grid "M=$2" --grid "segment=$3" \
		"$top/doc/examples/sim/$1.txt"
	cp "$out/$1/tradeoff.png" "$top/doc/images/sim-$1-tradeoff.png"
	cp "$out/$1/finish.png" "$top/doc/images/sim-$1-finish.png"
	echo
}

run climate 1,2,4,7,14 6h,12h,1d,2d
run trajectory 1,2,4,8,16 3h,6h,12h,1d
echo "plots: $top/doc/images/sim-*.png; data and gnuplot scripts: $out"
