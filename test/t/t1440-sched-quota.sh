#!/bin/bash
test_description='daily result quota: a host that errors on every job gets at most its quota a day, halved by each error; successes double it back'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"

q() { test_sql_value "$1"; }

# req HOSTID CPID NCPUS [REPORTS_XML]: a request for a lot of work.
req() { NCPUS=$3 sched_host_request "$ADMIN_AUTHENTICATOR" "$1" "$2" 100000 "${4:-}"; }
# reports OK|ERROR NAME...: reports of the jobs, each a success or an error
reports() {
	how=$1; shift
	for n in "$@"; do
		if [ "$how" = OK ]; then st=5 ex=0; else st=3 ex=1; fi
		printf '<result>\n    <name>%s</name>\n    <final_cpu_time>3</final_cpu_time>\n' "$n"
		printf '    <exit_status>%s</exit_status>\n    <state>%s</state>\n</result>\n' "$ex" "$st"
	done
}
sent() { sched_reply_jobs "$1"; }
hostid_of() { sched_reply_hostid "$1"; }
# one RPC of host $H (cpid $C, $N CPUs) reporting the jobs of the last one as $1
step() {
	req "$H" "$C" "$N" "$(reports "$1" $(cat last 2>/dev/null))" >r &&
	sched_rpc r reply &&
	sent reply >last && cat last >>all
}

test_expect_success 'set up: 80 jobs, daily_result_quota 4' '
	test_setup_sample_app &&
	echo input >in &&
	for i in $(seq 1 80); do echo "--wu_name j$i --min_quorum 1 --target_nresults 1 --rsc_fpops_est 1e9 $TRASH_DIRECTORY/in"; done >jobs &&
	test_project bin/create_work --appname wseq_sample --stdin <jobs >setup.log 2>&1 &&
	test_project bin/transitioner --one_pass >>setup.log 2>&1 &&
	sed -i "s|<config>|<config>\n    <daily_result_quota>4</daily_result_quota>|" "$PROJECT_DIR/config.xml"
'

test_expect_success 'a new one-CPU host gets its quota, 4 jobs, though it asks for more' '
	H=0 C=bad N=1 && step OK &&
	test_line_count = 4 last &&
	hostid_of reply >hid && H=$(cat hid) && test -n "$H"
'

test_expect_success 'a host that errors on every job gets nothing more that day, and is told why' '
	H=$(cat hid) C=bad N=1 &&
	for i in 1 2 3 4 5; do step ERROR || return 1; done &&
	test_line_count = 4 all &&
	test_grep "Daily job limit (1) has been reached" reply &&
	delay=$(sed -n "s|^<request_delay>\([0-9.]*\)</request_delay>$|\1|p" reply) &&
	test -n "$delay" && awk -v d="$delay" "BEGIN { exit !(d > 0 && d <= 86400) }" &&
	test "$(q "select max_results_day, nresults_today from host where id=$H")" = "1	4"
'

test_expect_success 'the next day it gets one job; each success doubles its quota back to 4' '
	H=$(cat hid) C=bad N=1 &&
	q "update host set rpc_time=rpc_time-86400 where id=$H" &&
	: >last && step OK && test_line_count = 1 last && cp last first_job &&
	step OK && test_line_count = 1 last &&
	test "$(q "select max_results_day from host where id=$H")" = 2 &&
	req "$H" "$C" "$N" "$(reports OK $(cat first_job))" >r && sched_rpc r reply &&
	test "$(q "select max_results_day from host where id=$H")" = 2 &&
	step OK && test_line_count = 2 last &&
	test "$(q "select max_results_day from host where id=$H")" = 4 &&
	step OK && test_line_count = 0 last &&
	test "$(q "select max_results_day from host where id=$H")" = 4 &&
	test "$(q "select nresults_today from host where id=$H")" = 4
'

test_expect_success 'the quota is per CPU: a two-CPU host gets 8' '
	rm -f last all && H=0 C=two N=2 && step OK &&
	test_line_count = 8 last
'

test_expect_success 'a GPU counts as gpu_multiplier CPUs: with one at 0.5 the two-CPU host gets 4 x 2.5 = 10' '
	sed -i "s|<config>|<config>\n    <gpu_multiplier>0.5</gpu_multiplier>|" "$PROJECT_DIR/config.xml" &&
	sleep 1 &&
	H=$(q "select id from host where domain_name=\"host-two\"") &&
	gpu="<coprocs><coproc><type>miner_asic</type><count>1</count><peak_flops>5e12</peak_flops>" &&
	gpu="$gpu<req_secs>0</req_secs><req_instances>0</req_instances></coproc></coprocs>" &&
	req "$H" two 2 "$gpu" >r && sched_rpc r reply &&
	test "$(sent reply | wc -l)" = 2 &&
	test "$(q "select nresults_today from host where id=$H")" = 10
'

test_expect_success 'a job that times out halves its host'"'"'s quota, as an error does' '
	H=$(q "select id from host where domain_name=\"host-two\"") &&
	test "$(q "select max_results_day from host where id=$H")" = 0 &&
	r=$(head -1 last) &&
	q "update result set report_deadline=unix_timestamp()-10 where name=\"$r\"" &&
	q "update workunit w join result r on r.workunitid=w.id set w.transition_time=0 where r.name=\"$r\"" &&
	test_project bin/transitioner --one_pass >tr.log 2>&1 &&
	test "$(q "select concat(server_state, \" \", outcome) from result where name=\"$r\"")" = "5 4" &&
	test "$(q "select max_results_day from host where id=$H")" = 2
'

test_expect_success 'max_wus_in_progress bounds the jobs a host holds at once, per CPU' '
	sed -i "/daily_result_quota/d; s|<config>|<config>\n    <max_wus_in_progress>3</max_wus_in_progress>|" \
		"$PROJECT_DIR/config.xml" &&
	sleep 1 &&
	rm -f last all && H=0 C=mip N=1 && step OK &&
	test_line_count = 3 last && hostid_of reply >mip && H=$(cat mip) &&
	cp last held && : >last && step OK && test_line_count = 0 last &&
	head -2 held >last && step OK && test_line_count = 2 last &&
	test "$(q "select count(*) from result where hostid=$H and server_state=4")" = 3
'

test_expect_success 'no job was sent twice, and every sent job is in progress or reported' '
	test "$(q "select count(*) from result where server_state=4 and hostid=0")" = 0 &&
	test "$(q "select count(distinct name) = count(*) from result where server_state>=4")" = 1
'

test_done
