#!/bin/sh
test_description='state levels on real clients: full every 6, delta every 2; a host lost after segment 9 restarts at 9 from delta_8 + full_6'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
# A step changes one word: a delta of a few segments is a few hundred bytes, the full state 128 KiB.
STEPS=20
WORDS=16384
FLAGS="--levels 6 --steps $STEPS --words $WORDS"
FULL_BYTES=$((11 + 16 + 8 * WORDS))

test_expect_success 'a 12-segment sequence: full every 6, delta every 2, the sample app in --levels 6' '
	test_project bin/start && test_setup_sample_app &&
	cat >"$PROJECT_DIR/templates/levels_seq" <<-\EOT &&
	<sequence_template>
	  <state><open_name_in>full_in</open_name_in><open_name_out>full_out</open_name_out>
	    <upload_every>6</upload_every></state>
	  <state><open_name_in>delta_in</open_name_in><open_name_out>delta_out</open_name_out>
	    <upload_every>2</upload_every></state>
	  <answer><open_name>answer</open_name></answer>
	</sequence_template>
	EOT
	mkdir init && (cd init && "$APP" $FLAGS --init 2>/dev/null) &&
	test "$(wc -c <init/full_out)" = $FULL_BYTES &&
	test_project bin/create_sequence --appname wseq_sample --seq_name L --segments 12 \
		--answer_every 1 --state_upload_every 2 --seq_template templates/levels_seq \
		--rsc_fpops_est 1e9 --max_result_time 3600 --delay_bound 150 \
		--command_line "$FLAGS --step_ms 100" \
		"$TRASH_DIRECTORY/init/full_out" "$TRASH_DIRECTORY/init/delta_out"
'

seg_done() { test_seg_done L "$1"; }

# Segment 10 is made slow on A from the start (30 s a step: 10 minutes), so
# it is surely still running when segment 9 is reported, however busy the
# machine: A is killed with segment 10 running, its state of segment 9
# (an odd segment: nothing uploaded) lost with it.
nine_done_ten_running() {
	seg_done 9 && grep -q "Starting task L_b0_s10_0" A/client.log
}

test_expect_success 'client A runs 9 segments and vanishes in segment 10' '
	mkdir -p A && printf "30000\nL_b0_s10\n" >A/wseq_slow &&
	test_boinc_client_up A &&
	test_boinc_attach A "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_wait_for 300 nine_done_ten_running &&
	pid=$(cat A/client.pid) &&
	test_boinc_client_kill A &&
	test_wait_for 10 test_pid_gone "$pid" &&
	test "$(test_sql_value "select last_state_seqno from sequence where name=\"L\"")" = 8
'

relocated() {
	test "$(test_sql_value "select concat(branch, \" \", hostid) from sequence where name=\"L\"")" = "1 0"
}

test_expect_success 'segment 10 misses its deadline; branch 1 starts at 9 from delta_8 + full_6' '
	test_wait_for 300 relocated &&
	test "$(test_sql_value "select first_unsent_seqno from sequence where name=\"L\"")" = 9 &&
	test "$(test_sql_value "select outcome from result where name=\"L_b0_s10_0\"")" = 4 &&
	test_sql_value "select xml_doc from workunit where name=\"L_b1_s9\"" >wu9 &&
	test_grep "<name>L_b0_s6_state</name>" wu9 && test_grep "<name>L_b0_s8_state1</name>" wu9 &&
	test_grep -v "L_b0_s8_state<" wu9 && test_grep -v "L_b0_s7_" wu9 &&
	test "$(grep -o "download/[^<]*/L_b0_s[68]_state1*<" wu9 | wc -l)" = 2 &&
	grep "sequence L: relocating" "$PROJECT_DIR/log/relocator.log" >reloc &&
	test_grep "from segment 9" reloc && test_grep "L_b0_s6_state" reloc &&
	test_grep "L_b0_s8_state1" reloc &&
	test_project bin/db_check
'

seq_ended() {
	test "$(test_sql_value "select state from sequence where name=\"L\"")" = 1
}

test_expect_success 'client B takes it over and completes it; its segment 9 read full_6 + delta_8' '
	test_boinc_client_up B &&
	test_boinc_attach B "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_wait_for 300 seq_ended &&
	a=$(test_sql_value "select hostid from result where name=\"L_b0_s1_0\"") &&
	test "$(test_sql_value "select count(*) from result where name like \"L_b1_s%\" and outcome=1 and hostid<>$a")" = 4 &&
	test_sql_value "select stderr_out from result where name=\"L_b1_s9_0\"" >err9 &&
	test_grep "segment 9 from the full state of segment 6 and the delta of segment 8" err9 &&
	test_sql_value "select stderr_out from result where name=\"L_b1_s10_0\"" >err10 &&
	test_grep "segment 10 from the full state of segment 9 and the delta of segment 9" err10
'

# The state files on the server: name and bytes, from the seq_file rows, one a line.
# Every state version that reached the server, whether or not the file
# deleter has removed it since it was superseded (its row keeps the upload).
uploaded_states() {
	test_sql_value "select name, nbytes from seq_file where name like \"L\\_b%\" and kind=1 and seqno>0 and upload_time>0 order by name"
}

test_expect_success 'the server holds full for segments 6 and 12 only, delta for 2, 4, ..., 12; full much bigger' '
	uploaded_states >up &&
	cut -f 1 up >names &&
	printf "%s\n" L_b0_s2_state1 L_b0_s4_state1 L_b0_s6_state L_b0_s6_state1 L_b0_s8_state1 \
		L_b1_s10_state1 L_b1_s12_state L_b1_s12_state1 >expect &&
	test_cmp expect names &&
	test "$(grep -c "_state	$FULL_BYTES$" up)" = 2 &&
	for d in $(grep "_state1	" up | cut -f 2); do
		test "$d" -lt $((FULL_BYTES / 20)) || return 1
	done &&
	for f in $(find "$PROJECT_DIR/upload" -name "L_b*_s*_state*"); do
		n=$(basename "$f") &&
		grep -q "^$n	$(wc -c <"$f")$" up || { echo "$f: not as its row says" >&2; return 1; }
	done &&
	test -n "$(find "$PROJECT_DIR/upload" -name L_b1_s12_state)"
'

# Segment k of an uninterrupted run, by hand: link files as a client's slot
# has, so the app reads its segment from the physical names as under a client.
local_segment() {
	k=$1 &&
	printf "<soft_link>L_b0_s%d_state</soft_link>" $((k - 1)) >full_in &&
	printf "<soft_link>L_b0_s%d_state1</soft_link>" $((k - 1)) >delta_in &&
	printf "<soft_link>L_b0_s%d_state</soft_link>" $k >full_out &&
	printf "<soft_link>L_b0_s%d_state1</soft_link>" $k >delta_out &&
	printf "<soft_link>L_b0_s%d_answer</soft_link>" $k >answer &&
	"$APP" $FLAGS
}

test_expect_success 'the final answer and full state equal an uninterrupted run, and a single-level one' '
	rm -rf local && mkdir local &&
	cp init/full_out local/L_b0_s0_state && cp init/delta_out local/L_b0_s0_state1 &&
	(cd local && for k in 1 2 3 4 5 6 7 8 9 10 11 12; do local_segment $k || exit 1; done) &&
	test_grep "segment 12 from the full state of segment 11 and the delta of segment 11" local/stderr.txt &&
	cmp local/L_b0_s12_state "$(find "$PROJECT_DIR/upload" -name L_b1_s12_state)" &&
	test_cmp local/L_b0_s12_answer "$(find "$PROJECT_DIR/upload" -name L_b1_s12_answer)" &&
	rm -rf single && mkdir single && cp init/full_out single/state_in &&
	(cd single && "$APP" --state --sparse --steps $((STEPS * 12)) 2>/dev/null) &&
	test_cmp single/answer local/L_b0_s12_answer &&
	cmp single/state_out local/L_b0_s12_state &&
	test_project bin/db_check
'

test_done
