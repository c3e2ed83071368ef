#!/bin/sh
test_description='boinc_gahp against the real project: every failure is one result line with a one-token error, and nothing else is disturbed'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-gahp.sh"

test_sandbox_up sb --no-daemons || exit 1
SB="$TRASH_DIRECTORY/sb"
URL="${PROJECT_URL%/}/"
AUTH="$ADMIN_AUTHENTICATOR"

test_expect_success 'setup: the sample app, submit rights, an input file' '
	test_setup_sample_app &&
	uid=$(test_sql_value "select id from user where authenticator=\"$AUTH\"") &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all) values ($uid, 1)" &&
	echo "some input" >in.txt
'

gahp_start || exit 1
gahp_send "BOINC_SELECT_PROJECT $URL $AUTH"

# one_token LINE ID: LINE is "ID <one token>", the token not NULL
one_token() {
	set -- $(printf "%s" "$1" | sed "s/\\\\ /_/g")
	test $# = 2 && test "$2" != NULL
}
submit() {     # submit ID BATCH JOB [FILE] [APP]
	gahp_do $1 "BOINC_SUBMIT $1 $2 ${5:-wseq_sample} 1 $3 1 --steps\\ 3 1 ${4:-$TRASH_DIRECTORY/in.txt} in NULL NULL NULL NULL NULL NULL"
}

test_expect_success 'a good submit works' '
	test "$(submit 2 b1 j1)" = "2 NULL"
'

test_expect_success 'a wrong authenticator: one token, the authenticator nowhere' '
	r=$(gahp_sync "BOINC_SELECT_PROJECT $URL wrongauth0123456789") && test "$r" = S &&
	r=$(submit 3 b2 j2) && echo "$r" && one_token "$r" && echo "$r" | grep "bad\\\\ authenticator" &&
	r=$(gahp_do 4 "BOINC_QUERY_BATCHES 4 0 1 b1") && one_token "$r" &&
	test "$(gahp_sync "BOINC_SELECT_PROJECT $URL $AUTH")" = S &&
	! grep -r "wrongauth0123456789\|$AUTH" "$GAHP_DIR/gahp.out" "$GAHP_DIR/gahp.err" "$PROJECT_DIR/log"
'

test_expect_success 'an unknown app, a reused batch name, a reused job name: one token each, nothing created' '
	r=$(submit 5 b3 j3 "" nosuchapp) && one_token "$r" && echo "$r" | grep "nosuchapp" &&
	r=$(submit 6 b1 j4) && one_token "$r" && echo "$r" | grep "already\\\\ in\\\\ use" &&
	r=$(submit 7 b4 j1) && one_token "$r" && echo "$r" | grep "j1" &&
	test "$(test_sql_value "select count(*) from workunit")" = 1 &&
	test "$(test_sql_value "select count(*) from batch where name in (\"b3\", \"b4\") and state<>0")" = 0
'

test_expect_success 'a SUBMIT that fails half way (one bad job of two) leaves nothing behind; corrected, it works under the same batch name' '
	echo "other input" >in2.txt && m2=$(md5sum <in2.txt | cut -c1-32) &&
	r=$(gahp_do 16 "BOINC_SUBMIT 16 bh wseq_sample 2 ok1 0 1 $TRASH_DIRECTORY/in2.txt in j1 0 1 $TRASH_DIRECTORY/in.txt in NULL NULL NULL NULL NULL NULL") &&
	one_token "$r" && echo "$r" | grep "cannot\\\\ create\\\\ job\\\\ j1" &&
	grep "submit 16: batch id [0-9]* discarded" "$GAHP_DIR/gahp.err" &&
	test "$(test_sql_value "select count(*) from batch where name=\"bh\"")" = 0 &&
	test "$(test_sql_value "select count(*) from workunit where name=\"ok1\"")" = 0 &&
	test "$(test_sql_value "select count(*) from batch_file_assoc a join job_file j on j.id=a.job_file_id where j.name=\"$m2.txt\"")" = 0 &&
	p=$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path download "$m2.txt") && test -f "$p" &&
	test_project bin/file_deleter --one_pass 2>/dev/null 7>&- &&
	! test -e "$p" && test "$(test_sql_value "select count(*) from job_file where name=\"$m2.txt\"")" = 0 &&
	r=$(gahp_do 17 "BOINC_SUBMIT 17 bh wseq_sample 2 ok1 0 1 $TRASH_DIRECTORY/in2.txt in ok2 0 1 $TRASH_DIRECTORY/in.txt in NULL NULL NULL NULL NULL NULL") &&
	test "$r" = "17 NULL" &&
	test "$(test_sql_value "select concat(state, \" \", njobs) from batch where name=\"bh\"")" = "1 2" &&
	test "$(test_sql_value "select count(*) from workunit w join batch b on b.id=w.batch where b.name=\"bh\"")" = 2
'

test_expect_success 'a missing local input file: one token naming it' '
	r=$(submit 8 b5 j5 "$TRASH_DIRECTORY/no\\ such.txt") && one_token "$r" &&
	echo "$r" | grep "no\\\\ such.txt" &&
	test "$(test_sql_value "select count(*) from workunit where name=\"j5\"")" = 0
'

test_expect_success 'an argument XML cannot carry (a control byte, a byte not UTF-8): one token naming it, nothing sent' '
	r=$(gahp_do 9 "BOINC_SUBMIT 9 bx wseq_sample 1 jx 2 ok a$(printf "\001")b 1 $TRASH_DIRECTORY/in.txt in NULL NULL NULL NULL NULL NULL") &&
	one_token "$r" && echo "$r" | grep "job\\\\ 1:\\\\ argument\\\\ 2\\\\ is\\\\ not\\\\ UTF-8" &&
	r=$(gahp_do 10 "BOINC_SUBMIT 10 bx wseq_sample 1 jx 1 a$(printf "\377")b 1 $TRASH_DIRECTORY/in.txt in NULL NULL NULL NULL NULL NULL") &&
	one_token "$r" && echo "$r" | grep "job\\\\ 1:\\\\ argument\\\\ 1\\\\ is\\\\ not\\\\ UTF-8" &&
	test "$(test_sql_value "select count(*) from batch where name=\"bx\"")" = 0 &&
	test "$(test_sql_value "select count(*) from workunit where name=\"jx\"")" = 0
'

test_expect_success 'FETCH_OUTPUT of an unknown job, and of a job not done: one token each' '
	mkdir out &&
	r=$(gahp_do 9 "BOINC_FETCH_OUTPUT 9 nosuchjob $TRASH_DIRECTORY/out err ALL 0") && one_token "$r" &&
	echo "$r" | grep "nosuchjob" &&
	r=$(gahp_do 10 "BOINC_FETCH_OUTPUT 10 j1 $TRASH_DIRECTORY/out err ALL 0") && one_token "$r" &&
	! ls out | grep -v "^err$"
'

test_expect_success 'the database down during SUBMIT: one token, nothing half made; back up, it works' '
	pid=$(cat "$SB/mysql/mariadbd.pid") && kill "$pid" &&
	test_wait_for 60 test_pid_gone "$pid" &&
	r=$(submit 11 b6 j6) && one_token "$r" && echo "$r" | grep -i "database" &&
	wseq_sandbox up --no-daemons "$SB" 2>/dev/null 7>&- &&
	test "$(test_sql_value "select count(*) from workunit where name=\"j6\"")" = 0 &&
	test "$(submit 12 b7 j7)" = "12 NULL"
'

test_expect_success 'the web server down during SUBMIT: one token; back up, it works' '
	pid=$(cat "$SB/apache/run/httpd.pid") && kill "$pid" &&
	test_wait_for 60 test_pid_gone "$pid" &&
	r=$(submit 13 b8 j8) && one_token "$r" &&
	wseq_sandbox up --no-daemons "$SB" 2>/dev/null 7>&- &&
	test "$(gahp_do 14 "BOINC_PING 14")" = "14 NULL" &&
	test "$(submit 15 b9 j9)" = "15 NULL"
'

test_expect_success 'another submitter through the gahp may not query, abort, retire, renew or fetch the first one'"'"'s batch and jobs; nothing of theirs changes' '
	test_user other otherauth0123456789 submit &&
	before=$(test_sql_value "select concat_ws(\" \", b.state, b.expire_time, w.error_mask, w.transition_time) from batch b join workunit w on w.batch=b.id where w.name=\"j1\"") &&
	test "$(gahp_sync "BOINC_SELECT_PROJECT $URL otherauth0123456789")" = S &&
	r=$(gahp_do 18 "BOINC_QUERY_BATCHES 18 0 1 b1") && one_token "$r" && echo "$r" | grep "not\\\\ owner\\\\ of\\\\ b1" &&
	r=$(gahp_do 19 "BOINC_ABORT_JOBS 19 j1") && one_token "$r" && echo "$r" | grep "not\\\\ owner\\\\ of\\\\ j1" &&
	r=$(gahp_do 20 "BOINC_RETIRE_BATCH 20 b1") && one_token "$r" && echo "$r" | grep "not\\\\ owner\\\\ of\\\\ batch" &&
	r=$(gahp_do 21 "BOINC_SET_LEASE 21 b1 99999") && one_token "$r" && echo "$r" | grep "not\\\\ owner\\\\ of\\\\ batch" &&
	mkdir -p fetch && r=$(gahp_do 22 "BOINC_FETCH_OUTPUT 22 j1 $TRASH_DIRECTORY/fetch err ALL 0") &&
	one_token "$r" && echo "$r" | grep "not\\\\ owner\\\\ of\\\\ j1" && ! ls fetch | grep . &&
	test "$(gahp_sync "BOINC_SELECT_PROJECT $URL $AUTH")" = S &&
	test "$(test_sql_value "select concat_ws(\" \", b.state, b.expire_time, w.error_mask, w.transition_time) from batch b join workunit w on w.batch=b.id where w.name=\"j1\"")" = "$before" &&
	r=$(gahp_do 23 "BOINC_QUERY_BATCHES 23 0 1 b1") && echo "$r" | grep "^23 NULL [0-9.]* 1 j1 UNSENT$"
'

gahp_close

test_expect_success 'it exits 0 at the end; its stdout held protocol lines only' '
	gahp_exited &&
	! grep -v "^\(\$GahpVersion: .*\|S.*\|E\( .*\)\?\|R\|[0-9][0-9]* .*\)$" "$GAHP_DIR/gahp.out"
'

test_done
