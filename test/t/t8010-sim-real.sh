#!/bin/sh
test_description='wseq_sim against the real server: the same scripted hosts give the same segments sent, done, late and retired, the same relocations and the same uploaded bytes'
. "$WSEQ_SRCDIR/test/test-lib.sh"

# The scenario (test/simreal/scenario.txt) scripts 20 hosts: when each is on,
# which leave for good. wseq_sim plays it in its own model and writes its
# decisions; test/simreal/replay.py plays it against this sandbox's
# scheduler, upload handler, daemons and MariaDB, one event at a time in
# virtual time (the server's clock shifted to each event's), and the
# decisions are read back from the rows. doc/wseq_sim.md, "Checked against
# the server".
SCEN=$WSEQ_SRCDIR/test/simreal/scenario.txt
REPLAY="python3 -B $WSEQ_SRCDIR/test/simreal/replay.py"
T=$TRASH_DIRECTORY
q() { test_sql_value "$1"; }
scen() { awk -v k="$1" '$1 == k { print $2 }' "$SCEN"; }

test_sandbox_up sb --no-daemons || exit 1
SB=$T/sb
P=$PROJECT_DIR

echo 0 >"$T/clock"
WSEQ_TIME_OFFSET_FILE=$T/clock
export WSEQ_TIME_OFFSET_FILE

# One pass of the daemons a decision needs, at the clock's time.
cat >"$T/daemons.sh" <<-EOT
	#!/bin/sh
	cd "$P" || exit 1
	for d in transitioner validator assimilator relocator transitioner; do
		bin/\$d --one_pass >>"$T/daemons.log" 2>&1 || { echo "\$d failed" >&2; exit 1; }
	done
EOT
chmod 755 "$T/daemons.sh"

# The scenario's sequences as create_sequence makes them: a segment's
# length on the reference host (10^9 FLOPS), max_result_time half the
# deadline (the simulator's rule, create_sequence's default deadline).
SEG_S=$(awk -v d="$(scen segment_days)" 'BEGIN { printf "%d", d * 86400 }')
MRT=$(awk -v d="$(scen segment_deadline_days)" 'BEGIN { printf "%d", d * 86400 / 2 }')
NSEG=$(awk -v l="$(scen length_days)" -v s="$(scen segment_days)" 'BEGIN { n = l / s; printf "%d", n == int(n) ? n : int(n) + 1 }')

create() {
	test_project bin/create_sequence --appname wseq_sample --segments $NSEG \
		--answer_every "$(scen answer_every)" --state_upload_every "$1" \
		--high_water "$(scen high_water)" --max_result_time $MRT \
		--rsc_fpops_est "${SEG_S}e9" --stdin <"$T/work/sequences.stdin" >/dev/null
}

# The real side's decision log, from the rows: results sent, their outcome,
# the uploaded files' sizes, the branches and how the sequences ended.
real_log() {
	q "select s.name, r.name, r.hostid, r.sent_time, r.outcome from result r
		join sequence s on s.id=r.seq_id" >results.tsv &&
	q "select s.name, f.name, f.nbytes from seq_file f join sequence s on s.id=f.seq_id
		where f.uploaded=1 and f.seqno>0" >files.tsv &&
	q "select s.name, s.state, group_concat(concat(w.branch, \":\", w.k))
		from sequence s join (select seq_id, branch, min(seqno) k from workunit
			where seq_id>0 group by seq_id, branch) w on w.seq_id=s.id
		group by s.id" >sequences.tsv &&
	$REPLAY log --hosts "$T/work/hosts.tsv" --results results.tsv --files files.tsv \
		--sequences sequences.tsv >"$1"
}

test_expect_success 'a project with the sample app, the clock offset in the scheduler' '
	echo "SetEnv WSEQ_TIME_OFFSET_FILE $T/clock" >>"$P/wseq.httpd.conf" &&
	apache2 -f "$SB/apache/httpd.conf" -k graceful &&
	test_setup_sample_app &&
	$REPLAY make-work --dir "$T/work" --scenario "$SCEN" &&
	create "$(scen state_every)" &&
	test "$(q "select count(*) from sequence")" = "$(scen sequences)"
'

test_expect_success 'wseq_sim plays the scenario and writes its decisions' '
	"$WSEQ_BUILDDIR/sim/wseq_sim" --strategy seq --decision_log sim.log "$SCEN" >sim.out &&
	sort sim.log >sim.sorted &&
	test_grep "relocated branch 1 from 1" sim.sorted &&
	test_grep "relocated branch 1 from 4" sim.sorted &&
	test_grep " late$" sim.sorted
'

test_expect_success 'the scripted hosts play it against the real server' '
	$REPLAY run --url "$PROJECT_URL" --auth "$ADMIN_AUTHENTICATOR" --dir "$T/work" \
		--scenario "$SCEN" --offset-file "$T/clock" --daemons "$T/daemons.sh" \
		${SIMREAL_VERBOSE:+--verbose} >replay.out 2>replay.err ||
		{ cat replay.out replay.err; false; } &&
	cat replay.out
'

test_expect_success 'the real server decided what the simulator did, segment for segment' '
	real_log real.log &&
	test_cmp sim.sorted real.log
'

# A policy changed on one side only: the simulator told M is 2 while the
# server's sequences keep M 3. Different states are uploaded, relocations
# restart elsewhere: the logs must differ, so the comparison above can fail.
test_expect_success 'a changed policy on one side makes the logs differ' '
	sed "s/^state_every .*/state_every 2/" "$SCEN" >changed.txt &&
	"$WSEQ_BUILDDIR/sim/wseq_sim" --strategy seq --decision_log changed.log changed.txt >/dev/null &&
	sort changed.log >changed.sorted &&
	! test_cmp changed.sorted real.log >changed.diff &&
	test_grep "relocated branch 1 from" changed.diff
'

test_expect_success 'no sanitizer report from the daemons or the CGIs' '
	! grep -l "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:" "$T/daemons.log" "$P"/log/*.log 2>/dev/null &&
	! grep "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:" "$SB/apache/logs/error.log"
'

test_done
