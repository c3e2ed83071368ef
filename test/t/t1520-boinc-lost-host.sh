#!/bin/sh
test_description='a BOINC client killed while holding results: after the deadline the jobs go to another client'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"

test_expect_success 'a project with three workunits' '
	test_project bin/start && test_setup_sample_app &&
	for i in 1 2 3; do
		echo "input $i" >in_$i && echo "--wu_name job_$i $TRASH_DIRECTORY/in_$i" || return 1
	done >jobs &&
	test_project bin/create_work --appname wseq_sample --min_quorum 1 --target_nresults 1 --stdin <jobs
'

test_expect_success 'a slow client takes all three, then dies' '
	test_boinc_client_up doomed &&
	echo 500 >"$TRASH_DIRECTORY/doomed/wseq_slow" &&
	test_boinc_attach doomed "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_wait_for 60 sh -c "test \$(mariadb --socket=$WSEQ_DB_SOCKET -u$WSEQ_DB_USER -p$WSEQ_DB_PASSWD -N $WSEQ_DB_NAME -e \"select count(*) from result where server_state=4\") = 3" &&
	test_boinc_client_kill doomed &&
	test "$(test_sql_value "select count(*) from result where server_state=4")" = 3
'

test_expect_success 'before the deadline nothing is re-issued' '
	test_project bin/transitioner --one_pass &&
	test "$(test_sql_value "select count(*) from result")" = 3
'

test_expect_success 'after the deadline the transitioner times them out and issues new results' '
	(cd "$PROJECT_DIR" && WSEQ_TIME_OFFSET=7200 bin/transitioner --one_pass) &&
	test "$(test_sql_value "select count(*) from result where server_state=5 and outcome=4")" = 3 &&
	test "$(test_sql_value "select count(*) from result where server_state=2")" = 3
'

all_done() {
	test "$(test_sql_value "select count(*) from workunit where assimilate_state=2 and canonical_resultid>0")" = 3
}

test_expect_success 'another client finishes them' '
	test_boinc_client_up rescuer &&
	test_boinc_attach rescuer "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_wait_for 240 all_done &&
	doomed=$(test_sql_value "select hostid from result where name=\"job_1_0\"") &&
	test "$(test_sql_value "select count(*) from result where outcome=1 and hostid<>$doomed")" = 3
'

test_done
