#!/bin/bash
# Benchmark of the relocator: the time `relocator --until_idle` takes to
# move the sequences whose host missed a segment's deadline, with many other
# sequences in the database. It starts a private sandbox (no daemons), makes
# a few real sequences that lost their host after segment 3 with the state
# of segment 2 uploaded (as test/t/t4030-seq-relocator-crash.sh does),
# copies them in SQL, and times three runs: M misses among a smaller
# database, M misses among the full one, and a few misses among the full
# one -- so the figures show whether the cost follows the misses or the
# sequences. After each run it checks (untimed) that every relocated
# sequence has its new branch; at the end it runs db_check. A benchmark,
# not a test: it prints figures and fails only when something goes wrong.
# See doc/bench.md.
set -u

prog=relocator.sh
usage() {
	cat <<EOT
usage: $prog [options]
  -q N          sequences in the database for the main run (default: 100000)
  -m N          sequences that need relocation in the main run (default: 10000)
  -Q N          sequences in the database for a first run with -m misses
                (default: 20000; 0: skip)
  -f N          misses in a last run among -q sequences (default: 1000; 0: skip)
  -b N          the relocator's --batch (default: its own, 100)
  -P N          N relocator instances at once (--mod N i), as a project with
                several cores would run them (default: 1)
  -s SQL        run SQL once the real sequences exist, before the copies and
                the runs (to try an index or a setting)
  -d DIR        sandbox directory (default: \$WSEQ_BUILDDIR/test/trash.bench-relocator)
  -k            keep the sandbox running at the end (stop it with wseq_sandbox down DIR/sb)
  -h            this text
environment: WSEQ_BUILDDIR, the build to measure (default: _build_bench if it
exists, else _build); WSEQ_SRCDIR, the source tree (default: this script's).
EOT
}

NSEQ=100000 MISS=10000 NSMALL=20000 FEW=1000 BATCH= PAR=1 DIR= KEEP=0 EXTRA_SQL=
while getopts q:m:Q:f:b:P:s:d:kh opt; do
	case $opt in
	q) NSEQ=$OPTARG ;; m) MISS=$OPTARG ;; Q) NSMALL=$OPTARG ;; f) FEW=$OPTARG ;;
	b) BATCH=$OPTARG ;; P) PAR=$OPTARG ;; s) EXTRA_SQL=$OPTARG ;; d) DIR=$OPTARG ;; k) KEEP=1 ;;
	h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
	esac
done

. "$(dirname "$0")/bench-lib.sh"
NREAL=4         # real sequences, the templates of the copies
[ "$MISS" -ge 1 ] || die "-m must be at least 1"
[ "$NSMALL" = 0 ] || [ "$NSMALL" -ge $((MISS + NREAL)) ] || die "-Q $NSMALL is too few for -m $MISS"
[ "$NSMALL" = 0 ] || [ "$NSMALL" -le "$NSEQ" ] || die "-Q $NSMALL is larger than -q $NSEQ"
# Every run relocates sequences that were never relocated.
need=$((MISS + FEW + (NSMALL > 0 ? MISS : 0) + NREAL))
[ "$NSEQ" -ge "$need" ] || die "-q $NSEQ is too few for the misses of all runs ($need)"
bench_init relocator
[ -x "$WSEQ_LIBEXECDIR/relocator" ] || die "$WSEQ_BUILDDIR has no relocator (run make there)"
bench_sandbox_up

# --- the project: NREAL real sequences, then copies ------------------------------

# As in t4030: 6 segments, the state uploaded every 2nd; the host (999)
# finished segments 1-3 (the state of 2 is on the server) and has 4.
real_sequences() {
	local i

	mkdir -p "$WORK/init" && (cd "$WORK/init" &&
		"$WSEQ_LIBEXECDIR/apps/wseq_sample" --state --init --words 64) || return 1
	for i in $(seq 1 $NREAL); do
		(cd "$PROJECT_DIR" && bin/create_sequence --appname wseq_sample --seq_name rs$i --segments 6 \
			--state_upload_every 2 --rsc_fpops_est 1e9 --command_line "--state --steps 5" \
			"$WORK/init/state_out") || return 1
	done
	sql -e "
		update sequence set hostid=999, first_unsent_seqno=5, last_state_seqno=2, assign_time=unix_timestamp();
		update result set server_state=5, outcome=1, hostid=999, sent_time=unix_timestamp() - 7200,
			received_time=unix_timestamp() - 3600 where name regexp '_b0_s[123]_0\$';
		update result set server_state=4, hostid=999, sent_time=unix_timestamp() - 3600,
			report_deadline=unix_timestamp() + 86400 where name regexp '_b0_s4_0\$';
		update seq_file set uploaded=1, upload_time=unix_timestamp() - 3600 where name regexp '_b0_s2_state\$';"
}

# The fan-out directory of a file name in SQL: BOINC's rule (lib/dirhier.c),
# checked against the initial state create_sequence staged.
FANOUT=
hier_dir_sql() {
	echo "lower(hex(conv(substr(md5($1), 2, 7), 16, 10) % $FANOUT))"
}
find_fanout() {
	local d
	FANOUT=$(cd "$PROJECT_DIR" && bin/wseq_config | sed -n 's/^ *uldl_dir_fanout[ =:]*\([0-9]*\).*/\1/p')
	[ -n "$FANOUT" ] || FANOUT=1024
	d=$(sql -e "select $(hier_dir_sql "'rs1_b0_s0_state'")")
	[ -f "$PROJECT_DIR/download/$d/rs1_b0_s0_state" ] ||
		{ echo "the fan-out directory computed in SQL ($d, fan-out $FANOUT) is not create_sequence's" >&2; return 1; }
}

# Copies of the real sequences until there are $1 sequences, each
# assigned to one of 5000 made-up hosts.
grow() {
	bench_copy_sequences rs $(($1 - NREAL)) '1000 + x.n % 5000'
}

# $1 copies never relocated, spread over the table, miss the deadline of
# segment 4: the transitioner's doing (its result over with no reply, the
# sequence flagged as db_sequence_flag_relocate does). Their uploaded
# state of segment 2 is put in upload/, as the upload handler would have.
flag_misses() {
	local up=$PROJECT_DIR/upload
	sql -e "
		update sequence set need_relocate=1 where state=0 and need_relocate=0 and branch=0
			and name like '%\\_c%' order by crc32(id) limit $1;
		update result r join sequence s on s.id = r.seq_id
			set r.server_state=5, r.outcome=4, r.report_deadline=unix_timestamp() - 60
			where s.need_relocate=1 and r.server_state=4;" || return 1
	sql -e "select $(hier_dir_sql f.name), f.name from seq_file f join sequence s on s.id = f.seq_id
		where s.need_relocate=1 and f.seqno=2 and f.kind=1 and f.uploaded=1" >"$WORK/states" || return 1
	cut -f1 "$WORK/states" | sort -u | (cd "$up" && xargs mkdir -p) || return 1
	while IFS=$'\t' read -r d name; do
		printf 'state of %s\n' "$name" >"$up/$d/$name" || return 1
	done <"$WORK/states"
	[ "$(wc -l <"$WORK/states")" = "$1" ] ||
		{ echo "$(wc -l <"$WORK/states") uploaded states for $1 misses" >&2; return 1; }
}

# --- a run -------------------------------------------------------------------

RUNS=()
RELOCATED=0
# relocators LOG: PAR instances (--mod PAR i) until idle; fails if one fails.
relocators() {
	local p pids=() rc=0
	for ((p = 0; p < PAR; p++)); do
		(cd "$PROJECT_DIR" && exec bin/relocator --until_idle ${BATCH:+--batch $BATCH} \
			$( ((PAR > 1)) && echo "--mod $PAR $p")) 2>"$1${p/#0/}" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || rc=$?; done
	return $rc
}
# run LABEL MISSES: time the relocator until it is idle, then check.
run() {
	local label=$1 misses=$2 k=${#RUNS[@]} log t0 t1 db0 db1 rc nseq secs cpu dbcpu per bad=
	log=$WORK/relocator.$k.log
	nseq=$(sql -e "select count(*) from sequence")
	say "run $((k + 1)): $misses misses among $nseq sequences"
	bench_settle
	TIMEFORMAT='%U %S'
	db0=$(bench_db_cpu)
	t0=$EPOCHREALTIME
	{ time relocators "$log"; } 2>"$WORK/cpu.$k"
	rc=$?
	t1=$EPOCHREALTIME
	db1=$(bench_db_cpu)
	[ $rc = 0 ] || { tail -n 5 "$log" >&2; die "the relocator failed (status $rc; log in $log)"; }
	RELOCATED=$((RELOCATED + misses))

	# Untimed checks: every flagged sequence on branch 1 from segment 3 (the
	# state of 2 is the input of its new segment 3), with its first new segment,
	# its state published for download, nothing of its old branch live.
	local left moved wus inact live files
	read -r left moved <<<"$(sql -e "select sum(need_relocate > 0), sum(branch = 1 and nrelocations = 1
		and hostid = 0 and first_unsent_seqno = 3 and need_relocate = 0) from sequence")"
	wus=$(sql -e "select count(*) from workunit where branch=1")
	inact=$(sql -e "select count(*) from result r join workunit w on w.id = r.workunitid
		where w.branch = 1 and r.server_state = 1")
	live=$(sql -e "select count(*) from sequence s join result r on r.seq_id = s.id
		join workunit w on w.id = r.workunitid
		where s.branch = 1 and w.branch = 0 and r.server_state in (1, 2, 4)")
	files=$(find "$PROJECT_DIR/download" -name '*_b0_s2_state' | wc -l)
	[ "$left" = 0 ] || bad="$bad; $left still flagged"
	[ "$moved" = "$RELOCATED" ] || bad="$bad; $moved relocated sequences, not $RELOCATED"
	[ "$wus" = $RELOCATED ] || bad="$bad; $wus branch-1 segments, not $RELOCATED"
	[ "$inact" = $RELOCATED ] || bad="$bad; $inact inactive branch-1 results, not $RELOCATED"
	[ "$live" = 0 ] || bad="$bad; $live live results on dead branches"
	[ "$files" = "$RELOCATED" ] || bad="$bad; $files states published, not $RELOCATED"
	[ -z "$bad" ] || die "run $((k + 1)) went wrong: ${bad#; } (log in $log)"

	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	per=$(awk -v s="$secs" -v n="$misses" 'BEGIN { printf "%.2f", s * 1000 / n }')
	cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$WORK/cpu.$k")
	dbcpu=$(awk -v a="$db0" -v b="$db1" 'BEGIN { printf "%.2f", b - a }')
	RUNS+=("$(printf '%-9s %9s %8s %9s %9s %10s %10s' "$label" "$nseq" "$misses" "$secs" "$per" "$cpu" "$dbcpu")")
}

# --- runs ------------------------------------------------------------------------

t0=$EPOCHREALTIME
say "registering the sample app, making $NREAL real sequences"
{ bench_setup_app && real_sequences && find_fanout; } >"$DIR/setup.log" 2>&1 ||
	{ cat "$DIR/setup.log" >&2; die "setup failed"; }
if [ -n "$EXTRA_SQL" ]; then
	say "running: $EXTRA_SQL"
	sql -e "$EXTRA_SQL" || die "the SQL of -s failed"
fi
if [ "$NSMALL" -gt 0 ]; then
	say "copying them up to $NSMALL sequences"
	grow "$NSMALL" >>"$DIR/setup.log" 2>&1 && flag_misses "$MISS" >>"$DIR/setup.log" 2>&1 ||
		{ cat "$DIR/setup.log" >&2; die "setup failed"; }
	run small "$MISS"
fi
say "copying them up to $NSEQ sequences"
grow "$NSEQ" >>"$DIR/setup.log" 2>&1 && flag_misses "$MISS" >>"$DIR/setup.log" 2>&1 ||
	{ cat "$DIR/setup.log" >&2; die "setup failed"; }
run main "$MISS"
if [ "$FEW" -gt 0 ]; then
	flag_misses "$FEW" >>"$DIR/setup.log" 2>&1 || { cat "$DIR/setup.log" >&2; die "setup failed"; }
	run few "$FEW"
fi

say "db_check over every sequence"
tc=$EPOCHREALTIME
(cd "$PROJECT_DIR" && bin/db_check) >"$WORK/db_check.out" 2>&1
check_rc=$?
check_secs=$(seconds_since "$tc")
total_secs=$(seconds_since "$t0")

# --- figures -----------------------------------------------------------------------

cat <<EOT

relocator benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), source at commit $commit
machine:   $(bench_machine)
build:     $WSEQ_BUILDDIR: $build
database:  $(sql -e "select count(*) from sequence") sequences (6 segments, state uploaded every 2nd; copies
           of $NREAL made with create_sequence), $(sql -e "select count(*) from workunit") workunits, $(sql -e "select count(*) from result") results, $(sql -e "select count(*) from seq_file") seq_file rows
${EXTRA_SQL:+extra SQL: $EXTRA_SQL
}a miss:    the host had segments 1-3 done (state of 2 uploaded) and missed segment 4's deadline;
           relocation makes branch 1 from segment 3: its first workunit, result, 2 seq_file rows
           (the scheduler makes segments 4-6 when they are due)
relocator: --until_idle${BATCH:+ --batch $BATCH}, batches of up to 32 sequences a transaction, $PAR instance(s)

run        sequences   misses   seconds  ms/reloc  CPU reloc  CPU MariaDB (s)
EOT
printf '%s\n' "${RUNS[@]}"
echo
echo "every relocated sequence on branch 1 with its first new segment: checked after each run"
echo "$(tail -n 1 "$WORK/db_check.out") (exit $check_rc, ${check_secs} s)"
echo "whole benchmark: ${total_secs} s"
if [ $check_rc != 0 ]; then
	head -n 10 "$WORK/db_check.out" | sed 's/^/  /'
	exit 1
fi
exit 0
