#!/bin/sh
test_description='sweep create stores a session from a spec and its parameter table; the real sweep_client runs it through cgi-bin/sweep; sweep collect validates and collects; sweep status counts it; parameter file errors leave nothing behind'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
# where sweep_client finds the project's endpoints: <cgi_url>sweep
URL="${PROJECT_URL%wseq/}wseq_cgi/sweep"
DATA="$WSEQ_SRCDIR/test/data/sweep-session"

test_expect_success 'sweep create: one task per parameter set, the session files, a random session ID' '
	cp "$DATA"/* . &&
	sweep --project "$PROJECT_DIR" create spec >sid 2>create.err &&
	grep -q "^[0-9a-f]\{32\}$" sid && SID=$(cat sid) &&
	test "$(test_sql_value "select concat(state, \" \", njobs) from batch where name=\"sweep:$SID\"")" = "1 3" &&
	test "$(test_sql_value "select count(*) from workunit w join batch b on b.id=w.batch where b.name=\"sweep:$SID\" and w.delay_bound=30 and w.max_total_results=2 and w.files_indexed=1")" = 3 &&
	# each task has its ticket at once, not after a pass of the transitioner
	test "$(test_sql_value "select count(*) from result r join batch b on b.id=r.batch where b.name=\"sweep:$SID\" and r.server_state=2")" = 3 &&
	cmp worker.sh "$PROJECT_DIR/sweep/$SID/workers/x86_64-pc-linux-gnu" &&
	grep "^Ping=5$" "$PROJECT_DIR/sweep/$SID/config" &&
	test "$(cat "$PROJECT_DIR/sweep/$SID/worker_name")" = worker &&
	! grep "$SID" create.err &&
	test_grep "sweep_client.s URL: ${URL}\$" create.err
'

test_expect_success 'sweep status before anything ran' '
	sweep --project "$PROJECT_DIR" status "$(cat sid)" >st &&
	grep "3 tasks, 0 done, 0 running, 3 waiting, 0 failed" st
'

test_expect_success 'the real sweep_client pulls and runs every task; each result arrives whole' '
	SID=$(cat sid) &&
	md5=$(md5sum <worker.sh | cut -c1-32) && mkdir client &&
	echo "$SID" | sweep_client --dir client --max-silence 20 - worker "$md5" \
		"$URL" 2>client.log &&
	for row in "2 3 6 first" "4 5 20 with | bar" "6 7 42  padded "; do
		set -- $row &&
		t=$(test_sql_value "select r.name from result r join workunit w on w.id=r.workunitid join batch b on b.id=w.batch where b.name=\"sweep:$SID\" and w.xml_doc like \"%./worker $1 $2%\" and r.outcome=1") &&
		f=$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload "$t") &&
		grep -a "^$1 x $2 = $3$" "$f" || return 1
	done &&
	grep -a -A3 "^Name=label" "$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload "$(test_sql_value "select r.name from result r join workunit w on w.id=r.workunitid where w.xml_doc like \"%./worker 4 5%\" and r.outcome=1")")" | grep -a "^with | bar$"
'

test_expect_success 'the validator daemon leaves the sweep app alone: its master judges' '
	SID=$(cat sid) &&
	test_project bin/transitioner --one_pass 2>/dev/null &&
	test_project bin/validator --one_pass 2>/dev/null &&
	test "$(test_sql_value "select count(*) from result r join workunit w on w.id=r.workunitid join batch b on b.id=w.batch where b.name=\"sweep:$SID\" and r.outcome=1 and r.validate_state=0")" = 3 &&
	test "$(test_sql_value "select count(*) from workunit w join batch b on b.id=w.batch where b.name=\"sweep:$SID\" and w.canonical_resultid<>0")" = 0
'

test_expect_success 'sweep collect: Validate judges each result; the output has each valid set once, in table order' '
	SID=$(cat sid) &&
	sweep --project "$PROJECT_DIR" collect "$SID" >c1 &&
	grep "^2 valid, 1 invalid; 2 done, 0 failed, 1 pending; output .*/out.txt$" c1 &&
	printf "### a=2 b=3 label=first\n2 x 3 = 6\nfirst\n### a=6 b=7 label=\" padded \"\n6 x 7 = 42\n padded \n" >expect &&
	cmp expect out.txt &&
	sweep --project "$PROJECT_DIR" collect "$SID" >c2 &&
	grep "^0 valid, 0 invalid; 2 done" c2 && cmp expect out.txt
'

test_expect_success 'the invalid set is handed out again, refused again, and fails after MaxTotal' '
	SID=$(cat sid) &&
	test_project bin/transitioner --one_pass 2>/dev/null &&
	echo "$SID" | sweep_client --dir client --max-silence 20 - worker "$(md5sum <worker.sh | cut -c1-32)" \
		"$URL" 2>>client.log &&
	sweep --project "$PROJECT_DIR" collect "$SID" >c3 &&
	grep "^0 valid, 1 invalid" c3 &&
	test_project bin/transitioner --one_pass 2>/dev/null &&
	sweep --project "$PROJECT_DIR" collect "$SID" >c4 &&
	grep "; 2 done, 1 failed, 0 pending" c4 &&
	cmp expect out.txt
'

test_expect_success 'sweep status counts them: 2 done, 1 failed' '
	sweep --project "$PROJECT_DIR" status "$(cat sid)" >st &&
	grep "3 tasks, 2 done, 0 running, 0 waiting, 1 failed" st
'

test_expect_success 'a ragged parameter file: the error names its line, nothing is stored' '
	before=$(test_sql_value "select count(*) from batch") &&
	printf "a | b | label\n1 | 2 | x\n3 | 4\n" >params &&
	test_must_fail sweep --project "$PROJECT_DIR" create spec >out 2>err &&
	grep "params:3" err && ! test -s out &&
	test "$(test_sql_value "select count(*) from batch")" = "$before" &&
	test "$(ls "$PROJECT_DIR/sweep" | wc -l)" = 1
'

test_expect_success 'an unknown session: status says so and fails' '
	test_must_fail sweep --project "$PROJECT_DIR" status 00000000000000000000000000000000 2>err &&
	grep "no sweep session" err
'

test_done
