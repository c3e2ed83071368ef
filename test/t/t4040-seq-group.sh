#!/bin/sh
test_description='a group of 3 replica sequences, quorum 2, on real clients: a corrupted segment is outvoted and its sequence relocated; a group without consensus is stopped and reported'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
STEPS=300
SEGS=6

# Whichever client runs segment 3 of branch 0 of replica G_r2 corrupts it
# (and with it the state every later segment of that branch reads); in the
# second group, H_r1's segment 2.
for c in A B C D; do
	mkdir -p "$c" && printf 'G_r2_b0_s3\nH_r1_b0_s2\n' >"$c/wseq_corrupt"
done

test_expect_success 'create_sequence --replicas 3 makes a group of three with a master' '
	test_project bin/start && test_setup_sample_app &&
	mkdir init && (cd init && "$APP" --state --init --words 1024 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_sample --seq_name G --replicas 3 \
		--segments $SEGS --answer_every 1 --state_upload_every 2 --rsc_fpops_est 1e9 \
		--max_result_time 3600 --command_line "--state --steps $STEPS --step_ms 10" \
		"$TRASH_DIRECTORY/init/state_out" >out &&
	test_grep "group G: 3 sequences, quorum 2" out &&
	test "$(test_sql_value "select concat(nmembers, \" \", min_quorum) from sequence_group where name=\"G\"")" = "3 2" &&
	test "$(test_sql_value "select group_concat(concat(s.name, \":\", s.is_master) order by s.name) from sequence s join sequence_group g on g.id=s.groupid")" = "G_r0:1,G_r1:0,G_r2:0" &&
	test "$(test_sql_value "select count(*) from sequence_group g join sequence s on s.id=g.master_seqid and s.name=\"G_r0\"")" = 1
'

test_expect_success 'bad group options are refused with one line' '
	test_must_fail test_project bin/create_sequence --appname wseq_sample --seq_name X \
		--replicas 2 --min_quorum 3 --segments 2 init/state_out 2>err &&
	test_grep "min_quorum 3 is more than --replicas 2" err &&
	test_must_fail test_project bin/create_sequence --appname wseq_sample --seq_name X \
		--group X --segments 2 init/state_out 2>err &&
	test_grep "needs --replicas 2 or more" err &&
	test "$(test_sql_value "select count(*) from sequence where name like \"X%\"")" = 0
'

# Ended, and the last segments validated too (the validator follows the report).
group_ended() {
	test "$(test_sql_value "select count(*) from sequence where name like \"G_%\" and state=1 and first_unvalidated_seqno=$((SEGS + 1))")" = 3
}

test_expect_success 'four clients: each replica runs on its own host; the group completes' '
	for c in A B C D; do
		test_boinc_client_up $c && test_boinc_attach $c "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" || return 1
	done &&
	test_boinc_poll "A B C D" "$PROJECT_URL" 400 group_ended || {
		test_sql "$WSEQ_DB_NAME" -e "select name, server_state, outcome, validate_state, hostid from result order by name; select name, hostid, branch, state, need_relocate, first_unvalidated_seqno from sequence" >&2
		return 1
	}
'

test_expect_success 'no host held two replicas at once' '
	test "$(test_sql_value "select count(*) from (select hostid from result where name like \"G_r%_b0_s1_0\" group by hostid having count(*)>1) x")" = 0
'

test_expect_success 'the corrupted segment was invalid, the other two valid and credited' '
	test "$(test_sql_value "select validate_state from result where name=\"G_r2_b0_s3_0\"")" = 2 &&
	test "$(test_sql_value "select count(*) from result where name in (\"G_r0_b0_s3_0\", \"G_r1_b0_s3_0\") and validate_state=1 and granted_credit>0")" = 2 &&
	grep "G_r2_b0_s3_0.* invalid" "$PROJECT_DIR"/log/validator.log
'

test_expect_success 'G_r2 was relocated from its last good state to another host; the others never moved' '
	test "$(test_sql_value "select concat(branch, \" \", nrelocations) from sequence where name=\"G_r2\"")" = "1 1" &&
	test "$(test_sql_value "select sum(nrelocations) from sequence where name in (\"G_r0\", \"G_r1\")")" = 0 &&
	test_sql_value "select xml_doc from workunit where name=\"G_r2_b1_s3\"" | grep "<name>G_r2_b0_s2_state</name>" &&
	bad=$(test_sql_value "select hostid from result where name=\"G_r2_b0_s3_0\"") &&
	test "$(test_sql_value "select count(*) from result where name like \"G_r2_b1_s%\" and outcome=1 and hostid=$bad")" = 0 &&
	test "$(test_sql_value "select count(*) from result where name like \"G_r2_b1_s%\" and validate_state=1")" = $((SEGS - 2))
'

test_expect_success 'every replica ends in the state of one uninterrupted local run' '
	rm -rf local && mkdir local && cp init/state_out local/state_in &&
	(cd local && "$APP" --state --steps $((STEPS * SEGS)) 2>/dev/null) &&
	cmp local/state_out "$(find "$PROJECT_DIR/upload" -name G_r0_b0_s${SEGS}_state)" &&
	cmp local/state_out "$(find "$PROJECT_DIR/upload" -name G_r1_b0_s${SEGS}_state)" &&
	cmp local/state_out "$(find "$PROJECT_DIR/upload" -name G_r2_b1_s${SEGS}_state)"
'

test_expect_success 'every segment of every replica is validated (first_unvalidated_seqno past the end)' '
	test "$(test_sql_value "select group_concat(first_unvalidated_seqno) from sequence where name like \"G_r%\"")" = "$((SEGS + 1)),$((SEGS + 1)),$((SEGS + 1))" &&
	test_project bin/seq_status --all >status &&
	test_grep "^G_r2 .*ended" status &&
	test_project bin/db_check
'

group_failed() {
	test "$(test_sql_value "select state from sequence_group where name=\"H\"")" = 2
}

test_expect_success 'a group of 2 whose replicas disagree: no consensus, stopped and reported' '
	test_project bin/create_sequence --appname wseq_sample --seq_name H --replicas 2 \
		--segments 4 --answer_every 1 --state_upload_every 2 --rsc_fpops_est 1e9 \
		--max_result_time 3600 --command_line "--state --steps $STEPS --step_ms 10" \
		"$TRASH_DIRECTORY/init/state_out" >out &&
	test_grep "group H: 2 sequences, quorum 2" out &&
	test_boinc_poll "A B C D" "$PROJECT_URL" 300 group_failed &&
	test "$(test_sql_value "select count(*) from sequence where name like \"H_r%\" and state=2 and error_msg like \"no consensus at segment 2%\"")" = 2 &&
	grep "group H: no consensus at segment 2" "$PROJECT_DIR"/log/validator.log &&
	test_project bin/seq_status --all >status &&
	test_grep "^H_r0 .*error" status &&
	test_project bin/seq_status H_r1 >detail &&
	test_grep "no consensus at segment 2" detail &&
	test_project bin/db_check
'

test_done
