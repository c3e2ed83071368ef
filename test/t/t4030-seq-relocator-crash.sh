#!/bin/sh
test_description='the relocator killed at any point leaves the database whole, and a restart finishes the job'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
N=40    # more than one batch (DB_SEQ_BATCH, 32)
# q1, q2: their state of segment 2 never arrived, they restart from their
# initial states; q3: its initial state is gone as well, it cannot be moved.

test_expect_success "$N sequences that lost their host after segment 3 (state of 2 uploaded but for 3)" '
	test_setup_sample_app &&
	mkdir init && (cd init && "$APP" --state --init --words 64 2>/dev/null) &&
	for i in $(seq 1 $N); do
		test_project bin/create_sequence --appname wseq_sample --seq_name q$i --segments 6 \
			--state_upload_every 2 --rsc_fpops_est 1e9 --command_line "--state --steps 5" \
			"$TRASH_DIRECTORY/init/state_out" >/dev/null || return 1
		path=$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload q${i}_b0_s2_state) &&
		echo "state of q$i after 2" >"$path" || return 1
	done &&
	test_sql "$WSEQ_DB_NAME" -e "
		update sequence set hostid=999, first_unsent_seqno=5, last_state_seqno=2, need_relocate=1;
		update result set server_state=5, outcome=1, hostid=999 where name regexp \"_b0_s[123]_0\$\";
		update result set server_state=4, hostid=999 where name regexp \"_b0_s[4]_0\$\";
		update seq_file set uploaded=1 where name regexp \"_b0_s2_state\$\" and name not regexp \"^q[123]_\";
		delete from seq_file where name=\"q3_b0_s0_state\";
		update workunit set transition_time=unix_timestamp() + 864000;" &&
	test_project bin/db_check
'

test_expect_success 'killed just before each commit: nothing changes, db_check stays clean' '
	for k in 1 2 3; do
		(cd "$PROJECT_DIR" && WSEQ_TEST_RELOCATOR_KILL=1 bin/relocator --one_pass) 2>/dev/null
		test "$(test_sql_value "select count(*) from sequence where need_relocate=1")" = $N || return 1
		test_project bin/db_check >check || { cat check; return 1; }
	done
'

test_expect_success 'killed with -9 at random moments many times: db_check clean every time' '
	for k in $(seq 1 15); do
		(cd "$PROJECT_DIR" && exec bin/relocator --until_idle -d 1 2>>"$TRASH_DIRECTORY/relocator.err") &
		pid=$!
		sleep "0.$(( $(od -An -tu2 -N2 /dev/urandom | tr -d " ") % 30 ))"
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		test_project bin/db_check >check || { cat check; return 1; }
	done
'

test_expect_success 'a restart relocates every sequence exactly once' '
	test_project bin/relocator --until_idle -d 1 2>>relocator.err &&
	test "$(test_sql_value "select count(*) from sequence where need_relocate=0 and branch=1 and hostid=0 and first_unsent_seqno=3 and first_unvalidated_seqno<=3 and nrelocations=1 and state=0")" = $((N - 3)) &&
	test "$(test_sql_value "select count(*) from workunit where branch=1")" = $((N - 1)) &&
	test "$(test_sql_value "select count(*) from workunit where branch=2")" = 0 &&
	test "$(test_sql_value "select count(*) from result r join workunit w on w.id=r.workunitid where w.branch=0 and r.server_state in (1,2,4)")" = 0 &&
	test_sql_value "select xml_doc from workunit where name=\"q7_b1_s3\"" | grep "<name>q7_b0_s2_state</name>" &&
	test_sql_value "select xml_doc from workunit where name=\"q7_b1_s3\"" | grep "download/.*/q7_b0_s2_state</url>" &&
	path=$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path download q7_b0_s2_state) &&
	test "$(cat "$path")" = "state of q7 after 2" &&
	test_project bin/db_check
'

test_expect_success 'without their state of segment 2, q1 and q2 start again from their initial states' '
	test "$(test_sql_value "select count(*) from sequence where name in (\"q1\", \"q2\") and branch=1 and hostid=0 and first_unsent_seqno=1 and first_unvalidated_seqno=1 and nrelocations=1 and state=0 and need_relocate=0")" = 2 &&
	test_sql_value "select xml_doc from workunit where name=\"q2_b1_s1\"" | grep "download/.*/q2_b0_s0_state</url>" &&
	test "$(test_sql_value "select count(*) from workunit where name like \"q2_b1_%\"")" = 1
'

test_expect_success 'q3, with no state at all on the server, ends in error and says why' '
	test "$(test_sql_value "select concat(state, need_relocate, branch, \" \", error_msg) from sequence where name=\"q3\"")" = "200 cannot relocate: 0 initial states on the server, 1 expected" &&
	test "$(test_sql_value "select count(*) from result where seq_id=(select id from sequence where name=\"q3\") and server_state in (1,2,4)")" = 0 &&
	grep "sequence q3: cannot relocate" relocator.err &&
	test_project bin/seq_status q3 >q3 && grep -i "error" q3
'

# The transitioner had put the segments off until their safety net (days):
# the retired ones must be closed now, not then.
test_expect_success 'the dead branch'"'"'s retired segments are the transitioner'"'"'s at once: closed, assimilated as errors' '
	test "$(test_sql_value "select count(*) from workunit where branch=0 and seqno>=4 and transition_time>unix_timestamp()")" = 0 &&
	test "$(test_sql_value "select count(*) from workunit where branch=0 and seqno<4 and transition_time>unix_timestamp()")" = $((N * 3)) &&
	test_project bin/transitioner --one_pass -d 1 &&
	test "$(test_sql_value "select count(*) from workunit where name regexp \"^q[0-9]+_b0_s[456]\$\" and error_mask>0 and assimilate_state=1")" = $((N * 3)) &&
	test_project bin/db_check
'

test_done
