#!/bin/sh
test_description='a sequence template with two state files and two answer files: run, upload, relocate and complete on real clients'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
STEPS=300

create() {
	test_project bin/create_sequence --appname wseq_sample --segments 6 --answer_every 1 \
		--state_upload_every 3 --rsc_fpops_est 1e9 --max_result_time 3600 \
		--command_line "--state --aux --steps $STEPS --step_ms 10" "$@"
}

test_expect_success 'a template: states state_in/out and aux_in/out, answers answer and aux_answer' '
	test_project bin/start && test_setup_sample_app &&
	cat >"$PROJECT_DIR/templates/aux_seq" <<-\EOT &&
	<sequence_template>
	  <state><open_name_in>state_in</open_name_in><open_name_out>state_out</open_name_out></state>
	  <state>
	    <open_name_in>aux_in</open_name_in><open_name_out>aux_out</open_name_out>
	    <max_nbytes>1e6</max_nbytes>
	  </state>
	  <answer><open_name>answer</open_name></answer>
	  <answer><open_name>aux_answer</open_name></answer>
	</sequence_template>
	EOT
	mkdir init && (cd init && "$APP" --state --init --words 1024 2>/dev/null) && : >init/aux &&
	create --seq_name X --seq_template templates/aux_seq \
		"$TRASH_DIRECTORY/init/state_out" "$TRASH_DIRECTORY/init/aux" &&
	test "$(test_sql_value "select wu_template from sequence where name=\"X\"")" = templates/aux_seq &&
	test "$(test_sql_value "select count(*) from seq_file where name like \"X_b0_s%\" and kind=1")" = 14 &&
	test "$(test_sql_value "select count(*) from seq_file where name like \"X_b0_s%\" and kind=2")" = 12 &&
	test_sql_value "select xml_doc from workunit where name=\"X_b0_s2\"" >wu2 &&
	test_grep "<name>X_b0_s1_state1</name>" wu2 && test_grep "<open_name>aux_in</open_name>" wu2 &&
	test_sql_value "select xml_doc_in from result where name=\"X_b0_s3_0\"" >res3 &&
	test_grep "<name>X_b0_s3_answer1</name>" res3 && test_grep "<open_name>aux_answer</open_name>" res3 &&
	test_grep "<max_nbytes>1000000</max_nbytes>" res3
'

test_expect_success 'bad templates and state counts: one clear error, nothing created' '
	printf "<sequence_template><answer><open_name>a</open_name></answer></sequence_template>\n" \
		>"$PROJECT_DIR/templates/nostate" &&
	test_must_fail create --seq_name Y --seq_template templates/nostate init/state_out 2>err &&
	test_grep "no <state>" err &&
	printf "<sequence_template>\n<state><open_name_in>x</open_name_in></state>\n</sequence_template>\n" \
		>"$PROJECT_DIR/templates/half" &&
	test_must_fail create --seq_name Y --seq_template templates/half init/state_out 2>err &&
	test_grep "templates/half:2: a <state> needs" err &&
	test_must_fail create --seq_name Y --seq_template templates/aux_seq \
		"$TRASH_DIRECTORY/init/state_out" 2>err &&
	test_grep "1 initial state file given, the template has 2 state files" err &&
	test_must_fail create --seq_name Y --seq_template templates/nosuch init/state_out 2>err &&
	test_grep "sequence template templates/nosuch" err &&
	test "$(test_sql_value "select count(*) from sequence where name=\"Y\"")" = 0
'

seg_done() { test_seg_done X "$1"; }
relocated() {
	test "$(test_sql_value "select concat(branch, \" \", hostid) from sequence where name=\"X\"")" = "1 0"
}
seq_ended() {
	test "$(test_sql_value "select state from sequence where name=\"X\"")" = 1
}

# Segment 5 is slow on A (2 s a step: 10 minutes), so A cannot run on to
# segment 6 (the next state upload) before it is killed, however fast the
# machine is between the wait and the kill.
test_expect_success 'client A runs 4 segments (both states of segment 3 uploaded) and vanishes' '
	mkdir -p A && printf "2000\nX_b0_s5\n" >A/wseq_slow &&
	test_boinc_client_up A && test_boinc_attach A "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_wait_for 300 seg_done 4 &&
	test_boinc_client_kill A &&
	test "$(test_sql_value "select last_state_seqno from sequence where name=\"X\"")" = 3 &&
	test -n "$(find "$PROJECT_DIR/upload" -name X_b0_s3_state)" &&
	test -n "$(find "$PROJECT_DIR/upload" -name X_b0_s3_state1)" &&
	test -n "$(find "$PROJECT_DIR/upload" -name X_b0_s2_answer1)"
'

test_expect_success 'after the deadline both states of segment 3 are the new branch'"'"'s inputs' '
	(cd "$PROJECT_DIR" && WSEQ_TIME_OFFSET=100000 bin/transitioner --one_pass) &&
	test_wait_for 60 relocated &&
	test_sql_value "select xml_doc from workunit where name=\"X_b1_s4\"" >wu4 &&
	test_grep "<name>X_b0_s3_state</name>" wu4 && test_grep "<name>X_b0_s3_state1</name>" wu4 &&
	test "$(grep -o "download/[^<]*/X_b0_s3_state1*<" wu4 | wc -l)" = 2 &&
	test_project bin/db_check
'

test_expect_success 'client B completes it; both final states are right' '
	test_boinc_client_up B && test_boinc_attach B "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_wait_for 300 seq_ended &&
	rm -rf local && mkdir local && cp init/state_out local/state_in &&
	(cd local && "$APP" --state --steps $((STEPS * 6)) 2>/dev/null) &&
	cmp local/state_out "$(find "$PROJECT_DIR/upload" -name X_b1_s6_state)" &&
	aux=$(find "$PROJECT_DIR/upload" -name X_b1_s6_state1) &&
	test_line_count = 6 "$aux" &&
	head -n 1 "$aux" | grep "^step $STEPS checksum " &&
	sum=$(sed -n "s/.*checksum //p" local/answer) &&
	test "$(tail -n 1 "$aux")" = "step $((STEPS * 6)) checksum $sum" &&
	test "$(cat "$(find "$PROJECT_DIR/upload" -name X_b1_s6_answer1)")" = "lines 6" &&
	test_project bin/db_check
'

test_done
