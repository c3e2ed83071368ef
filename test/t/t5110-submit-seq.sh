#!/bin/sh
test_description='a sequence app through boinc_gahp and the remote submission RPCs: a job becomes a work sequence, runs on a real BOINC client, moves to another host once, and FETCH_OUTPUT brings its final answer and state back; an aborted sequence job ends and its host is told'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-gahp.sh"

test_sandbox_up sb --no-daemons || exit 1
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
URL="${PROJECT_URL%/}/"
AUTH="$ADMIN_AUTHENTICATOR"
STEPS=300

rpc() {
	curl -sS -F "request=<$2" "$URL$1"
}
req() {
	printf '%s\n' "$1" >req.xml
}
# submit ID BATCH JOB: one BOINC_SUBMIT, the job's initial state init/state_out
submit() {
	r=$(gahp_do $1 "BOINC_SUBMIT $1 $2 wseq_sample 1 $3 5 --state --steps $STEPS --step_ms 10 1 $TRASH_DIRECTORY/init/state_out state_in 1000000000 NULL NULL NULL NULL NULL") &&
	test "$r" = "$1 NULL"
}
# status_of ID BATCH JOB: its status by BOINC_QUERY_BATCHES
status_of() {
	gahp_do $1 "BOINC_QUERY_BATCHES $1 0 1 $2" | sed -n "s|.* $3 \([A-Z_]*\)\( .*\)*$|\1|p"
}

test_expect_success 'setup: the sample app marked as a sequence app (6 segments, states uploaded every 2nd)' '
	test_project bin/start && test_setup_sample_app &&
	uid=$(test_sql_value "select id from user where authenticator=\"$AUTH\"") &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all) values ($uid, 1)" &&
	cat >"$PROJECT_DIR/templates/wseq_sample_seq" <<-EOT &&
	<sequence_app>
	  <segments>6</segments>
	  <state_upload_every>2</state_upload_every>
	  <max_result_time>3600</max_result_time>
	</sequence_app>
	EOT
	mkdir init && (cd init && "$APP" --state --init --words 1024 2>/dev/null)
'

gahp_start || exit 1
gahp_send "BOINC_SELECT_PROJECT $URL $AUTH"

test_expect_success 'a submitted job becomes a work sequence in its batch, UNSENT' '
	submit 2 bq1 Q1 &&
	test "$(test_sql_value "select concat(nsegments, \" \", state_upload_every, \" \", s.batch=b.id) from sequence s join batch b on b.name=\"bq1\" where s.name=\"Q1\"")" = "6 2 1" &&
	test "$(status_of 3 bq1 Q1)" = UNSENT &&
	test "$(test_sql_value "select count(*) from workunit where name=\"Q1\"")" = 0
'

seg_done() { test_seg_done Q1 "$1"; }
three_done_four_running() {
	seg_done 3 && grep -q "Starting task Q1_b0_s4_0" A/client.log
}

# Segment 4 is slow on A (2 s a step), so it is surely still running when
# segment 3 is reported, however busy the machine: A vanishes holding it.
test_expect_success 'client A runs it (IN_PROGRESS) and vanishes after segment 3' '
	mkdir -p A && printf "2000\nQ1_b0_s4\n" >A/wseq_slow &&
	test_boinc_client_up A 7>&- &&
	test_boinc_attach A "$PROJECT_URL" "$AUTH" &&
	test_wait_for 300 three_done_four_running &&
	test "$(status_of 4 bq1 Q1)" = IN_PROGRESS &&
	gahp_do 20 "BOINC_FETCH_OUTPUT 20 Q1 $TRASH_DIRECTORY/early e ALL 0" >early.out &&
	test "$(cat early.out)" = "20 job\ Q1\ is\ not\ done" &&
	pid=$(cat A/client.pid) && test_boinc_client_kill A && test_wait_for 10 test_pid_gone "$pid"
'

q2_running() {
	grep -q "Starting task Q2_b0_s1_0" B/client.log
}
q2_aborted() {
	grep -q "ABORT_PENDING for Q2_b0_s1_0 from request_abort" B/client.log
}

test_expect_success 'a second job runs on client B; aborting it ends the sequence (ERROR) and B is told' '
	submit 5 bq2 Q2 &&
	test_boinc_client_up B 7>&- &&
	test_boinc_attach B "$PROJECT_URL" "$AUTH" &&
	test_wait_for 300 q2_running &&
	test "$(gahp_do 6 "BOINC_ABORT_JOBS 6 Q2")" = "6 NULL" &&
	test "$(status_of 7 bq2 Q2)" = ERROR &&
	test "$(test_sql_value "select error_msg from sequence where name=\"Q2\"")" = "aborted by its submitter" &&
	test_boinc_poll B "$PROJECT_URL" 120 q2_aborted
'

# Moved (branch 1), for good: B may already have taken segments of the new branch,
# so the pointer to the first unsent one is no condition to wait for.
relocated() {
	test "$(test_sql_value "select concat(branch, \" \", nrelocations) from sequence where name=\"Q1\"")" = "1 1"
}
seq_ended() {
	test "$(test_sql_value "select state from sequence where name=\"Q1\"")" = 1
}

test_expect_success 'after the deadline Q1 moves to B and completes there; the job reads DONE' '
	(cd "$PROJECT_DIR" && WSEQ_TIME_OFFSET=100000 bin/transitioner --one_pass) &&
	test_wait_for 120 relocated &&
	test "$(test_sql_value "select min(seqno) from workunit w join sequence s on s.id=w.seq_id where s.name=\"Q1\" and w.branch=1")" = 3 &&
	test_boinc_poll B "$PROJECT_URL" 400 seq_ended &&
	test "$(status_of 8 bq1 Q1)" = DONE &&
	test "$(test_sql_value "select nrelocations from sequence where name=\"Q1\"")" = 1
'

# The sequence ended when its last segment was reported; the validator may
# not have looked at that segment yet (on a busy machine it had not, and the
# job read DONE while FETCH_OUTPUT took it for failed and brought no file).
test_expect_success 'FETCH_OUTPUT brings the final answer and state under their open names; the state equals an uninterrupted run' '
	mkdir out &&
	test_sql "$WSEQ_DB_NAME" -e "update workunit set canonical_resultid=0 where name=\"Q1_b1_s6\"" &&
	gahp_do 9 "BOINC_FETCH_OUTPUT 9 Q1 $TRASH_DIRECTORY/out stderr.txt ALL 0" | grep "^9 NULL 0 " &&
	cmp out/answer "$(find "$PROJECT_DIR/upload" -name Q1_b1_s6_answer)" &&
	rm -rf local && mkdir local && cp init/state_out local/state_in &&
	(cd local && "$APP" --state --steps $((STEPS * 6)) 2>/dev/null) &&
	cmp local/state_out out/state_out &&
	test -s out/stderr.txt &&
	req "<get_templates><authenticator>$AUTH</authenticator><job_name>Q1</job_name></get_templates>" &&
	rpc submit_rpc_handler.php req.xml >tpl.out &&
	grep "<open_name>answer</open_name>" tpl.out && grep "<open_name>state_out</open_name>" tpl.out &&
	r=$(gahp_do 10 "BOINC_FETCH_OUTPUT 10 Q2 $TRASH_DIRECTORY/out e ALL 0") && test "${r#10 NULL}" = "$r" &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "${URL}get_output.php?cmd=workunit_file&auth_str=$AUTH&wu_name=Q2&file_num=0")" = 404 &&
	test_project bin/db_check
'

gahp_close

test_expect_success 'the gahp exits 0 when its stdin closes' '
	gahp_exited
'

test_done
