#!/bin/sh
# Per-result checks in the validator (--check_cmd CMD, --check_plugin): each
# result is checked before any comparison. A result failing its check is
# INVALID (outcome VALIDATE_ERROR) at once and earns nothing, and the
# transitioner replaces it; a check that crashes or runs past --cmd_timeout
# leaves the result waiting (neither valid nor invalid) for a later pass. A
# project's own plug-in linked in (test/validator_project) does the same, and
# a sequence's segment failing its check relocates the sequence.
test_description='validator: per-result checks by command, the sample plug-in and a linked one'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-daemons.sh"

daemons_setup || exit 1

cat >"$TRASH_DIRECTORY/check.sh" <<'EOT'
#!/bin/sh
# check.sh FILE: valid when FILE is exactly 5 bytes of numbers with no NaN;
# "crash" in it: killed by a signal; "slow" in it: runs far too long --
# unless $CHECK_MEND exists (a mended check: those are good then).
echo "$*" >>"$CHECK_LOG"
test $# = 1 || exit 3
if ! test -e "$CHECK_MEND"; then
	grep -q crash "$1" && kill -SEGV $$
	grep -q slow "$1" && sleep 3261.5
fi
test "$(wc -c <"$1")" = 5 || exit 1
grep -qi nan "$1" && exit 1
exit 0
EOT
chmod +x "$TRASH_DIRECTORY/check.sh"
CHECK_LOG=$TRASH_DIRECTORY/check.log CHECK_MEND=$TRASH_DIRECTORY/mend
export CHECK_LOG CHECK_MEND

# jobs PREFIX TEXT...: one quorum-1 job PREFIX1, PREFIX2... a text, reported
jobs() {
	pfx=$1 && shift && i=0 &&
	for text in "$@"; do
		i=$((i + 1)) &&
		tool wu "$pfx$i" --quorum 1 --target 1 --max_total 5 >/dev/null || return 1
	done &&
	in_project transitioner --one_pass 2>/dev/null &&
	i=0 &&
	for text in "$@"; do
		i=$((i + 1)) &&
		tool report "${pfx}${i}_0" --output "$text" || return 1
	done &&
	in_project transitioner --one_pass 2>/dev/null
}
# "validate_state outcome granted_credit" of a result
verdict() { q "select validate_state, outcome, round(granted_credit) from result where name=\"$1\""; }
# its validate_why: 1 check passed, 2 check failed, 3 files, 4 agreed, 5 disagreed, 6 check retry
why() { q "select validate_why from result where name=\"$1\""; }

test_expect_success '--help names the check options' '
	in_project validator --help >h.val &&
	test_grep "check_cmd CMD" h.val && test_grep "check_plugin NAME" h.val &&
	test_grep "check_arg ARG" h.val && test_grep "cmd_timeout S" h.val
'

test_expect_success '--check_cmd, quorum 1: a good result is valid, canonical and credited' '
	jobs C "1 2 3" "1 2 3 4" "1 nan" &&
	in_project validator --check_cmd "$TRASH_DIRECTORY/check.sh" --credit 7 --one_pass 2>val.log &&
	test "$(verdict C1_0)" = "1	1	7" && test "$(why C1_0)" = 1 &&
	test "$(wu_col C1 "canonical_resultid = (select id from result where name=\"C1_0\")")" = 1 &&
	test_grep "^$(output_path C1_0_0)\$" "$CHECK_LOG"
'

test_expect_success 'a wrong-size and a NaN output are invalid at once (VALIDATE_ERROR), no credit' '
	test "$(verdict C2_0)" = "2	6	0" &&
	test "$(verdict C3_0)" = "2	6	0" &&
	test "$(why C2_0)" = 2 && test "$(why C3_0)" = 2 &&
	test "$(wu_col C2 "need_validate, canonical_resultid")" = "0	0" &&
	test_grep "C2_0.*fails its check (check_cmd)" val.log
'

test_expect_success 'the transitioner replaces an invalid result' '
	in_project transitioner --one_pass 2>/dev/null &&
	test "$(q "select server_state from result where name=\"C2_1\"")" = 2 &&
	test "$(q "select server_state from result where name=\"C3_1\"")" = 2 &&
	test "$(q "select count(*) from result where name like \"C1\\_%\"")" = 1
'

test_expect_success 'a check killed by a signal leaves the result waiting' '
	jobs K "crash" &&
	in_project validator --check_cmd "$TRASH_DIRECTORY/check.sh" --one_pass 2>val.log &&
	test_grep "died of signal" val.log &&
	test_grep "K1_0.*cannot tell" val.log &&
	test "$(verdict K1_0)" = "0	1	0" && test "$(why K1_0)" = 6 &&
	test "$(wu_col K1 "need_validate, canonical_resultid")" = "1	0"
'

test_expect_success 'a check past --cmd_timeout is killed and the result waits' '
	jobs S "slow1" &&
	start=$(date +%s) &&
	in_project validator --check_cmd "$TRASH_DIRECTORY/check.sh" --cmd_timeout 2 \
		--one_pass 2>val.log &&
	test $(($(date +%s) - start)) -lt 60 &&
	test_grep "still running after 2 s: killed" val.log &&
	test "$(verdict S1_0)" = "0	1	0" && test "$(why S1_0)" = 6 &&
	test "$(wu_col S1 need_validate)" = 1 &&
	test_must_fail pgrep -f "sleep 3261.5"
'

test_expect_success 'a later pass with a mended check validates both' '
	touch "$CHECK_MEND" &&
	in_project validator --check_cmd "$TRASH_DIRECTORY/check.sh" --credit 7 --one_pass 2>val.log &&
	test "$(verdict K1_0)" = "1	1	7" &&
	test "$(verdict S1_0)" = "1	1	7" &&
	test "$(why K1_0)" = 1 && test "$(why S1_0)" = 1 &&
	test "$(wu_col K1 need_validate)" = 0
'

test_expect_success '--cmd_timeout bounds --compare_cmd too: the workunit waits' '
	printf "#!/bin/sh\nsleep 3262.5\n" >"$TRASH_DIRECTORY/slow_compare.sh" &&
	chmod +x "$TRASH_DIRECTORY/slow_compare.sh" &&
	tool wu W --quorum 2 --target 2 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report W_0 --output "1 2 3" && tool report W_1 --output "1 2 3" &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --compare_cmd "$TRASH_DIRECTORY/slow_compare.sh" --cmd_timeout 1 \
		--one_pass 2>val.log &&
	test_grep "slow_compare.sh still running after 1 s: killed" val.log &&
	test "$(wu_col W "need_validate, canonical_resultid")" = "1	0" &&
	results_of W >actual &&
	printf "W_0\t5\t1\t0\nW_1\t5\t1\t0\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'quorum 2: a result failing its check is invalid; only checked ones are compared' '
	rm -f "$CHECK_LOG" &&
	tool wu Q --quorum 2 --target 2 --max_total 5 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report Q_0 --output "1 2 3" && tool report Q_1 --output "1 nan" &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --check_cmd "$TRASH_DIRECTORY/check.sh" --one_pass 2>val.log &&
	test "$(verdict Q_1)" = "2	6	0" &&
	test "$(q "select validate_state from result where name=\"Q_0\"")" = 4 &&
	test "$(why Q_1)" = 2 && test "$(why Q_0)" = 1 &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report Q_2 --output "1 2 3" &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --check_cmd "$TRASH_DIRECTORY/check.sh" --credit 7 --one_pass 2>val.log &&
	test "$(verdict Q_0)" = "1	1	7" &&
	test "$(verdict Q_2)" = "1	1	7" &&
	test "$(verdict Q_1)" = "2	6	0" &&
	test "$(why Q_0)" = 4 && test "$(why Q_2)" = 4 && test "$(why Q_1)" = 2
'

test_expect_success 'quorum 2: a result failing its check alone is invalid at once and replaced' '
	tool wu L --quorum 2 --target 2 --max_total 5 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report L_0 --output "1 nan" &&
	in_project transitioner --one_pass 2>tr.log &&
	test_grep "L.*need_validate =>1" tr.log &&
	in_project validator --check_cmd "$TRASH_DIRECTORY/check.sh" --one_pass 2>val.log &&
	test "$(verdict L_0)" = "2	6	0" && test "$(why L_0)" = 2 &&
	test "$(wu_col L "need_validate, canonical_resultid")" = "0	0" &&
	in_project transitioner --one_pass 2>/dev/null &&
	test "$(q "select server_state from result where name=\"L_2\"")" = 2
'

test_expect_success 'a good one alone is checked once and waits; the quorum then compares' '
	rm -f "$CHECK_LOG" &&
	tool report L_1 --output "1 2 3" &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --check_cmd "$TRASH_DIRECTORY/check.sh" --one_pass 2>val.log &&
	test "$(verdict L_1)" = "0	1	0" && test "$(why L_1)" = 1 &&
	test "$(wu_col L "need_validate, canonical_resultid")" = "0	0" &&
	in_project transitioner --one_pass 2>tr.log &&
	! grep -q "need_validate =>1" tr.log &&
	tool report L_2 --output "1 2 3" &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator --check_cmd "$TRASH_DIRECTORY/check.sh" --credit 7 --one_pass 2>val.log &&
	test "$(verdict L_1)" = "1	1	7" && test "$(verdict L_2)" = "1	1	7" &&
	test "$(why L_1)" = 4 && test "$(why L_2)" = 4 &&
	test "$(grep -c "L_1_0" "$CHECK_LOG")" = 1 && test "$(grep -c "L_2_0" "$CHECK_LOG")" = 1
'

test_expect_success 'the sample plug-in: size, NaN and range make results invalid' '
	jobs P "1 2 3" "1 2 3 4" "1 nan" "1 2 9" &&
	in_project validator --check_plugin sample --check_arg "size=5 min=0 max=5" --credit 7 \
		--one_pass 2>val.log &&
	test_grep "checking each result with sample size=5" val.log &&
	test "$(verdict P1_0)" = "1	1	7" &&
	test "$(verdict P2_0)" = "2	6	0" &&
	test "$(verdict P3_0)" = "2	6	0" &&
	test "$(verdict P4_0)" = "2	6	0" &&
	test_grep "P2_0\\] sample check: .*7 bytes, not 5" val.log &&
	test_grep "P3_0\\] sample check: .*\"nan\" is not a finite number" val.log &&
	test_grep "P4_0\\] sample check: .*9 is outside \\[0, 5\\]" val.log
'

test_expect_success 'a bad --check_arg leaves results waiting; an unknown plug-in is refused' '
	jobs U "1 2 3" &&
	in_project validator --check_plugin sample --check_arg "size=x" --one_pass 2>val.log &&
	test_grep "bad --check_arg word \"size=x\"" val.log &&
	test "$(verdict U1_0)" = "0	1	0" &&
	test_must_fail in_project validator --check_plugin nosuch --one_pass 2>val.log &&
	test_grep "no such plug-in" val.log &&
	in_project validator --check_plugin sample --credit 7 --one_pass 2>val.log &&
	test "$(verdict U1_0)" = "1	1	7"
'

test_expect_success 'a project links its own plug-in (validate_project): its check decides' '
	test_must_fail in_project validator --check_plugin mine --one_pass 2>val.log &&
	test_grep "no such plug-in" val.log &&
	jobs M "OK 1" "BAD 1" "what" &&
	in_project validator_project --check_plugin mine --credit 7 --one_pass 2>val.log &&
	test_grep "validating every app with mine" val.log &&
	test "$(verdict M1_0)" = "1	1	7" &&
	test "$(verdict M2_0)" = "2	6	0" &&
	test_grep "M2_0\] mine: says BAD" val.log &&
	test "$(verdict M3_0)" = "0	1	0" &&
	test "$(wu_col M3 need_validate)" = 1
'

test_expect_success 'and its comparison replaces bitwise' '
	tool wu M4 --quorum 2 --target 2 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report M4_0 --output "OK same
a" && tool report M4_1 --output "OK same
b" &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator_project --check_plugin mine --credit 7 --one_pass 2>val.log &&
	test "$(verdict M4_0)" = "1	1	7" &&
	test "$(verdict M4_1)" = "1	1	7"
'

test_expect_success 'a sequence segment failing its check is invalid; its sequence is relocated' '
	test_setup_sample_app &&
	mkdir init && (cd init && "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample" --state --init \
		--words 16 2>/dev/null) &&
	in_project bin/create_sequence --appname wseq_sample --seq_name SQ --segments 3 \
		--rsc_fpops_est 1e9 --state_upload_every 1 "$TRASH_DIRECTORY/init/state_out" >sq.log 2>&1 &&
	in_project transitioner --one_pass 2>/dev/null &&
	tool report SQ_b0_s1_0 --output "1 nan" &&
	in_project transitioner --one_pass 2>/dev/null &&
	test "$(q "select need_relocate from sequence where name=\"SQ\"")" = 0 &&
	in_project validator --app wseq_sample --check_plugin sample --one_pass 2>val.log &&
	test "$(verdict SQ_b0_s1_0)" = "2	6	0" &&
	test_grep "SQ_b0_s1_0\] sample check: SQ_b0_s1_.*\"nan\" is not a finite number" val.log &&
	test_grep "invalid segment: the sequence will be relocated" val.log &&
	test "$(q "select need_relocate > 0, first_unvalidated_seqno from sequence where name=\"SQ\"")" = "1	1"
'

test_done
