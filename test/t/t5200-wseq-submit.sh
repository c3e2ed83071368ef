#!/bin/sh
test_description='wseq_submit without HTCondor: a 100-job submit description runs on a real BOINC client, wait returns 0, fetch brings every output byte-identical to a local run; bad descriptions and a wrong authenticator stop before anything is made on the server; a failed job makes wait exit 1; abort ends a batch; status counts'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb || exit 1
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
WS="$WSEQ_BUILDDIR/gahp/wseq_submit"
N=100
WSEQ_PROJECT_URL="${PROJECT_URL%/}/"
WSEQ_AUTH_FILE="$TRASH_DIRECTORY/auth"
export WSEQ_PROJECT_URL WSEQ_AUTH_FILE
# the batches' state: where ~/.local/state would be were the trash directory home
XDG_STATE_HOME="$TRASH_DIRECTORY/.local/state"
export XDG_STATE_HOME

# state_of BATCH: its state file, submitted from the working directory
state_of() {
	printf "%s/wseq_submit/%s/%s" "$XDG_STATE_HOME" "$(printf %s "$(pwd -P)" | md5sum | cut -c1-32)" "$1"
}

batches() {
	test_sql_value "select count(*) from batch"
}

test_expect_success 'setup: the sample app (one result a job, no retry), submit rights, inputs, an item file' '
	test_setup_sample_app &&
	sed -i "s|<delay_bound>|<min_quorum>1</min_quorum><target_nresults>1</target_nresults><max_total_results>1</max_total_results><delay_bound>|" \
		"$PROJECT_DIR/templates/wseq_sample_in" &&
	uid=$(test_sql_value "select id from user where authenticator=\"$ADMIN_AUTHENTICATOR\"") &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all) values ($uid, 1)" &&
	echo "$ADMIN_AUTHENTICATOR" >auth &&
	for k in 0 1 2 3 4; do printf "input file %s\n" $k >in$k.txt; done &&
	for i in $(seq 0 $((N - 1))); do echo "$(( i % 7 + 1 )), in$(( i % 5 )).txt"; done >jobs.txt &&
	cat >job.sub <<-\EOF
	# 100 jobs of the sample app: the steps and the input from jobs.txt
	universe             = vanilla
	+WseqApp             = "wseq_sample"
	executable           = wseq_sample
	arguments            = "--steps $(steps)"
	transfer_input_files = $(infile)
	output               = out/$(Process).out
	error                = out/$(Process).err
	log                  = job.log
	queue steps, infile from jobs.txt
	EOF
'

# bad NAME LINE MESSAGE: "wseq_submit submit NAME" exits 2 with "NAME:LINE: MESSAGE"
bad() {
	"$WS" submit "$1" 2>err.$1 >out.$1
	rc=$?
	cat err.$1
	test $rc = 2 && grep "^$1:$2: $3" err.$1 && ! test -s out.$1
}

test_expect_success 'bad descriptions stop with FILE:LINE and exit status 2; nothing is made on the server' '
	printf "executable = wseq_sample\n# a comment\nfrobnicate = 1\nqueue\n" >unknown.sub &&
	bad unknown.sub 3 "unknown command .frobnicate." &&
	printf "arguments = --steps 1\ntransfer_input_files = in0.txt\n\nqueue 2\n" >noexe.sub &&
	bad noexe.sub 4 "no executable" &&
	printf "executable = wseq_sample\ntransfer_input_files = in0.txt\nqueue 1x\n" >count.sub &&
	bad count.sub 3 "queue: bad count .1x." &&
	printf "executable = wseq_sample\ntransfer_input_files = in0.txt\nqueue 0\n" >zero.sub &&
	bad zero.sub 3 "queue: bad count .0." &&
	printf "executable = wseq_sample\narguments = --steps \\\\\n  2\ntransfer_input_files = in\$(Process).txt\nqueue 10\n" >missing.sub &&
	bad missing.sub 4 "job 5: cannot read input file in5.txt" &&
	printf "executable = wseq_sample\ntransfer_input_files = in0.txt\nqueue x from nowhere.txt\n" >items.sub &&
	bad items.sub 3 "cannot read nowhere.txt" &&
	printf "executable = wseq_sample\ntransfer_input_files = in0.txt, in1.txt\nqueue\n" >twoin.sub &&
	bad twoin.sub 2 "job 0 has 2 input file(s); app wseq_sample takes 1" &&
	test "$(batches)" = 0 && ! ls "$(state_of "")"*-* 2>/dev/null
'

test_expect_success 'a wrong authenticator: a clear error naming the file, exit 1, nothing made, no authenticator shown' '
	echo wrongauth0123456789 >badauth &&
	test_must_fail "$WS" submit --auth_file badauth job.sub 2>err >sub.out &&
	cat err && grep "bad authenticator" err && grep "badauth" err &&
	! test -s sub.out && test "$(batches)" = 0 &&
	! grep "wrongauth0123456789\|$ADMIN_AUTHENTICATOR" err
'

test_expect_success 'submit: 100 jobs in one batch, its name on stdout, its state in the user state directory (0600 in 0700), not in the job directory' '
	"$WS" submit job.sub >batch 2>err && cat err &&
	B=$(cat batch) && test -n "$B" && test -f "$(state_of "$B")" && ! test -e .wseq_submit &&
	test "$(stat -c %a "$(state_of "$B")")" = 600 &&
	test "$(stat -c %a "$(dirname "$(state_of "$B")")")" = 700 &&
	test "$(cat "$(dirname "$(state_of "$B")")/dir")" = "$(pwd -P)" &&
	grep "$N job(s) submitted" err && grep "5 distinct input file(s), 5 uploaded" err &&
	test "$(test_sql_value "select count(*) from workunit w join batch b on b.id=w.batch where b.name=\"$B\"")" = $N &&
	test "$(grep -c "submitted to" job.log)" = $N &&
	! grep -r "$ADMIN_AUTHENTICATOR" "$XDG_STATE_HOME"
'
B=$(cat batch)

test_expect_success 'status shows the counts (and, with --jobs, each job)' '
	"$WS" status "$B" >st && cat st &&
	grep "^batch $B: $N jobs" st && grep "^UNSENT *$N$" st && grep "^DONE *0$" st &&
	"$WS" status --jobs "$B" >stj && test "$(grep -c "^job [0-9]* UNSENT $B-" stj)" = $N
'

test_expect_success 'a real BOINC client runs them; wait (not on a tty: progress lines) returns 0' '
	test_boinc_client_up C &&
	test_boinc_attach C "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	( "$WS" wait --poll 1 "$B" 2>wait.err; echo $? >wait.rc ) &
	test_boinc_poll C "$PROJECT_URL" 600 test -s wait.rc &&
	cat wait.err && test "$(cat wait.rc)" = 0 &&
	grep "^wait: $N of $N done, 0 failed, 0 running, 0 waiting$" wait.err &&
	"$WS" status "$B" | grep "^DONE *$N$"
'

expected() {   # expected STEPS INPUT: the sample app run here, standalone
	rm -rf exp && mkdir exp && cp "$2" exp/in &&
	(cd exp && "$APP" --steps "$1" 2>/dev/null) && cat exp/out
}

test_expect_success 'fetch brings every output where the description said, equal to a local run' '
	"$WS" fetch "$B" 2>fetch.err && cat fetch.err &&
	grep "$N job(s) fetched" fetch.err &&
	i=0 && while IFS=", " read -r steps infile; do
		expected "$steps" "$infile" >exp.out && cmp exp.out "out/$i.out" &&
		test -f "out/$i.err" || return 1
		i=$((i + 1))
	done <jobs.txt && test $i = $N &&
	test "$(grep -c "done, exit status 0" job.log)" = $N &&
	! ls out | grep -v "^[0-9]*\.\(out\|err\)$"
'

test_expect_success 'a job list whose second job fails on the client: wait exits 1, fetch gets the good output and the failure stderr' '
	printf "%s\n" "# job list" "--steps 2 < in0.txt" "--steps 3 < in1.txt" >list.txt &&
	echo "list-b-1" >C/wseq_fail &&
	"$WS" submit --job_list --app wseq_sample --batch list-b list.txt >b2 && test "$(cat b2)" = list-b &&
	( "$WS" wait --poll 1 list-b 2>wait2.err; echo $? >wait2.rc ) &
	test_boinc_poll C "$PROJECT_URL" 300 test -s wait2.rc &&
	cat wait2.err && test "$(cat wait2.rc)" = 1 && grep "1 of 2 job(s) failed" wait2.err &&
	"$WS" status list-b >st2 && grep "^DONE *1$" st2 && grep "^ERROR *1$" st2 &&
	test_must_fail "$WS" fetch list-b 2>fetch2.err && cat fetch2.err &&
	expected 2 in0.txt >exp.out && cmp exp.out out.0 && ! test -e out.1 &&
	grep "failing on purpose" stderr.1
'

# the wrapper script of the README's DAGMan example, as written there
readme_wrapper() {
	sed -n '/^    #!\/bin\/sh$/,/^    exit \$waited$/{s/^    //p;/^exit \$waited$/q;}' "$WSEQ_SRCDIR/README.md"
}

test_expect_success 'the README wrapper for a DAGMan node (submit, wait, fetch, retire) exits 0 and leaves the outputs' '
	rm -f C/wseq_fail &&
	mkdir node && cp in0.txt in1.txt node/ &&
	readme_wrapper >node/run_boinc.sh &&
	chmod +x node/run_boinc.sh && grep "wseq_submit wait" node/run_boinc.sh &&
	printf "%s\n" "executable = wseq_sample" "arguments = --steps \$(Process)" \
		"transfer_input_files = in\$(Process).txt" "output = res/\$(Process).out" \
		"+WseqBatch = \"node-b\"" "queue 2" >node/boinc.sub &&
	sed -i "s/--poll 60/--poll 1/" node/run_boinc.sh &&
	( PATH="$WSEQ_BUILDDIR/gahp:$PATH" node/run_boinc.sh boinc.sub >node.out 2>node.err; echo $? >node.rc ) &
	test_boinc_poll C "$PROJECT_URL" 300 test -s node.rc &&
	cat node.out node.err && test "$(cat node.rc)" = 0 && grep "^batch node-b$" node.out &&
	expected 0 in0.txt >exp.out && cmp exp.out node/res/0.out &&
	expected 1 in1.txt >exp.out && cmp exp.out node/res/1.out &&
	test "$(test_sql_value "select state from batch where name=\"node-b\"")" = 4
'

test_expect_success 'abort ends the jobs of a batch: all ERROR on the server, wait exits 1' '
	printf "executable = wseq_sample\narguments = --steps 100000 --step_ms 50\ntransfer_input_files = in0.txt\nqueue 3\n" >slow.sub &&
	"$WS" submit --batch slow-b slow.sub &&
	"$WS" abort slow-b 2>abort.err && cat abort.err && grep "3 job(s) aborted" abort.err &&
	"$WS" status slow-b >st3 && cat st3 && grep "^ERROR *3$" st3 &&
	test "$(test_sql_value "select count(*) from workunit where name like \"slow-b-%\" and error_mask & 16")" = 3 &&
	test_must_fail "$WS" wait --poll 1 slow-b
'

test_expect_success 'retire: the batch is retired on the server and its state file goes' '
	"$WS" retire "$B" &&
	test "$(test_sql_value "select state from batch where name=\"$B\"")" = 4 &&
	! test -e "$(state_of "$B")" &&
	test_must_fail "$WS" fetch "$B"
'

test_expect_success '--help for the command and each subcommand; an unknown subcommand exits 2' '
	"$WS" --help | grep "^usage: wseq_submit" &&
	for c in submit status wait fetch abort retire; do
		"$WS" $c --help | grep "^usage: wseq_submit $c" || return 1
	done &&
	"$WS" frob 2>err; test $? = 2
'

test_done
