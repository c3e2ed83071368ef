#!/bin/sh
test_description='a host writes only new files under a job directory: the wseq_outputs.zip a stranger uploads through the real upload handler, fetched by wseq_submit and by boinc_gahp, never replaces job.sub, never makes a dot-file such as .ssh/authorized_keys, never reaches wseq_submit state (which says where the authenticator goes), never inflates a 1 MB upload to 1 GiB, never passes the bounds of its batch; a refused zip leaves no file and says why'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-host-upload.sh"
. "$WSEQ_SRCDIR/test/t/lib-gahp.sh"

test_sandbox_up sb --no-daemons --make-project-option --exec_app || exit 1
URL="${PROJECT_URL%/}/"
AUTH="$ADMIN_AUTHENTICATOR"
WS="$WSEQ_BUILDDIR/gahp/wseq_submit"
WSEQ_PROJECT_URL="$URL"
WSEQ_AUTH_FILE="$TRASH_DIRECTORY/auth"
XDG_STATE_HOME="$TRASH_DIRECTORY/.local/state"
export WSEQ_PROJECT_URL WSEQ_AUTH_FILE XDG_STATE_HOME

# state_of BATCH: its state file, submitted from the working directory
state_of() {
	printf "%s/%s/%s" "${WSEQ_SUBMIT_STATE_DIR:-$XDG_STATE_HOME/wseq_submit}" \
		"$(printf %s "$(pwd -P)" | md5sum | cut -c1-32)" "$1"
}

# nothing of a refused zip: no staging directory, no scratch directory, no zip
no_leftovers() {
	! find "$1" -name ".wseq-outputs-*" -o -name "*.unzip-*" -o -name wseq_outputs.zip | grep .
}

test_expect_success 'setup: an account that may submit its own programs; a program' '
	echo "$AUTH" >auth && chmod 600 auth &&
	uid=$(test_sql_value "select id from user where authenticator=\"$AUTH\"") &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all) values ($uid, 1)" &&
	test_project bin/account grant --email "$(test_sql_value "select email_addr from user where id=$uid")" \
		--submit_rights all --any_executable &&
	printf "#!/bin/sh\necho hi >result.txt\n" >prog.sh && chmod +x prog.sh
'

# submit_in DIR N [LINE...]: N jobs of prog.sh submitted from DIR (its job.sub), the batch name in DIR/batch
submit_in() {
	d=$1 n=$2
	shift 2
	mkdir -p "$d" && cp prog.sh "$d/" &&
	{ printf "%s\n" "executable = prog.sh" "+WseqApp = \"wseq_exec\"" "output = prog.out" "log = job.log" "$@"
	  echo "queue $n"; } >"$d/job.sub" &&
	(cd "$d" && "$WS" submit --batch "zip-$d" job.sub >batch 2>submit.err) || { cat "$d/submit.err"; return 1; }
}

test_expect_success 'wseq_submit fetch: an entry over job.sub refuses the whole zip, says why, leaves no file' '
	submit_in w1 1 && B=$(cat w1/batch) &&
	host_zip evil1.zip "result.txt=fine\n" "job.sub=executable = /bin/sh\n" &&
	host_returns "$B-0" evil1.zip &&
	cp w1/job.sub job.sub.before &&
	(cd w1 && test_must_fail "$WS" fetch "$B" 2>fetch.err) && cat w1/fetch.err &&
	grep "job 0 ($B-0): refused the outputs in its wseq_outputs.zip: entry .job.sub. would replace .*/w1/job.sub, which exists" w1/fetch.err &&
	grep "job 0 ($B-0): outputs refused: entry .job.sub. would replace" w1/job.log &&
	test_cmp job.sub.before w1/job.sub &&
	! test -e w1/result.txt && no_leftovers w1
'

test_expect_success 'wseq_submit fetch: a dot-file (.ssh/authorized_keys) is refused, no .ssh made' '
	submit_in w2 1 && B=$(cat w2/batch) &&
	host_zip evil2.zip "result.txt=fine\n" ".ssh/authorized_keys=ssh-ed25519 AAAA evil\n" &&
	host_returns "$B-0" evil2.zip &&
	(cd w2 && test_must_fail "$WS" fetch "$B" 2>fetch.err) && cat w2/fetch.err &&
	grep "entry .\.ssh/authorized_keys. may not go to \.ssh/authorized_keys: a name starting with .\.." w2/fetch.err &&
	! test -e w2/.ssh && ! test -e w2/result.txt && no_leftovers w2
'

test_expect_success 'wseq_submit: a zip cannot reach the state (it is not in the job directory), status still goes to the project configured' '
	submit_in w3 1 && B=$(cat w3/batch) &&
	st=$(cd w3 && state_of "$B") && test -f "$st" && cp "$st" state.before &&
	sed "s|^project .*|project =http://127.0.0.1:9/evil/|" "$st" >forged &&
	host_zip evil3.zip ".wseq_submit/$B=@forged" &&
	host_returns "$B-0" evil3.zip &&
	(cd w3 && test_must_fail "$WS" fetch "$B" 2>fetch.err) && cat w3/fetch.err &&
	grep "may not go to \.wseq_submit/$B: a name starting with" w3/fetch.err &&
	! test -e w3/.wseq_submit && test_cmp state.before "$st" &&
	(cd w3 && "$WS" status "$B" >status.out 2>status.err) && grep "^DONE *1$" w3/status.out
'

test_expect_success 'wseq_submit: a state file others may write, or not the user own, is refused with a clear message' '
	B=$(cat w3/batch) && st=$(cd w3 && state_of "$B") &&
	chmod 620 "$st" &&
	(cd w3 && test_must_fail "$WS" status "$B" 2>st.err) && cat w3/st.err &&
	grep "may be written by others (mode 0620): refused" w3/st.err &&
	chmod 600 "$st" && chmod 770 "$(dirname "$st")" &&
	(cd w3 && test_must_fail "$WS" status "$B" 2>st.err) &&
	grep "may be written by others (mode 0770): refused" w3/st.err &&
	chmod 700 "$(dirname "$st")" &&
	if test "$(id -u)" = 0; then
		chown nobody "$st" &&
		(cd w3 && test_must_fail "$WS" fetch "$B" 2>st.err) && cat w3/st.err &&
		grep "belongs to uid $(id -u nobody), not to you: refused" w3/st.err &&
		chown 0 "$st"
	fi &&
	(cd w3 && "$WS" status "$B" >/dev/null)
'

test_expect_success 'wseq_submit: an old .wseq_submit/BATCH in the working directory is not read, and the message says so' '
	mkdir w4 && mkdir w4/.wseq_submit && cp forged w4/.wseq_submit/somebatch &&
	(cd w4 && test_must_fail "$WS" fetch somebatch 2>err) && cat w4/err &&
	grep "\.wseq_submit/somebatch is where an older wseq_submit kept" w4/err &&
	grep "no batch somebatch was submitted from this directory" w4/err
'

test_expect_success 'wseq_submit fetch: a 1 MB upload that inflates to 1 GiB is refused as it inflates; nothing stays' '
	submit_in w5 1 && B=$(cat w5/batch) &&
	python3 -c "
import zipfile
with zipfile.ZipFile(\"bomb.zip\", \"w\", zipfile.ZIP_DEFLATED) as z:
    with z.open(\"zeros\", \"w\", force_zip64=True) as f:
        for i in range(1024):
            f.write(bytes(1 << 20))
" &&
	test "$(wc -c <bomb.zip)" -lt 1200000 &&
	host_returns "$B-0" bomb.zip &&
	(cd w5 && test_must_fail "$WS" fetch "$B" 2>fetch.err) && cat w5/fetch.err &&
	grep "a compression ratio past the bound" w5/fetch.err &&
	! test -e w5/zeros && no_leftovers w5 && test "$(du -sm w5 | cut -f1)" -lt 5
'

test_expect_success 'wseq_submit fetch: many small entries across the jobs of one batch stop at the batch bound' '
	submit_in w6 3 && B=$(cat w6/batch) &&
	for j in 0 1 2; do
		set -- &&
		for k in 1 2 3 4 5 6 7 8 9 10; do set -- "$@" "j${j}_f$k=$k\n"; done &&
		host_zip small$j.zip "$@" && host_returns "$B-$j" small$j.zip || return 1
	done &&
	(cd w6 && WSEQ_OUTPUTS_BATCH_MAX_FILES=25 test_must_fail "$WS" fetch "$B" 2>fetch.err) &&
	cat w6/fetch.err &&
	grep "job 2 ($B-2): refused the outputs in its wseq_outputs.zip: 10 entries, and the batch.s zips unpacked 20 before: more than the 25 they may have together" w6/fetch.err &&
	test "$(ls w6 | grep -c "^j[01]_f")" = 20 && ! ls w6 | grep "^j2_" && no_leftovers w6 &&
	(cd w6 && "$WS" fetch "$B" 2>fetch2.err) && cat w6/fetch2.err &&
	test "$(ls w6 | grep -c "^j[012]_f")" = 30
'

test_expect_success 'wseq_submit fetch: what the description names is the submitter word: a hidden name listed, a remap over an existing file' '
	submit_in w7 1 "transfer_output_files = .hidden, result.txt" "transfer_output_remaps = \"result.txt = keep.txt\"" &&
	B=$(cat w7/batch) && echo old >w7/keep.txt &&
	host_zip named.zip ".hidden=asked for\n" "result.txt=new\n" "other=not asked\n" &&
	host_returns "$B-0" named.zip &&
	(cd w7 && "$WS" fetch "$B" 2>fetch.err) && cat w7/fetch.err &&
	test "$(cat w7/.hidden)" = "asked for" && test "$(cat w7/keep.txt)" = new &&
	! test -e w7/other && ! test -e w7/result.txt && no_leftovers w7
'

test_expect_success 'wseq_submit: a state directory put inside the job directory is still out of a zip reach' '
	(export WSEQ_SUBMIT_STATE_DIR="$TRASH_DIRECTORY/w8/state" &&
	 submit_in w8 1 && B=$(cat w8/batch) && cd w8 &&
	 d=$(dirname "$(state_of x)") && test -f "$d/$B" && h=$(basename "$d") &&
	 host_zip evil8.zip "state/$h/planted=project =http://127.0.0.1:9/\n" &&
	 host_returns "$B-0" evil8.zip &&
	 test_must_fail "$WS" fetch "$B" 2>fetch.err && cat fetch.err &&
	 grep "cannot place state/$h/planted: .*/w8/state is kept for the tool.s own files" fetch.err &&
	 ! test -e "state/$h/planted")
'

gahp_start || exit 1
T=$(date +%s)
BATCH="condor#schedd.example.org#prog#$T"

test_expect_success 'boinc_gahp: three jobs submitted as the gridmanager does' '
	test "$(gahp_sync ASYNC_MODE_ON)" = S &&
	test "$(gahp_sync "BOINC_SELECT_PROJECT $URL $AUTH")" = S &&
	echo x >params &&
	job() { printf " %s#1.%s 1 0 1 %s params" "$BATCH" "$1" "$TRASH_DIRECTORY/params"; } &&
	r=$(gahp_do 2 "BOINC_SUBMIT 2 $BATCH $TRASH_DIRECTORY/prog.sh 3$(job 0)$(job 1)$(job 2) NULL NULL NULL NULL NULL NULL") &&
	test "$r" = "2 NULL" &&
	host_zip g2.zip "config.txt=http://127.0.0.1:9/\nkey\n" &&
	host_returns "$BATCH#1.2" g2.zip &&
	host_zip g0.zip "result.txt=fine\n" "job.sub=executable = /bin/sh\n" &&
	host_returns "$BATCH#1.0" g0.zip &&
	host_zip g1.zip "result.txt=fine\n" ".ssh/authorized_keys=evil\n" &&
	host_returns "$BATCH#1.1" g1.zip
'

test_expect_success 'boinc_gahp FETCH_OUTPUT ALL: an entry over job.sub or a dot-file refuses the zip in the GAHP error form; no file' '
	mkdir g0 && echo "executable = mine" >g0/job.sub && cp g0/job.sub g0.before &&
	r=$(gahp_do 10 "BOINC_FETCH_OUTPUT 10 $BATCH#1.0 $TRASH_DIRECTORY/g0 err.txt ALL 0") && echo "$r" &&
	echo "$r" | sed "s/\\\\//g" | grep "^10 error fetching output: entry .job.sub. would replace .*/g0/job.sub, which exists" &&
	test_cmp g0.before g0/job.sub && ! test -e g0/result.txt && no_leftovers g0 &&
	grep "fetch 10: job $BATCH#1.0: refused its wseq_outputs.zip" "$GAHP_DIR/gahp.err" &&
	mkdir g1 &&
	r=$(gahp_do 11 "BOINC_FETCH_OUTPUT 11 $BATCH#1.1 $TRASH_DIRECTORY/g1 err.txt ALL 0") && echo "$r" &&
	echo "$r" | sed "s/\\\\//g" | grep "^11 error fetching output: entry .\.ssh/authorized_keys. may not go to" &&
	! test -e g1/.ssh && ! test -e g1/result.txt && no_leftovers g1
'

test_expect_success 'boinc_gahp FETCH_OUTPUT: a spec naming the hidden entry is the submitter word, and is delivered' '
	r=$(gahp_do 12 "BOINC_FETCH_OUTPUT 12 $BATCH#1.1 $TRASH_DIRECTORY/g1 err.txt ALL 1 .ssh/authorized_keys got_keys") &&
	echo "$r" | grep "^12 NULL 0 " &&
	test "$(cat g1/got_keys)" = evil && test "$(cat g1/result.txt)" = fine && ! test -e g1/.ssh
'

test_expect_success 'boinc_gahp FETCH_OUTPUT into its own directory: its config.txt is never made' '
	r=$(gahp_do 13 "BOINC_FETCH_OUTPUT 13 $BATCH#1.2 $GAHP_DIR err.txt ALL 0") && echo "$r" &&
	echo "$r" | sed "s/\\\\//g" | grep "^13 error fetching output: entry .config.txt. may not go to .*/gahp/config.txt: a file the tool keeps for itself" &&
	! test -e "$GAHP_DIR/config.txt"
'

gahp_close

test_done
