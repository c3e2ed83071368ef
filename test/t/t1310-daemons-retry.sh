#!/bin/sh
# Workunits that need more than their first results: disagreement, an
# output lost on the server, a missed deadline; and the --compare_cmd
# plug-in with --app.
test_description='back-end daemons: invalid results, deadlines, the comparison command'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-daemons.sh"

daemons_setup || exit 1

test_expect_success 'two different outputs: no consensus, INCONCLUSIVE, target_nresults grows' '
	tool wu A --quorum 2 --target 2 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report A_0 --output right && tool report A_1 --output wrong &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --one_pass 2>val.log &&
	results_of A >actual &&
	printf "A_0\t5\t1\t4\nA_1\t5\t1\t4\n" >expect &&
	test_cmp expect actual &&
	test "$(wu_col A "canonical_resultid, target_nresults, need_validate")" = "0	3	0"
'

test_expect_success 'the transitioner issues a third result' '
	in_project transitioner --one_pass 2>tr.log &&
	test "$(q "select group_concat(name order by name) from result where name like \"A\\_%\"")" = "A_0,A_1,A_2"
'

test_expect_success 'a third result agreeing with the first: canonical, the odd one INVALID' '
	tool report A_2 --output right &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --one_pass 2>val.log &&
	results_of A >actual &&
	printf "A_0\t5\t1\t1\nA_1\t5\t1\t2\nA_2\t5\t1\t1\n" >expect &&
	test_cmp expect actual &&
	test "$(wu_col A canonical_resultid)" = "$(q "select id from result where name=\"A_0\"")" &&
	test "$(q "select granted_credit from result where name=\"A_1\"")" = 0 &&
	test "$(q "select group_concat(validate_why order by name) from result where name like \"A\\_%\"")" = "4,5,4" &&
	run_all &&
	test "$(cat "$P/results/A/out")" = right &&
	test "$(wu_col A "assimilate_state, file_delete_state")" = "2	2"
'

test_expect_success 'an output missing on the server: VALIDATE_ERROR, and a replacement result' '
	tool wu B --quorum 2 --target 2 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report B_0 --output b && tool report B_1 --output b --missing &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --one_pass 2>val.log &&
	test_grep "output file B_1_0 is missing" val.log &&
	test "$(q "select concat(outcome, validate_state, validate_why) from result where name=\"B_1\"")" = 623 &&
	in_project transitioner --one_pass 2>/dev/null &&
	test "$(q "select server_state from result where name=\"B_2\"")" = 2 &&
	tool report B_2 --output b &&
	run_all &&
	results_of B >actual &&
	printf "B_0\t5\t1\t1\nB_1\t5\t6\t2\nB_2\t5\t1\t1\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a result in progress is left alone until its deadline' '
	tool wu C --quorum 1 --target 1 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool send C_0 --deadline 100 &&
	test "$(wu_col C "transition_time - unix_timestamp() between 95 and 102")" = 1 &&
	in_project transitioner --one_pass 2>/dev/null &&
	WSEQ_TIME_OFFSET=50 in_project transitioner --one_pass 2>/dev/null &&
	results_of C >actual &&
	printf "C_0\t4\t0\t0\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'past its deadline: OVER / NO_REPLY, and a new result' '
	WSEQ_TIME_OFFSET=200 in_project transitioner --one_pass 2>tr.log &&
	test_grep "C_0.*timed out" tr.log &&
	results_of C >actual &&
	printf "C_0\t5\t4\t0\nC_1\t2\t0\t0\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'the replacement result completes the workunit' '
	tool send C_1 &&
	tool report C_1 --output replacement &&
	WSEQ_TIME_OFFSET=200 run_all &&
	test "$(cat "$P/results/C/out")" = replacement &&
	test "$(wu_col C "assimilate_state, file_delete_state")" = "2	2"
'

test_expect_success 'a result reported after its files are gone is TOO_LATE, and changes nothing' '
	tool report C_0 --output late &&
	WSEQ_TIME_OFFSET=200 run_all &&
	results_of C >actual &&
	printf "C_0\t5\t1\t5\nC_1\t5\t1\t1\n" >expect &&
	test_cmp expect actual &&
	test "$(cat "$P/results/C/out")" = replacement &&
	test "$(q "select file_delete_state from result where name=\"C_0\"")" = 2 &&
	test_must_fail test -e "$(output_path C_0_0)"
'

test_expect_success 'a host that uploaded and vanished: its output goes once the workunit is done' '
	tool wu D --quorum 1 --target 1 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool send D_0 --deadline 100 &&
	echo "uploaded, never reported" >"$(output_path D_0_0)" &&
	WSEQ_TIME_OFFSET=200 in_project transitioner --one_pass 2>/dev/null &&
	tool send D_1 && tool report D_1 --output d &&
	WSEQ_TIME_OFFSET=200 run_all &&
	results_of D >actual &&
	printf "D_0\t5\t4\t0\nD_1\t5\t1\t1\n" >expect &&
	test_cmp expect actual &&
	test "$(wu_col D "assimilate_state, file_delete_state")" = "2	2" &&
	test "$(q "select file_delete_state from result where name=\"D_0\"")" = 2 &&
	test_must_fail test -e "$(output_path D_0_0)"
'

test_expect_success 'reported after that, late: its late upload goes too' '
	tool report D_0 --output late &&
	test -e "$(output_path D_0_0)" &&
	WSEQ_TIME_OFFSET=200 run_all &&
	test "$(q "select concat(outcome, validate_state, file_delete_state) from result where name=\"D_0\"")" = 152 &&
	test_must_fail test -e "$(output_path D_0_0)" &&
	test "$(cat "$P/results/D/out")" = d
'

cat >"$TRASH_DIRECTORY/near.sh" <<'EOT'
#!/bin/sh
# near.sh A -- B: equivalent when the numbers differ by less than 0.01;
# "broken" in a file: cannot tell (exit 2)
echo "$*" >>"$NEAR_LOG"
a=$(cat "$1") && test "$2" = "--" && b=$(cat "$3") || exit 3
case "$a$b" in *broken*) exit 2 ;; esac
awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 0.01) }'
EOT
chmod +x "$TRASH_DIRECTORY/near.sh"
NEAR_LOG=$TRASH_DIRECTORY/near.log; export NEAR_LOG

test_expect_success '--compare_cmd with --app: numbers that differ a little agree' '
	tool wu N --app numbers --quorum 2 --target 2 >/dev/null &&
	tool wu other --quorum 2 --target 2 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report N_0 --output 1.000 && tool report N_1 --output 1.004 &&
	tool report other_0 --output x && tool report other_1 --output x &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --app numbers --compare_cmd "$TRASH_DIRECTORY/near.sh" --one_pass 2>val.log &&
	results_of N >actual &&
	printf "N_0\t5\t1\t1\nN_1\t5\t1\t1\n" >expect &&
	test_cmp expect actual &&
	test "$(wu_col other need_validate)" = 1 &&
	test "$(q "select count(*) from result where name like \"other%\" and validate_state<>0")" = 0 &&
	head -n 1 "$NEAR_LOG" >call &&
	test_grep "^$(output_path N_0_0) -- $(output_path N_1_0)\$" call
'

test_expect_success 'bitwise would have said no' '
	tool wu N2 --app numbers --quorum 2 --target 2 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report N2_0 --output 1.000 && tool report N2_1 --output 1.004 &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --app numbers --one_pass 2>val.log &&
	test "$(wu_col N2 "canonical_resultid, target_nresults")" = "0	3"
'

test_expect_success '--compare_cmd: exit 1 is disagreement, exit 2 leaves the workunit for later' '
	tool wu N3 --app numbers --quorum 2 --target 2 >/dev/null &&
	tool wu N4 --app numbers --quorum 2 --target 2 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report N3_0 --output 1 && tool report N3_1 --output 2 &&
	tool report N4_0 --output broken && tool report N4_1 --output 1 &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --app numbers --compare_cmd "$TRASH_DIRECTORY/near.sh" --one_pass 2>val.log &&
	test "$(wu_col N3 "need_validate, target_nresults")" = "0	3" &&
	test "$(wu_col N4 need_validate)" = 1 &&
	test_grep "exited with status 2" val.log &&
	results_of N4 >actual &&
	printf "N4_0\t5\t1\t0\nN4_1\t5\t1\t0\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'validator --app with an unknown app fails at start' '
	test_must_fail in_project validator --app nosuch --one_pass 2>err &&
	test_grep "no app named nosuch" err
'

test_done
