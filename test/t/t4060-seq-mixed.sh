#!/bin/sh
test_description='a project with both ordinary jobs and a work sequence serves both to one real client'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
NJOBS=6

# The segments are estimated at about 5,000 s each, more than the client asks
# for at once: without sequence_share the reply that carries them has room
# for nothing else.
test_expect_success 'a sequence of big segments and 6 ordinary jobs' '
	test_project bin/start && test_setup_sample_app &&
	mkdir init && (cd init && "$APP" --state --init --words 1024 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_sample --seq_name S --segments 4 \
		--answer_every 1 --state_upload_every 2 --rsc_fpops_est 2e13 --rsc_fpops_bound 1e16 \
		--max_result_time 100000 --command_line "--state --steps 200 --step_ms 10" \
		"$TRASH_DIRECTORY/init/state_out" &&
	for i in $(seq 1 $NJOBS); do
		echo "job $i" >in_$i && echo "--wu_name job_$i $TRASH_DIRECTORY/in_$i" || return 1
	done >jobs &&
	test_project bin/create_work --appname wseq_sample --min_quorum 1 --target_nresults 1 \
		--rsc_fpops_est 1e12 --stdin <jobs
'

both_done() {
	test "$(test_sql_value "select state from sequence where name=\"S\"")" = 1 &&
	test "$(test_sql_value "select count(*) from workunit where name like \"job_%\" and assimilate_state=2")" = $NJOBS
}

test_expect_success 'one client runs both to the end' '
	test_boinc_client_up A && test_boinc_attach A "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_wait_for 300 both_done || {
		test_sql "$WSEQ_DB_NAME" -e "select name, server_state, outcome, hostid from result" >&2
		return 1
	}
'

# The RPC's lines: those of its process from "assigned sequence S" to the
# "sent N jobs" that ends it (a FastCGI process logs request after request).
test_expect_success 'the reply that gave the sequence carried ordinary jobs too' '
	awk "/scheduler\[[0-9]*\] info: host [0-9]*: assigned sequence S\$/ { split(\$0, a, /scheduler\[|\]/); pid = a[2] }
	     pid != \"\" && index(\$0, \"scheduler[\" pid \"]\") { print; if (/: sent [0-9]* jobs/) exit }" \
		"$PROJECT_DIR/log/scheduler.log" >rpc.log &&
	test_grep "sequence S segment 2 sent" rpc.log &&
	n=$(sed -n "s/.*: sent \([0-9]*\) jobs.*/\1/p" rpc.log) &&
	test "$n" -gt 2
'

test_expect_success 'the sequence stayed on its host; db_check is clean' '
	test "$(test_sql_value "select count(distinct hostid) from result where seq_id>0 and outcome=1")" = 1 &&
	test_project bin/db_check
'

test_done
