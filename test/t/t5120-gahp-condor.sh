#!/bin/sh
test_description='boinc_gahp against the real project (an app whose jobs need one result each), driven as HTCondor gridmanager drives it: 10 jobs run on a real BOINC client and their outputs arrive byte-identical where FETCH_OUTPUT puts them; a second batch with the same inputs uploads nothing'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-gahp.sh"

test_sandbox_up sb || exit 1
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
URL="${PROJECT_URL%/}/"
AUTH="$ADMIN_AUTHENTICATOR"
T=$(date +%s)
BATCH="condor#schedd.example.org#wseq_sample#$T"
N=10

test_expect_success 'setup: the sample app, submit rights, three shared input files' '
	test_setup_sample_app &&
	sed -i "s|<delay_bound>|<min_quorum>1</min_quorum><target_nresults>1</target_nresults><delay_bound>|" \
		"$PROJECT_DIR/templates/wseq_sample_in" &&
	uid=$(test_sql_value "select id from user where authenticator=\"$AUTH\"") &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all) values ($uid, 1)" &&
	mkdir "in dir" && for i in 1 2 3; do printf "input %s of the sweep\n" $i >"in dir/in$i.txt"; done
'

gahp_start || exit 1

test_expect_success 'banner, COMMANDS, ASYNC_MODE_ON, SELECT_PROJECT, PING' '
	head -1 "$GAHP_DIR/gahp.out" | grep "^\$GahpVersion: .* \$$" &&
	gahp_sync COMMANDS >cmds &&
	for c in BOINC_SELECT_PROJECT BOINC_PING BOINC_SUBMIT BOINC_QUERY_BATCHES BOINC_FETCH_OUTPUT BOINC_ABORT_JOBS BOINC_RETIRE_BATCH BOINC_SET_LEASE; do
		grep " $c\( \|$\)" cmds || return 1
	done &&
	test "$(gahp_sync ASYNC_MODE_ON)" = S &&
	test "$(gahp_sync "BOINC_SELECT_PROJECT $URL $AUTH")" = S &&
	test "$(gahp_do 2 "BOINC_PING 2")" = "2 NULL"
'

# job i: arguments "--steps i", input file in((i % 3) + 1)
submit_line() {   # submit_line ID BATCH
	line="BOINC_SUBMIT $1 $2 wseq_sample $N"
	for i in $(seq 1 $N); do
		line="$line $2#1.$i 2 --steps $i 1 $TRASH_DIRECTORY/in\\ dir/in$(( i % 3 + 1 )).txt in"
	done
	printf "%s NULL NULL NULL NULL NULL NULL" "$line"
}

test_expect_success 'one BOINC_SUBMIT of 10 jobs, then SET_LEASE' '
	test "$(gahp_do 3 "$(submit_line 3 "$BATCH")")" = "3 NULL" &&
	grep "submit 3: .*10 jobs, 3 distinct input files hashed, 3 uploaded" "$GAHP_DIR/gahp.err" &&
	test "$(test_sql_value "select count(*) from workunit w join batch b on b.id=w.batch where b.name=\"$BATCH\"")" = $N &&
	test "$(gahp_do 4 "BOINC_SET_LEASE 4 $BATCH $((T + 21600))")" = "4 NULL" &&
	test "$(test_sql_value "select expire_time from batch where name=\"$BATCH\"")" = $((T + 21600))
'

test_expect_success 'QUERY_BATCHES with 0 lists every job UNSENT, with the server time' '
	gahp_do 5 "BOINC_QUERY_BATCHES 5 0 1 $BATCH" >q &&
	grep "^5 NULL [0-9.]* $N " q &&
	test "$(tr " " "\n" <q | grep -c "^UNSENT$")" = $N &&
	cut -d" " -f3 q >server_time
'

# Poll as the gridmanager does, with the previous reply's server time, and
# remember the newest status of each job.
id=10
all_done() {
	id=$((id + 1))
	gahp_do $id "BOINC_QUERY_BATCHES $id $(cat server_time) 1 $BATCH" >q.$id || return 1
	cut -d" " -f3 q.$id >server_time
	tr " " "\n" <q.$id | tail -n +5 | paste - - >>statuses
	for i in $(seq 1 $N); do
		grep "#1.$i	" statuses | tail -1 | grep -q DONE || return 1
	done
}

test_expect_success 'a real BOINC client runs them; QUERY_BATCHES since the last server time sees them DONE' '
	test_boinc_client_up C 7>&- &&
	test_boinc_attach C "$PROJECT_URL" "$AUTH" &&
	test_boinc_poll C "$PROJECT_URL" 300 all_done &&
	grep "IN_PROGRESS\|DONE" statuses
'

expected() {   # expected I: the output of job i, computed here
	rm -rf exp && mkdir exp && cp "in dir/in$(( $1 % 3 + 1 )).txt" exp/in &&
	(cd exp && "$APP" --steps $1 2>/dev/null) && cat exp/out
}

test_expect_success 'FETCH_OUTPUT ALL puts each output under its open name; stderr is appended' '
	for i in 1 2 3 4 5; do
		mkdir "out$i" && echo "earlier line" >"out$i/err.txt" &&
		test "$(gahp_do $((100 + i)) "BOINC_FETCH_OUTPUT $((100 + i)) $BATCH#1.$i $TRASH_DIRECTORY/out$i err.txt ALL 0")" = "$((100 + i)) NULL 0 $(test_sql_value "select concat(format(elapsed_time, 6, \"en_US\"), \" \", format(cpu_time, 6, \"en_US\")) from result r join workunit w on w.canonical_resultid=r.id where w.name=\"$BATCH#1.$i\"" | tr -d ,)" || return 1
		expected $i >exp.out && cmp exp.out "out$i/out" || return 1
		head -1 "out$i/err.txt" | grep "earlier line" && test "$(wc -l <"out$i/err.txt")" -gt 1 || return 1
	done
'

test_expect_success 'FETCH_OUTPUT SOME renames, to a relative and to an absolute destination' '
	mkdir some abs &&
	for i in 6 7 8; do
		r=$(gahp_do $((100 + i)) "BOINC_FETCH_OUTPUT $((100 + i)) $BATCH#1.$i $TRASH_DIRECTORY/some err$i.txt SOME 1 out result\\ $i.txt") &&
		echo "$r" | grep "^$((100 + i)) NULL 0 " &&
		expected $i >exp.out && cmp exp.out "some/result $i.txt" || return 1
	done &&
	for i in 9 10; do
		gahp_do $((100 + i)) "BOINC_FETCH_OUTPUT $((100 + i)) $BATCH#1.$i $TRASH_DIRECTORY/some err$i.txt SOME 1 out $TRASH_DIRECTORY/abs/r$i" | grep "^$((100 + i)) NULL 0 " &&
		expected $i >exp.out && cmp exp.out "abs/r$i" || return 1
	done &&
	! test -e some/out
'

uploads() {
	grep -c "job files uploaded" "$PROJECT_DIR/log/submit.log"
}

test_expect_success 'a second batch with the same input files uploads no file bytes' '
	before=$(uploads) &&
	test "$(gahp_do 200 "$(submit_line 200 "$BATCH-2")")" = "200 NULL" &&
	grep "submit 200: .*3 distinct input files hashed, 0 uploaded" "$GAHP_DIR/gahp.err" &&
	test "$(uploads)" = "$before" &&
	test "$(test_sql_value "select count(*) from batch_file_assoc a join batch b on b.id=a.batch_id where b.name=\"$BATCH-2\"")" = 3
'

# the canonical output files of the first batch's jobs, in the upload hierarchy
outputs() {
	test_sql_value "select r.name from result r join workunit w on w.canonical_resultid=r.id join batch b on b.id=w.batch where b.name=\"$BATCH\"" |
	while read -r r; do test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload "${r}_0"; done
}
outputs_gone() {
	for p in $(outputs); do ! test -e "$p" || return 1; done
}

test_expect_success 'RETIRE_BATCH retires both batches; only then do the outputs go' '
	test "$(outputs | wc -l)" = $N &&
	for p in $(outputs); do test -f "$p" || return 1; done &&
	test "$(gahp_do 201 "BOINC_RETIRE_BATCH 201 $BATCH")" = "201 NULL" &&
	test_wait_for 90 outputs_gone &&
	test "$(gahp_do 202 "BOINC_RETIRE_BATCH 202 $BATCH-2")" = "202 NULL" &&
	test "$(test_sql_value "select group_concat(state) from batch where name like \"condor#%\"")" = "4,4"
'

gahp_close

test_expect_success 'stdin closed: the gahp exits 0; nothing but protocol lines on stdout, no authenticator anywhere' '
	gahp_exited &&
	! grep -v "^\(\$GahpVersion: .*\|S.*\|E\( .*\)\?\|R\|[0-9][0-9]* .*\)$" "$GAHP_DIR/gahp.out" &&
	! grep -r "$AUTH" "$GAHP_DIR/gahp.out" "$GAHP_DIR/gahp.err" "$PROJECT_DIR/log"
'

test_done
