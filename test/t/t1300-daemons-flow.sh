#!/bin/sh
# The life of ordinary workunits through transitioner, validator,
# assimilator and file_deleter, on a real MariaDB, with the scheduler's part
# played by wseq_test daemons.
test_description='back-end daemons: a workunit from creation to deleted files'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-daemons.sh"

daemons_setup || exit 1

test_expect_success 'set up two workunits sharing an input file' '
	make_input shared_in "shared input" &&
	make_input a_in "private input of A" &&
	tool wu A --quorum 2 --target 2 --in shared_in --in a_in >/dev/null &&
	tool wu B --quorum 2 --target 2 --in shared_in >/dev/null
'

test_expect_success 'transitioner creates exactly target_nresults results, named WU_0 and WU_1' '
	in_project transitioner --one_pass 2>tr.log &&
	results_of A >actual &&
	printf "A_0\t2\t0\t0\nA_1\t2\t0\t0\n" >expect &&
	test_cmp expect actual &&
	test "$(q "select count(*) from result where name like \"B\\_%\"")" = 2
'

test_expect_success 'a workunit with enough results gets none more, however often it is looked at' '
	q "update workunit set transition_time=0" &&
	in_project transitioner --one_pass 2>tr.log &&
	q "update workunit set transition_time=0" &&
	in_project transitioner --one_pass 2>>tr.log &&
	test "$(q "select count(*) from result")" = 4 &&
	test "$(wu_col A "transition_time>unix_timestamp()")" = 1
'

test_expect_success 'two identical reports: the transitioner asks for validation' '
	tool report A_0 --output "the answer is 42" &&
	tool report A_1 --output "the answer is 42" &&
	in_project transitioner --one_pass 2>tr.log &&
	test "$(wu_col A need_validate)" = 1 &&
	test_grep "need_validate =>1" tr.log
'

test_expect_success 'validator: one canonical result, both VALID, credit granted, assimilation due' '
	in_project validator --one_pass 2>val.log &&
	results_of A >actual &&
	printf "A_0\t5\t1\t1\nA_1\t5\t1\t1\n" >expect &&
	test_cmp expect actual &&
	test "$(wu_col A canonical_resultid)" = "$(q "select id from result where name=\"A_0\"")" &&
	test "$(wu_col A "need_validate, assimilate_state")" = "0	1" &&
	test "$(q "select count(*) from result where name like \"A\\_%\" and granted_credit>0")" = 2
'

test_expect_success 'assimilator copies the canonical output to results/A/out, byte for byte' '
	in_project assimilator --one_pass 2>as.log &&
	printf "the answer is 42" >expect &&
	test_cmp expect "$P/results/A/out" &&
	test_cmp "$(output_path A_0_0)" "$P/results/A/out" &&
	test "$(wu_col A assimilate_state)" = 2 &&
	ls "$P/results/A" >files && test_line_count = 1 files
'

test_expect_success 'assimilating again after a crash is harmless' '
	q "update workunit set assimilate_state=1 where name=\"A\"" &&
	in_project assimilator --one_pass 2>as.log &&
	test_cmp expect "$P/results/A/out" &&
	test "$(wu_col A assimilate_state)" = 2
'

# A temporary file is "NAME.tmp.PID" (write_file_atomic); a kill between
# writing and renaming it leaves it behind -- whether its pid is free again,
# a zombie's or reused, the assimilator alone writes results/WU.
test_expect_success 'after an assimilator killed mid-copy, the rerun removes the copies it left' '
	dead=$(sh -c "echo \$\$") &&
	echo partial >"$P/results/A/out.tmp.$dead" &&
	echo partial >"$P/results/A/out.tmp.$$" &&
	echo other >"$P/results/A/other.tmp.$dead" &&
	q "update workunit set assimilate_state=1 where name=\"A\"" &&
	in_project assimilator --one_pass 2>as.log &&
	test_cmp expect "$P/results/A/out" &&
	test_must_fail test -e "$P/results/A/out.tmp.$dead" &&
	test_must_fail test -e "$P/results/A/out.tmp.$$" &&
	rm "$P/results/A/other.tmp.$dead" &&
	ls "$P/results/A" >files && test_line_count = 1 files
'

test_expect_success 'after assimilation the transitioner releases the files' '
	in_project transitioner --one_pass 2>tr.log &&
	test "$(wu_col A file_delete_state)" = 1 &&
	test "$(q "select group_concat(file_delete_state) from result where name like \"A\\_%\"")" = "1,1"
'

test_expect_success 'file_deleter removes outputs and the private input, keeps the shared input B needs' '
	in_project file_deleter --one_pass 2>fd.log &&
	test_must_fail test -e "$(output_path A_0_0)" &&
	test_must_fail test -e "$(output_path A_1_0)" &&
	test_must_fail test -e "$(input_path a_in)" &&
	test -e "$(input_path shared_in)" &&
	test "$(wu_col A file_delete_state)" = 2 &&
	test "$(q "select group_concat(file_delete_state) from result where name like \"A\\_%\"")" = "2,2" &&
	test "$(q "select group_concat(workunitid) from wu_file where name=\"shared_in\"")" = "$(wu_col B id)"
'

test_expect_success 'the shared input goes with the last workunit that uses it' '
	tool report B_0 --output same && tool report B_1 --output same &&
	run_all &&
	test "$(wu_col B "assimilate_state, file_delete_state")" = "2	2" &&
	test_must_fail test -e "$(input_path shared_in)" &&
	test "$(q "select count(*) from wu_file")" = 0 &&
	test "$(q "select count(*) from result where file_delete_state<>2")" = 0
'

test_expect_success 'a canonical result with a quorum of one: unsent results are not needed any more' '
	tool wu C --quorum 1 --target 3 >/dev/null &&
	in_project transitioner --one_pass 2>tr.log &&
	tool report C_1 --output solo &&
	in_project transitioner --one_pass 2>tr.log &&
	in_project validator --one_pass 2>val.log &&
	results_of C >actual &&
	printf "C_0\t5\t5\t0\nC_1\t5\t1\t1\nC_2\t5\t5\t0\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a new workunit uses an input file again: it is indexed before anything is deleted' '
	make_input again "reused" &&
	tool wu D1 --quorum 1 --target 1 --in again >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report D1_0 && in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --one_pass 2>/dev/null && in_project assimilator --one_pass 2>/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	test "$(wu_col D1 file_delete_state)" = 1 &&
	tool wu D2 --quorum 1 --target 1 --in again >/dev/null &&
	in_project file_deleter --one_pass 2>fd.log &&
	test "$(wu_col D1 file_delete_state)" = 2 &&
	test -e "$(input_path again)"
'

test_expect_success '--mod 2 0 and --mod 2 1 together transition every workunit exactly once' '
	for i in 1 2 3 4 5 6 7 8 9; do tool wu M$i --quorum 1 --target 2 >/dev/null || return 1; done &&
	in_project transitioner --one_pass --mod 2 0 2>tr0.log &&
	q "select w.id % 2, count(r.id) from workunit w left join result r on r.workunitid=w.id
		where w.name like \"M%\" group by w.id order by w.id" >counts &&
	test "$(grep -c "^0	2\$" counts)" = "$(grep -c "^0	" counts)" &&
	test "$(grep -c "^1	0\$" counts)" = "$(grep -c "^1	" counts)" &&
	in_project transitioner --one_pass --mod 2 1 2>tr1.log &&
	test "$(q "select count(*) from result r join workunit w on w.id=r.workunitid
		where w.name like \"M%\"")" = 18 &&
	test "$(q "select count(distinct name) from result")" = "$(q "select count(*) from result")"
'

test_expect_success '--mod splits the validator, assimilator and file_deleter work too' '
	for i in 1 2 3 4 5 6 7 8 9; do tool report M${i}_0 --output m || return 1; done &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --one_pass --mod 2 1 2>/dev/null &&
	test "$(q "select count(*) from workunit where name like \"M%\" and need_validate=1 and id%2=1")" = 0 &&
	test "$(q "select count(*) from workunit where name like \"M%\" and need_validate=1 and id%2=0")" -gt 0 &&
	in_project validator --one_pass --mod 2 0 2>/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project assimilator --one_pass --mod 2 0 2>/dev/null &&
	test "$(q "select count(*) from workunit where name like \"M%\" and assimilate_state=1 and id%2=0")" = 0 &&
	test "$(q "select count(*) from workunit where name like \"M%\" and assimilate_state=1 and id%2=1")" -gt 0 &&
	in_project assimilator --one_pass --mod 2 1 2>/dev/null &&
	test "$(q "select count(*) from workunit where name like \"M%\" and assimilate_state<>2")" = 0 &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project file_deleter --one_pass --mod 2 1 2>/dev/null &&
	test "$(q "select count(*) from workunit where name like \"M%\" and file_delete_state=1 and id%2=1")" = 0 &&
	test "$(q "select count(*) from workunit where name like \"M%\" and file_delete_state=1 and id%2=0")" -gt 0 &&
	test "$(q "select count(*) from result where file_delete_state=1 and id%2=1")" = 0 &&
	test "$(q "select count(*) from result where file_delete_state=1 and id%2=0")" -gt 0 &&
	in_project file_deleter --one_pass --mod 2 0 2>/dev/null &&
	test "$(q "select count(*) from workunit where name like \"M%\" and file_delete_state<>2")" = 0
'

test_expect_success 'every daemon answers --help with its own options' '
	transitioner --help >h.tr && test_grep "batch N" h.tr &&
	validator --help >h.val && test_grep "compare_cmd CMD" h.val && test_grep "app NAME" h.val &&
	assimilator --help >h.as && test_grep "script CMD" h.as &&
	file_deleter --help >h.fd && test_grep "mod N I" h.fd
'

test_done
