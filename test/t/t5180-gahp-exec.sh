#!/bin/sh
test_description='Condor jobs that bring their own executable, through boinc_gahp as the gridmanager drives it and through wseq_submit: refused for a submitter without the right, then run by wseq_wrapper on a real BOINC client (the project made with make_project --exec_app); FETCH_OUTPUT and wseq_submit fetch deliver the declared outputs and those whose names nobody knew, from the zip'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-gahp.sh"

test_sandbox_up sb --make-project-option --exec_app || exit 1
URL="${PROJECT_URL%/}/"
AUTH="$ADMIN_AUTHENTICATOR"
T=$(date +%s)
BATCH="condor#schedd.example.org#prog#$T"

test_expect_success 'setup: make_project --exec_app registered wseq_exec (the wrapper, its job file); the admin may submit, not yet with an executable; a program never linked with BOINC' '
	test "$(test_sql_value "select any_executable from app where name=\"wseq_exec\"")" = 1 &&
	test "$(test_sql_value "select count(*) from app_version v join app a on a.id=v.appid where a.name=\"wseq_exec\"")" = 1 &&
	test_sql_value "select xml_doc from app_version v join app a on a.id=v.appid where a.name=\"wseq_exec\"" >av &&
	grep "<open_name>job.xml</open_name>" av && grep "<is_wrapper/>" av &&
	uid=$(test_sql_value "select id from user where authenticator=\"$AUTH\"") && echo "$uid" >uid &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all) values ($uid, 1)" &&
	mkdir job && cat >job/prog.sh <<-\EOS &&
	#!/bin/sh
	# a job as a scientist writes it: reads its input, writes what it likes
	n=$1
	read -r word <params
	i=0
	while [ $i -lt "$n" ]; do echo "$word $i"; i=$((i + 1)); done >result.txt
	mkdir -p sub && echo "made by $(basename "$0")" >"sub/made_$$.dat"
	echo "to stdout: $word"
	echo "to stderr: $word" >&2
	EOS
	chmod +x job/prog.sh && echo "hello" >job/params
'
uid=$(cat uid 2>/dev/null)

gahp_start || exit 1

test_expect_success 'the gridmanager starts up and selects the project' '
	test "$(gahp_sync ASYNC_MODE_ON)" = S &&
	test "$(gahp_sync "BOINC_SELECT_PROJECT $URL $AUTH")" = S &&
	test "$(gahp_do 2 "BOINC_PING 2")" = "2 NULL"
'

submit_line() {   # submit_line ID BATCH: two jobs of job/prog.sh (a path: the job's own program)
	printf "BOINC_SUBMIT %s %s %s 2 %s#1.0 1 3 1 %s params %s#1.1 1 5 1 %s params NULL NULL NULL NULL NULL NULL" \
		"$1" "$2" "$TRASH_DIRECTORY/job/prog.sh" "$2" "$TRASH_DIRECTORY/job/params" "$2" "$TRASH_DIRECTORY/job/params"
}

test_expect_success 'without the any-executable right: refused with the reason, no batch, no job' '
	r=$(gahp_do 3 "$(submit_line 3 "$BATCH-no")") &&
	echo "$r" | sed "s/\\\\//g" | grep "^3 error creating batch: app wseq_exec runs the submitter.s own executable, and your account does not have that right" &&
	test "$(test_sql_value "select count(*) from batch where name like \"condor#%\" and state != 4")" = 0 &&
	test "$(test_sql_value "select count(*) from workunit")" = 0
'

test_expect_success 'granted: the batch goes to wseq_exec, the program and the input under their names' '
	test_project bin/account grant --email "$(test_sql_value "select email_addr from user where id=$uid")" \
		--submit_rights all --any_executable &&
	test "$(gahp_do 4 "$(submit_line 4 "$BATCH")")" = "4 NULL" &&
	test "$(test_sql_value "select count(*) from workunit w join batch b on b.id=w.batch join app a on a.id=w.appid where b.name=\"$BATCH\" and a.name=\"wseq_exec\"")" = 2 &&
	test_sql_value "select xml_doc from workunit where name=\"$BATCH#1.0\"" >wu &&
	grep "<open_name>wseq_exec</open_name>" wu && grep "<open_name>params</open_name>" wu
'

id=10
all_done() {
	id=$((id + 1))
	gahp_do $id "BOINC_QUERY_BATCHES $id 0 1 $BATCH" >q.$id || return 1
	test "$(tr " " "\n" <q.$id | grep -c "^DONE$")" = 2
}

test_expect_success 'a real BOINC client runs them through wseq_wrapper' '
	test_boinc_client_up C 7>&- &&
	test_boinc_attach C "$PROJECT_URL" "$AUTH" &&
	test_boinc_poll C "$PROJECT_URL" 300 all_done
'

test_expect_success 'FETCH_OUTPUT ALL: the declared output, the one named as it ran, stdout; stderr appended to the error file' '
	mkdir out0 &&
	gahp_do 100 "BOINC_FETCH_OUTPUT 100 $BATCH#1.0 $TRASH_DIRECTORY/out0 err.txt ALL 0" | grep "^100 NULL 0 " &&
	printf "hello 0\nhello 1\nhello 2\n" >exp0 && test_cmp exp0 out0/result.txt &&
	ls out0/sub/made_*.dat >made && test_line_count = 1 made &&
	grep "made by wseq_exec" out0/sub/made_*.dat &&
	echo "to stdout: hello" >expout && test_cmp expout out0/_condor_stdout &&
	grep "to stderr: hello" out0/err.txt &&
	(cd out0 && find . -type f | sort) >files &&
	printf "./_condor_stdout\n./err.txt\n./result.txt\n./%s\n" "$(cd out0 && ls sub/made_*.dat)" >expfiles &&
	test_cmp expfiles files &&
	! ls -a out0 | grep "wseq-outputs\|wseq_outputs.zip"
'

test_expect_success 'FETCH_OUTPUT SOME: the declared output renamed; a name the job did not make is passed over with a warning' '
	mkdir out1 &&
	gahp_do 101 "BOINC_FETCH_OUTPUT 101 $BATCH#1.1 $TRASH_DIRECTORY/out1 err.txt SOME 2 result.txt r.txt job.out job.out" | grep "^101 NULL 0 " &&
	printf "hello %s\n" 0 1 2 3 4 >exp1 && test_cmp exp1 out1/r.txt &&
	! test -e out1/result.txt && ! test -e out1/job.out && ! test -e out1/sub &&
	grep "fetch 101: job $BATCH#1.1 made no output file named job.out" "$GAHP_DIR/gahp.err"
'

gahp_close

WS="$WSEQ_BUILDDIR/gahp/wseq_submit"
XDG_STATE_HOME="$TRASH_DIRECTORY/.local/state"      # the batches' state, not in the real home
export XDG_STATE_HOME

test_expect_success 'wseq_submit: an executable that is no file stops at its line, nothing is sent' '
	echo "$AUTH" >auth && chmod 600 auth &&
	printf "%s\n" "executable = job/nosuch.sh" "+WseqApp = \"wseq_exec\"" "queue" >noexe.sub &&
	test_must_fail "$WS" submit --project "$URL" --auth_file auth noexe.sub 2>err &&
	grep "noexe.sub:1: cannot read the executable" err &&
	printf "%s\n" "+WseqApp = \"wseq_exec\"" "queue" >noexe2.sub &&
	test_must_fail "$WS" submit --project "$URL" --auth_file auth noexe2.sub 2>err2 &&
	grep "noexe2.sub:1: app wseq_exec runs the job.s own program: give it as executable" err2 &&
	test "$(test_sql_value "select count(*) from batch where name not like \"condor#%\"")" = 0
'

test_expect_success 'wseq_submit: the same program as a description (HTCondor 10+ or none): submit, wait, fetch into each job directory' '
	mkdir run0 run1 &&
	cat >exec.sub <<-\EOT &&
	executable           = job/prog.sh
	+WseqApp             = "wseq_exec"
	initialdir           = run$(Process)
	arguments            = $(Process)
	transfer_input_files = ../job/params
	output               = prog.out
	error                = prog.err
	queue 2
	EOT
	"$WS" submit --project "$URL" --auth_file auth exec.sub >batch 2>err && cat err &&
	B=$(cat batch) &&
	( "$WS" wait --poll 1 "$B" 2>wait.err; echo $? >wait.rc ) &
	test_boinc_poll C "$PROJECT_URL" 300 test -s wait.rc &&
	test "$(cat wait.rc)" = 0 &&
	"$WS" fetch "$(cat batch)" 2>fetch.err && cat fetch.err &&
	test -f run0/result.txt && ! test -s run0/result.txt &&
	printf "hello 0\n" >exp1 && test_cmp exp1 run1/result.txt &&
	echo "to stdout: hello" >expout && test_cmp expout run0/prog.out && test_cmp expout run1/prog.out &&
	grep "to stderr: hello" run1/prog.err &&
	ls run1/sub/made_*.dat && ! test -e run1/_condor_stdout &&
	! ls -a run0 run1 | grep "wseq-outputs\|wseq_outputs.zip"
'

test_done
