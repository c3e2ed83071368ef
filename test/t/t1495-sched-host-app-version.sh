#!/bin/bash
# The measured speed of an app version on a host (host_app_version) as the
# real scheduler and validator keep it: each successful job a host reports
# counts at rsc_fpops_est / elapsed time, an error or an absurd speed does
# not, a report sent twice counts once; the validator's verdicts count,
# and an invalid result ends the run of valid ones. Every outcome counts for
# the version's reliability: a client error (the scheduler) and a missed
# deadline (the transitioner) are errors that end the run too; the error
# rate and the average turnaround move with each.
test_description='host_app_version: measured speed and validity per host and app version'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
. "$WSEQ_SRCDIR/test/t/lib-host-upload.sh"

SLOG="$PROJECT_DIR/log/scheduler.log"
q() { test_sql_value "$1"; }
req() { sched_host_request "$ADMIN_AUTHENTICATOR" "$1" hav 100000 "${2:-}"; }
# the host's row: n_jobs n_valid n_invalid n_errors consecutive_valid
row() {
	q "select n_jobs, n_valid, n_invalid, n_errors, consecutive_valid from host_app_version
		where host_id=$H"
}
hav() { q "select $1 from host_app_version where host_id=$H"; }
# gt A B: A > B (numbers as the database prints them)
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
# near GOT WANT: GOT within 1% of WANT
near() { awk -v g="$1" -v w="$2" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 0.01 * w) }'; }
# jobs NAME...: a quorum-1 job each, ready to send (create_work options in $JOBOPTS)
jobs() {
	for j in "$@"; do
		echo "--wu_name $j --min_quorum 1 --target_nresults 1 --rsc_fpops_est 3e12 ${JOBOPTS:-} $TRASH_DIRECTORY/in"
	done | test_project bin/create_work --appname wseq_sample --stdin >>setup.log 2>&1 &&
	test_project bin/transitioner --one_pass >>setup.log 2>&1
}
validate() {
	test_project bin/transitioner --one_pass >>daemons.log 2>&1 &&
	test_project bin/validator --one_pass >>daemons.log 2>&1
}

test_expect_success 'set up: six jobs of one app version, quorum 1' '
	test_setup_sample_app &&
	echo input >in &&
	for i in 1 2 3 4 5 6; do
		f=3e12; [ $i -ge 4 ] && f=6e12
		echo "--wu_name j$i --min_quorum 1 --target_nresults 1 --rsc_fpops_est $f $TRASH_DIRECTORY/in"
	done >jobs &&
	test_project bin/create_work --appname wseq_sample --stdin <jobs >setup.log 2>&1 &&
	test_project bin/transitioner --one_pass >>setup.log 2>&1
'

test_expect_success 'a new host gets the six jobs; it has no measured speed yet' '
	req 0 >r && sched_rpc r reply &&
	H=$(sched_reply_hostid reply) && test -n "$H" && echo "$H" >hid &&
	sched_reply_jobs reply | sort >sent &&
	test_line_count = 6 sent &&
	test "$(q "select count(*) from host_app_version")" = 0 &&
	AV=$(q "select distinct app_version_id from result where hostid=$H") &&
	test "$(echo "$AV" | wc -l)" = 1 && test "$AV" -gt 0 && echo "$AV" >avid
'

test_expect_success 'one success: a row for the host and version, at rsc_fpops_est / elapsed' '
	H=$(cat hid) && AV=$(cat avid) &&
	host_upload_output j1_0 &&
	req "$H" "$(sched_report j1_0 5 0 100)" >r && sched_rpc r reply &&
	test "$(row)" = "1	0	0	0	0" &&
	test "$(q "select app_version_id from host_app_version where host_id=$H")" = "$AV" &&
	near "$(q "select flops_avg from host_app_version where host_id=$H")" 3e10 &&
	near "$(q "select elapsed_avg from host_app_version where host_id=$H")" 100 &&
	test "$(q "select last_update >= unix_timestamp() - 600 from host_app_version")" = 1
'

test_expect_success 'more successes move the average (1/n each); an error counts as one, repeats do not' '
	H=$(cat hid) &&
	host_upload_output j2_0 && host_upload_output j3_0 &&
	req "$H" "$(sched_report j1_0 5 0 100; sched_report j2_0 5 0 300; sched_report j3_0 5 0 600;
		sched_report j6_0 3 1 50)" >r &&
	sched_rpc r reply &&
	test_grep "<name>j6_0</name>" reply &&
	test "$(row)" = "3	0	0	1	0" &&
	test "$(hav error_rate)" = 1 &&
	# 3e10, then 1e10 and 5e9: the mean of the three
	near "$(q "select flops_avg from host_app_version where host_id=$H")" 1.5e10 &&
	near "$(q "select elapsed_avg from host_app_version where host_id=$H")" 333.33
'

test_expect_success 'the validator counts valid results, one after another' '
	H=$(cat hid) &&
	validate &&
	test "$(q "select count(*) from result where hostid=$H and validate_state=1")" = 3 &&
	test "$(row)" = "3	3	0	1	3" &&
	# a project without the sweep app is no error to the validator
	! grep "no app named" daemons.log &&
	# the error, then three valid ones: 1 -> 1/2 -> 1/3 -> 1/4
	near "$(hav error_rate)" 0.25
'

test_expect_success 'an absurd speed (6e12 FLOPs in a picosecond) is logged, not recorded' '
	H=$(cat hid) &&
	req "$H" "$(sched_report j5_0 5 0 0.000000000001)" >r && sched_rpc r reply &&
	test_grep "<name>j5_0</name>" reply &&
	test_grep "result j5_0: .* FLOPS, above 1e+18; not taken as app version" "$SLOG" &&
	test "$(row)" = "3	3	0	1	3" &&
	test "$(q "select outcome from result where name=\"j5_0\"")" = 1
'

test_expect_success 'an invalid result counts and resets the run of valid ones' '
	H=$(cat hid) &&
	req "$H" "$(sched_report j4_0 5 0 200)" >r && sched_rpc r reply &&
	test "$(row)" = "4	3	0	1	3" &&
	validate &&
	test "$(q "select validate_state from result where name=\"j4_0\"")" = 2 &&
	test "$(q "select validate_state from result where name=\"j5_0\"")" = 2 &&
	test "$(row)" = "4	3	2	1	0"
'

test_expect_success 'an elapsed time of 1e300 s is no sample and no database error' '
	H=$(cat hid) &&
	jobs j7 &&
	req "$H" >r && sched_rpc r reply &&
	sched_reply_jobs reply >sent && test "$(cat sent)" = j7_0 &&
	req "$H" "$(sched_report j7_0 5 0 1e300)" >r && sched_rpc r reply &&
	test_grep "<name>j7_0</name>" reply &&
	test "$(q "select outcome from result where name=\"j7_0\"")" = 1 &&
	test "$(q "select n_jobs from host_app_version where host_id=$H")" = 4 &&
	! grep -q "database error" "$SLOG"
'

test_expect_success 'a client error ends a run of valid results at once' '
	H=$(cat hid) &&
	jobs j8 j9 &&
	req "$H" >r && sched_rpc r reply &&
	sched_reply_jobs reply | sort >sent && test "$(cat sent | tr "\n" " ")" = "j8_0 j9_0 " &&
	host_upload_output j8_0 &&
	req "$H" "$(sched_report j8_0 5 0 100)" >r && sched_rpc r reply &&
	validate &&
	test "$(q "select validate_state from result where name=\"j8_0\"")" = 1 &&
	test "$(hav consecutive_valid)" -ge 1 &&
	errs=$(hav n_errors) rate=$(hav error_rate) &&
	req "$H" "$(sched_report j9_0 3 1 50)" >r && sched_rpc r reply &&
	test "$(hav consecutive_valid)" = 0 &&
	test "$(hav n_errors)" = $((errs + 1)) &&
	gt "$(hav error_rate)" "$rate"
'

test_expect_success 'a missed deadline is an error at the delay bound, in the transitioner' '
	H=$(cat hid) &&
	JOBOPTS="--delay_bound 100000" jobs j10 &&
	req "$H" >r && sched_rpc r reply &&
	test "$(sched_reply_jobs reply)" = j10_0 &&
	host_upload_output j10_0 && req "$H" "$(sched_report j10_0 5 0 100)" >r && sched_rpc r reply &&
	validate && test "$(hav consecutive_valid)" = 1 &&
	errs=$(hav n_errors) rate=$(hav error_rate) ta=$(hav turnaround_avg) &&
	gt 1000 "$ta" &&
	JOBOPTS="--delay_bound 100000" jobs j11 &&
	req "$H" >r && sched_rpc r reply &&
	test "$(sched_reply_jobs reply)" = j11_0 &&
	q "update result set report_deadline=unix_timestamp()-1 where name=\"j11_0\";
		update workunit set transition_time=0 where name=\"j11\"" &&
	test_project bin/transitioner --one_pass >>daemons.log 2>&1 &&
	test "$(q "select outcome from result where name=\"j11_0\"")" = 4 &&
	test "$(hav consecutive_valid)" = 0 &&
	test "$(hav n_errors)" = $((errs + 1)) &&
	gt "$(hav error_rate)" "$rate" &&
	# the delay bound (100000 s) pulls the average far above what it was
	gt "$(hav turnaround_avg)" 4000
'

test_done
