#!/bin/bash
test_description='the scheduler reads a host'"'"'s GPUs and coprocessors as a real 7.20.5 client sends them, keeps them in the host row, corrects nothing the client sends by design, and ignores a coprocessor it cannot read without refusing the request'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
DATA="$WSEQ_SRCDIR/test/data/client-7.20.5"
SLOG="$PROJECT_DIR/log/scheduler.log"
H200_DESC='[BOINC|7.20.5][CUDA|NVIDIA H200|1|143155MB|58099|0]'

q() { test_sql_value "$1"; }
rpc() { curl -s -o "$2" -w "%{http_code}" --data-binary @"$1" "$SCHED"; }

# recorded FILE HOSTID: the recorded request as the test account's host HOSTID (0: new).
recorded() {
	sed -e "s|<authenticator>.*</authenticator>|<authenticator>$ADMIN_AUTHENTICATOR</authenticator>|" \
		-e "s|<hostid>.*</hostid>|<hostid>$2</hostid>|" "$DATA/$1"
}

# host_row HOSTID: what the host row keeps of its resources.
host_row() {
	q "select concat(p_ncpus, ' ', p_ngpus, ' ', p_gpu_fpops, ' ', connected_frac, ' ', serialnum) from host where id=$1"
}

# A normal reply: the scheduler read the request and did not refuse it.
normal_reply() {
	test_grep "^<scheduler_reply>" "$1" && test_grep "</scheduler_reply>" "$1" &&
	test_grep -v "could not read\|project_is_down\|temporarily unavailable" "$1"
}

test_expect_success 'set up: an app with one job, so a reply is the full one' '
	test_setup_sample_app &&
	echo input >in &&
	test_project bin/create_work --appname wseq_sample --wu_name j1 --min_quorum 1 --target_nresults 1 \
		--rsc_fpops_est 1e9 "$TRASH_DIRECTORY/in" >setup.log 2>&1 &&
	test_project bin/transitioner --one_pass >>setup.log 2>&1
'

test_expect_success 'the H200 host'"'"'s first request: a host id, no correction, the GPU in the host row' '
	recorded h200_request_1.xml 0 >r1 &&
	test "$(rpc r1 reply1)" = 200 && normal_reply reply1 &&
	H=$(sched_reply_hostid reply1) && test -n "$H" && echo "$H" >hostid &&
	test_grep -v "corrected" reply1 &&
	test "$(host_row "$H")" = "16 1 33454080000000 1 $H200_DESC"
'

test_expect_success 'its next request (connected_frac -1, the client'"'"'s unknown) is not corrected aloud' '
	H=$(cat hostid) &&
	recorded h200_request_2.xml "$H" >r2 &&
	test "$(rpc r2 reply2)" = 200 && normal_reply reply2 &&
	test_grep -v "corrected" reply2 &&
	test_grep -v "connected_frac" reply2 &&
	test "$(host_row "$H")" = "16 1 33454080000000 -1 $H200_DESC" &&
	test_grep -v "host $H .*request corrected" "$SLOG"
'

test_expect_success 'a host with a coprocessor declared in cc_config.xml: its type and count kept' '
	recorded cc_config_coproc_request.xml 0 >r3 &&
	test "$(rpc r3 reply3)" = 200 && normal_reply reply3 &&
	test_grep -v "corrected" reply3 &&
	C=$(sched_reply_hostid reply3) && test -n "$C" &&
	test "$(host_row "$C")" = "2 2 10000000000000 -1 [BOINC|7.20.5][opencl_gpu|miner_asic|2|0MB|0]"
'

test_expect_success 'a malformed coprocessor is ignored and named; the request is served and the rest kept' '
	H=$(cat hostid) &&
	recorded h200_request_2.xml "$H" | sed "s|<count>1</count>|<count>many</count>|" >r4 &&
	test "$(rpc r4 reply4)" = 200 && normal_reply reply4 &&
	test_grep "coproc_cuda ignored: count: .*many.* is not a number" reply4 &&
	test "$(host_row "$H")" = "16 0 0 -1 [BOINC|7.20.5]" &&
	test_grep "host $H .*request corrected: coproc_cuda ignored" "$SLOG"
'

test_expect_success 'more coprocessor types than the scheduler keeps: the first 8, the rest named' '
	H=$(cat hostid) &&
	for i in 1 2 3 4 5 6 7 8 9 10; do
		printf "<coproc><type>t%d</type><count>1</count><peak_flops>1e12</peak_flops></coproc>" $i
	done >many &&
	recorded h200_request_2.xml "$H" | sed "s|<coprocs>|<coprocs>$(cat many)|" >r5 &&
	test "$(rpc r5 reply5)" = 200 && normal_reply reply5 &&
	test_grep "coproc_cuda ignored: more than 8 coprocessor types" reply5 &&
	test "$(q "select concat(p_ngpus, \" \", p_gpu_fpops) from host where id=$H")" = "8 8000000000000"
'

test_expect_success 'no sanitizer report from the scheduler' '
	test_grep -v "runtime error\|AddressSanitizer\|LeakSanitizer" "$SB/apache/logs/error.log"
'

test_done
