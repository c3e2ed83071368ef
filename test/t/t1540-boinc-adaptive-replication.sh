#!/bin/sh
# Adaptive replication with real BOINC clients (README "Believable
# results"): two volunteers of two accounts, the project's daemons running
# with a validator that checks each output; jobs made single go with a
# replica while a host is untrusted, never both results to one host or
# account; every output ends valid, and each client shows the credit the
# database holds for its user.
test_description='real clients under adaptive replication: all outputs valid, the client shows the database'"'"'s credit'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
NJOBS=8
# daemons that look again every second; the validator with a check; one result a job per account
sed -i "s|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|;
	s|<cmd>validator -d 2 --sleep 1</cmd>|<cmd>validator -d 2 --sleep 1 --check_cmd $TRASH_DIRECTORY/check.sh</cmd>|;
	s|<one_result_per_user_per_wu>0<|<one_result_per_user_per_wu>1<|" "$PROJECT_DIR/config.xml"
q() { test_sql_value "$1"; }

test_expect_success 'the project runs with adaptive replication on; jobs made single wait' '
	grep -q "check_cmd $TRASH_DIRECTORY/check.sh" "$PROJECT_DIR/config.xml" &&
	printf "#!/bin/sh\nfor f; do test -s \"\$f\" || exit 1; done\nexit 0\n" >check.sh &&
	chmod +x check.sh &&
	test_setup_sample_app &&
	sed -i "s|<user_friendly_name>wseq sample</user_friendly_name>|&<adaptive_replication><replicas>2</replicas><trust_after>2</trust_after><spot_check>0.5</spot_check></adaptive_replication>|" \
		"$PROJECT_DIR/project.xml" &&
	test_project bin/xadd >xadd.out &&
	test_grep "adaptive replication: a job made single goes with 2 results" xadd.out &&
	i=1 && while [ $i -le $NJOBS ]; do
		echo "input $i" >in_$i && echo "--wu_name job_$i $TRASH_DIRECTORY/in_$i" &&
		i=$((i + 1)) || return 1
	done >jobs &&
	test_project bin/create_work --appname wseq_sample --min_quorum 1 --target_nresults 1 \
		--stdin <jobs &&
	test_project bin/start
'

test_expect_success 'two volunteers of two accounts attach' '
	test_boinc_client_up c1 && test_boinc_client_up c2 &&
	test_boinc_attach c1 "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_boinccmd c2 --create_account "$PROJECT_URL" two@example.org "correct horse" "Two" >create.out 2>&1 &&
	auth=$(sed -n "s/^account key: //p" create.out) && test -n "$auth" &&
	test_boinc_attach c2 "$PROJECT_URL" "$auth"
'

all_done() { test "$(q "select count(*) from workunit where assimilate_state=2")" = $NJOBS; }

test_expect_success 'every job is done; every output valid; replicas only on the other account' '
	test_boinc_poll "c1 c2" "$PROJECT_URL" 900 all_done &&
	test "$(q "select count(*) from result where outcome=1 and validate_state<>1")" = 0 &&
	test "$(q "select count(*) from result where validate_state=1")" -ge $NJOBS &&
	test "$(q "select count(*) from workunit where target_nresults=2 and min_quorum=2")" -ge 1 &&
	test "$(q "select count(*) from (select workunitid from result where server_state=5
		group by workunitid having count(distinct userid) < count(*)) d")" = 0 &&
	test_grep "not trusted yet for version" "$PROJECT_DIR/log/scheduler.log"
'

say "$(q "select count(*) from workunit where target_nresults=2") of $NJOBS jobs went with a replica"

# shows CLIENT EMAIL: the client shows the credit of user EMAIL the database holds (not 0)
shows() {
	test_boinccmd $1 --get_project_status >status_$1.out 2>&1 &&
	db=$(q "select round(total_credit, 6) from user where email_addr=\"$2\"") &&
	shown=$(sed -n "s/^ *user_total_credit: //p" status_$1.out | head -n 1) &&
	[ "$shown" = "$db" ] && [ "$db" != 0.000000 ]
}
both_show() {
	shows c1 "$(q "select email_addr from user where authenticator=\"$ADMIN_AUTHENTICATOR\"")" &&
	shows c2 two@example.org
}

test_expect_success 'each client shows the credit the database holds for its user' '
	test_boinc_poll "c1 c2" "$PROJECT_URL" 300 both_show &&
	test "$(q "select round(sum(total_credit), 6) = round((select sum(granted_credit) from result
		where validate_state=1), 6) from user")" = 1
'

test_done
