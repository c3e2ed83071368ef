#!/bin/sh
test_description='sweep run over three real sshd slaves, a slave that refuses the key, a closed port and an unknown host: the client copied by scp, every set collected once or listed as failed with why, statistics per host; the master killed mid-run and resumed; a client killed mid-task'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wsrun
D="$TRASH_DIRECTORY/ssh"
SB="$TRASH_DIRECTORY/sb"
DATA="$WSEQ_SRCDIR/test/data/sweep-run"
test_atexit "sshd_slaves_down '$D'"
test_atexit "wseq_sandbox down '$SB' 2>/dev/null"

sshd_slaves_up "$D" 3 >"$TRASH_DIRECTORY/sshd-up.log" 2>&1 || {
	say "sshd_slaves_up failed:"; sed 's/^/#   /' "$TRASH_DIRECTORY/sshd-up.log"; exit 1
}
NOAUTH=$(sshd_slave_noauth "$D" 2>>"$TRASH_DIRECTORY/sshd-up.log") || exit 1
CLOSED=$(sshd_closed_port) || exit 1
PORT=$(sshd_free_port_) || exit 1

# make_sweep DIR TIMEOUT ROWS [N=MODE ...]: a sweep in DIR of ROWS sets "n | mode"
# (mode ok unless named) over the three slaves, $JOBS tasks at once on each.
# While the file DIR.hold exists the sets above 9 wait, while DIR.hold.USER
# exists the sets of slave login USER wait (test/data/sweep-run/worker.sh).
make_sweep() {
	_dir=$1 _to=$2 _rows=$3
	shift 3
	mkdir -p "$_dir" && cp "$DATA/check.sh" "$_dir/" &&
	sed "s|^hold=HOLD$|hold=$TRASH_DIRECTORY/$_dir.hold|" "$DATA/worker.sh" >"$_dir/worker.sh" &&
	chmod 755 "$_dir/worker.sh" &&
	sed -e "s/TIMEOUT/$_to/" -e "s/PORT/$PORT/" -e "s/JOBS/${JOBS:-1}/" "$DATA/spec.in" \
		>"$_dir/spec" &&
	cp "$D/cluster" "$_dir/cluster" &&
	{
		echo "n | mode"
		_i=1
		while [ $_i -le "$_rows" ]; do
			_m=ok
			for _s in "$@"; do
				[ "${_s%%=*}" = "$_i" ] && _m=${_s#*=}
			done
			echo "$_i | $_m"
			_i=$((_i + 1))
		done
	} >"$_dir/params"
}

RUN="sweep --sandbox $SB --ssh-config $D/ssh_config --progress lines --verbose"

# expect_blocks DIR MODE N...: out.txt holds exactly the sets N... (of MODE), once
# each, in this order
expect_blocks() {
	_dir=$1 _mode=$2
	shift 2
	for _n in "$@"; do
		echo "### n=$_n mode=$_mode"
		echo "n=$_n"
	done >"$_dir/expect.txt" &&
	grep -a -e '^### ' -e '^n=' "$_dir/out.txt" >"$_dir/got.txt" &&
	test_cmp "$_dir/expect.txt" "$_dir/got.txt"
}

# done_by DIR USER: the "done" column of USER's line in the statistics
done_by() {
	awk -v u="$2@" 'index($1, u) == 1 { print $2 }' "$1/stats"
}
# tried_by DIR USER: the sets USER's host ran to an end (done, failed, invalid, lost)
tried_by() {
	awk -v u="$2@" 'index($1, u) == 1 { print $2 + $3 + $4 + $5 }' "$1/stats"
}

# logins: how many ssh logins the slaves have accepted so far
logins() {
	cat "$D"/sshd-*.log | grep -c "Accepted publickey"
}

# ctl_dirs PID: the directories of shared ssh connections of the master PID
# left in /tmp (other tests' masters may run at the same time)
ctl_dirs() {
	ls -d /tmp/wseq-sweep-"$1".* 2>/dev/null | wc -l
}

# mux_gone PID: no ssh process of the master PID's shared connections is left
mux_gone() {
	! pgrep -f "/tmp/wseq-swee[p]-$1[.]" >/dev/null
}

# master_pid DIR: the pid of the master whose log is DIR/run.log
master_pid() {
	sed -n "s/^[-0-9]* [0-9:.]* sweep\[\([0-9]*\)\] .*/\1/p" "$1/run.log" | head -n 1
}

# --- a whole sweep, with every kind of trouble -----------------------------

make_sweep s1 5 24 5=fail 9=hang 13=bad
{ echo "$NOAUTH"; echo "$CLOSED"; echo "nonexistent-host.invalid"; } >>s1/cluster

test_expect_success 'sweep run: a private project, the client deployed, exit 4 (some sets failed)' '
	logins >logins.before &&
	(cd s1 && $RUN run spec >stats 2>run.log; echo $? >rc) &&
	test "$(cat s1/rc)" = 4 &&
	grep "^session [0-9a-f]\{32\}: 24 tasks, 21 done, 0 running, 0 waiting, 3 failed$" s1/stats &&
	# the progress (counted by the database, not task by task) ends with the same counts
	grep "elapsed: " s1/run.log | tail -n 1 | grep "21/24 done, 3 failed, 0 running, 0 waiting"
'

test_expect_success 'the client was missing on every slave: copied by sftp after the dummy ssh check' '
	for u in $SSHD_SLAVE_USERS; do
		test -x "$D/home/$u/.wseq-sweep/sweep_client-"*/start || return 1
	done &&
	test "$(grep -c "copying the client" s1/run.log)" = 3 &&
	# given the private project'"'"'s own sweep URL, under its name
	grep -q "the clients connect to http://127.0.0.1:$PORT/sweep_cgi/sweep\$" s1/run.log
'

test_expect_success 'one ssh login a slave: start, check, the sftp copy and start again share it' '
	test "$(($(logins) - $(cat logins.before)))" = 3 &&
	pid=$(master_pid s1) && test -n "$pid" &&
	test "$(ctl_dirs "$pid")" = 0 &&
	test_wait_for 15 mux_gone "$pid"
'

test_expect_success 'the output holds every valid set once, in table order, binary results intact' '
	expect_blocks s1 ok 1 2 3 4 6 7 8 10 11 12 14 15 16 17 18 19 20 21 22 23 24 &&
	test "$(grep -a -c -- "^--end content--$" s1/out.txt)" = 21 &&
	test "$(tr -cd "\000" <s1/out.txt | wc -c)" = 21 &&
	grep -a -q "^after the marker 24$" s1/out.txt
'

test_expect_success 'statistics: what each slave did, adding up to all valid sets' '
	total=0 &&
	for u in $SSHD_SLAVE_USERS; do
		# every slave ran sets; one may have done none well (CI: the one given
		# the hanging set sat out its 5 s while the others did all the rest)
		test "$(tried_by s1 "$u")" -ge 1 &&
		n=$(done_by s1 "$u") && total=$((total + ${n:-0})) || return 1
	done &&
	test "$total" = 21
'

test_expect_success 'statistics: the hosts that could not be reached, and why' '
	grep "^  ${NOAUTH}: unreachable: ssh authentication failed (.*Permission denied" s1/stats &&
	grep "^  ${CLOSED}: unreachable: connection refused" s1/stats &&
	grep "^  nonexistent-host.invalid: unreachable: no such host" s1/stats
'

test_expect_success 'statistics: the failed sets, with why (exit status, timeout, invalid)' '
	grep "^  set 5 (n=5 mode=fail): the worker exited with status 3 (wsrun" s1/stats &&
	grep "^  set 9 (n=9 mode=hang): timeout: still running after 5 s" s1/stats &&
	grep "^  set 13 (n=13 mode=bad): invalid result (wsrun" s1/stats &&
	test "$(grep -c "^  set " s1/stats)" = 3
'

test_expect_success 'the session ID is in no log, here or on the slaves; the private project is stopped' '
	sid=$(sed -n "s/^session \([0-9a-f]*\):.*/\1/p" s1/stats) && test -n "$sid" &&
	! grep -r -q "$sid" "$D/home" "$SB/apache/logs" "$SB/project/log" &&
	grep -q "GET /sweep_cgi/sweep/task " "$SB/apache/logs/access.log" &&
	test_must_fail wseq_sandbox status "$SB" >/dev/null &&
	test_must_fail sweep --sandbox "$SB" status "$sid" 2>err &&
	grep "is the private project in $SB running" err
'

# --- the master killed mid-run, the machine "rebooted", then resume ---------

JOBS=3 make_sweep s2 30 45

test_expect_success 'a slave whose sweep_client is not this master'"'"'s (an older one) gets a fresh copy' '
	stale=$(echo $SSHD_SLAVE_USERS | cut -d" " -f2) &&
	r="$D/home/$stale/.wseq-sweep" &&
	ls -d "$r"/sweep_client-* >bundles && test_line_count = 1 bundles &&
	b=$(cat bundles) && echo "${b##*/}" >bundle.name &&
	mv "$b" "$r/sweep_client-00000000000000000000000000000000" &&
	printf "#!/bin/sh\necho need 5 arguments >&2\nexit 1\n" >"$r/sweep_client" &&
	chmod 755 "$r/sweep_client"
'

# The sweep is held (sets 10..45 wait at s2.hold), so the master is surely
# still running when it is killed, however fast the machine finishes sets 1..9.
# The "reboot" takes the slaves' clients and workers with it; the hold goes
# before the resume.
test_expect_success 'the master killed with -9 mid-run, the server stopped too; sweep resume completes it' '
	: >s2.hold || return 1
	(cd s2 && exec $RUN run spec >stats 2>run.log) &
	master=$! &&
	test_wait_for 60 grep -q "^sweep: session [0-9a-f]*:" s2/run.log &&
	sid=$(sed -n "s/^sweep: session \([0-9a-f]*\):.*/\1/p" s2/run.log) &&
	test_wait_for 60 sh -c "sweep --sandbox \"$SB\" status $sid 2>/dev/null |
		grep -q \"tasks, \([6-9]\|[1-9][0-9]\) done\"" &&
	test "$(ctl_dirs $master)" = 1 &&
	kill -9 $master && { wait $master || :; } &&
	sweep --sandbox "$SB" status "$sid" >before &&
	! grep -q "45 done" before &&
	wseq_sandbox down "$SB" 2>/dev/null &&
	for u in $SSHD_SLAVE_USERS; do
		pkill -KILL -u "$u" -x sweep_client; pkill -KILL -u "$u" -f "worker [0-9]" || :
	done &&
	rm s2.hold &&
	(cd s2 && $RUN resume "$sid" >stats 2>resume.log) &&
	grep "^session $sid: 45 tasks, 45 done, 0 running, 0 waiting, 0 failed$" s2/stats &&
	expect_blocks s2 ok $(seq 1 45) &&
	# the killed master'"'"'s directory of shared ssh connections went with the resume
	test "$(ctl_dirs $master)" = 0 &&
	stale=$(echo $SSHD_SLAVE_USERS | cut -d" " -f2) &&
	grep "copying the client" s2/run.log >copied && test_line_count = 1 copied &&
	test_grep "host $stale@" copied &&
	diff -r "$D/home/$stale/.wseq-sweep/$(cat bundle.name)" \
		"$WSEQ_LIBEXECDIR/sweep-client/x86_64-pc-linux-gnu"
'

test_expect_success 'Jobs=3: each slave ran tasks in three processes at once' '
	for u in $SSHD_SLAVE_USERS; do
		log="$D/home/$u/.wseq-sweep/client.log" &&
		grep -q "3 jobs at once" "$log" &&
		test "$(sed -n "s/.*sweep_client\[\([0-9]*\)\].*: done in .*/\1/p" "$log" | sort -u | wc -l)" -ge 3 ||
		return 1
	done
'

# --- a client killed in the middle of a task -------------------------------

make_sweep s3 8 6 1=slow 2=slow 3=slow 4=slow 5=slow 6=slow

# The victim's worker waits at s3.hold.VICTIM until its client is killed, so
# the kill surely lands mid-task, however long the test takes to see it.
test_expect_success 'a client killed mid-task: its task is handed out again after the timeout' '
	victim=$(echo $SSHD_SLAVE_USERS | cut -d" " -f1) &&
	: >"s3.hold.$victim" || return 1
	(cd s3 && exec $RUN run spec >stats 2>run.log) &
	master=$! &&
	test_wait_for 60 pgrep -u "$victim" -f "worker [0-9]+ slow" &&
	pkill -KILL -u "$victim" -x sweep_client &&
	rm "s3.hold.$victim" &&
	wait $master &&
	grep "6 tasks, 6 done" s3/stats &&
	expect_blocks s3 slow 1 2 3 4 5 6 &&
	awk -v u="$victim@" "index(\$1, u) == 1 { exit !(\$5 >= 1) }" s3/stats
'

test_done
