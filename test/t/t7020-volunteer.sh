#!/bin/sh
test_description='a volunteer joins with boinccmd, runs jobs and a work sequence on the real client, and the client shows the user name and the credit the database holds'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"

test_expect_success 'the project runs; three jobs and a sequence of three segments wait' '
	test_project bin/start && test_setup_sample_app &&
	for i in 1 2 3; do
		echo "input $i" >in_$i && echo "--wu_name job_$i $TRASH_DIRECTORY/in_$i" || return 1
	done >jobs &&
	test_project bin/create_work --appname wseq_sample --min_quorum 1 --target_nresults 1 --stdin <jobs &&
	(mkdir init && cd init && "$APP" --state --init --words 256 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_sample --seq_name vol --segments 3 \
		--answer_every 1 --state_upload_every 3 --rsc_fpops_est 1e9 --max_result_time 3600 \
		--command_line "--state --steps 200" "$TRASH_DIRECTORY/init/state_out"
'

test_expect_success 'a volunteer creates an account with boinccmd and attaches with its key' '
	test_boinc_client_up c1 &&
	test_boinccmd c1 --create_account "$PROJECT_URL" vol@example.org "correct horse" "Volunteer One" >create.out 2>&1 &&
	auth=$(sed -n "s/^account key: //p" create.out) && test -n "$auth" &&
	test_boinc_attach c1 "$PROJECT_URL" "$auth"
'

uid() { test_sql_value "select id from user where email_addr=\"vol@example.org\""; }
all_done() {
	test "$(test_sql_value "select count(*) from workunit where assimilate_state=2")" = 6
}

test_expect_success 'the jobs and the segments run on its host, and each is credited to it' '
	test_boinc_poll c1 "$PROJECT_URL" 600 all_done &&
	test "$(test_sql_value "select count(distinct userid) from result where validate_state=1")" = 1 &&
	test "$(test_sql_value "select userid from result where validate_state=1 limit 1")" = "$(uid)" &&
	test "$(test_sql_value "select count(*) from result where validate_state=1 and granted_credit>0 and seq_id>0")" = 3 &&
	test "$(test_sql_value "select count(*) from host where userid=$(uid)")" = 1 &&
	test "$(test_sql_value "select round(total_credit, 2) = (select round(sum(granted_credit), 2) from result where validate_state=1) from user where id=$(uid)")" = 1
'

client_shows_credit() {
	test_boinccmd c1 --get_project_status >status.out 2>&1 &&
	db=$(test_sql_value "select round(total_credit, 6) from user where id=$(uid)") &&
	shown=$(sed -n "s/^ *user_total_credit: //p" status.out | head -n 1) &&
	[ "$shown" = "$db" ] && [ "$db" != 0.000000 ]
}

test_expect_success 'after its next RPC the client shows the user name and the credit the database holds' '
	test_boinc_poll c1 "$PROJECT_URL" 300 client_shows_credit &&
	test_grep "user_name: Volunteer One" status.out &&
	hdb=$(test_sql_value "select round(total_credit, 6) from host where userid=$(uid)") &&
	hshown=$(sed -n "s/^ *host_total_credit: //p" status.out | head -n 1) &&
	test "$hshown" = "$hdb" &&
	cat status.out
'

test_done
