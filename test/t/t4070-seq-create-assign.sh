#!/bin/sh
test_description='create_sequence --stdin; how many sequences a host holds (per host, per CPU, never two of a group); the share of a request sequence segments may fill'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"

value() { test_sql_value "select $1 from sequence where name=\"$2\""; }
nseqs() { test_sql_value "select count(*) from sequence"; }
held_by() { test_sql_value "select count(*) from sequence where hostid=$1"; }
set_config() {  # set_config NAME VALUE: a <config> element of config.xml
	sed -i "/<$1>/d; s|<config>|<config>\n    <$1>$2</$1>|" "$PROJECT_DIR/config.xml"
}

test_expect_success 'create_sequence --stdin: one sequence a line, the command line gives defaults' '
	test_setup_sample_app &&
	mkdir init && (cd init && "$APP" --state --init --words 64 2>/dev/null) &&
	cat >lines <<-EOT &&
	--seq_name P1 $TRASH_DIRECTORY/init/state_out
	# a comment, and a blank line

	--seq_name P2 --segments 3 $TRASH_DIRECTORY/init/state_out
	--seq_name Q --replicas 2 "$TRASH_DIRECTORY/init/state_out"
	EOT
	test_project bin/create_sequence --appname wseq_sample --segments 2 --rsc_fpops_est 1e9 \
		--command_line "--state --steps 10" --stdin <lines >out &&
	test_grep "sequence P1: 2 segments" out && test_grep "sequence P2: 3 segments" out &&
	test_grep "group Q: 2 sequences, quorum 2" out &&
	test "$(nseqs)" = 4 &&
	test "$(value nsegments P2)" = 3 && test "$(value nsegments Q_r1)" = 2 &&
	test "$(value command_line P1)" = "--state --steps 10"
'

test_expect_success 'a bad line: its number in the error, and nothing of the batch created' '
	printf -- "--seq_name R1 %s\n--seq_name R2 --nosuch 1 %s\n" "$TRASH_DIRECTORY/init/state_out" "$TRASH_DIRECTORY/init/state_out" >bad1 &&
	test_must_fail test_project bin/create_sequence --appname wseq_sample --segments 2 --stdin <bad1 2>err &&
	test_grep "stdin line 2: unknown option --nosuch" err && test_grep "no sequence created" err &&
	printf -- "--seq_name R1\n" >bad2 &&
	test_must_fail test_project bin/create_sequence --appname wseq_sample --segments 2 --stdin <bad2 2>err &&
	test_grep "stdin line 1: the initial state file is missing" err &&
	printf -- "--seq_name R1 --appname other %s\n" "$TRASH_DIRECTORY/init/state_out" >bad3 &&
	test_must_fail test_project bin/create_sequence --appname wseq_sample --segments 2 --stdin <bad3 2>err &&
	test_grep "stdin line 1: --appname belongs on the command line" err &&
	printf -- "--segments 2 %s\n" "$TRASH_DIRECTORY/init/state_out" >bad4 &&
	test_must_fail test_project bin/create_sequence --appname wseq_sample --stdin <bad4 2>err &&
	test_grep "seq_name is missing" err &&
	test "$(nseqs)" = 4 &&
	test "$(test_sql_value "select count(*) from sequence_group")" = 1
'

test_expect_success 'by default a host holds one sequence' '
	CPID=hA sched_request 0 2 >r && sched_rpc r reply &&
	A=$(sched_reply_hostid reply) && echo $A >A &&
	test "$(held_by $A)" = 1 && test "$(value hostid P1)" = $A &&
	test "$(grep -c "^<result>$" reply)" = 2 &&
	CPID=hA sched_request $A 2 >r && sched_rpc r reply2 &&
	test "$(held_by $A)" = 1
'

test_expect_success 'max_sequences_per_cpu: N per CPU, but never two members of a group' '
	set_config max_sequences_per_cpu 1 &&
	CPID=hB sched_request 0 4 >r && sched_rpc r reply &&
	B=$(sched_reply_hostid reply) &&
	test "$(held_by $B)" = 2 &&
	test "$(value hostid P2)" = $B && test "$(value hostid Q_r0)" = $B &&
	test "$(value hostid Q_r1)" = 0 &&
	A=$(cat A) &&
	CPID=hA sched_request $A 2 P1_b0_s1_state 1 >r && sched_rpc r reply &&
	test "$(held_by $A)" = 2 && test "$(value hostid Q_r1)" = $A
'

test_expect_success 'sequence_share: big segments leave room for ordinary jobs in the same reply' '
	set_config max_sequences_per_cpu 0 &&
	for i in 1 2 3 4 5; do
		echo "job $i" >in_$i && echo "--wu_name job_$i $TRASH_DIRECTORY/in_$i" || return 1
	done >jobs &&
	test_project bin/create_work --appname wseq_sample --rsc_fpops_est 1e11 --stdin <jobs &&
	test_project bin/transitioner --one_pass &&
	printf -- "--seq_name BIG1 %s\n--seq_name BIG2 %s\n" "$TRASH_DIRECTORY/init/state_out" "$TRASH_DIRECTORY/init/state_out" >big &&
	test_project bin/create_sequence --appname wseq_sample --segments 4 --rsc_fpops_est 2e12 \
		--max_result_time 100000 --stdin <big &&
	CPID=hC REQ_SECONDS=1000 sched_request 0 1 >r && sched_rpc r reply &&
	C=$(sched_reply_hostid reply) &&
	test "$(value hostid BIG1)" = $C &&
	test_grep "<name>BIG1_b0_s2_0</name>" reply &&
	test "$(grep -c "<name>job_[0-9]_0</name>" reply)" = 5
'

test_expect_success 'sequence_share 1: segments may fill a request alone' '
	set_config sequence_share 1 &&
	test_project bin/create_work --appname wseq_sample --rsc_fpops_est 1e11 --wu_name job_6 "$TRASH_DIRECTORY/in_1" &&
	test_project bin/transitioner --one_pass &&
	CPID=hD REQ_SECONDS=1000 sched_request 0 1 >r && sched_rpc r reply &&
	D=$(sched_reply_hostid reply) &&
	test "$(value hostid BIG2)" = $D &&
	test "$(grep -c "^<result>$" reply)" = 2 &&
	test_grep -v "<name>job_6_0</name>" reply
'

test_expect_success 'a host whose measured turnaround exceeds max_result_time gets no sequence' '
	test_project bin/create_sequence --appname wseq_sample --seq_name T1 --segments 2 \
		--rsc_fpops_est 1e9 --max_result_time 1000 "$TRASH_DIRECTORY/init/state_out" &&
	set_config max_sequences_per_cpu 1 &&
	A=$(cat A) &&
	test_sql "$WSEQ_DB_NAME" -e "update host set avg_turnaround=5000 where id=$A" &&
	CPID=hA sched_request $A 8 >r && sched_rpc r reply &&
	test "$(value hostid T1)" = 0 &&
	test_sql "$WSEQ_DB_NAME" -e "update host set avg_turnaround=500 where id=$A" &&
	CPID=hA sched_request $A 8 >r && sched_rpc r reply &&
	test "$(value hostid T1)" = $A
'

test_expect_success 'a reported job updates the host'"'"'s average turnaround' '
	C=$(test_sql_value "select hostid from sequence where name=\"BIG1\"") &&
	test_sql "$WSEQ_DB_NAME" -e "update result set sent_time=unix_timestamp()-100 where name=\"job_1_0\"" &&
	CPID=hC sched_request $C 1 >r &&
	sed -i "s|</scheduler_request>|<result><name>job_1_0</name><state>5</state><exit_status>0</exit_status><final_elapsed_time>1</final_elapsed_time></result>\n</scheduler_request>|" r &&
	sched_rpc r reply && test_grep "<result_ack>" reply &&
	t=$(test_sql_value "select round(avg_turnaround) from host where id=$C") &&
	test "$t" -ge 100 && test "$t" -le 102
'

test_expect_success 'db_check is clean' '
	test_project bin/db_check
'

test_done
