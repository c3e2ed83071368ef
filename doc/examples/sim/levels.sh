#!/bin/sh
# The seed's hierarchical state, in figures (doc/wseq_sim.md, "State
# levels: do two pay?"): the climate example (1,000 hosts of the default
# churn, 100 runs of 60 half-day segments) with one level -- the 1 GB state
# every M-th segment -- against two -- the 1 GB full state every F-th and a
# 20 MB increment every D-th -- over several seeds. For each two-level
# choice: its bytes uploaded and CPU wasted (means over the seeds), and the
# CPU one level wastes at the same bytes (interpolated between the two M
# whose bytes bracket them). INCREMENT is the increment's level: 20, a
# fixed 20 MB, or 20+, 20 MB a segment since the last full state (at most
# the full state's 1 GB).
#   doc/examples/sim/levels.sh [WSEQ_SIM] [SEEDS] [INCREMENT]
#   (default: wseq_sim, "1 2 3 4 5", 20)
set -e
sim=${1:-wseq_sim}
seeds=${2:-1 2 3 4 5}
incr=${3:-20}
top=$(cd "$(dirname "$0")/../../.." && pwd)
sc=$top/doc/examples/sim/climate.txt
out=${TMPDIR:-/tmp}/wseq-sim-levels-$incr
mkdir -p "$out"
for s in $seeds; do
	"$sim" --strategy seq --seed "$s" --grid M=1,2,3,4,5,6,8,10,12,15,20,30,60 \
		--csv "$out/one-$s.csv" "$sc" >/dev/null
	"$sim" --strategy seq --seed "$s" --state_levels "1000:12,$incr:3" \
		--grid L1=6,12,20,30,60 --grid L2=1,2,3,4,5,6,10 \
		--csv "$out/two-$s.csv" "$sc" >/dev/null
done
# one level: M, bytes, waste; two: periods, bytes, waste (sums over the seeds)
awk -F, -v n="$(echo $seeds | wc -w)" '
	FNR == 1 { two = FILENAME ~ /two-/; next }
	!two { k = $17; ob[k] += $7; ow[k] += $11; if (!(k in om)) { om[k] = 1; ms[++nm] = k } }
	two  { k = $19; tb[k] += $7; tw[k] += $11; if (!(k in tm)) { tm[k] = 1; ps[++np] = k } }
	END {
		printf "%-10s %9s %11s   %-6s %11s %8s\n", "full/incr", "up_GB", "cpu_waste_d",
			"one: M", "cpu_waste_d", "saved"
		for (i = 1; i <= np; i++) {
			p = ps[i]; b = tb[p] / n; w = tw[p] / n
			# the one-level runs whose bytes bracket b (bytes fall as M grows)
			lo = hi = ""
			for (j = 1; j <= nm; j++) {
				m = ms[j]; bj = ob[m] / n
				if (bj >= b && (hi == "" || bj < ob[hi] / n)) hi = m
				if (bj <= b && (lo == "" || bj > ob[lo] / n)) lo = m
			}
			if (lo == "" || hi == "") {
				printf "%-10s %9.1f %11.2f   %-6s %11s %8s\n", p, b / 1e9, w, "-", "-", "-"
				continue
			}
			b1 = ob[hi] / n; b2 = ob[lo] / n; w1 = ow[hi] / n; w2 = ow[lo] / n
			f = b1 == b2 ? 0 : (b1 - b) / (b1 - b2)
			ow1 = w1 + f * (w2 - w1); mm = hi + f * (lo - hi)
			printf "%-10s %9.1f %11.2f   %-6.1f %11.2f %7.0f%%\n", p, b / 1e9, w, mm, ow1,
				(ow1 > 0 ? 100 * (ow1 - w) / ow1 : 0)
		}
		printf "\none level (the 1 GB state every M-th segment):\n%-6s %9s %11s\n", "M", "up_GB", "cpu_waste_d"
		for (j = 1; j <= nm; j++)
			printf "%-6s %9.1f %11.2f\n", ms[j], ob[ms[j]] / n / 1e9, ow[ms[j]] / n
	}' "$out"/one-*.csv "$out"/two-*.csv
