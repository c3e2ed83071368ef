#!/bin/bash
test_description='resend_lost_results: a job the client no longer lists is sent again, or given up when too late; a lost segment relocates its sequence; off by default'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"

q() { test_sql_value "$1"; }
# req HOSTID CPID [JOBS]: a one-CPU host's request for REQ seconds of work
# (default 2); with a third argument (even empty) the client lists JOBS as
# all it has in <other_results>.
req() {
	local other=
	if [ $# -ge 3 ]; then
		other="<other_results>$(for n in $3; do printf "<other_result><name>%s</name></other_result>" "$n"; done)</other_results>"
	fi
	NCPUS=1 sched_host_request "$ADMIN_AUTHENTICATOR" "$1" "$2" "${REQ:-2}" "$other"
}
rpc() { sched_rpc "$1" "$2" && echo 200; }
sent() { sched_reply_jobs "$1"; }
hostid_of() { sched_reply_hostid "$1"; }
config_set() { sed -i "s|<config>|<config>\n    $1|" "$PROJECT_DIR/config.xml"; }

test_expect_success 'set up: ten jobs; host A gets two' '
	test_setup_sample_app &&
	echo input >in &&
	for i in $(seq 1 10); do echo "--wu_name j$i --min_quorum 1 --target_nresults 1 --rsc_fpops_est 1e9 --delay_bound 86400 $TRASH_DIRECTORY/in"; done >jobs &&
	test_project bin/create_work --appname wseq_sample --stdin <jobs >setup.log 2>&1 &&
	test_project bin/transitioner --one_pass >>setup.log 2>&1 &&
	req 0 a >r && test "$(rpc r reply)" = 200 &&
	hostid_of reply >A && sent reply >A.jobs && test_line_count = 2 A.jobs
'

test_expect_success 'off by default: a job the client does not list stays as it was' '
	A=$(cat A) && first=$(sed -n 1p A.jobs) && second=$(sed -n 2p A.jobs) &&
	t0=$(q "select sent_time from result where name=\"$second\"") &&
	REQ=1 req "$A" a "$first" >r && test "$(rpc r reply)" = 200 &&
	test_must_fail grep -q "<name>$second</name>" reply &&
	test "$(q "select concat(server_state, \" \", sent_time) from result where name=\"$second\"")" = "4 $t0"
'

test_expect_success 'on: the lost job is sent again to the same host, with a new deadline' '
	config_set "<resend_lost_results/>" &&
	A=$(cat A) && first=$(sed -n 1p A.jobs) && second=$(sed -n 2p A.jobs) &&
	q "update result set sent_time=sent_time-100, report_deadline=report_deadline-100 where name=\"$second\"" &&
	d0=$(q "select report_deadline from result where name=\"$second\"") &&
	REQ=1 req "$A" a "$first" >r && test "$(rpc r reply)" = 200 &&
	grep -q "<name>$second</name>" reply &&
	test_grep "Resent lost task $second" reply &&
	test "$(q "select concat(server_state, \" \", hostid) from result where name=\"$second\"")" = "4 $A" &&
	test "$(q "select report_deadline > $d0 from result where name=\"$second\"")" = 1 &&
	test_must_fail grep -q "<name>$first</name>" reply
'

test_expect_success 'another host listing nothing touches none of host A'"'"'s jobs' '
	A=$(cat A) && second=$(sed -n 2p A.jobs) &&
	before=$(q "select concat(server_state, \" \", hostid, \" \", sent_time, \" \", report_deadline) from result where name=\"$second\"") &&
	REQ=1 req 0 intruder "" >r && test "$(rpc r reply)" = 200 &&
	test_must_fail grep -q "lost task" reply &&
	test "$(q "select concat(server_state, \" \", hostid, \" \", sent_time, \" \", report_deadline) from result where name=\"$second\"")" = "$before"
'

test_expect_success 'a client that sends no list is not taken to have lost anything' '
	A=$(cat A) && second=$(sed -n 2p A.jobs) &&
	t0=$(q "select sent_time from result where name=\"$second\"") &&
	REQ=1 req "$A" a >r && test "$(rpc r reply)" = 200 &&
	test_must_fail grep -q "Resent lost task" reply &&
	test "$(q "select sent_time from result where name=\"$second\"")" = "$t0"
'

test_expect_success 'too late to finish: the lost job is ended as no reply, and its workunit is due again' '
	A=$(cat A) && first=$(sed -n 1p A.jobs) && second=$(sed -n 2p A.jobs) &&
	q "update result set report_deadline=unix_timestamp()+1 where name=\"$first\"" &&
	REQ=1 req "$A" a "$second" >r && test "$(rpc r reply)" = 200 &&
	test_grep "Didn.*t resend lost task $first (expired)" reply &&
	test_must_fail grep -q "<name>$first</name>" reply &&
	test "$(q "select concat(server_state, \" \", outcome) from result where name=\"$first\"")" = "5 4" &&
	test "$(q "select w.transition_time <= unix_timestamp() from workunit w join result r on r.workunitid=w.id where r.name=\"$first\"")" = 1 &&
	test_project bin/transitioner --one_pass >tr.log 2>&1 &&
	test "$(q "select count(*) from result r join workunit w on w.id=r.workunitid join result f on f.workunitid=w.id where f.name=\"$first\" and r.server_state=2")" = 1
'

test_expect_success 'a sequence host that lost a segment loses the sequence: relocated, not resent' '
	mkdir init && (cd init && "$APP" --state --init --words 256 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_sample --seq_name L --segments 6 \
		--answer_every 1 --state_upload_every 2 --rsc_fpops_est 1e9 --max_result_time 3600 \
		--command_line "--state --steps 5" "$TRASH_DIRECTORY/init/state_out" >seq.log 2>&1 &&
	REQ=1000 req 0 s "" >r && test "$(rpc r reply)" = 200 &&
	hostid_of reply >S && S=$(cat S) &&
	sent reply >S.all && grep "^L_b0_s" S.all >S.jobs && test_line_count = 2 S.jobs &&
	lost=$(sed -n 2p S.jobs) &&
	test "$(q "select hostid from sequence where name=\"L\"")" = "$S" &&
	REQ=1000 req "$S" s "$(grep -v "^$lost$" S.all)" >r && test "$(rpc r reply)" = 200 &&
	test "$(q "select concat(hostid, \" \", need_relocate > 0) from sequence where name=\"L\"")" = "0 1" &&
	sent reply >S.again && test_must_fail grep -q "^L_b0_s" S.again &&
	sed -n "/<result_abort>/,/<\/result_abort>/p" reply >aborts &&
	test_grep "$(sed -n 1p S.jobs)" aborts &&
	test_grep "lost a segment of sequence L" "$PROJECT_DIR/log/scheduler.log"
'

test_done
