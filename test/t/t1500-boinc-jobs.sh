#!/bin/sh
test_description='two real BOINC clients run 20 workunits with quorum 2 through the whole server'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
# Daemons that look for work every second, so the test does not wait on them.
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"

test_expect_success 'the project runs its daemons and the sample app' '
	test_project bin/start &&
	test_project bin/status &&
	test_setup_sample_app &&
	test "$(test_sql_value "select count(*) from app_version")" = 1
'

test_expect_success 'create_work makes 20 workunits with quorum 2' '
	for i in $(seq 1 20); do
		printf "input %d %s\n" $i "$(head -c 64 /dev/urandom | od -An -tx1 | tr -d " \n")" >in_$i &&
		echo "--wu_name job_$i $TRASH_DIRECTORY/in_$i" || return 1
	done >jobs &&
	test_project bin/create_work --appname wseq_sample --min_quorum 2 --target_nresults 2 --stdin <jobs &&
	test "$(test_sql_value "select count(*) from workunit")" = 20
'

test_expect_success 'two BOINC clients attach' '
	test_boinc_client_up clientA &&
	test_boinc_client_up clientB &&
	test_boinc_attach clientA "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_boinc_attach clientB "$PROJECT_URL" "$ADMIN_AUTHENTICATOR"
'

all_assimilated() {
	test "$(test_sql_value "select count(*) from workunit where assimilate_state=2 and canonical_resultid>0")" = 20
}

test_expect_success 'every workunit ends validated and assimilated' '
	test_wait_for 400 all_assimilated || {
		test_sql "$WSEQ_DB_NAME" -e "select name, server_state, outcome, validate_state, hostid, exit_status from result" >&2
		tail -n 30 "$TRASH_DIRECTORY/clientA/client.log" >&2
		return 1
	}
'

test_expect_success 'both hosts did work, every result valid, nothing left over' '
	test "$(test_sql_value "select count(distinct hostid) from result where outcome=1")" = 2 &&
	test "$(test_sql_value "select count(*) from result where validate_state=1")" = 40 &&
	test "$(test_sql_value "select count(*) from workunit where error_mask<>0")" = 0
'

test_expect_success 'the assimilated outputs equal a local run of the app on the same inputs' '
	for i in $(seq 1 20); do
		rm -rf local && mkdir local && cp in_$i local/in &&
		(cd local && "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample" --steps 2000 2>/dev/null) &&
		test_cmp local/out "$PROJECT_DIR/results/job_$i/out" || return 1
	done
'

test_expect_success 'the clients report no job errors' '
	! grep -i "computation error\|missing signature\|Output file .* absent" clientA/client.log clientB/client.log
'

test_done
