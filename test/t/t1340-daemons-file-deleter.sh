#!/bin/sh
# What the file deleter keeps: <no_delete/> inputs, job files of live
# batches or still within their lease or used by a live workunit; and how
# it reports a file it cannot delete.
test_description='back-end daemons: file_deleter rules for inputs, job files and failures'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-daemons.sh"

daemons_setup || exit 1

# Take workunit $1 (quorum 1) through to released files.
finish_wu() {
	in_project transitioner --one_pass -d 1 &&
	tool report "${1}_0" --output "$1 done" &&
	in_project transitioner --one_pass -d 1 &&
	in_project validator --one_pass -d 1 &&
	in_project assimilator --one_pass -d 1 &&
	in_project transitioner --one_pass -d 1 &&
	test "$(wu_col "$1" file_delete_state)" = 1
}

test_expect_success 'an input marked <no_delete/> stays, the others go' '
	make_input keepme "kept" && make_input dropme "dropped" &&
	tool wu N --quorum 1 --target 1 --in_keep keepme --in dropme >/dev/null &&
	finish_wu N &&
	in_project file_deleter --one_pass 2>fd.log &&
	test "$(wu_col N file_delete_state)" = 2 &&
	test -e "$(input_path keepme)" &&
	test_must_fail test -e "$(input_path dropme)"
'

test_expect_success 'the checksum file beside an input goes with it' '
	make_input withsum "x" && echo "abc 2" >"$(input_path withsum).md5" &&
	tool wu W --quorum 1 --target 1 --in withsum >/dev/null &&
	finish_wu W &&
	in_project file_deleter --one_pass 2>fd.log &&
	test_must_fail test -e "$(input_path withsum)" &&
	test_must_fail test -e "$(input_path withsum).md5"
'

test_expect_success 'set up batches and job files' '
	q "insert into batch (id, name, state) values (1, \"running\", 1), (2, \"retired\", 4),
		(3, \"aborted\", 3), (4, \"complete\", 2)" &&
	past=$(( $(date +%s) - 100 )) && future=$(( $(date +%s) + 100000 )) &&
	for f in jf_live jf_dead jf_lease jf_complete jf_alone jf_used; do
		make_input $f "job file $f" || return 1
	done &&
	q "insert into job_file (id, name, delete_time) values (1, \"jf_live\", $past),
		(2, \"jf_dead\", $past), (3, \"jf_lease\", $future), (4, \"jf_complete\", $past),
		(5, \"jf_alone\", $past), (6, \"jf_used\", $past)" &&
	q "insert into batch_file_assoc (job_file_id, batch_id) values (1, 1), (1, 2), (2, 2),
		(2, 3), (3, 2), (4, 4), (6, 2)" &&
	tool wu J --quorum 1 --target 1 --in jf_used >/dev/null
'

test_expect_success 'job files: expired and only in retired or aborted batches go; the others stay' '
	in_project file_deleter --one_pass 2>fd.log &&
	test -e "$(input_path jf_live)" &&
	test_must_fail test -e "$(input_path jf_dead)" &&
	test -e "$(input_path jf_lease)" &&
	test -e "$(input_path jf_complete)" &&
	test_must_fail test -e "$(input_path jf_alone)" &&
	test -e "$(input_path jf_used)" &&
	test "$(q "select group_concat(name order by id) from job_file")" = "jf_live,jf_lease,jf_complete,jf_used" &&
	test "$(q "select count(*) from batch_file_assoc where job_file_id in (2, 5)")" = 0 &&
	test "$(q "select count(*) from batch_file_assoc where job_file_id=1")" = 2
'

test_expect_success 'a job file used by a workunit goes after the workunit, by the lease rule' '
	finish_wu J &&
	in_project file_deleter --one_pass 2>fd.log &&
	test "$(wu_col J file_delete_state)" = 2 &&
	test_must_fail test -e "$(input_path jf_used)" &&
	test "$(q "select count(*) from job_file where name=\"jf_used\"")" = 0
'

test_expect_success 'when the live batch is retired, its job file goes too' '
	q "update batch set state=4 where id=1" &&
	in_project file_deleter --one_pass 2>fd.log &&
	test_must_fail test -e "$(input_path jf_live)" &&
	test "$(q "select group_concat(name order by id) from job_file")" = "jf_lease,jf_complete"
'

test_expect_success 'an output that cannot be deleted: ERROR and a log line; a missing one is fine' '
	tool wu R --quorum 1 --target 1 >/dev/null &&
	finish_wu R &&
	out=$(output_path R_0_0) &&
	rm "$out" && mkdir "$out" && echo x >"$out/blocker" &&
	tool wu R2 --quorum 1 --target 1 >/dev/null &&
	finish_wu R2 &&
	rm "$(output_path R2_0_0)" &&
	in_project file_deleter --one_pass 2>fd.log &&
	test_grep "cannot delete $out" fd.log &&
	test "$(q "select file_delete_state from result where name=\"R_0\"")" = 3 &&
	test "$(q "select file_delete_state from result where name=\"R2_0\"")" = 2
'

test_expect_success 'every query of the daemons uses an index (EXPLAIN)' '
	WSEQ_DB_NAME=wseq_explain wseq_test db create "$WSEQ_SRCDIR/db/schema.sql" 2>/dev/null &&
	WSEQ_DB_NAME=wseq_explain wseq_test db fill 500 2>/dev/null &&
	WSEQ_DB_NAME=wseq_explain wseq_test db explain >plans &&
	for query in wu_transition_mod wu_need_validate_mod wu_assimilate_mod wu_file_delete_mod \
		result_file_delete_mod wu_lock result_by_workunit_lock wu_unindexed wu_file_others; do
		test_grep "^$query " plans || return 1
	done &&
	test_grep " 0 full scans of hot tables" plans
'

test_done
