#!/bin/sh
test_description='wseq_sim: same seed same output, the CSV, no churn, everyone leaving, M = 1, --grid, advise, create_sequence --advise, --plot, GPU hosts, bad scenarios, state levels, a growing level'
. "$WSEQ_SRCDIR/test/test-lib.sh"

sim="$WSEQ_BUILDDIR/sim/wseq_sim"
data="$WSEQ_SRCDIR/test/data/sim"

# field F of the CSV row of strategy S with N, M and segment length P ("1,7,1"): col FILE S P F
col() {
	awk -F, -v s="$2" -v p="$3" -v f="$4" \
		'$1 == s && $16 "," $17 "," $18 == p { print $f }' "$1"
}

test_expect_success 'wseq_sim --help names its options and strategies' '
	"$sim" --help >help &&
	grep -e --csv help && grep -e --strategy help && grep -e --seed help &&
	grep -e "--grid NAME=V1,V2" help && grep "^  seq  *work sequences" help &&
	grep "wseq_sim advise \[options\] SCENARIO" help && grep -e "--waste_within PCT" help &&
	grep -e "--state_levels MB:P,..." help && grep "each level.s period L1, L2" help
'

test_expect_success 'the same scenario and seed give byte-identical output' '
	"$sim" --csv a.csv "$data/small.txt" >a.out &&
	"$sim" --csv b.csv "$data/small.txt" >b.out &&
	cmp a.out b.out && cmp a.csv b.csv &&
	"$sim" --seed 8 --csv c.csv "$data/small.txt" >c.out &&
	! cmp -s a.csv c.csv
'

test_expect_success 'the CSV has a header and a row a strategy, seq run like the others' '
	test $(wc -l <a.csv) = 4 &&
	head -1 a.csv | grep "^strategy,available,finished,unfinished,median_days,p90_days,bytes_up" &&
	head -1 a.csv | grep ",relocations,answer_every,state_every,segment_days$" &&
	grep "^giant,1,20,0," a.csv && grep "^chunk,1,20,0," a.csv && grep "^seq,1,20,0," a.csv &&
	grep "^seq  *20  *0 " a.out
'

test_expect_success 'no churn: all three finish, sequences upload the state every Mth segment' '
	"$sim" --grid M=1,5,7 --csv n.csv "$data/no-churn.txt" >n.out &&
	test $(grep -c "^[a-z]*,1,10,0," n.csv) = 9 &&
	# 10 components x 5 segments x 10 MB, whatever M
	test "$(col n.csv chunk 1,7,1 7)" = 500000000 &&
	test "$(col n.csv chunk 1,7,1 8)" = 500000000 &&
	# M = 1: what the chunks upload; M = 5: a fifth; M = 7: the last state only
	test "$(col n.csv seq 1,1,1 7)" = 500000000 &&
	test "$(col n.csv seq 1,5,1 7)" = 100000000 &&
	test "$(col n.csv seq 1,7,1 7)" = 100000000 &&
	# the state downloaded once a sequence, nothing lost
	test "$(col n.csv seq 1,7,1 8)" = 100000000 &&
	test "$(col n.csv seq 1,7,1 11)" = 0.000000 &&
	test "$(col n.csv seq 1,7,1 15)" = 0
'

test_expect_success 'everyone leaves: nothing finishes and wseq_sim says so' '
	"$sim" --csv l.csv "$data/all-leave.txt" >l.out &&
	grep "^giant,1,0,5,,," l.csv && grep "^chunk,1,0,5,,," l.csv && grep "^seq,1,0,5,,," l.csv &&
	grep "giant: no component finished within the horizon (20 days)" l.out &&
	grep "chunk: no component finished within the horizon (20 days)" l.out &&
	grep "seq: no component finished within the horizon (20 days)" l.out
'

test_expect_success '--grid prints a row a combination and strategy, the first axis slowest' '
	"$sim" --strategy chunk,seq --grid M=2,4 --grid segment=12h,1d --csv s.csv \
		"$data/small.txt" >s.out &&
	test $(wc -l <s.csv) = 9 &&
	grep "a grid of 8 runs" s.out &&
	grep "^ *N  *M  *seg_d strategy finished" s.out &&
	test $(grep -c "^ *1  *[24]  *\(0.5\|1\) \(chunk\|seq\) " s.out) = 8 &&
	cut -d, -f1,16-18 s.csv | tail -n +2 >order &&
	printf "%s\n" chunk,1,2,0.5 seq,1,2,0.5 chunk,1,2,1 seq,1,2,1 \
		chunk,1,4,0.5 seq,1,4,0.5 chunk,1,4,1 seq,1,4,1 >expect &&
	test_cmp expect order &&
	# chunk does not use M: its rows for M 2 and 4 are one run
	test "$(col s.csv chunk 1,2,1 7)" = "$(col s.csv chunk 1,4,1 7)" &&
	"$sim" --strategy chunk,seq --grid M=2,4 --grid segment=12h,1d --csv s2.csv \
		"$data/small.txt" >s2.out &&
	cmp s.out s2.out && cmp s.csv s2.csv
'

test_expect_success 'a bad --grid is refused, saying why (a usage error: exit 2)' '
	{ "$sim" --grid M=0 "$data/no-churn.txt" 2>err; test $? = 2; } &&
	{ "$sim" advise --grid M=0 "$data/no-churn.txt" 2>err; test $? = 2; } &&
	! "$sim" --grid X=1 "$data/no-churn.txt" 2>err && grep "expected N=..., M=..., segment=... or L1=..." err &&
	! "$sim" --grid M=0 "$data/no-churn.txt" 2>err && grep "bad value .0." err &&
	! "$sim" --grid M=1,,2 "$data/no-churn.txt" 2>err && grep "bad value" err &&
	! "$sim" --grid segment=1y "$data/no-churn.txt" 2>err && grep "bad value .1y." err &&
	! "$sim" --grid M=1 --grid state_every=2 "$data/no-churn.txt" 2>err && grep "M given twice" err &&
	! "$sim" --grid segment=1e-7 "$data/no-churn.txt" 2>err
'

test_expect_success 'advise: without churn, the largest M (fewest bytes, nothing wasted)' '
	"$sim" advise --grid M=1,5 --grid segment=1d "$data/no-churn.txt" >adv.out &&
	grep "^advice: N 1, M 5, segment 1 days: uploads 0.100 GB, wastes 0.00 " adv.out &&
	grep "^compared: chunk (N 1, segment 1 days) uploads 0.500 GB" adv.out &&
	grep "^ *1  *5  *1  *10  *0 .*<- advised$" adv.out &&
	grep "^ *1  *1  *1  *10  *0 .*  ok$" adv.out
'

test_expect_success 'advise: the advised run uploads least of those within both limits' '
	"$sim" advise --waste_within 400 --finish_within 20 --csv adv.csv "$data/small.txt" >adv.out &&
	test $(wc -l <adv.csv) = 21 &&
	sed -n "s/^advice: N \([0-9]*\), M \([0-9]*\), segment \([0-9.]*\) days:.*/\1,\2,\3/p" \
		adv.out >pick &&
	test $(wc -l <pick) = 1 &&
	# recompute from the CSV: the most finished, the least waste, the soonest median
	awk -F, -v pick="$(cat pick)" "NR > 1 && \$3 > most { most = \$3 }
		{ r[NR] = \$0 }
		END {
			for (i = 2; i <= NR; i++) { split(r[i], f, \",\")
				if (f[3] != most) continue
				if (w == \"\" || f[11] < w) w = f[11]
				if (m == \"\" || f[5] < m) m = f[5] }
			for (i = 2; i <= NR; i++) { split(r[i], f, \",\")
				if (f[3] != most || f[11] > w * 5 + 1e-6 || f[5] > m * 1.2 + 1e-6) continue
				if (best == \"\" || f[7] < best) { best = f[7]; at = f[16] \",\" f[17] \",\" f[18] } }
			if (at != pick) { print \"advised \" pick \", expected \" at; exit 1 } }" adv.csv
'

test_expect_success 'advise: nothing finished, no advice, and it says why' '
	"$sim" advise --grid M=2 --grid segment=1d "$data/all-leave.txt" >adv.out &&
	grep "^advice: none -- no run finished a component within the horizon (20 days)" adv.out
'

cs="$WSEQ_BUILDDIR/tools/create_sequence"

test_expect_success 'create_sequence --advise: the advisor on its own arguments, no project, no database' '
	head -c 10000000 /dev/zero >init.state &&
	! test -e config.xml &&
	"$cs" --advise --segments 5 --rsc_fpops_est 8.64e13 --state_upload_every 1 \
		--advise_scenario "$data/no-churn.txt" init.state >cs.out &&
	grep "^create_sequence --advise: 5 segments of 8.64e+13 FLOPs (1 reference-CPU days at 10^9 FLOPS) a component, state 10 MB (the initial state)" cs.out &&
	grep "^wseq_sim advise: 100 hosts, 10 components of 5 reference-CPU days, 20 runs of seq" cs.out &&
	# its own M and segment are among the runs, and it is told their figures
	grep "^yours: N 1, M 1, segment 1 days: uploads 0.500 GB, wastes 0.00 reference-CPU days" cs.out &&
	grep "^advice: N 1, M 4, segment 2 days: uploads 0.100 GB" cs.out &&
	grep "^the advice as options: --segments 3 --rsc_fpops_est 1.728e+14 --rsc_fpops_bound 1.728e+14 --state_upload_every 4 (--answer_every 1)$" cs.out &&
	# the same figures as wseq_sim advise over the same scenario and grid
	# (its deadline: twice --max_result_time, a day by default)
	{ cat "$data/no-churn.txt" && printf "state_every 1\nsegment_deadline_days 2\n"; } >nc.txt &&
	"$sim" advise --grid M=1,2,4,8,16 --grid segment=6h,12h,1d,2d nc.txt >ws.out &&
	grep "^ *[0-9]" ws.out >ws.rows && grep "^ *[0-9]" cs.out >cs.rows && test_cmp ws.rows cs.rows
'

test_expect_success 'create_sequence --advise adds its own M and segment to the grid, and says when they are the advice' '
	"$cs" --advise --segments 4 --rsc_fpops_est 1.296e14 --state_upload_every 3 \
		--state_max_nbytes 1e7 --advise_scenario "$data/no-churn.txt" >cs3.out &&
	grep "state 10 MB (--state_max_nbytes)" cs3.out &&
	grep "^wseq_sim advise: .* 30 runs of seq" cs3.out &&
	grep "^ *1  *3  *1.5  *10 " cs3.out &&
	"$cs" --advise --segments 3 --rsc_fpops_est 1.728e14 --state_upload_every 4 --state_max_nbytes 1e7 \
		--advise_scenario "$data/no-churn.txt" --advise_waste_within 0 --advise_finish_within 0 \
		--open_ended >cs4.out &&
	grep "^advice: N 1, M 4, segment 2 days" cs4.out &&
	grep "^these arguments are the advice$" cs4.out &&
	grep "^open-ended: the advice takes a component to be the 3 segments given" cs4.out
'

test_expect_success 'create_sequence --advise refuses what it cannot simulate, saying why' '
	! "$cs" --advise --rsc_fpops_est 8.64e13 2>err && grep "segments is missing" err &&
	! "$cs" --advise --segments 5 --replicas 9 2>err &&
	grep "the simulator cannot take these arguments: replicas 9 is out of its bounds, 1 to 8" err &&
	! "$cs" --advise --segments 5 --stdin </dev/null 2>err && grep "not --stdin" err &&
	! "$cs" --advise --segments 5 nosuch.state 2>err && grep "nosuch.state: No such file" err &&
	"$cs" --help >help && grep -e "--advise " help && grep -e "--advise_scenario FILE" help
'

# "WIDTH HEIGHT" of a PNG file (its signature, then the IHDR chunk), or fail
png_size() {
	test "$(od -An -tx1 -N16 "$1" | tr -d " \n")" = 89504e470d0a1a0a0000000d49484452 &&
	od -An -tu1 -j16 -N8 "$1" |
		awk "{ print \$1 * 16777216 + \$2 * 65536 + \$3 * 256 + \$4, \$5 * 16777216 + \$6 * 65536 + \$7 * 256 + \$8 }"
}

test_expect_success '--finish_csv: a line a component of each run, the finished first by time' '
	"$sim" --csv f.csv --finish_csv fin.csv "$data/small.txt" >f.out &&
	head -1 fin.csv | grep "^run,strategy,answer_every,state_every,segment_days,component,finish_days,finished_fraction$" &&
	test $(wc -l <fin.csv) = 61 &&
	for s in giant chunk seq; do
		test "$(grep -c ",$s,1,7,1,.*,[0-9.]*,[0-9.]*$" fin.csv)" = "$(col f.csv $s 1,7,1 3)" || return 1
	done &&
	# a run: its components once each, by time, the fraction rising by 1/20
	awk -F, "\$1 == 3 && \$7 != \"\" { if (\$7 < t || \$8 != (++n) / 20) exit 1; t = \$7 }" fin.csv &&
	test "$(awk -F, "\$1 == 3 { print \$6 }" fin.csv | sort -n | uniq | wc -l)" = 20
'

if command -v gnuplot >/dev/null 2>&1; then
test_expect_success '--plot draws the trade-off and the times to finish as PNG files' '
	"$sim" --strategy giant,chunk,seq --grid M=2,4 --grid segment=12h,1d --csv p.csv \
		--plot plots "$data/small.txt" >p.out 2>p.err &&
	grep "^plots: plots/tradeoff.png (bytes uploaded against CPU wasted), plots/finish.png" p.out &&
	cmp p.csv plots/runs.csv &&
	# the distinct runs: giant once, chunk at 2 segment lengths, seq at 4 combinations
	test $(wc -l <plots/finish.csv) = $((1 + 7 * 20)) &&
	for f in tradeoff finish; do
		test "$(png_size plots/$f.png)" = "960 560" &&
		test $(wc -c <plots/$f.png) -gt 10000 && test $(wc -c <plots/$f.png) -lt 300000 ||
		return 1
	done &&
	grep "^set output \"tradeoff.png\"" plots/tradeoff.gp &&
	grep "title \"seq, segment 12 h\"" plots/tradeoff.gp &&
	grep "every ::.* title \"seq: median" plots/finish.gp &&
	test ! -s p.err &&
	# what the scripts draw, as gnuplot tables: a point a distinct run, and at the first
	# run (M 7 of the scenario is not swept) a step a finished component of each strategy
	(cd plots && sed "s/^set output .*/set table \"t.tab\"/" tradeoff.gp | gnuplot &&
	 sed "s/^set output .*/set table \"f.tab\"/" finish.gp | gnuplot) &&
	test $(grep -c " i\$" plots/t.tab) = 7 &&
	test $(grep -c " i\$" plots/f.tab) = 60
'
else
	test_skip '--plot draws the trade-off and the times to finish as PNG files' \
		'gnuplot is not installed (Debian: gnuplot-nox, in sandbox/debian-packages.txt)'
fi

test_expect_success 'without gnuplot on PATH, --plot writes the data and scripts and says gnuplot is needed' '
	PATH=/nonexistent "$sim" --plot noplots "$data/small.txt" >np.out 2>np.err &&
	grep "gnuplot is needed to draw the plots and is not on PATH (Debian: apt-get install gnuplot-nox)" np.err &&
	grep "cd noplots && gnuplot tradeoff.gp finish.gp" np.err &&
	test -s noplots/runs.csv && test -s noplots/finish.csv &&
	test -s noplots/tradeoff.gp && test -s noplots/finish.gp &&
	! test -e noplots/tradeoff.png && ! test -e noplots/finish.png &&
	! grep "^plots:" np.out
'

test_expect_success 'advise refuses --plot (it is for runs and grids)' '
	! "$sim" advise --plot adv "$data/no-churn.txt" 2>err &&
	grep "plot and --finish_csv are for runs and grids" err && ! test -e adv
'

test_expect_success 'GPU hosts: a GPU version runs at gpu_flops, ten times the CPU here' '
	"$sim" --csv gpu.csv "$data/gpu.txt" >gpu.out &&
	grep "^GPUs: 30 hosts with 1 of 1e+10 FLOPS (10 reference CPUs) each; app versions: gpu; seq: 0 a CPU, 1 a GPU$" gpu.out &&
	{ cat "$data/gpu.txt" && echo "app_versions cpu"; } >cpu.txt &&
	"$sim" --csv cpu.csv cpu.txt >cpu.out &&
	for s in giant chunk seq; do
		test "$(col gpu.csv $s 1,7,1 3)" = 30 && test "$(col cpu.csv $s 1,7,1 3)" = 30 &&
		awk -v g="$(col gpu.csv $s 1,7,1 5)" -v c="$(col cpu.csv $s 1,7,1 5)" \
			"BEGIN { exit !(g > 0.499 && g < 0.501 && c > 4.999 && c < 5.001) }" || return 1
	done &&
	# the CPU-only app on the same hosts: their GPUs are there, and idle
	grep "^GPUs: 30 hosts .* app versions: cpu;" cpu.out
'

test_expect_success 'advise on a GPU project: its figures are the GPUs'"'"' (median 0.5 days, not 5)' '
	"$sim" advise --grid M=1,5 --grid segment=1d "$data/gpu.txt" >gadv.out &&
	grep "^GPUs: 30 hosts with 1 of 1e+10 FLOPS" gadv.out &&
	grep "^advice: N 1, M 5, segment 1 days: uploads 0.300 GB, wastes 0.00 reference-CPU days, median 0.50 days" gadv.out &&
	"$sim" advise --grid M=1,5 --grid segment=1d cpu.txt >cadv.out &&
	grep "^advice: N 1, M 5, segment 1 days: uploads 0.300 GB, wastes 0.00 reference-CPU days, median 5.00 days" cadv.out
'

test_expect_success 'the GPU keys: bad values are refused naming the line, and they print back' '
	printf "app_versions gpu gpu\n" >bad.txt && ! "$sim" bad.txt 2>err &&
	grep "bad.txt:1: cpu, gpu or both, once each, expected for .app_versions." err &&
	printf "hosts 10\napp_versions tpu\n" >bad.txt && ! "$sim" bad.txt 2>err &&
	grep "bad.txt:2: cpu, gpu or both" err &&
	printf "app_versions\n" >bad.txt && ! "$sim" bad.txt 2>err && grep "no value for .app_versions." err &&
	printf "gpu_share 1.5\n" >bad.txt && ! "$sim" bad.txt 2>err && grep "bad.txt:1: number out of range" err &&
	printf "gpus_per_host 17\n" >bad.txt && ! "$sim" bad.txt 2>err && grep "bad.txt:1: integer out of range" err &&
	printf "max_sequences_per_gpu 17\n" >bad.txt && ! "$sim" bad.txt 2>err && grep "bad.txt:1: integer out of range" err &&
	printf "max_sequences_per_cpu -1\n" >bad.txt && ! "$sim" bad.txt 2>err && grep "bad.txt:1: integer out of range" err &&
	printf "hosts 10000000\ngpu_share 1\nmax_sequences_per_gpu 2\n" >bad.txt && ! "$sim" bad.txt 2>err &&
	grep "more than 2 x 10^7 sequences the hosts may hold" err &&
	"$sim" --print_scenario "$data/gpu.txt" >gp1 && "$sim" --print_scenario gp1 >gp2 && cmp gp1 gp2 &&
	grep "^app_versions gpu$" gp1 && grep "^gpu_share 0.5$" gp1 && grep "^gpu_flops 10000000000$" gp1 &&
	printf "app_versions gpu cpu\n" >both.txt && "$sim" --print_scenario both.txt | grep "^app_versions cpu gpu$"
'

test_expect_success 'a bad scenario is refused naming the line' '
	printf "hosts 10\nsegmnt_days 2\n" >bad.txt &&
	! "$sim" bad.txt 2>err &&
	grep "bad.txt:2: unknown key .segmnt_days." err &&
	! "$sim" --strategy giant,gigantic "$data/no-churn.txt" 2>err &&
	grep "unknown strategy" err
'

test_expect_success "the README's example scenarios read (doc/examples/sim)" '
	for ex in climate trajectory gpu; do
		"$sim" --print_scenario "$WSEQ_SRCDIR/doc/examples/sim/$ex.txt" >ex.$ex || return 1
	done &&
	grep "^state_mb 1000$" ex.climate && grep "^segment_days 0.5$" ex.climate &&
	grep "^state_mb 20$" ex.trajectory && grep "^length_days 60$" ex.trajectory &&
	grep "^app_versions gpu$" ex.gpu && grep "^gpu_share 0.29999999999999999$" ex.gpu
'

# "median p90 waste reloc" of the seq row of wseq_sim's output
seq_figures() {
	awk "\$1 == \"seq\" { print \$4, \$5, \$9, \$11 }"
}

test_expect_success "doc/wseq_sim.md's worked GPU scenario: the figures it prints are the simulator's" '
	ex="$WSEQ_SRCDIR/doc/examples/sim/gpu.txt" doc="$WSEQ_SRCDIR/doc/wseq_sim.md" &&
	"$sim" --strategy seq "$ex" >wg.out &&
	grep -Fx "    $(sed -n 1p wg.out)" "$doc" && grep -Fx "    $(sed -n 2p wg.out)" "$doc" &&
	for run in "gpu 0 7" "cpu 0 7" "cpu gpu 0 7" "cpu gpu 1 7" "cpu gpu 0 0.4" "gpu 0 0.4"; do
		d=${run##* } && run=${run% *} && g=${run##* } && v=${run% *} &&
		sed "s/^app_versions.*/app_versions $v/; s/^segment_deadline_days.*/segment_deadline_days $d/
			s/^max_sequences_per_gpu.*/max_sequences_per_gpu $g/" \
			"$ex" | "$sim" --strategy seq - | seq_figures >fig &&
		read -r med p90 waste reloc <fig &&
		grep -E "^    $v +$g +$d days? +100 +$med +$p90 +$waste +$reloc\$" "$doc" || return 1
	done
'

test_expect_success '--print_scenario writes a scenario that reads back the same' '
	"$sim" --print_scenario "$data/small.txt" >p1 &&
	"$sim" --print_scenario p1 >p2 &&
	cmp p1 p2 && grep "^replicas 2$" p1
'

# ---- state levels (issue 30): a state file a level, each with its period

test_expect_success 'state levels: a scenario without them prints what it printed before levels' '
	"$sim" --csv before.csv "$data/small.txt" >before.out &&
	test_cmp "$data/small.before-levels.out" before.out &&
	test_cmp "$data/small.before-levels.csv" before.csv
'

test_expect_success 'state levels: one level is the state without levels, for every strategy' '
	"$sim" --state_levels 100:7 --csv one.csv "$data/small.txt" >one.out &&
	cut -d, -f1-18 one.csv >one18.csv &&
	test_cmp "$data/small.before-levels.csv" one18.csv &&
	head -1 one.csv | grep ",segment_days,periods,bytes_up_L1$" &&
	grep "^seq,.*,7,1,7,[0-9]*$" one.csv &&
	grep "M 7; state levels 100 MB every 7, horizon 180 days" one.out
'

test_expect_success 'state levels, no churn: each level uploads its uploads x its size, and no more' '
	# 10 components of 5 segments: 10 MB at 4 and the last, 1 MB at 2, 4 and the last
	"$sim" --strategy seq --state_levels 10:4,1:2 --csv nl.csv "$data/no-churn.txt" >nl.out &&
	test "$(col nl.csv seq 1,7,1 20)" = 200000000 &&
	test "$(col nl.csv seq 1,7,1 21)" = 30000000 &&
	test "$(col nl.csv seq 1,7,1 7)" = 230000000 &&
	test "$(col nl.csv seq 1,7,1 19)" = 4/2 &&
	test "$(col nl.csv seq 1,7,1 11)" = 0.000000 &&
	grep "^seq  *10  *0 .*  *0.200  *0.030$" nl.out &&
	# a level with no period of its own is uploaded every M-th segment
	"$sim" --strategy seq --state_levels 10,1:1 --csv nm.csv "$data/no-churn.txt" >nm.out &&
	test "$(col nm.csv seq 1,7,1 19)" = 7/1 &&
	test "$(col nm.csv seq 1,7,1 20)" = 100000000 && test "$(col nm.csv seq 1,7,1 21)" = 50000000
'

test_expect_success 'state levels: a lost host restarts at the finest level, each level at its latest' '
	"$sim" --strategy seq --decision_log lost.log --csv lost.csv "$data/levels-lost.txt" >lost.out &&
	grep -x "seq 1 branch 0 seg 15 host 1 done state 1000000 answer 0" lost.log &&
	grep -x "seq 1 branch 0 seg 17 host 1 done state 0 answer 0" lost.log &&
	grep -x "seq 1 branch 0 seg 18 host 1 late" lost.log &&
	# the restart point is 15 (the increment), not 12 (the full state)
	grep -x "seq 1 relocated branch 1 from 16 states 12,15" lost.log &&
	grep "^seq 1 branch 1 seg 16 host 2 sent at " lost.log &&
	! grep "^seq 1 branch 1 seg 1[3-5] " lost.log &&
	test "$(col lost.csv seq 1,7,1 11)" = 2.500000 &&
	# one level, the full state every 12th: back to 13, 5.5 days lost
	sed "s/^state_levels.*/state_mb 10\nstate_every 12/" "$data/levels-lost.txt" >lost1.txt &&
	"$sim" --strategy seq --decision_log lost1.log --csv lost1.csv lost1.txt >lost1.out &&
	grep -x "seq 1 relocated branch 1 from 13" lost1.log &&
	test "$(col lost1.csv seq 1,12,1 11)" = 5.500000
'

test_expect_success 'state levels: the same seed gives the same output, another seed another' '
	"$sim" --state_levels 100:6,5:2 --csv la.csv "$data/small.txt" >la.out &&
	"$sim" --state_levels 100:6,5:2 --csv lb.csv "$data/small.txt" >lb.out &&
	cmp la.out lb.out && cmp la.csv lb.csv &&
	"$sim" --seed 8 --state_levels 100:6,5:2 --csv lc.csv "$data/small.txt" >lc.out &&
	! cmp -s la.csv lc.csv
'

# does every row of CSV FILE (periods in column C, "a/b") nest?
nested() {
	awk -F, -v c="$2" "NR > 1 { n = split(\$c, p, \"/\")
		for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
			if (p[j] + 0 > p[i] + 0 && p[j] % p[i] != 0) { print \"not nested: \" \$c; bad = 1 } }
		END { exit bad }" "$1"
}

test_expect_success 'advise with state levels sweeps each level and proposes only nested periods' '
	"$sim" advise --state_levels 10:12,1:3 --grid segment=1d --csv la.csv \
		"$data/no-churn.txt" >ladv.out &&
	grep "^wseq_sim advise: .* 30 runs of seq, .*; state levels 10 MB, 1 MB$" ladv.out &&
	# L1 over 1,2,4,8,12,16 and L2 over 1,2,3,4,8,16: the 30 pairs that nest
	test $(wc -l <la.csv) = 31 && nested la.csv 19 &&
	grep "^ *1  *7  *1 12/3 " ladv.out && ! grep "^ *1  *7  *1 \(12/8\|16/3\|8/3\) " ladv.out &&
	sed -n "s/^advice: .*, periods \([0-9/]*\): uploads.*/x,\1/p" ladv.out >pick &&
	test $(wc -l <pick) = 1 && nested pick 2 &&
	# a grid given: what does not nest is left out, and said so
	"$sim" --strategy seq --state_levels 10:12,1:3 --grid L1=6,12 --grid L2=3,4 --csv lg.csv \
		"$data/no-churn.txt" >lg.out &&
	test $(wc -l <lg.csv) = 4 && nested lg.csv 19 &&
	grep "(1 combinations of the grid left out: their state levels. periods do not nest)" lg.out
'

test_expect_success 'state levels: what does not nest or parse is refused, naming the line' '
	printf "hosts 10\nstate_levels 10:12,1:5\n" >bad.txt && ! "$sim" bad.txt 2>err &&
	grep "bad.txt:2: state_levels: the periods 12,5 do not nest" err &&
	printf "state_levels 10,1:3\nstate_every 4\n" >bad.txt && ! "$sim" bad.txt 2>err &&
	grep "bad.txt:1: state_levels: the periods 4,3 do not nest" err &&
	printf "state_levels 10:0\n" >bad.txt && ! "$sim" bad.txt 2>err &&
	grep "bad.txt:1: state_levels: bad level .10:0." err &&
	! "$sim" --state_levels 10:12,1:5 "$data/no-churn.txt" 2>err &&
	grep "state_levels: the periods 12,5 do not nest" err &&
	! "$sim" --state_levels 1:x "$data/no-churn.txt" 2>err && grep "bad level" err &&
	! "$sim" --state_levels 10:4 --grid L2=1 "$data/no-churn.txt" 2>err &&
	grep "grid L2: the scenario has 1 state levels" err &&
	"$sim" --print_scenario --state_levels 10:12,1:3 "$data/no-churn.txt" >lp &&
	grep "^state_levels 10:12,1:3$" lp && "$sim" --print_scenario lp | cmp - lp
'

test_expect_success 'create_sequence --advise with a template of state levels sweeps their periods' '
	cat >lv.xml <<-\EOT &&
	<sequence_template>
	  <level><name>full</name><upload_every>12</upload_every></level>
	  <level><name>delta</name><upload_every>3</upload_every></level>
	  <state><open_name_in>f_in</open_name_in><open_name_out>f_out</open_name_out><level>full</level></state>
	  <state><open_name_in>d_in</open_name_in><open_name_out>d_out</open_name_out><level>delta</level></state>
	  <answer><open_name>answer</open_name></answer>
	</sequence_template>
	EOT
	head -c 10000000 /dev/zero >full.state && head -c 1000000 /dev/zero >delta.state &&
	"$cs" --advise --segments 12 --rsc_fpops_est 8.64e13 --seq_template lv.xml \
		--advise_scenario "$data/no-churn.txt" full.state delta.state >csl.out &&
	grep "^create_sequence --advise: 12 segments .* state 11 MB (the initial state); state levels 10 MB every 12, 1 MB every 3; " csl.out &&
	grep "^wseq_sim advise: .* 120 runs of seq, .*; state levels 10 MB, 1 MB$" csl.out &&
	# its own periods are among the runs, and every run nests
	grep "^yours: N 1, M 1, segment 1 days: uploads 0.140 GB, wastes 0.00 " csl.out &&
	sed -n "s/^ *[0-9][0-9.]*  *[0-9][0-9.]*  *[0-9][0-9.]*  *\([0-9]*\/[0-9]*\) .*/x,\1/p" \
		csl.out >csl.rows && test $(wc -l <csl.rows) = 120 && nested csl.rows 2 &&
	sed -n "s/^and in lv.xml, the state files. <upload_every> (their levels. periods, in order): \([0-9/]*\)$/x,\1/p" \
		csl.out >csl.pick && test $(wc -l <csl.pick) = 1 && nested csl.pick 2 &&
	# the same runs as wseq_sim advise with those levels on the command line
	{ cat "$data/no-churn.txt" && printf "state_every 1\nsegment_deadline_days 2\nlength_days 12\n"; } >ncl.txt &&
	"$sim" advise --state_levels 10:12,1:3 --grid segment=6h,12h,1d,2d ncl.txt >wsl.out &&
	grep "^ *[0-9]" wsl.out >wsl.rows && grep "^ *[0-9]" csl.out >csl.all && test_cmp wsl.rows csl.all &&
	# levels are the template'"'"'s: a count of initial states that does not match, or a scenario'"'"'s levels, refused
	! "$cs" --advise --segments 12 --seq_template lv.xml full.state 2>err &&
	grep "lv.xml has 2 state files, and 1 initial states are given" err &&
	{ cat "$data/no-churn.txt" && echo "state_levels 10:4"; } >ncs.txt &&
	! "$cs" --advise --segments 12 --advise_scenario ncs.txt 2>err &&
	grep "state levels are its template.s (--seq_template, <upload_every>)" err
'

test_expect_success 'state levels: --plot labels the seq points with their periods' '
	PATH=/nonexistent "$sim" --strategy seq --state_levels 10:4,1:2 --grid L1=2,4 \
		--plot lplot "$data/no-churn.txt" >lplot.out 2>lplot.err &&
	grep "title \"seq: L1/L2/... beside a point" lplot/tradeoff.gp &&
	grep ":(strcol(19)) with labels" lplot/tradeoff.gp &&
	cut -d, -f19 lplot/runs.csv | tail -n +2 >lplot.per && printf "2/2\n4/2\n" >lplot.exp &&
	test_cmp lplot.exp lplot.per
'

# ---- a growing level (MB+): MB a segment since the level before it last uploaded

test_expect_success 'a growing level, no churn: bytes are the sizes by hand, x the periods' '
	{ cat "$data/no-churn.txt" && printf "length_days 24\nhorizon_days 400\n"; } >g24.txt &&
	"$sim" --strategy seq --state_levels 1000:12,20+:3 --csv g.csv g24.txt >g.out &&
	grep "state levels 1000 MB every 12, 20 MB a segment every 3," g.out &&
	# 10 sequences: the full at 12 and 24; the increment 60, 120, 180 at 3, 6, 9, 20 at 12, twice
	test "$(col g.csv seq 1,7,1 20)" = $((10 * 2 * 1000 * 1000000)) &&
	test "$(col g.csv seq 1,7,1 21)" = $((10 * 2 * (60 + 120 + 180 + 20) * 1000000)) &&
	test "$(col g.csv seq 1,7,1 7)" = $((10 * (2000 + 760) * 1000000)) &&
	test "$(col g.csv seq 1,7,1 11)" = 0.000000 &&
	# fixed, the same increment is 8 x 20 MB
	"$sim" --strategy seq --state_levels 1000:12,20:3 --csv f.csv g24.txt >f.out &&
	test "$(col f.csv seq 1,7,1 21)" = $((10 * 8 * 20 * 1000000)) &&
	# at most the level before it: 60, 100, 100, 20
	"$sim" --strategy seq --state_levels 100:12,20+:3 --csv c.csv g24.txt >c.out &&
	test "$(col c.csv seq 1,7,1 21)" = $((10 * 2 * (60 + 100 + 100 + 20) * 1000000))
'

test_expect_success 'advise with a growing level proposes only nested periods' '
	"$sim" advise --state_levels 10:12,1+:3 --grid segment=1d --csv lga.csv \
		"$data/no-churn.txt" >lga.out &&
	grep "^wseq_sim advise: .* 30 runs of seq, .*; state levels 10 MB, 1 MB a segment$" lga.out &&
	test $(wc -l <lga.csv) = 31 && nested lga.csv 19 &&
	sed -n "s/^advice: .*, periods \([0-9/]*\): uploads.*/x,\1/p" lga.out >gpick &&
	test $(wc -l <gpick) = 1 && nested gpick 2 &&
	# 5 segments at 12/3: the increment at 3 is 3 MB, at 5 (the last, with the full) 1
	test "$(awk -F, "\$19 == \"12/3\" { print \$21 }" lga.csv)" = $((10 * (3 + 1) * 1000000))
'

test_expect_success 'a growing level: --help says it, what does not parse is refused with the line' '
	"$sim" --help | grep "MB+ (not the first): an increment that grows" &&
	printf "hosts 10\nstate_levels 20+:3,1000:12\n" >bad.txt && ! "$sim" bad.txt 2>err &&
	grep "bad.txt:2: state_levels: the first level cannot grow (+)" err &&
	printf "state_levels 1000:12,20++:3\n" >bad.txt && ! "$sim" bad.txt 2>err &&
	grep "bad.txt:1: state_levels: bad level .20++:3. (MB\[+\]:PERIOD" err &&
	! "$sim" --state_levels 1+:2 "$data/no-churn.txt" 2>err &&
	grep "the first level cannot grow" err &&
	"$sim" --print_scenario --state_levels 10:12,1+:3 "$data/no-churn.txt" >gp &&
	grep "^state_levels 10:12,1+:3$" gp && "$sim" --print_scenario gp | cmp - gp
'

test_done
