#!/bin/sh
test_description='a sequence app through the remote submission RPCs: a job becomes a work sequence, runs on a real BOINC client, moves to another host once, and its final answer and state come back; an aborted sequence job ends and its host is told'
. "$WSEQ_SRCDIR/test/test-lib.sh"

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
# submit BATCH JOB: a batch with one job whose initial state is init/state_out
submit() {
	md=$(md5sum <init/state_out | cut -c1-32) &&
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>$1</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	b=$(rpc submit_rpc_handler.php req.xml | sed -n "s|.*<batch_id>\([0-9]*\)</batch_id>.*|\1|p") &&
	test -n "$b" &&
	req "<upload_files><authenticator>$AUTH</authenticator><batch_id>$b</batch_id><phys_name>$md</phys_name></upload_files>" &&
	curl -sS -F "request=<req.xml" -F "file_0=@init/state_out" "${URL}job_file.php" >up.out &&
	{ grep "<success/>" up.out || grep "immutability" up.out >/dev/null; } &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_id>$b</batch_id><app_name>wseq_sample</app_name><job_params><rsc_fpops_est>1e9</rsc_fpops_est></job_params><job><name>$2</name><command_line>--state --steps $STEPS --step_ms 10</command_line><input_file><mode>local_staged</mode><source>$md</source></input_file></job></batch></submit_batch>" &&
	rpc submit_rpc_handler.php req.xml | grep "<batch_id>$b</batch_id>"
}
status_of() {   # status_of BATCH JOB
	req "<query_batch2><authenticator>$AUTH</authenticator><min_mod_time>0</min_mod_time><batch_name>$1</batch_name></query_batch2>" &&
	rpc submit_rpc_handler.php req.xml | sed -n "s|.*<job><job_name>$2</job_name><status>\([A-Z_]*\)</status></job>.*|\1|p"
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

test_expect_success 'a submitted job becomes a work sequence in its batch, UNSENT' '
	submit bq1 Q1 &&
	test "$(test_sql_value "select concat(nsegments, \" \", state_upload_every, \" \", s.batch=b.id) from sequence s join batch b on b.name=\"bq1\" where s.name=\"Q1\"")" = "6 2 1" &&
	test "$(status_of bq1 Q1)" = UNSENT &&
	test "$(test_sql_value "select count(*) from workunit where name=\"Q1\"")" = 0
'

seg_done() {
	test "$(test_sql_value "select count(*) from result where name=\"Q1_b0_s$1_0\" and server_state=5 and outcome=1")" = 1
}
three_done_four_running() {
	seg_done 3 && grep -q "Starting task Q1_b0_s4_0" A/client.log
}

test_expect_success 'client A runs it (IN_PROGRESS) and vanishes after segment 3' '
	test_boinc_client_up A &&
	test_boinc_attach A "$PROJECT_URL" "$AUTH" &&
	test_wait_for 300 three_done_four_running &&
	test "$(status_of bq1 Q1)" = IN_PROGRESS &&
	pid=$(cat A/client.pid) && test_boinc_client_kill A && test_wait_for 10 test_pid_gone "$pid"
'

q2_running() {
	grep -q "Starting task Q2_b0_s1_0" B/client.log
}
q2_aborted() {
	grep -q "ABORT_PENDING for Q2_b0_s1_0 from request_abort" B/client.log
}

test_expect_success 'a second job runs on client B; aborting it ends the sequence (ERROR) and B is told' '
	submit bq2 Q2 &&
	test_boinc_client_up B &&
	test_boinc_attach B "$PROJECT_URL" "$AUTH" &&
	test_wait_for 300 q2_running &&
	req "<abort_jobs><authenticator>$AUTH</authenticator><job_name>Q2</job_name></abort_jobs>" &&
	rpc submit_rpc_handler.php req.xml | grep "<success>1</success>" &&
	test "$(status_of bq2 Q2)" = ERROR &&
	test "$(test_sql_value "select error_msg from sequence where name=\"Q2\"")" = "aborted by its submitter" &&
	test_boinc_poll B "$PROJECT_URL" 120 q2_aborted
'

relocated() {
	test "$(test_sql_value "select concat(branch, \" \", first_unsent_seqno) from sequence where name=\"Q1\"")" = "1 3"
}
seq_ended() {
	test "$(test_sql_value "select state from sequence where name=\"Q1\"")" = 1
}

test_expect_success 'after the deadline Q1 moves to B and completes there; the job reads DONE' '
	(cd "$PROJECT_DIR" && WSEQ_TIME_OFFSET=100000 bin/transitioner --one_pass) &&
	test_wait_for 60 relocated &&
	test_boinc_poll B "$PROJECT_URL" 400 seq_ended &&
	test "$(status_of bq1 Q1)" = DONE &&
	test "$(test_sql_value "select nrelocations from sequence where name=\"Q1\"")" = 1
'

test_expect_success 'query_completed_job and get_output give the final answer and state; the state equals an uninterrupted run' '
	req "<query_completed_job><authenticator>$AUTH</authenticator><job_name>Q1</job_name></query_completed_job>" &&
	rpc submit_rpc_handler.php req.xml >done.out &&
	grep "<canonical_resultid>" done.out && grep "<exit_status>0</exit_status>" done.out &&
	req "<get_templates><authenticator>$AUTH</authenticator><job_name>Q1</job_name></get_templates>" &&
	rpc submit_rpc_handler.php req.xml >tpl.out &&
	grep "<open_name>answer</open_name>" tpl.out && grep "<open_name>state_out</open_name>" tpl.out &&
	curl -sS -f -o answer "${URL}get_output.php?cmd=workunit_file&auth_str=$AUTH&wu_name=Q1&file_num=0" &&
	curl -sS -f -o state "${URL}get_output.php?cmd=workunit_file&auth_str=$AUTH&wu_name=Q1&file_num=1" &&
	cmp answer "$(find "$PROJECT_DIR/upload" -name Q1_b1_s6_answer)" &&
	rm -rf local && mkdir local && cp init/state_out local/state_in &&
	(cd local && "$APP" --state --steps $((STEPS * 6)) 2>/dev/null) &&
	cmp local/state_out state &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "${URL}get_output.php?cmd=workunit_file&auth_str=$AUTH&wu_name=Q2&file_num=0")" = 404 &&
	test_project bin/db_check
'

test_done
