#!/bin/sh
# Adaptive replication of a work sequence (README "Believable results"): a
# segment cannot be replicated (its state is on the host), so the
# validator's check verifies it before the sequence builds on it. Hand-made
# RPCs to the real scheduler, the real validator with --check_cmd: an
# untrusted host gets segment k+1 only once segment k is VALID; checked
# segments earn trust, and a trusted host then gets its segments up to the
# high-water mark at once; a segment failing the check takes the trust away;
# a trusted host's segment that is a spot check (a hash of sequence, branch
# and segment) is waited for too.
test_description='adaptive replication of a sequence: an untrusted host waits for validation between segments'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
. "$WSEQ_SRCDIR/test/t/lib-host-upload.sh"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
SLOG="$PROJECT_DIR/log/scheduler.log"

q() { test_sql_value "$1"; }
cv() { q "select coalesce(max(consecutive_valid), 0) from host_app_version where host_id=$(cat A)"; }
# report R: add a successful report of result R to request r
report() {
	sed -i "s|</scheduler_request>|<result><name>$1</name><state>5</state><exit_status>0</exit_status><final_elapsed_time>10</final_elapsed_time></result>\n</scheduler_request>|" r
}
# up R [TEXT]: each output of result R (TEXT, default "answer") uploaded as its host would
up() {
	n=$(test_sql_value "select xml_doc_in from result where name=\"$1\"" |
		grep -o "<file_ref>" | wc -l) && test "$n" -gt 0 &&
	i=1 && while [ $i -le "$n" ]; do
		set -- "$1" "${2:-answer}" $(host_output "$1" $i) &&
		echo "$2" >up.txt &&
		host_upload_req "$3" "$4" up.txt >up.req &&
		curl -sS --data-binary @up.req -H 'Content-Type: application/octet-stream' \
			"$(wseq_config --project "$PROJECT_DIR" upload_url)" >up.reply &&
		grep -q "<status>0</status>" up.reply &&
		set -- "$1" "$2" && i=$((i + 1)) || return 1
	done
}
validate() {
	test_project bin/transitioner --one_pass >>val.log 2>&1 &&
	test_project bin/validator --one_pass --check_cmd "$TRASH_DIRECTORY/check.sh" >>val.log 2>&1
}
# rpc [RESULT...]: host A's request reporting RESULTs (uploaded first), holding the
# state of segment $K (none: 0); the segments sent
K=0
rpc() {
	if [ "$K" -gt 0 ]; then
		CPID=hS sched_request "$(cat A)" 2 S_b0_s${K}_state 1 >r
	else
		CPID=hS sched_request "$(cat A)" >r
	fi &&
	for x in "$@"; do report "$x" || return 1; done &&
	sched_rpc r reply &&
	sched_reply_jobs reply >sent
}

test_expect_success 'set up: a sequence app with adaptive replication (trust after 2, no spot checks)' '
	test_setup_sample_app &&
	printf "#!/bin/sh\nif grep -q wrong \"\$@\"; then exit 1; fi\nexit 0\n" >check.sh &&
	chmod +x check.sh &&
	cat >"$PROJECT_DIR/project.xml" <<-EOT &&
	<boinc><app><name>wseq_sample</name><adaptive_replication><trust_after>2</trust_after>
	<spot_check>0</spot_check></adaptive_replication></app></boinc>
	EOT
	test_project bin/xadd >xadd.out &&
	test_grep "adaptive replication" xadd.out &&
	mkdir init && (cd init && "$APP" --state --init --words 64 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_sample --seq_name S --segments 6 \
		--high_water 2 --answer_every 1 --rsc_fpops_est 1e9 --command_line "--state" \
		"$TRASH_DIRECTORY/init/state_out" >/dev/null &&
	echo 0 >A
'

test_expect_success 'a new host gets segment 1 only: segment 2 waits for it to be valid' '
	rpc && A=$(sched_reply_hostid reply) && echo "$A" >A &&
	test "$(cat sent)" = S_b0_s1_0 &&
	test_grep "host $A: sequence S segment 2 waits for segment 1 to be valid (not trusted yet)" "$SLOG"
'

test_expect_success 'segment 1 reported but not yet validated: still nothing more' '
	up S_b0_s1_0 && K=1 && rpc S_b0_s1_0 &&
	test_line_count = 0 sent &&
	test "$(q "select server_state, outcome from result where name=\"S_b0_s1_0\"")" = "5	1"
'

test_expect_success 'segment 1 passes the check: VALID, counted as verified; segment 2 goes' '
	validate &&
	test "$(q "select validate_state from result where name=\"S_b0_s1_0\"")" = 1 &&
	test "$(cv)" = 1 &&
	K=1 && rpc && test "$(cat sent)" = S_b0_s2_0
'

test_expect_success 'with segment 2 valid the host is trusted: segments 3 and 4 go at once' '
	up S_b0_s2_0 && K=2 && rpc S_b0_s2_0 && test_line_count = 0 sent &&
	validate && test "$(cv)" = 2 &&
	K=2 && rpc && sort sent >got && printf "S_b0_s3_0\nS_b0_s4_0\n" >want && test_cmp want got
'

test_expect_success 'a segment failing the check is invalid and takes the trust away at once' '
	up S_b0_s3_0 wrong && K=3 && rpc S_b0_s3_0 &&
	validate &&
	test "$(q "select validate_state from result where name=\"S_b0_s3_0\"")" = 2 &&
	test "$(cv)" = 0 &&
	test "$(q "select n_invalid from host_app_version where host_id=$(cat A)")" = 1
'

test_expect_success 'a trusted host'"'"'s segment that is a spot check waits too (spot_check 1)' '
	sed -i "s|<trust_after>2<|<trust_after>0<|; s|<spot_check>0<|<spot_check>1<|" \
		"$PROJECT_DIR/project.xml" &&
	test_project bin/xadd >xadd.out &&
	test "$(q "select trust_after, spot_check from app where name=\"wseq_sample\"")" = "0	1" &&
	sleep 1 &&      # the scheduler looks at the apps at most once a second
	test_project bin/create_sequence --appname wseq_sample --seq_name T --segments 4 \
		--high_water 2 --answer_every 1 --rsc_fpops_est 1e9 --command_line "--state" \
		"$TRASH_DIRECTORY/init/state_out" >/dev/null &&
	CPID=hT sched_request 0 >r && sched_rpc r reply &&
	T=$(sched_reply_hostid reply) &&
	test "$(sched_reply_jobs reply)" = T_b0_s1_0 &&
	test_grep "host $T: sequence T segment 2 waits for segment 1 to be valid (trusted, spot-checked)" "$SLOG"
'

test_done
