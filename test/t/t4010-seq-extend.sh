#!/bin/sh
test_description='extend_sequence adds segments, keeps open-ended sequences ahead, follows a policy, and ends sequences; ending reaches the host at its next RPC'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"

create() {
	test_project bin/create_sequence --appname wseq_sample --rsc_fpops_est 1e9 \
		--command_line "--state --steps 10" --seq_name "$@" "$TRASH_DIRECTORY/init/state_out"
}
value() { test_sql_value "select $1 from sequence where name=\"$2\""; }

test_expect_success 'set up: the sample app and an initial state' '
	test_setup_sample_app &&
	mkdir init && (cd init && "$APP" --state --init --words 64 2>/dev/null) &&
	create A --segments 2 --state_upload_every 2 &&
	test "$(value nsegments A)" = 2
'

test_expect_success '--add K adds segments on the live branch, and the length grows' '
	test_project bin/extend_sequence --seq_name A --add 3 >out &&
	test_grep "A: 3 segments added (now 5)" out &&
	test "$(value "concat(nsegments, \" \", target_nsegments)" A)" = "5 5" &&
	test "$(test_sql_value "select count(*) from workunit where name like \"A_b0_s%\"")" = 5 &&
	test "$(test_sql_value "select count(*) from result where name like \"A_b0_s%\" and server_state=1")" = 5 &&
	test_sql_value "select xml_doc from workunit where name=\"A_b0_s4\"" | grep "<name>A_b0_s3_state</name>" &&
	test_sql_value "select xml_doc_in from result where name=\"A_b0_s5_0\"" | grep -o file_upload_handler | wc -l >n &&
	test "$(cat n)" = 2
'

test_expect_success 'extending a known-length sequence: the formerly last segment still uploads its state, and the next segment carries the upload URL' '
	create K --segments 3 --state_upload_every 2 &&
	test_sql_value "select xml_doc_in from result where name=\"K_b0_s3_0\"" | grep file_upload_handler &&
	test_project bin/extend_sequence --seq_name K --add 2 >out &&
	test_sql_value "select xml_doc from workunit where name=\"K_b0_s4\"" >s4 &&
	sed -n "/<name>K_b0_s3_state<\/name>/,/<\/file_info>/p" s4 | grep "<url>.*file_upload_handler</url>" &&
	test_sql "$WSEQ_DB_NAME" -e "update sequence set state=1 where name=\"K\""
'

test_expect_success '--keep_ahead L tops up open-ended sequences only as needed' '
	create B --segments 1 --open_ended &&
	test "$(value target_nsegments B)" = 0 &&
	test_project bin/extend_sequence --keep_ahead 4 >out &&
	test "$(value nsegments B)" = 4 && test "$(value nsegments A)" = 5 &&
	test_project bin/extend_sequence --keep_ahead 4 >out2 &&
	test "$(value nsegments B)" = 4 && ! test -s out2
'

test_expect_success '--policy reads the latest answer and says end or extend' '
	path=$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload A_b0_s1_answer) &&
	echo "please stop" >"$path" &&
	test_sql "$WSEQ_DB_NAME" -e "update seq_file set uploaded=1 where name=\"A_b0_s1_answer\"" &&
	cat >policy <<-\EOT &&
	#!/bin/sh
	grep -q stop "$2" && echo end || echo extend 2
	EOT
	chmod +x policy &&
	test_project bin/extend_sequence --policy "$TRASH_DIRECTORY/policy" >out &&
	test_grep "A: ended" out &&
	test "$(value state A)" = 1 && test "$(value nsegments B)" = 4
'

# The answer the policy reads came from a volunteer host, and a policy may
# echo part of it: its "extend N" is read as any number from outside.
test_expect_success '--policy: extend N extends by N; anything but a count of 1 to 1e6 extends by 1, logged' '
	create D --segments 1 &&
	path=$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload D_b0_s1_answer) &&
	echo "go on" >"$path" &&
	test_sql "$WSEQ_DB_NAME" -e "update seq_file set uploaded=1 where name=\"D_b0_s1_answer\"" &&
	cat >policy <<-EOT &&
	#!/bin/sh
	cat "$TRASH_DIRECTORY/say"
	EOT
	chmod +x policy &&
	echo "extend 2" >say && test_project bin/extend_sequence --policy "$TRASH_DIRECTORY/policy" &&
	test "$(value nsegments D)" = 3 &&
	echo "extend 99999999999999999999" >say &&
	test_project bin/extend_sequence --policy "$TRASH_DIRECTORY/policy" 2>err &&
	test "$(value nsegments D)" = 4 &&
	test_grep "D: policy said .extend 99999999999999999999.: extending by 1" err &&
	echo "extend lots" >say &&
	test_project bin/extend_sequence --policy "$TRASH_DIRECTORY/policy" 2>err &&
	test "$(value nsegments D)" = 5 &&
	test_grep "D: policy said .extend lots.: extending by 1" err &&
	test_sql "$WSEQ_DB_NAME" -e "update sequence set state=1 where name=\"D\""
'

test_expect_success 'bad use: one-line errors, usage errors exit 2, nothing changed' '
	{ test_project bin/extend_sequence 2>e1; test $? = 2; } && test_grep "exactly one of" e1 &&
	{ test_project bin/extend_sequence --add 2 2>e2; test $? = 2; } && test_grep "need --seq_name" e2 &&
	test $(wc -l <e2) = 1 &&
	test_must_fail test_project bin/extend_sequence --seq_name nosuch --add 1 2>e3 && test_grep "no sequence named" e3 &&
	test_must_fail test_project bin/extend_sequence --seq_name A --add 1 2>e4 && test_grep "A has ended" e4 &&
	test "$(value nsegments A)" = 5
'

test_expect_success 'a host gets a sequence and its first segments up to the high-water mark' '
	test_sql "$WSEQ_DB_NAME" -e "update sequence set state=1 where name=\"B\"" &&
	create C --segments 3 &&
	sched_request 0 >r1 && sched_rpc r1 reply1 &&
	host=$(sched_reply_hostid reply1) && echo "$host" >hostid &&
	test "$(grep -c "^<result>$" reply1)" = 2 &&
	test_grep "<name>C_b0_s1_0</name>" reply1 && test_grep "<name>C_b0_s2_0</name>" reply1 &&
	test "$(value hostid C)" = "$host" && test "$(value first_unsent_seqno C)" = 3
'

test_expect_success 'ending a sequence while its host is mid-segment: aborted and deleted at the next RPC' '
	test_project bin/extend_sequence --seq_name C --end &&
	sched_request "$(cat hostid)" 2 C_b0_s1_state 1 >r2 && sched_rpc r2 reply2 &&
	test_grep "<result_abort>" reply2 &&
	sed -n "/<result_abort>/,/<\/result_abort>/p" reply2 >aborts &&
	test_grep "C_b0_s1_0" aborts && test_grep "C_b0_s2_0" aborts &&
	test_grep "<delete_file_info>C_b0_s1_state</delete_file_info>" reply2 &&
	test_grep -v "<name>C_b0_s3_0</name>" reply2
'

test_expect_success 'db_check finds the database whole after all this' '
	test_project bin/db_check >check &&
	test_grep "db_check: 5 sequences, 0 violations" check
'

test_expect_success 'db_check names each broken invariant and fails' '
	test_sql "$WSEQ_DB_NAME" -e "update sequence set first_unsent_seqno=9 where name=\"C\"; update result set server_state=2 where name=\"A_b0_s5_0\"" &&
	test_must_fail test_project bin/db_check >bad &&
	test_grep "sequence C: first_unsent_seqno 9 is outside 1..4" bad &&
	test_grep "sequence A: result A_b0_s5_0 is unsent" bad &&
	test_grep "db_check: 5 sequences, [1-9][0-9]* violations" bad
'

test_done
