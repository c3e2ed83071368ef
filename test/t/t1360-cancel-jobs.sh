#!/bin/sh
# cancel_jobs, as upstream's bin/cancel_jobs: by id range, by name pattern
# (an SQL LIKE pattern bound as a value), by batch; a segment cancels its
# live sequence (its host is then told to abort); running it again changes
# nothing; bad arguments give a clear error and touch nothing.
test_description='cancel_jobs: id range, --name, --batch, a live sequence, idempotence, bad arguments'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"

q() { test_sql_value "$1"; }
cj() { test_project bin/cancel_jobs "$@"; }
wid() { q "select id from workunit where name=\"$1\""; }
# "error_mask unsent-results not-needed-results" of a job
job() {
	q "select concat(w.error_mask, \" \", sum(r.server_state=2), \" \", sum(r.outcome=5))
		from workunit w join result r on r.workunitid=w.id where w.name=\"$1\""
}
# every row cancel_jobs may touch, to compare before and after
snapshot() {
	q "select id, error_mask, transition_time from workunit order by id;
	   select id, server_state, outcome from result order by id;
	   select id, state, error_msg from sequence order by id; select id, state from batch order by id"
}

test_expect_success 'setup: six jobs, a batch of two, a sequence running on a host' '
	test_setup_sample_app &&
	mkdir init && (cd init && "$APP" --state --init --words 64 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_sample --seq_name S --segments 3 \
		--rsc_fpops_est 1e9 --max_result_time 3600 --command_line "--state" \
		"$TRASH_DIRECTORY/init/state_out" >/dev/null &&
	CPID=hS REQ_SECONDS=1 sched_request 0 >r && sched_rpc r reply &&
	sched_reply_hostid reply >host &&
	test "$(q "select count(*) from result where name like \"S\\_%\" and server_state=4")" = 2 &&
	for n in job_a1 job_a2 job_a3 job_b1 job_b2 done_1; do
		echo "$n" >in_$n && echo "--wu_name $n $TRASH_DIRECTORY/in_$n" || return 1
	done >jobs &&
	test_project bin/create_work --appname wseq_sample --rsc_fpops_est 1e9 --min_quorum 1 \
		--target_nresults 1 --stdin <jobs &&
	q "insert into batch (user_id, create_time, name, state, njobs) values (1, unix_timestamp(), \"bt\", 1, 2)" &&
	bid=$(q "select id from batch") && echo $bid >bid &&
	printf -- "--wu_name bt_1 %s\n--wu_name bt_2 %s\n" "$TRASH_DIRECTORY/in_job_a1" "$TRASH_DIRECTORY/in_job_a2" >bjobs &&
	test_project bin/create_work --appname wseq_sample --rsc_fpops_est 1e9 --min_quorum 1 \
		--target_nresults 1 --batch $bid --stdin <bjobs &&
	test_project bin/transitioner --one_pass 2>/dev/null &&
	q "update workunit set canonical_resultid=(select id from result where name=\"done_1_0\") where name=\"done_1\"" &&
	test "$(job job_a1)" = "0 1 0" &&
	test "$(q "select count(*) from result where server_state=2 and seq_id=0")" = 8
'

test_expect_success '--help prints the usage' '
	cj --help >help && test_grep "^usage: cancel_jobs MIN_ID MAX_ID" help &&
	grep -q -e "--name PATTERN" help && grep -q -e "--batch ID" help
'

# usage errors exit 2 with one message; a job not found is a failure (exit 1)
cj_usage() { cj "$@" 2>err; test $? = 2 && test $(wc -l <err) = 1; }
cj_fails() { cj "$@" 2>err; test $? = 1; }

test_expect_success 'bad arguments: a clear error, exit 2 (usage) or 1 (nothing found), nothing touched' '
	snapshot >before &&
	cj_usage && test_grep "nothing to cancel: give MIN_ID MAX_ID, --name or --batch" err &&
	cj_usage 3 && test_grep "an id range is MIN_ID MAX_ID" err &&
	cj_usage 1 x && test_grep "'"'"'x'"'"' is not a workunit id" err &&
	cj_usage -- -1 5 && test_grep "is not a workunit id" err &&
	cj_usage 5 3 && test_grep "MIN_ID 5 is above MAX_ID 3" err &&
	cj_usage 1 99999999999999999999 && test_grep "is not a workunit id" err &&
	cj_usage --batch x && grep -q -e "--batch" err &&
	cj_usage --name "" && test_grep "the pattern is empty" err &&
	cj_usage --name x --batch 1 && test_grep "give one of" err &&
	cj_usage --nosuch && grep -q -e "--nosuch" err &&
	cj_usage --project_dir && grep -q -e "--project_dir needs a value" err &&
	cj_fails --batch 999 && test_grep "no batch has id 999" err &&
	cj_fails 900000 900010 && test_grep "no workunit has an id from 900000 to 900010" err &&
	cj_fails --name "x\" OR 1=1 -- " && test_grep "no workunit'"'"'s name matches" err &&
	cj_fails --name "%'"'"'; DROP TABLE workunit; --" &&
	snapshot >after && test_cmp before after
'

test_expect_success 'the project directory from anywhere: --project_dir and its other spellings' '
	(cd / && unset WSEQ_PROJECT_DIR && "$PROJECT_DIR/bin/cancel_jobs" --batch 999 2>"$TRASH_DIRECTORY/err"
	 test $? = 1) && test_grep "config.xml" err &&
	for opt in --project_dir --config_dir --project --project_root -config_dir --project-dir; do
		(cd / && unset WSEQ_PROJECT_DIR &&
		 "$PROJECT_DIR/bin/cancel_jobs" $opt "$PROJECT_DIR" --batch 999 2>"$TRASH_DIRECTORY/err"
		 test $? = 1) && test_grep "no batch has id 999" err || return 1
	done &&
	(cd / && "$PROJECT_DIR/bin/cancel_jobs" --batch=999 --project_dir="$PROJECT_DIR" \
		2>"$TRASH_DIRECTORY/err"; test $? = 1) && test_grep "no batch has id 999" err
'

test_expect_success 'by id range: the unfinished jobs cancelled, a finished one left as it is' '
	a1=$(wid job_a1) && a2=$(wid job_a2) && d=$(wid done_1) &&
	test $a2 = $((a1 + 1)) &&
	cj $a1 $a2 >out && cat out &&
	test_grep "^workunit $a1 job_a1: cancelled (1 unsent results not needed)$" out &&
	test_grep "^workunit $a2 job_a2: cancelled" out &&
	test_grep "^cancelled 2 workunits (2 unsent results not needed) and 0 sequences" out &&
	test "$(job job_a1)" = "16 0 1" && test "$(job job_a2)" = "16 0 1" &&
	test "$(job job_a3)" = "0 1 0" &&
	test "$(q "select transition_time <= unix_timestamp() from workunit where id=$a1")" = 1 &&
	cj $d $d >out && test_grep "^workunit $d done_1: already finished or cancelled$" out &&
	test "$(q "select error_mask from workunit where id=$d")" = 0
'

test_expect_success 'run again, it changes nothing' '
	a1=$(wid job_a1) && a2=$(wid job_a2) &&
	snapshot >before &&
	cj $a1 $a2 >out && cat out &&
	test_grep "^workunit $a1 job_a1: already finished or cancelled$" out &&
	test_grep "^cancelled 0 workunits .* 2 finished or cancelled before$" out &&
	snapshot >after && test_cmp before after
'

test_expect_success 'by --name: an SQL LIKE pattern, bound as a value' '
	cj --name "job\_b%" >out && cat out &&
	test "$(grep -c ": cancelled" out)" = 2 &&
	test "$(job job_b1)" = "16 0 1" && test "$(job job_b2)" = "16 0 1" &&
	test "$(job job_a3)" = "0 1 0" &&
	cj --name "job_a_" >out && test_grep "job_a3: cancelled" out && test_grep "job_a1: already" out &&
	test "$(job job_a3)" = "16 0 1"
'

test_expect_success 'by --batch: its jobs cancelled, the batch aborted; again, nothing more' '
	bid=$(cat bid) &&
	cj --batch $bid >out && cat out && test_grep "^batch $bid: cancelled$" out &&
	test "$(q "select state from batch where id=$bid")" = 3 &&
	test "$(job bt_1)" = "16 0 1" && test "$(job bt_2)" = "16 0 1" &&
	snapshot >before &&
	cj --batch $bid >out && test_grep "^batch $bid: already finished or cancelled$" out &&
	snapshot >after && test_cmp before after
'

test_expect_success 'a segment of a live sequence: the sequence ends in error, its host is told to abort' '
	sid=$(q "select id from sequence where name=\"S\"") &&
	s1=$(wid S_b0_s1) && s3=$(wid S_b0_s3) &&
	cj $s1 $s3 >out && cat out &&
	test "$(grep -c "segment of sequence $sid" out)" = 1 &&
	test_grep "S_b0_s1: segment of sequence $sid: sequence cancelled (its host is told to abort 2 segments)" out &&
	test "$(q "select concat(state, \"/\", error_msg) from sequence where id=$sid")" = "2/cancelled by cancel_jobs" &&
	test "$(q "select count(*) from result where seq_id=$sid and server_state in (1, 2, 4)")" = 0 &&
	test "$(q "select count(*) from workunit where seq_id=$sid and error_mask<>0")" = 0 &&
	CPID=hS REQ_SECONDS=1 sched_request $(cat host) >r &&
	sed -i "s|</scheduler_request>|<other_results><other_result><name>S_b0_s1_0</name></other_result></other_results>\n</scheduler_request>|" r &&
	sched_rpc r reply &&
	sed -n "/<result_abort>/,/<\/result_abort>/p" reply | test_grep "S_b0_s1_0" &&
	cj --name "S\_b0\_s2" >out && test_grep "sequence already finished or cancelled" out
'

test_expect_success 'the transitioner finishes the cancelled jobs; db_check is clean' '
	test_project bin/transitioner --one_pass 2>/dev/null &&
	test "$(q "select assimilate_state from workunit where name=\"job_a1\"")" = 1 &&
	test_project bin/db_check
'

test_done
