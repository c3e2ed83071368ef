#!/bin/bash
test_description='assigned jobs (create_work --target_host, --target_user, --target_team): only their target gets them, and no other host ever sees them'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"

q() { test_sql_value "$1"; }
# host KEY CPID: a request of a new host of the account with key KEY, wanting a lot of work
host_req() { sched_host_request "$1" 0 "$2" 100000; }
rpc() { curl -s -o "$2" -w "%{http_code}" --data-binary @"$1" "$SCHED"; }
# ask KEY CPID: one request; the host id in CPID.id, the jobs it got in CPID.jobs
ask() {
	host_req "$1" "$2" >"$2.req" && test "$(rpc "$2.req" "$2.reply")" = 200 &&
	sched_reply_hostid "$2.reply" >"$2.id" && sched_reply_jobs "$2.reply" >"$2.jobs"
}
# ask_until KEY CPID: ask again until the host gets something (a scheduler
# process looks for assigned jobs again at most a second after they appear)
got_some() { ask "$1" "$2" && test -s "$2.jobs"; }
ask_until() { test_wait_for 30 got_some "$1" "$2"; }
cw() { test_project bin/create_work --appname wseq_sample "$@"; }

test_expect_success 'set up: accounts bob (team Reef) and carol; hosts of each; no work yet' '
	test_setup_sample_app &&
	echo input >in &&
	printf "%s" "a password" >pw &&
	test_project bin/account create --email bob@example.org --name Bob --password_file "$TRASH_DIRECTORY/pw" >bob.out &&
	test_project bin/account create --email carol@example.org --name Carol --password_file "$TRASH_DIRECTORY/pw" >carol.out &&
	test_project bin/account team_create --email bob@example.org --name Reef >team.out &&
	BOB=$(sed -n "s/^account_key //p" bob.out) && CAROL=$(sed -n "s/^account_key //p" carol.out) &&
	echo "$BOB" >bob.key && echo "$CAROL" >carol.key &&
	ask "$ADMIN_AUTHENTICATOR" a && ask "$BOB" b1 && ask "$BOB" b2 && ask "$CAROL" c &&
	test_line_count = 0 a.jobs && test -s b1.id && test -s c.id
'

test_expect_success 'create_work --target_host/--target_user/--target_team: assignment rows, results waiting' '
	BOBID=$(q "select id from user where email_addr=\"bob@example.org\"") &&
	TEAM=$(q "select id from team where name=\"Reef\"") &&
	cw --wu_name for_b1 --target_host "$(cat b1.id)" "$TRASH_DIRECTORY/in" &&
	cw --wu_name for_bob --target_user "$BOBID" --min_quorum 1 --target_nresults 1 "$TRASH_DIRECTORY/in" &&
	cw --wu_name for_reef --target_team "$TEAM" --min_quorum 1 --target_nresults 1 "$TRASH_DIRECTORY/in" &&
	for i in 1 2 3; do cw --wu_name open$i --min_quorum 1 --target_nresults 1 "$TRASH_DIRECTORY/in" || return 1; done &&
	test "$(q "select count(*) from assignment")" = 3 &&
	test "$(q "select concat(target_type, \" \", target_id) from assignment a join workunit w on w.id=a.workunitid where w.name=\"for_b1\"")" = "1 $(cat b1.id)" &&
	test "$(q "select min_quorum, target_nresults from workunit where name=\"for_b1\"")" = "1	1" &&
	test_project bin/transitioner --one_pass >tr.log 2>&1 &&
	test "$(q "select count(*) from result r join workunit w on w.id=r.workunitid where w.name like \"for\\_%\" and r.server_state=1")" = 3 &&
	test "$(q "select count(*) from result r join workunit w on w.id=r.workunitid where w.name like \"open%\" and r.server_state=2")" = 3
'

test_expect_success 'carol'"'"'s host gets only the open jobs, never an assigned one' '
	ask "$(cat carol.key)" c &&
	test_line_count = 3 c.jobs &&
	test_must_fail grep -q "^for_" c.jobs &&
	test "$(q "select count(*) from result where server_state=1")" = 3
'

test_expect_success 'bob'"'"'s second host gets the user'"'"'s and the team'"'"'s jobs, not the first host'"'"'s' '
	ask_until "$(cat bob.key)" b2 &&
	sort b2.jobs >got && printf "for_bob_0\nfor_reef_0\n" >want && test_cmp want got &&
	test "$(q "select hostid from result where name=\"for_bob_0\"")" = "$(cat b2.id)"
'

test_expect_success 'the targeted host gets its job; nothing is left waiting' '
	ask_until "$(cat bob.key)" b1 &&
	test "$(cat b1.jobs)" = for_b1_0 &&
	test "$(q "select concat(server_state, \" \", hostid) from result where name=\"for_b1_0\"")" = "4 $(cat b1.id)" &&
	test "$(q "select count(*) from result where server_state=1")" = 0
'

test_expect_success 'a timed-out assigned job waits for its target again' '
	q "update result set report_deadline=unix_timestamp()-10 where name=\"for_b1_0\"" &&
	q "update workunit set transition_time=0 where name=\"for_b1\"" &&
	test_project bin/transitioner --one_pass >tr.log 2>&1 &&
	test "$(q "select server_state from result where name=\"for_b1_1\"")" = 1 &&
	ask "$(cat carol.key)" c && test_must_fail grep -q for_b1 c.jobs &&
	ask "$ADMIN_AUTHENTICATOR" a && test_must_fail grep -q for_b1 a.jobs &&
	test "$(q "select server_state from result where name=\"for_b1_1\"")" = 1
'

test_expect_success 'create_work refuses a target that does not exist, two targets, or a replicated job for one host' '
	test_must_fail cw --wu_name bad1 --target_host 999999 "$TRASH_DIRECTORY/in" 2>err &&
	test_grep "no host with id 999999" err &&
	test_must_fail cw --wu_name bad2 --target_user 999999 "$TRASH_DIRECTORY/in" 2>err &&
	test_grep "no user with id 999999" err &&
	test_must_fail cw --wu_name bad3 --target_team 999999 "$TRASH_DIRECTORY/in" 2>err &&
	test_grep "no team with id 999999" err &&
	test_must_fail cw --wu_name bad4 --target_host "$(cat b1.id)" --target_user 1 "$TRASH_DIRECTORY/in" 2>err &&
	test_grep "give one of --target_host, --target_user, --target_team" err &&
	test_must_fail cw --wu_name bad5 --target_host "$(cat b1.id)" --min_quorum 2 "$TRASH_DIRECTORY/in" 2>err &&
	test_grep "a job for one host has one result" err &&
	test "$(q "select count(*) from workunit where name like \"bad%\"")" = 0 &&
	test "$(q "select count(*) from assignment")" = 3
'

test_expect_success 'db_check finds nothing wrong' '
	test_project bin/db_check
'

test_done
