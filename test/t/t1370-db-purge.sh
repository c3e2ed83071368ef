#!/bin/sh
# db_purge: finished workunits and their results, old enough, go to gzip'd
# XML archives and out of the database; the rows of live sequences (both
# branches), unfinished jobs, jobs of batches not retired and sequence
# heads stay. Killed with SIGKILL between any two steps, again and again,
# and run to the end: every purged row is in exactly one archive, each
# archive a whole XML document, db_check clean. bin/start --cron runs the
# project's maintenance tasks.
test_description='db_purge: archives, what stays, crash safety'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-daemons.sh"

daemons_setup || exit 1
DAY=86400

purge() { in_project db_purge --one_pass -d 1 "$@"; }

# add_finished PREFIX N [BATCH]: N finished workunits, two results each (one
# never sent, so its files were never to delete); ids go to purgeable.wu/.res
add_finished() {
	i=1 vals=
	while [ $i -le $2 ]; do
		vals="$vals${vals:+,}(1, \"$1_$i\", 2, 2, ${3:-0}, \"<wu n=$i/>\")"
		i=$((i + 1))
	done
	q "insert into workunit (appid, name, file_delete_state, assimilate_state, batch, xml_doc)
		values $vals;
	   insert into result (workunitid, name, server_state, outcome, file_delete_state,
		stderr_out, batch)
		select id, concat(name, \"_0\"), 5, 1, 2, \"err <&> ]]> é\", batch from workunit
		where name like \"$1\\_%\";
	   insert into result (workunitid, name, server_state, outcome, file_delete_state, batch)
		select id, concat(name, \"_1\"), 5, 5, 0, batch from workunit
		where name like \"$1\\_%\"" &&
	q "select id from workunit where name like \"$1\\_%\"" >>purgeable.wu &&
	q "select r.id from result r join workunit w on w.id=r.workunitid
		where w.name like \"$1\\_%\"" >>purgeable.res
}

# archived KIND: the ids of every <KIND_archive> record in every archive, one a
# line (sorted, duplicates kept); fails if an archive is not a whole document
archived() {
	python3 - "$P/archives" "$1" <<-\EOF
	import gzip, os, sys, xml.etree.ElementTree as ET
	top, kind = sys.argv[1], sys.argv[2]
	ids = []
	for d, _, files in os.walk(top):
	    for f in files:
	        if not f.startswith(kind + "_archive_"):
	            continue
	        p = os.path.join(d, f)
	        data = gzip.open(p).read() if f.endswith(".gz") else open(p, "rb").read()
	        root = ET.fromstring(data)
	        assert root.tag == "archive", p
	        tag = "workunit_archive" if kind == "wu" else "result_archive"
	        ids += [int(e.find("id").text) for e in root.findall(tag)]
	for i in sorted(ids):
	    print(i)
	EOF
}

# Nothing of the purgeable rows is left, each is archived once, no other row is.
check_archives() {
	archived wu >got.wu && archived result >got.res &&
	sort -n purgeable.wu >want.wu && sort -n purgeable.res >want.res &&
	test_cmp want.wu got.wu && test_cmp want.res got.res &&
	test "$(q "select count(*) from workunit where id in ($(paste -sd, want.wu))")" = 0 &&
	test "$(q "select count(*) from result where id in ($(paste -sd, want.res))")" = 0 &&
	test ! -e "$P/archives/db_purge.journal"
}

# The live rows, as they were before any purge.
live_rows() {
	q "select id, name, mod_time from workunit where id not in ($(paste -sd, purgeable.wu))
		order by id" &&
	q "select id, name from result where id not in ($(paste -sd, purgeable.res)) order by id"
}

test_expect_success 'two real jobs through the daemons to deleted files' '
	: >purgeable.wu && : >purgeable.res &&
	tool wu real1 --quorum 1 --target 1 >/dev/null && tool wu real2 --quorum 1 --target 1 >/dev/null &&
	in_project transitioner --one_pass -d 1 &&
	tool report real1_0 --output "one" && tool report real2_0 --output "two" &&
	run_all &&
	test "$(wu_col real1 file_delete_state)" = 2 && test "$(wu_col real2 file_delete_state)" = 2 &&
	q "select id from workunit where name in (\"real1\", \"real2\")" >>purgeable.wu &&
	q "select r.id from result r join workunit w on w.id=r.workunitid
		where w.name in (\"real1\", \"real2\")" >>purgeable.res
'

test_expect_success 'rows that must stay: unfinished jobs, live batches, live sequences' '
	add_finished fin 30 &&
	q "insert into batch (id, name, state) values (1, \"live\", 1), (2, \"retired\", 4)" &&
	add_finished retired 5 2 &&
	q "insert into workunit (appid, name, file_delete_state, assimilate_state, batch) values
		(1, \"running\", 0, 0, 0), (1, \"releasing\", 1, 2, 0), (1, \"unassimilated\", 2, 1, 0),
		(1, \"livebatch_1\", 2, 2, 1), (1, \"resfiles\", 2, 2, 0);
	   insert into result (workunitid, name, server_state, outcome, file_delete_state)
		select id, concat(name, \"_0\"), 5, 1, 2 from workunit
		where name in (\"running\", \"releasing\", \"unassimilated\", \"livebatch_1\");
	   insert into result (workunitid, name, server_state, outcome, file_delete_state)
		select id, \"resfiles_0\", 5, 1, 1 from workunit where name=\"resfiles\";
	   insert into result (workunitid, name, server_state, outcome, file_delete_state)
		select id, \"running_1\", 4, 0, 0 from workunit where name=\"running\""
'

# sequence NAME STATE HOST GROUP: a relocated sequence (dead branch 0 with
# segments 1-2, live branch 1 with 1-3), every segment finished
sequence() {
	q "insert into sequence (name, appid, state, hostid, groupid, nsegments, first_unsent_seqno,
		branch, nrelocations) values (\"$1\", 1, $2, $3, $4, 3, 4, 1, 1)" &&
	s=$(q "select id from sequence where name=\"$1\"") &&
	q "insert into workunit (appid, name, file_delete_state, assimilate_state, seq_id, branch,
		seqno, transitioner_flags) values
		(1, \"$1_b0_1\", 2, 2, $s, 0, 1, 1), (1, \"$1_b0_2\", 2, 2, $s, 0, 2, 1),
		(1, \"$1_b1_1\", 2, 2, $s, 1, 1, 1), (1, \"$1_b1_2\", 2, 2, $s, 1, 2, 1),
		(1, \"$1_b1_3\", 2, 2, $s, 1, 3, 1);
	   insert into result (workunitid, name, server_state, outcome, file_delete_state, seq_id)
		select id, concat(name, \"_0\"), 5, 1, 2, seq_id from workunit where seq_id=$s"
}

test_expect_success 'sequences: live, ended, ended with a live group member, ended unfinished' '
	q "insert into sequence_group (id, name, nmembers) values (7, \"g\", 2)" &&
	sequence live 0 5 0 &&
	sequence ended 1 0 0 &&
	sequence errored 2 0 0 &&
	sequence grouped 1 0 7 && sequence groupmate 0 6 7 &&
	sequence halfdone 1 0 0 &&
	q "update workunit set file_delete_state=1 where name=\"halfdone_b1_3\"" &&
	for s in ended errored; do
		q "select id from workunit where name like \"${s}\\_%\"" >>purgeable.wu &&
		q "select r.id from result r join workunit w on w.id=r.workunitid
			where w.name like \"${s}\\_%\"" >>purgeable.res || return 1
	done &&
	in_project db_check >check.out &&
	live_rows >live.before
'

test_expect_success 'bad arguments are refused, naming the problem' '
	test_must_fail purge --zip 2>err && test_grep "zip is not supported: use --gzip" err &&
	test_must_fail purge --min_age_days -1 2>err && test_grep "min_age_days" err &&
	test_must_fail purge --mod 2 0 2>err && test_grep "mod needs --no_archive" err &&
	test_must_fail purge --bogus 2>err && test_grep "bogus" err &&
	test_must_fail purge --app no_such_app 2>err && test_grep "no_such_app" err &&
	test ! -e "$P/archives/db_purge.journal"
'

test_expect_success 'rows younger than --min_age_days stay, and no archive is made' '
	before=$(q "select count(*) from workunit") &&
	purge --min_age_days 1 2>purge.log &&
	test "$(q "select count(*) from workunit")" = "$before" &&
	test -z "$(ls "$P/archives")"
'

test_expect_success 'killed with SIGKILL at every step, again and again, and run again' '
	n=0 killed=0 &&
	while [ $n -lt 60 ]; do
		add_finished k$n 9 &&
		point=$(( $(od -An -N2 -tu2 /dev/urandom) % 45 + 1 )) &&
		WSEQ_TIME_OFFSET=$((2 * DAY)) WSEQ_TEST_DB_PURGE_KILL=$point \
			purge -d 2 --min_age_days 1 --wus_per_txn 4 2>>kill.log
		rc=$?
		case $rc in
		0) ;;
		137) killed=$((killed + 1)) ;;
		*) echo "db_purge exited $rc at kill point $point"; tail kill.log; return 1 ;;
		esac
		n=$((n + 1))
	done &&
	say "$killed of $n runs killed" &&
	test $killed -ge 20 &&
	# the runs after a kill recovered, with a batch in flight, kept or cut off
	test "$(grep -c "recovering from an interrupted run" kill.log)" -ge 10 &&
	test_grep "recovering from an interrupted run (.*, a batch in flight)" kill.log &&
	test_grep "workunits were not purged (.* still there): their archive records are removed" \
		kill.log &&
	WSEQ_TIME_OFFSET=$((2 * DAY)) purge --min_age_days 1 --wus_per_txn 4 2>purge.log &&
	check_archives
'

test_expect_success 'nothing live was purged: every other row is as it was' '
	live_rows >live.after &&
	test_cmp live.before live.after &&
	test "$(q "select count(*) from sequence")" = 6 &&
	test "$(q "select count(*) from workunit where seq_id in
		(select id from sequence where name in (\"live\", \"grouped\", \"halfdone\"))")" = 15
'

test_expect_success 'db_check is clean after the purge' '
	in_project db_check >check.out &&
	test_grep "0 violations" check.out
'

test_expect_success 'archive records carry every column, escaped' '
	gzip -dc "$P"/archives/result_archive_*.xml.gz >res.xml &&
	test_grep "<stderr_out>err &lt;&amp;&gt; \]\]&gt; é</stderr_out>" res.xml &&
	gzip -dc "$P"/archives/wu_archive_*.xml.gz >wu.xml &&
	test_grep "<xml_doc>&lt;wu n=" wu.xml &&
	test_grep "<mod_time>[0-9]*</mod_time>" wu.xml &&
	test_grep "<seq_id>" wu.xml
'

test_expect_success 'killed at random moments (no hook) under load, still exactly once' '
	n=0 &&
	while [ $n -lt 15 ]; do
		add_finished r$n 20 || return 1
		WSEQ_TIME_OFFSET=$((2 * DAY)) db_purge --one_pass -d 1 --min_age_days 1 \
			--wus_per_txn 3 --config "$P/config.xml" 2>>random.log &
		pid=$! &&
		sleep 0.$(( $(od -An -N2 -tu2 /dev/urandom) % 9 + 1 )) &&
		{ kill -9 $pid 2>/dev/null; wait $pid; :; } &&
		n=$((n + 1))
	done &&
	! grep "another db_purge is running" random.log &&
	WSEQ_TIME_OFFSET=$((2 * DAY)) purge --min_age_days 1 2>purge.log &&
	check_archives &&
	live_rows >live.after && test_cmp live.before live.after &&
	in_project db_check >check.out
'

test_expect_success '--no_archive deletes without archives; --daily_dir and plain XML' '
	add_finished plain 3 &&
	WSEQ_TIME_OFFSET=$((2 * DAY)) purge --min_age_days 1 --gzip=0 --daily_dir 2>purge.log &&
	ls "$P"/archives/*_*_*/wu_archive_*.xml >daily &&
	test_line_count = 1 daily &&
	check_archives &&
	q "insert into workunit (appid, name, file_delete_state, assimilate_state) values
		(1, \"gone\", 2, 2)" &&
	before=$(find "$P/archives" -type f | wc -l) &&
	WSEQ_TIME_OFFSET=$((2 * DAY)) purge --min_age_days 1 --no_archive 2>purge.log &&
	test "$(q "select count(*) from workunit where name=\"gone\"")" = 0 &&
	test "$(find "$P/archives" -type f | wc -l)" = "$before"
'

test_expect_success 'a second db_purge waits its turn: the lock' '
	exec 9>"$P/pid/db_purge.lock" && flock -n 9 &&
	test_must_fail purge 2>err &&
	test_grep "another db_purge is running" err &&
	exec 9>&-
'

test_expect_success 'bin/start --cron runs the maintenance tasks (daemons held by stop_daemons)' '
	: >"$P/stop_daemons" &&
	(cd "$P" && bin/start --cron --verbose) >cron.out 2>&1 &&
	test_grep "^daemons not started: .*stop_daemons exists" cron.out &&
	test_grep "^task db_dump: started" cron.out &&
	test_grep "^task update_stats: started" cron.out &&
	test_grep "^task db_purge: disabled" cron.out &&
	test_wait_for 30 grep "^db_dump: .* users" "$P/log/db_dump.out" &&
	test_wait_for 30 grep "^update_stats: .* decayed" "$P/log/update_stats.out" &&
	(cd "$P" && bin/start --cron --verbose) >cron.out 2>&1 &&
	test_grep "^task db_dump: not due" cron.out &&
	rm "$P/stop_daemons"
'

test_done
