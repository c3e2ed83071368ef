#!/bin/sh
test_description='a sequence flagged for relocation whose last segment arrives before the relocator moved it: if the host was only slow, it ends with no relocation left pending; if a segment failed or was late, or the last one came after its deadline, it is moved all the same'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"

seq_row() { test_sql_value "select concat_ws(' ', state, need_relocate, branch, nrelocations) from sequence where name=\"${1:-E}\""; }
# report R ELAPSED: add a successful report of result R to request r
report() {
	sed -i "s|</scheduler_request>|<result><name>$1</name><state>5</state><exit_status>0</exit_status><final_elapsed_time>$2</final_elapsed_time></result>\n</scheduler_request>|" r
}

test_expect_success 'a host gets both segments of a 2-segment sequence' '
	test_setup_sample_app &&
	mkdir init && (cd init && "$APP" --state --init --words 64 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_sample --seq_name E --segments 2 \
		--rsc_fpops_est 1e9 --max_result_time 100 --command_line "--state" \
		"$TRASH_DIRECTORY/init/state_out" >/dev/null &&
	CPID=hE sched_request 0 >r && sched_rpc r reply &&
	A=$(sched_reply_hostid reply) && echo $A >A &&
	test "$(grep -c "^<result>$" reply)" = 2
'

test_expect_success 'segment 1 took longer than max_result_time: the sequence is to be relocated' '
	A=$(cat A) && CPID=hE sched_request $A >r && report E_b0_s1_0 500 && sched_rpc r reply &&
	test "$(seq_row)" = "0 3 0 0"
'

test_expect_success 'segment 2, the last, arrives first: the sequence ends, nothing pending' '
	A=$(cat A) && CPID=hE sched_request $A >r && report E_b0_s2_0 1 && sched_rpc r reply &&
	test "$(seq_row)" = "1 0 0 0" &&
	test_project bin/relocator --one_pass &&
	test "$(seq_row)" = "1 0 0 0" &&
	test_project bin/db_check
'

test_expect_success 'both segments of F miss their deadline: F is to be relocated' '
	test_project bin/create_sequence --appname wseq_sample --seq_name F --segments 2 \
		--rsc_fpops_est 1e9 --max_result_time 100 --command_line "--state" \
		"$TRASH_DIRECTORY/init/state_out" >/dev/null &&
	CPID=hF sched_request 0 >r && sched_rpc r reply &&
	F=$(sched_reply_hostid reply) && echo $F >F &&
	test "$(grep -c "^<result>$" reply)" = 2 &&
	(cd "$PROJECT_DIR" && WSEQ_TIME_OFFSET=100000 bin/transitioner --one_pass) &&
	test "$(test_sql_value "select count(*) from result where name like \"F\\_b0\\_%\" and outcome=4")" = 2 &&
	test "$(seq_row F)" = "0 1 0 0"
'

test_expect_success 'their late reports neither end F nor keep it: the relocator moves it' '
	F=$(cat F) && CPID=hF sched_request $F >r && report F_b0_s1_0 1 && report F_b0_s2_0 1 &&
	sched_rpc r reply &&
	test "$(grep -c "<result_ack>" reply)" = 2 &&
	test "$(test_sql_value "select state = 0 and need_relocate > 0 from sequence where name=\"F\"")" = 1 &&
	test_project bin/relocator --one_pass &&
	test "$(seq_row F)" = "0 0 1 1" &&
	test_project bin/db_check
'

# two_segments NAME: a new host gets both segments of sequence NAME; its id
# goes to file NAME. (No other sequence waits for a host: the relocated ones are cancelled.)
two_segments() {
	test_project bin/cancel_jobs --name "_\_b1\_s1" >/dev/null &&
	test "$(test_sql_value "select count(*) from sequence where state=0 and hostid=0")" = 0 &&
	test_project bin/create_sequence --appname wseq_sample --seq_name $1 --segments 2 \
		--rsc_fpops_est 1e9 --max_result_time 100 --command_line "--state" \
		"$TRASH_DIRECTORY/init/state_out" >/dev/null &&
	CPID=h$1 sched_request 0 >r && sched_rpc r reply &&
	sched_reply_hostid reply >$1 && test -s $1 &&
	test "$(grep -c "<name>$1_b0_s[12]_0</name>" reply)" = 2
}

# The chaos test's race (t9000): segment 1 failed or timed out, and the last
# segment, computed on the same host, comes in before the relocator runs.
# Segment 1 has no output to keep, so the sequence must not end: it moves.
test_expect_success 'segment 1 of G fails: G waits for the relocator' '
	two_segments G &&
	CPID=hG sched_request $(cat G) >r &&
	sed -i "s|</scheduler_request>|<result><name>G_b0_s1_0</name><state>3</state><exit_status>1</exit_status><final_elapsed_time>1</final_elapsed_time></result>\n</scheduler_request>|" r &&
	sched_rpc r reply &&
	test "$(seq_row G)" = "0 2 0 0"
'

test_expect_success 'segment 2 of G succeeds before the relocator runs: G does not end, it moves' '
	CPID=hG sched_request $(cat G) >r && report G_b0_s2_0 1 && sched_rpc r reply &&
	grep -q "<result_ack>" reply &&
	test "$(seq_row G)" = "0 2 0 0" &&
	test_project bin/relocator --one_pass &&
	test "$(seq_row G)" = "0 0 1 1" &&
	test_project bin/db_check
'

test_expect_success 'segment 1 of H misses its deadline, segment 2 not yet: H waits for the relocator' '
	two_segments H &&
	test_sql "$WSEQ_DB_NAME" -e "update result set report_deadline=unix_timestamp()-10 where name=\"H_b0_s1_0\";
		update workunit set transition_time=0 where name=\"H_b0_s1\"" &&
	test_project bin/transitioner --one_pass &&
	test "$(test_sql_value "select outcome from result where name=\"H_b0_s1_0\"")" = 4 &&
	test "$(test_sql_value "select server_state from result where name=\"H_b0_s2_0\"")" = 4 &&
	test "$(seq_row H)" = "0 1 0 0"
'

test_expect_success 'segment 2 of H comes in time before the relocator runs: H does not end, it moves' '
	CPID=hH sched_request $(cat H) >r && report H_b0_s2_0 1 && sched_rpc r reply &&
	grep -q "<result_ack>" reply &&
	test "$(test_sql_value "select state = 0 and need_relocate > 0 from sequence where name=\"H\"")" = 1 &&
	test_project bin/relocator --one_pass &&
	test "$(seq_row H)" = "0 0 1 1" &&
	test_project bin/db_check
'

test_done
