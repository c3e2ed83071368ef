#!/bin/sh
# Credit is bounded whatever the submitter or the host claims: a job's
# rsc_fpops_est (the submit door takes up to 1e30) credits at most what the
# host's benchmark computes in the result's time, times credit_speed_factor,
# and never more than max_granted_credit -- in the database and the
# statistics export alike.
test_description='credit per result capped by max_granted_credit and by the host'"'"'s measured speed'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-daemons.sh"

daemons_setup || exit 1

# job NAME HOST: a quorum-1 job of 1e30 FLOPs, reported (elapsed 10 s, sent
# an hour ago) by host HOST of its owner, then validated.
job() {
	tool wu "$1" --quorum 1 --target 1 >/dev/null &&
	q "update workunit set rsc_fpops_est=1e30, rsc_fpops_bound=1e31 where name=\"$1\"" &&
	in_project transitioner --until_idle -d 1 2>/dev/null &&
	tool report "$1_0" --output "answer" &&
	q "update result r join host h on h.domain_name=\"$2\"
		set r.userid=h.userid, r.hostid=h.id, r.sent_time=unix_timestamp()-3600 where r.name=\"$1_0\"" &&
	in_project transitioner --until_idle -d 1 2>/dev/null &&
	in_project validator --until_idle -d 1 2>val.log
}
granted() { q "select round(granted_credit, 2) from result where name=\"$1_0\""; }
total() { q "select round(total_credit, 2) from $1 where $2"; }

test_expect_success 'two volunteers: alice on a 1 GFLOPS host, mallory claiming 1e18 FLOPS' '
	q "insert into user (create_time, email_addr, name, authenticator, cross_project_id) values
		(unix_timestamp(), \"alice@example.org\", \"Alice\", \"authA\", \"cpa\"),
		(unix_timestamp(), \"mallory@example.org\", \"Mallory\", \"authM\", \"cpm\")" &&
	q "insert into host (create_time, userid, domain_name, p_fpops, p_ncpus)
		select unix_timestamp(), id, \"hostA\", 1e9, 1 from user where name=\"Alice\"" &&
	q "insert into host (create_time, userid, domain_name, p_fpops, p_ncpus)
		select unix_timestamp(), id, \"hostM\", 1e18, 1 from user where name=\"Mallory\"" &&
	test "$(q "select count(*) from host")" = 2
'

test_expect_success 'a 1e30-FLOP job on a 1 GFLOPS host earns 10 times what 10 s of it compute' '
	job a1 hostA &&
	test "$(granted a1)" = "0.23" &&
	test "$(total host "domain_name=\"hostA\"")" = "0.23" &&
	test "$(total user "name=\"Alice\"")" = "0.23"
'

test_expect_success 'a host claiming 1e18 FLOPS earns at most max_granted_credit (100000 by default)' '
	job m1 hostM &&
	test "$(granted m1)" = "100000.00" &&
	test "$(total user "name=\"Mallory\"")" = "100000.00"
'

test_expect_success 'max_granted_credit in config.xml lowers the cap' '
	sed -i "s|<config>|<config>\n    <max_granted_credit>50</max_granted_credit>|" "$P/config.xml" &&
	job m2 hostM &&
	test "$(granted m2)" = "50.00" &&
	test "$(total user "name=\"Mallory\"")" = "100050.00"
'

test_expect_success 'the statistics export shows the bounded totals' '
	in_project bin/db_dump >dump.out &&
	gzip -dc "$P/html/stats/user.gz" >user.xml &&
	test_grep "<total_credit>100050.000000</total_credit>" user.xml &&
	test_grep "<total_credit>0.231481</total_credit>" user.xml &&
	! grep -E "<total_credit>[0-9]{7,}" user.xml
'

test_done
