#!/bin/sh
test_description='a sequence whose host vanishes after 5 segments moves to another host from the last uploaded state'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
STEPS=300

test_expect_success 'a 12-segment sequence, states uploaded every 4th' '
	test_project bin/start && test_setup_sample_app &&
	test_project bin/status | grep relocator &&
	mkdir init && (cd init && "$APP" --state --init --words 1024 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_sample --seq_name R --segments 12 \
		--answer_every 1 --state_upload_every 4 --rsc_fpops_est 1e9 --max_result_time 3600 \
		--command_line "--state --steps $STEPS --step_ms 10" "$TRASH_DIRECTORY/init/state_out"
'

seg_done() { test_seg_done R "$1"; }

# Killed once segment 5 is reported and segment 6 is running on it, so A
# comes back later with a segment the server has retired. Segment 6 is made
# slow on A from the start (2 s a step: 10 minutes), so it is surely still
# running when segment 5 is reported, however busy the machine.
five_done_six_running() {
	seg_done 5 && grep -q "Starting task R_b0_s6_0" A/client.log
}

test_expect_success 'client A runs 5 segments and vanishes' '
	mkdir -p A && printf "2000\nR_b0_s6\n" >A/wseq_slow &&
	test_boinc_client_up A &&
	test_boinc_attach A "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_wait_for 300 five_done_six_running &&
	pid=$(cat A/client.pid) &&
	test_boinc_client_kill A &&
	test_wait_for 10 test_pid_gone "$pid" &&
	test "$(test_sql_value "select last_state_seqno from sequence where name=\"R\"")" = 4 &&
	test "$(test_sql_value "select count(*) from result where name like \"R_b0_s%\" and server_state=4")" -ge 1
'

relocated() {
	test "$(test_sql_value "select concat(branch, \" \", hostid, \" \", first_unsent_seqno) from sequence where name=\"R\"")" = "1 0 5"
}

test_expect_success 'after the deadline the relocator makes branch 1 from segment 5' '
	(cd "$PROJECT_DIR" && WSEQ_TIME_OFFSET=100000 bin/transitioner --one_pass) &&
	test_wait_for 60 relocated &&
	test "$(test_sql_value "select count(*) from workunit where name like \"R_b1_s%\"")" = 1 &&
	test_sql_value "select xml_doc from workunit where name=\"R_b1_s5\"" | grep "<name>R_b0_s4_state</name>" &&
	test_sql_value "select xml_doc from workunit where name=\"R_b1_s5\"" | grep "download" &&
	test "$(test_sql_value "select count(*) from result r join workunit w on w.id=r.workunitid where w.name like \"R_b0_s%\" and r.server_state in (1,2,4)")" = 0 &&
	test_project bin/db_check
'

seq_ended() {
	test "$(test_sql_value "select state from sequence where name=\"R\"")" = 1
}

test_expect_success 'client B takes it over and completes it' '
	test_boinc_client_up B &&
	test_boinc_attach B "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_wait_for 300 seq_ended &&
	a=$(test_sql_value "select hostid from result where name=\"R_b0_s1_0\"") &&
	test "$(test_sql_value "select count(*) from result where name like \"R_b1_s%\" and outcome=1 and hostid<>$a")" = 8
'

test_expect_success 'the final state equals the uninterrupted run; the dead branch is kept' '
	rm -rf local && mkdir local && cp init/state_out local/state_in &&
	(cd local && "$APP" --state --steps $((STEPS * 12)) 2>/dev/null) &&
	cmp local/state_out "$(find "$PROJECT_DIR/upload" -name R_b1_s12_state)" &&
	test_project bin/seq_status R >detail &&
	test_grep "branch 0 (dead from segment 5):" detail && test_grep "branch 1 (live):" detail &&
	test_grep "relocations 1" detail &&
	test_project bin/db_check
'

# A is back: each RPC (forced) must end with its old segments aborted and its
# sticky states of branch 0 deleted. The sample app is made slow on A first,
# so its old segment cannot finish before the server has seen it.
a_cleaned() {
	! ls A/projects/*/ | grep -q "^R_b0_s.*_state$" &&
	grep -q "ABORT_PENDING for R_b0_s6_0 from request_abort" A/client.log
}

test_expect_success 'when A comes back its old segments are aborted and its state files deleted' '
	ls A/projects/*/ | grep "^R_b0_s.*_state$" &&
	wseq_client up "$TRASH_DIRECTORY/A" &&
	test_boinc_poll A "$PROJECT_URL" 180 a_cleaned &&
	test_grep "Got server request to delete file R_b0_s4_state" A/client.log &&
	test_project bin/db_check
'

test_done
