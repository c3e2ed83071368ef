#!/bin/sh
test_description='a work sequence of 12 segments runs on one real BOINC client, keeping its state there'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
STEPS=500

test_expect_success 'create_sequence makes the head, 12 segments and stages the initial state' '
	test_project bin/start && test_setup_sample_app &&
	(cd "$TRASH_DIRECTORY" && mkdir init && cd init && "$APP" --state --init --words 4096 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_sample --seq_name clim --segments 12 \
		--answer_every 1 --state_upload_every 4 --rsc_fpops_est 1e9 --max_result_time 3600 \
		--command_line "--state --steps $STEPS" "$TRASH_DIRECTORY/init/state_out" &&
	test "$(test_sql_value "select count(*) from workunit where seq_id>0 and branch=0")" = 12 &&
	test "$(test_sql_value "select count(*) from result where server_state=1")" = 12 &&
	test "$(test_sql_value "select concat(nsegments, \" \", first_unsent_seqno, \" \", hostid, \" \", state) from sequence")" = "12 1 0 0"
'

test_expect_success 'the transitioner makes no results for segments' '
	test_project bin/transitioner --one_pass &&
	test "$(test_sql_value "select count(*) from result")" = 12
'

# Ended (the scheduler took the last report) and every segment validated:
# the validator passes the last one after the sequence has ended.
seq_ended() {
	test "$(test_sql_value "select concat(state, \" \", first_unvalidated_seqno) from sequence where name=\"clim\"")" = "1 13"
}

test_expect_success 'one client runs the whole sequence' '
	test_boinc_client_up cA &&
	test_boinc_attach cA "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_wait_for 300 seq_ended || {
		test_sql "$WSEQ_DB_NAME" -e "select name, server_state, outcome, hostid from result; select * from sequence\G" >&2
		grep -i "error\|abort" cA/client.log | tail >&2
		return 1
	}
'

test_expect_success 'every segment ran on the same host' '
	test "$(test_sql_value "select count(distinct hostid) from result where seq_id>0")" = 1 &&
	test "$(test_sql_value "select count(*) from result where seq_id>0 and outcome=1")" = 12
'

# The states of 4 and 8 were received, then deleted by the file deleter as
# superseded once the state of 12 was on the server (doc/create_sequence.md).
one_state_left() {
	test "$(find "$PROJECT_DIR/upload" -name "clim_b0_s*_state" | wc -l)" = 1
}
test_expect_success 'the server received exactly 12 answers and 3 states, and keeps the last state' '
	find "$PROJECT_DIR/upload" -name "clim_b0_s*_answer" >answers &&
	test_line_count = 12 answers &&
	test "$(test_sql_value "select group_concat(seqno order by seqno) from seq_file where name like \"clim_b0_s%_state\" and seqno>0 and upload_time>0")" = "4,8,12" &&
	test_wait_for 60 one_state_left &&
	find "$PROJECT_DIR/upload" -name "clim_b0_s*_state" >states &&
	grep "_s12_state$" states
'

test_expect_success 'the final state equals one uninterrupted local run' '
	rm -rf local && mkdir local && cp init/state_out local/state_in &&
	(cd local && "$APP" --state --steps $((STEPS * 12)) 2>/dev/null) &&
	cmp local/state_out "$(grep "_s12_state$" states)"
'

test_expect_success 'seq_status shows the sequence done, on one host, with its uploads' '
	test_project bin/seq_status --all >status &&
	test_grep "^clim  *ended  *[0-9][0-9]*  *12/12  *12  *0  *12  *12 " status &&
	test_project bin/seq_status clim >detail &&
	test_grep "branch 0 (live):" detail &&
	test "$(grep -c "clim_b0_s[0-9]*  *over .* outcome 1 exit 0" detail)" = 12 &&
	test_must_fail test_project bin/seq_status nosuch 2>err && test_grep "no sequence named" err
'

no_sticky_states() {
	! ls cA/projects/*/ | grep -q "clim_b0_s.*_state" &&
	grep -q "Got server request to delete file clim_b0_s12_state" cA/client.log
}

test_expect_success 'the host is told to delete the sequence'"'"'s sticky files' '
	test_boinc_poll cA "$PROJECT_URL" 120 no_sticky_states
'

# flops_avg is a moving average of the segments' speeds: between the slowest and the fastest
hav_segments_valid() {
	test "$(test_sql_value "select n_valid from host_app_version where host_id=$h")" = 12
}

test_expect_success 'the host'"'"'s record of the version counts its 12 segments and their verdicts' '
	h=$(test_sql_value "select distinct hostid from result where seq_id>0") &&
	av=$(test_sql_value "select distinct app_version_id from result where seq_id>0") &&
	test "$(test_sql_value "select app_version_id, n_jobs from host_app_version where host_id=$h")" = "$av	12" &&
	test "$(test_sql_value "select count(*) from host_app_version h,
		(select min(1e9/elapsed_time) lo, max(1e9/elapsed_time) hi from result
		where seq_id>0 and elapsed_time>0) r
		where h.host_id=$h and h.flops_avg between r.lo*0.999 and r.hi*1.001")" = 1 &&
	test_wait_for 120 hav_segments_valid &&
	test "$(test_sql_value "select n_invalid, consecutive_valid from host_app_version where host_id=$h")" = "0	12"
'

test_expect_success 'db_check: the database is whole' '
	test_project bin/db_check
'

test_done
