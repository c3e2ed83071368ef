#!/bin/bash
test_description='a host is only a host_cpid: one account with many made-up cpids gets no more than one host would -- one result of a quorum, one member of a sequence group, its sequences, its quota -- and a host claiming 100,000 CPUs counts as max_ncpus'
. "$WSEQ_SRCDIR/test/test-lib.sh"

TEST_ACCOUNT_RULES=1    # the project's defaults, not the suite's one-account convenience
test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"

q() { test_sql_value "$1"; }
set_config() {  # set_config NAME VALUE: a <config> element of config.xml
	sed -i "/<$1>/d; s|<config>|<config>\n    <$1>$2</$1>|" "$PROJECT_DIR/config.xml"
}
# ask KEY CPID [NCPUS]: one RPC of host CPID (new or known by its cpid) of
# the account with key KEY, asking for much work; CPID.jobs the jobs sent.
ask() {
	NCPUS=${3:-1} sched_host_request "$1" 0 "$2" 100000 >"$2.req" &&
	sched_rpc "$2.req" "$2.reply" && sched_reply_jobs "$2.reply" >"$2.jobs"
}
# account NAME: a new account; its key in NAME.key
account() {
	test_project bin/account create --email "$1@example.org" --name "$1" \
		--password_file "$TRASH_DIRECTORY/pw" >"$1.out" &&
	sed -n "s/^account_key //p" "$1.out" >"$1.key" && test -s "$1.key"
}
key() { cat "$1.key"; }
cw() { test_project bin/create_work --appname wseq_sample "$@" "$TRASH_DIRECTORY/in"; }

test_expect_success 'set up: the sample app, accounts mallory, bob, carol, dave; one job of quorum 2' '
	test_setup_sample_app &&
	echo input >in && printf "%s" "a password" >pw &&
	for a in mallory bob carol dave; do account $a || return 1; done &&
	cw --wu_name pair --min_quorum 2 --target_nresults 2 >cw.log 2>&1 &&
	test_project bin/transitioner --one_pass >tr.log 2>&1 &&
	test "$(q "select count(*) from result r join workunit w on w.id=r.workunitid where w.name=\"pair\" and r.server_state=2")" = 2
'

test_expect_success 'one account with two made-up cpids gets one result of a quorum-2 job' '
	ask "$(key mallory)" m1 && ask "$(key mallory)" m2 &&
	cat m1.jobs m2.jobs >m.jobs && test_line_count = 1 m.jobs &&
	test "$(q "select count(*) from host where userid=(select id from user where name=\"mallory\")")" = 2
'

test_expect_success 'a second account gets the other result: the quorum is two accounts' '
	ask "$(key bob)" b1 && test_line_count = 1 b1.jobs &&
	test "$(q "select count(distinct r.userid) from result r join workunit w on w.id=r.workunitid where w.name=\"pair\" and r.server_state=4")" = 2
'

test_expect_success 'a sequence group'"'"'s members go to different accounts; an account holds one sequence however many cpids it makes' '
	mkdir init && (cd init && "$APP" --state --init --words 64 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_sample --seq_name G --replicas 2 \
		--segments 2 --rsc_fpops_est 1e9 --command_line "--state --steps 10" \
		"$TRASH_DIRECTORY/init/state_out" >seq.out &&
	for s in L1 L2 L3; do
		test_project bin/create_sequence --appname wseq_sample --seq_name $s --segments 2 \
			--rsc_fpops_est 1e9 --command_line "--state --steps 10" \
			"$TRASH_DIRECTORY/init/state_out" >>seq.out || return 1
	done &&
	for c in s1 s2 s3 s4; do ask "$(key carol)" $c || return 1; done &&
	test "$(q "select count(*) from sequence s join host h on h.id=s.hostid join user u on u.id=h.userid where u.name=\"carol\"")" = 1 &&
	test "$(q "select count(*) from sequence s join host h on h.id=s.hostid join user u on u.id=h.userid where u.name=\"carol\" and s.groupid>0")" = 1 &&
	ask "$(key dave)" d1 &&
	test "$(q "select count(distinct h.userid) from sequence s join host h on h.id=s.hostid where s.groupid>0")" = 2
'

test_expect_success 'max_sequences_per_user raises the account'"'"'s limit; a group still never shares an account' '
	set_config max_sequences_per_user 3 && sleep 1 &&
	for c in s1 s2 s3 s4; do ask "$(key carol)" $c || return 1; done &&
	test "$(q "select count(*) from sequence s join host h on h.id=s.hostid join user u on u.id=h.userid where u.name=\"carol\"")" = 3 &&
	test "$(q "select count(*) from sequence s join host h on h.id=s.hostid where s.groupid>0 group by h.userid having count(*)>1")" = ""
'

test_expect_success 'nor does an account that ran one member get another later, when the first has ended' '
	G=$(q "select s.id from sequence s join host h on h.id=s.hostid join user u on u.id=h.userid where u.name=\"carol\" and s.groupid>0") &&
	test -n "$G" &&
	q "update sequence set state=1 where id=$G" &&
	q "update sequence set hostid=0 where groupid>0 and id<>$G" &&
	for c in s1 s2 s3 s4; do ask "$(key carol)" $c || return 1; done &&
	test "$(q "select hostid from sequence where groupid>0 and id<>$G")" = 0 &&
	ask "$(key dave)" d2 &&
	test "$(q "select u.name from sequence s join host h on h.id=s.hostid join user u on u.id=h.userid where s.groupid>0 and s.id<>$G")" = dave
'

test_expect_success 'a new host of a known user does not get a fresh daily quota' '
	set_config daily_result_quota 2 && set_config max_sequences_per_host 0 && sleep 1 &&
	for i in $(seq 1 40); do echo "--wu_name j$i --min_quorum 1 --target_nresults 1 $TRASH_DIRECTORY/in"; done >jobs &&
	test_project bin/create_work --appname wseq_sample --stdin <jobs >>cw.log 2>&1 &&
	test_project bin/transitioner --one_pass >>tr.log 2>&1 &&
	account erin && ask "$(key erin)" e1 && test_line_count = 2 e1.jobs &&
	H=$(sched_reply_hostid e1.reply) &&
	err="" && for n in $(cat e1.jobs); do err="$err<result><name>$n</name><exit_status>1</exit_status><state>3</state></result>"; done &&
	NCPUS=1 sched_host_request "$(key erin)" "$H" e1 100000 "$err" >r && sched_rpc r reply &&
	test "$(q "select max_results_day from host where id=$H")" = 1 &&
	ask "$(key erin)" e2 && test_line_count = 1 e2.jobs &&
	ask "$(key erin)" e3 && test_line_count = 0 e3.jobs &&
	test_grep "Daily job limit (1) has been reached" e3.reply
'

test_expect_success 'a host claiming 100,000 CPUs gets the quota of max_ncpus CPUs' '
	set_config max_ncpus 4 && set_config max_wus_to_send 100 && sleep 1 &&
	account frank && ask "$(key frank)" f1 100000 && test_line_count = 8 f1.jobs
'

test_expect_success 'and in-progress limits count max_ncpus CPUs too' '
	set_config daily_result_quota 0 && set_config max_wus_in_progress 2 && sleep 1 &&
	account gina && ask "$(key gina)" g1 100000 && test_line_count = 8 g1.jobs
'

test_expect_success 'a new host shares the in-progress allowance of its user'"'"'s other new hosts' '
	ask "$(key gina)" g2 1 && test_line_count = 0 g2.jobs &&
	test "$(q "select count(*) from result r join user u on u.id=r.userid where u.name=\"gina\" and r.server_state=4")" = 8
'

test_expect_success 'no result of a workunit is held by two hosts of one account' '
	test "$(q "select count(*) from (select workunitid, userid from result where server_state>=4 and userid>0 group by workunitid, userid having count(*)>1) x")" = 0
'

test_done
