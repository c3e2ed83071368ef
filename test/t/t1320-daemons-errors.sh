#!/bin/sh
# Workunits that fail: the error limits set error_mask bits, no more results
# are made, and the assimilator writes results/WU/error; the assimilator's
# --script for finished and failed workunits.
test_description='back-end daemons: error limits and assimilation of failures'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-daemons.sh"

daemons_setup || exit 1

test_expect_success 'errors up to max_error_results get replacements' '
	tool wu E --quorum 1 --target 1 --max_error 1 --max_total 10 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report E_0 --error &&
	in_project transitioner --one_pass 2>/dev/null &&
	test "$(wu_col E error_mask)" = 0 &&
	test "$(q "select server_state from result where name=\"E_1\"")" = 2
'

test_expect_success 'one error more: TOO_MANY_ERROR_RESULTS, assimilation due, no new result' '
	tool report E_1 --error &&
	in_project transitioner --one_pass 2>tr.log &&
	test_grep "too many errors" tr.log &&
	test "$(wu_col E "error_mask, assimilate_state")" = "2	1" &&
	q "update workunit set transition_time=0 where name=\"E\"" &&
	in_project transitioner --one_pass 2>/dev/null &&
	test "$(q "select count(*) from result where name like \"E\\_%\"")" = 2
'

test_expect_success 'the assimilator writes results/E/error naming the error' '
	in_project assimilator --one_pass 2>as.log &&
	echo "error_mask 2: too_many_error_results" >expect &&
	test_cmp expect "$P/results/E/error" &&
	test "$(wu_col E assimilate_state)" = 2
'

test_expect_success 'then every file of the failed workunit goes' '
	in_project transitioner --one_pass 2>/dev/null &&
	in_project file_deleter --one_pass 2>/dev/null &&
	test "$(wu_col E file_delete_state)" = 2 &&
	test "$(q "select group_concat(file_delete_state) from result where name like \"E\\_%\"")" = "2,2"
'

test_expect_success 'max_total_results reached with more needed: TOO_MANY_TOTAL_RESULTS' '
	tool wu T --quorum 1 --target 1 --max_error 5 --max_total 2 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report T_0 --error &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report T_1 --error &&
	in_project transitioner --one_pass 2>tr.log &&
	test_grep "too many total results" tr.log &&
	test "$(wu_col T error_mask)" = 8 &&
	test "$(q "select count(*) from result where name like \"T\\_%\"")" = 2
'

test_expect_success 'never more than max_total_results, even when the target asks for more' '
	tool wu U --quorum 1 --target 5 --max_total 3 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	test "$(q "select count(*) from result where name like \"U\\_%\"")" = 3 &&
	test "$(wu_col U error_mask)" = 0
'

test_expect_success 'too many successes without consensus: TOO_MANY_SUCCESS_RESULTS, unsent ones dropped' '
	tool wu S --quorum 2 --target 2 --max_success 2 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report S_0 --output x && tool report S_1 --output y &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --one_pass 2>/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report S_2 --output z &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --one_pass 2>/dev/null &&
	test "$(wu_col S "error_mask & 4")" = 4 &&
	in_project transitioner --one_pass 2>/dev/null &&
	test "$(wu_col S "assimilate_state, canonical_resultid")" = "1	0" &&
	test "$(q "select count(*) from result where name like \"S\\_%\"")" = 3 &&
	test "$(q "select count(*) from result where name like \"S\\_%\" and validate_state=3")" = 3
'

test_expect_success 'an error with results unsent: they become DIDNT_NEED' '
	tool wu D --quorum 1 --target 3 --max_error 0 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report D_0 --error &&
	in_project transitioner --one_pass 2>/dev/null &&
	results_of D >actual &&
	printf "D_0\t5\t3\t0\nD_1\t5\t5\t0\nD_2\t5\t5\t0\n" >expect &&
	test_cmp expect actual
'

cat >"$TRASH_DIRECTORY/hook.sh" <<'EOT'
#!/bin/sh
# hook.sh ARGS...: log the call; fail while $HOOK_FAIL exists
echo "$*" >>"$HOOK_LOG"
test ! -e "$HOOK_FAIL"
EOT
chmod +x "$TRASH_DIRECTORY/hook.sh"
HOOK_LOG=$TRASH_DIRECTORY/hook.log HOOK_FAIL=$TRASH_DIRECTORY/hook.fail
export HOOK_LOG HOOK_FAIL

test_expect_success '--script: a failing script leaves the workunit READY for the next pass' '
	tool wu G --quorum 1 --target 1 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report G_0 --output good &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --one_pass 2>/dev/null &&
	touch "$HOOK_FAIL" &&
	in_project assimilator --script "$TRASH_DIRECTORY/hook.sh" --one_pass 2>as.log &&
	test_grep "exited with status 1" as.log &&
	test "$(wu_col G assimilate_state)" = 1 &&
	test "$(wu_col S assimilate_state)" = 1
'

test_expect_success '--script: run with the copied files, or with --error and the mask' '
	rm -f "$HOOK_FAIL" "$HOOK_LOG" &&
	in_project assimilator --script "$TRASH_DIRECTORY/hook.sh" --one_pass 2>as.log &&
	test "$(wu_col G assimilate_state)" = 2 &&
	test "$(wu_col S assimilate_state)" = 2 &&
	test_grep "^G $P/results/G/out\$" "$HOOK_LOG" &&
	test_grep "^--error S 4\$" "$HOOK_LOG" &&
	test "$(cat "$P/results/G/out")" = good
'

test_done
