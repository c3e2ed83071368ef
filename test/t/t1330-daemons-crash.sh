#!/bin/sh
# A transitioner killed with SIGKILL -- between two statements of a
# workunit's transaction, or anywhere in a run over many workunits --
# leaves every workunit consistent, and a rerun finishes the work without
# duplicates.
test_description='back-end daemons: kill -9 of the transitioner'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-daemons.sh"

daemons_setup || exit 1

# N workunits like the one called $1 (MariaDB's sequence engine makes the rows).
clone_wus() {
	q "insert into workunit (create_time, appid, name, xml_doc, rsc_fpops_est, min_quorum,
		target_nresults, max_error_results, max_total_results, max_success_results,
		result_template_file, delay_bound, transition_time)
	   select w.create_time, w.appid, concat(w.name, '_', s.seq), w.xml_doc, w.rsc_fpops_est,
		w.min_quorum, w.target_nresults, w.max_error_results, w.max_total_results,
		w.max_success_results, w.result_template_file, w.delay_bound, w.transition_time
	   from workunit w join seq_1_to_$2 s where w.name='$1'"
}

# Every workunit named like $1 has exactly $2 results, named ${wu}_0 .. _($2-1).
check_consistent() {
	q "select w.name, count(r.id), coalesce(group_concat(substring(r.name, length(w.name) + 2)
		order by r.name), '') from workunit w left join result r on r.workunitid=w.id
		where w.name like '$1%' group by w.id" >consistent &&
	expect_names=$(seq 0 $(($2 - 1)) | sort | paste -sd, -) &&
	awk -v n="$2" -v names="$expect_names" -F "\t" \
		'$2 != n || $3 != names { print "bad: " $0; bad = 1 } END { exit bad }' consistent &&
	test "$(q "select count(*) from result")" = "$(q "select count(distinct name) from result")"
}

test_expect_success 'killed after its 5th new result (mid-transaction): only whole workunits remain' '
	tool wu K --quorum 3 --target 3 >/dev/null &&
	clone_wus K 49 &&
	q "delete from workunit where name=\"K\"" &&
	WSEQ_TEST_TRANSITIONER_KILL=5 in_project transitioner --one_pass 2>tr.log; rc=$? &&
	test $rc = 137 &&
	test "$(q "select count(*) from result")" = 3 &&
	test "$(q "select count(distinct workunitid) from result")" = 1 &&
	test "$(q "select count(*) from workunit where transition_time>unix_timestamp()")" = 1
'

test_expect_success 'a rerun completes every workunit: three results each, no duplicates' '
	in_project transitioner --one_pass 2>tr.log &&
	check_consistent K 3 &&
	test "$(q "select count(*) from result")" = 147
'

nresults() { q "select count(*) from result where name like \"$1%\""; }

# The kill comes from inside, at a random new result the run surely makes
# (200..1999 of its 2000): a kill from outside after polling for a count
# would lose the race to a machine fast enough to finish first.
test_expect_success 'kill -9 at a random result of a long run: whole workunits only; a rerun completes them' '
	tool wu L --quorum 2 --target 4 >/dev/null &&
	clone_wus L 500 &&
	q "delete from workunit where name=\"L\"" &&
	at=$(( $(od -An -N2 -tu2 /dev/urandom) % 1800 + 200 )) &&
	WSEQ_TEST_TRANSITIONER_KILL=$at in_project transitioner --until_idle --batch 100 -d 1 \
		2>tr_bg.log; rc=$? &&
	test $rc = 137 &&
	n=$(nresults L_) &&
	say "killed at new result $at with $n of 2000 results kept" &&
	test "$n" -lt 2000 &&
	q "select count(r.id) from workunit w left join result r on r.workunitid=w.id
		where w.name like \"L\\_%\" group by w.id" | sort -u >partial &&
	printf "0\n4\n" >expect &&
	test_cmp expect partial &&
	in_project transitioner --until_idle -d 1 2>tr.log &&
	check_consistent L_ 4
'

test_done
