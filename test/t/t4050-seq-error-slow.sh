#!/bin/sh
test_description='a sequence moves to another host when its host is too slow for max_result_time, and when it returns an erroneous segment'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
STEPS=300

# Same computation as the sequence: the state after $1 segments from init/.
local_run() {
	rm -rf local && mkdir local && cp init/state_out local/state_in &&
	(cd local && "$APP" --state --steps $((STEPS * $1)) 2>/dev/null)
}

seq_is() {
	test "$(test_sql_value "select concat(state, \" \", branch) from sequence where name=\"$1\"")" = "$2"
}

test_expect_success 'client A is slow: 110 ms a step, 33 s a segment' '
	test_project bin/start && test_setup_sample_app &&
	mkdir init && (cd init && "$APP" --state --init --words 1024 2>/dev/null) &&
	mkdir A && echo 100 >A/wseq_slow &&
	test_boinc_client_up A && test_boinc_attach A "$PROJECT_URL" "$ADMIN_AUTHENTICATOR"
'

test_expect_success 'a sequence whose segment took longer than max_result_time is relocated' '
	test_project bin/create_sequence --appname wseq_sample --seq_name F --segments 4 \
		--answer_every 1 --state_upload_every 2 --rsc_fpops_est 1e9 --max_result_time 12 \
		--delay_bound 3600 --command_line "--state --steps $STEPS --step_ms 10" \
		"$TRASH_DIRECTORY/init/state_out" &&
	test_wait_for 200 seq_is F "0 1" &&
	grep "sequence F: segment 1 took [0-9]* s on host .*max_result_time 12 s" \
		"$PROJECT_DIR"/log/scheduler.log &&
	test "$(test_sql_value "select outcome from result where name=\"F_b0_s1_0\"")" = 1 &&
	test "$(test_sql_value "select hostid from sequence where name=\"F\"")" = 0
'

# rpcs_since HOST N: the host made a scheduler RPC since its rpc_seqno was N
rpcs_since() {
	test "$(test_sql_value "select rpc_seqno from host where id=$1")" -gt "$2"
}

test_expect_success 'the slow host does not get it back; client B does and completes it' '
	a=$(test_sql_value "select hostid from result where name=\"F_b0_s1_0\"") &&
	n=$(test_sql_value "select rpc_seqno from host where id=$a") &&
	test_boinc_update A "$PROJECT_URL" &&
	test_wait_for 120 rpcs_since "$a" "$n" &&
	test "$(test_sql_value "select hostid from sequence where name=\"F\"")" = 0 &&
	test_boinc_client_up B && test_boinc_attach B "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_boinc_poll B "$PROJECT_URL" 200 seq_is F "1 1" &&
	a=$(test_sql_value "select hostid from result where name=\"F_b0_s1_0\"") &&
	test "$(test_sql_value "select count(*) from result where name like \"F_b1_s%\" and outcome=1 and hostid<>$a")" = 4 &&
	local_run 4 && cmp local/state_out "$(find "$PROJECT_DIR/upload" -name F_b1_s4_state)" &&
	test_project bin/db_check
'

# A client that asked for work and got none waits (backs off) before it asks
# again; both are made to ask every few seconds, so the relocated sequence
# does not wait for that.

test_expect_success 'a segment that fails on its host: relocated from the last uploaded state' '
	rm A/wseq_slow &&
	echo E_b0_s3 >A/wseq_fail && echo E_b0_s3 >B/wseq_fail &&
	test_project bin/create_sequence --appname wseq_sample --seq_name E --segments 5 \
		--answer_every 1 --state_upload_every 2 --rsc_fpops_est 1e9 --max_result_time 3600 \
		--command_line "--state --steps $STEPS --step_ms 10" "$TRASH_DIRECTORY/init/state_out" &&
	test_boinc_poll "A B" "$PROJECT_URL" 300 seq_is E "1 1" &&
	test "$(test_sql_value "select outcome from result where name=\"E_b0_s3_0\"")" = 3 &&
	grep "sequence E: segment 3 failed on host" "$PROJECT_DIR"/log/scheduler.log &&
	test_sql_value "select xml_doc from workunit where name=\"E_b1_s3\"" | grep "<name>E_b0_s2_state</name>" &&
	bad=$(test_sql_value "select hostid from result where name=\"E_b0_s3_0\"") &&
	test "$(test_sql_value "select count(*) from result where name like \"E_b1_s%\" and outcome=1 and hostid<>$bad")" = 3 &&
	local_run 5 && cmp local/state_out "$(find "$PROJECT_DIR/upload" -name E_b1_s5_state)" &&
	test_project bin/db_check
'

test_done
