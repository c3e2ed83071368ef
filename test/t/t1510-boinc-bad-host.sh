#!/bin/sh
test_description='a BOINC client that returns wrong outputs is outvoted: its results are invalid, others redo them'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"

test_expect_success 'a project with four quorum-2 workunits' '
	test_project bin/start && test_setup_sample_app &&
	for i in 1 2 3 4; do
		echo "input $i $(date +%N)" >in_$i && echo "--wu_name job_$i $TRASH_DIRECTORY/in_$i" || return 1
	done >jobs &&
	test_project bin/create_work --appname wseq_sample --min_quorum 2 --target_nresults 2 --stdin <jobs
'

test_expect_success 'the lying client takes one result of every workunit first' '
	test_boinc_client_up liar &&
	: >"$TRASH_DIRECTORY/liar/wseq_corrupt" &&
	test_boinc_attach liar "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_wait_for 60 sh -c "test \$(mariadb --socket=$WSEQ_DB_SOCKET -u$WSEQ_DB_USER -p$WSEQ_DB_PASSWD -N $WSEQ_DB_NAME -e \"select count(*) from result where hostid>0\") = 4"
'

test_expect_success 'two honest clients join' '
	test_boinc_client_up honest1 && test_boinc_client_up honest2 &&
	test_boinc_attach honest1 "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_boinc_attach honest2 "$PROJECT_URL" "$ADMIN_AUTHENTICATOR"
'

all_done() {
	test "$(test_sql_value "select count(*) from workunit where assimilate_state=2 and canonical_resultid>0")" = 4
}

test_expect_success 'every workunit still completes' '
	test_wait_for 300 all_done || {
		test_sql "$WSEQ_DB_NAME" -e "select name, server_state, outcome, validate_state, hostid from result" >&2
		return 1
	}
'

test_expect_success 'the liar'"'"'s results are invalid, each workunit needed a third result' '
	liar=$(test_sql_value "select hostid from result where name=\"job_1_0\"") &&
	test "$(test_sql_value "select count(*) from result where hostid=$liar and validate_state=2")" = 4 &&
	test "$(test_sql_value "select count(*) from result where hostid<>$liar and validate_state=1")" = 8 &&
	test "$(test_sql_value "select count(*) from workunit w join result r on r.id=w.canonical_resultid where r.hostid=$liar")" = 0 &&
	grep "corrupted" "$TRASH_DIRECTORY/liar/client.log" >/dev/null || test_sql_value "select stderr_out from result where hostid=$liar" | grep corrupted
'

test_expect_success 'the assimilated outputs are the correct ones' '
	for i in 1 2 3 4; do
		rm -rf local && mkdir local && cp in_$i local/in &&
		(cd local && "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample" --steps 2000 2>/dev/null) &&
		test_cmp local/out "$PROJECT_DIR/results/job_$i/out" || return 1
	done
'

test_done
