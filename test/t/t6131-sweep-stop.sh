#!/bin/sh
test_description='sweep run and its hosts (issue 31, bugs 5, 7): the statistics of a host whose ssh dropped while its client worked on, a resume of a finished session that keeps why hosts were not used; Ctrl-C stops the clients on the hosts, and a resume at once never runs two sets at once on a Jobs=1 host'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wsstop
D="$TRASH_DIRECTORY/ssh"
SB="$TRASH_DIRECTORY/sb"
DATA="$WSEQ_SRCDIR/test/data/sweep-hosts"
test_atexit "sshd_slaves_down '$D'"
test_atexit "wseq_sandbox down '$SB' 2>/dev/null"
# masters a failed test left running
test_atexit "kill -KILL \$(cat '$TRASH_DIRECTORY/masters' 2>/dev/null) 2>/dev/null"

sshd_slaves_up "$D" 2 >"$TRASH_DIRECTORY/sshd-up.log" 2>&1 || {
	say "sshd_slaves_up failed:"; sed 's/^/#   /' "$TRASH_DIRECTORY/sshd-up.log"; exit 1
}
PORT=$(sshd_free_port_) || exit 1
CLOSED=$(sshd_closed_port) || exit 1
A=$(echo $SSHD_SLAVE_USERS | cut -d" " -f1) B=$(echo $SSHD_SLAVE_USERS | cut -d" " -f2)
PA=$(echo $SSHD_SLAVE_PORTS | cut -d" " -f1) PB=$(echo $SSHD_SLAVE_PORTS | cut -d" " -f2)
REC="$TRASH_DIRECTORY/rec"

# make_sweep DIR TIMEOUT ROWS HOST...: a sweep in DIR of sets n = 1..ROWS over
# the hosts (cluster lines); the worker's records in $REC/DIR (see worker.sh).
make_sweep() {
	_dir=$1 _to=$2 _rows=$3
	shift 3
	mkdir -p "$_dir" "$REC/$_dir" && chmod 1777 "$REC" "$REC/$_dir" &&
	cp "$DATA/check.sh" "$_dir/" &&
	sed "s|^dir=DIR |dir=$REC/$_dir |" "$DATA/worker.sh" >"$_dir/worker.sh" &&
	chmod 755 "$_dir/worker.sh" &&
	sed -e "s/TIMEOUT/$_to/" -e "s/PORT/$PORT/" "$DATA/spec.in" >"$_dir/spec" &&
	printf '%s\n' "$@" >"$_dir/cluster" &&
	{ echo "n"; seq 1 "$_rows"; } >"$_dir/params"
}

RUN="sweep --sandbox $SB --keep-server --ssh-config $D/ssh_config --progress lines --verbose"

# collected DIR N: out.txt holds the sets 1..N once each, in order
collected() {
	seq 1 "$2" | sed "s/^/n=/" >"$1/expect.txt" &&
	grep -a "^n=" "$1/out.txt" >"$1/got.txt" &&
	test_cmp "$1/expect.txt" "$1/got.txt"
}

# clients_of USER...: the sweep_client processes running as the users
clients_of() {
	for _u in "$@"; do
		pgrep -u "$_u" -x sweep_client
	done
}

# --- bug 5: statistics of a host whose ssh dropped, and of a resume ----------

make_sweep s1 30 3 "$A@127.0.0.1:$PA" "$CLOSED"

# Set 3 is the last one handed out (one host, one at a time): while it waits,
# A's ssh sessions are cut on the host side. The client works on (it ignores
# the hangup) and ends the set; the master saw the client's ssh fail.
test_expect_success 'a host whose ssh dropped while its client worked on is not listed as not used' '
	: >"$REC/s1/hold.set3" || return 1
	(cd s1 && exec $RUN run spec >stats 2>run.log) &
	master=$! && echo $master >>masters &&
	test_wait_for 60 grep -q "^3\$" "$REC/s1/started.$A" &&
	client=$(clients_of "$A") && test -n "$client" &&
	pkill -TERM -u "$A" -x sshd &&
	test_wait_for 30 grep -q "host $A@127.0.0.1:$PA: client failed" s1/run.log &&
	kill -0 $client &&
	rm "$REC/s1/hold.set3" &&
	wait $master &&
	collected s1 3 &&
	grep "^  $A@127.0.0.1:$PA  *3 " s1/stats &&
	sed -n "/^hosts not used:/,/^\$/p" s1/stats >not-used &&
	grep "^  $CLOSED: unreachable: connection refused" not-used &&
	! grep "$A@" not-used &&
	grep -A1 "^hosts with trouble:" s1/stats | grep "^  $A@127.0.0.1:$PA: client failed: exit 255"
'

test_expect_success 'sweep resume of a finished session keeps why hosts were not used' '
	sid=$(sed -n "s/^session \([0-9a-f]*\):.*/\1/p" s1/stats) && test -n "$sid" &&
	(cd s1 && $RUN resume "$sid" >stats2 2>resume.log) &&
	grep "^session $sid: 3 tasks, 3 done" s1/stats2 &&
	grep "^  $CLOSED: unreachable: connection refused" s1/stats2 &&
	grep "^  $A@127.0.0.1:$PA: client failed: exit 255" s1/stats2
'

# --- bug 7: Ctrl-C stops the clients; a resume at once ----------------------

make_sweep s2 10 6 "$A@127.0.0.1:$PA" "$B@127.0.0.1:$PB"

# Both hosts hold a set when the master gets SIGINT (the terminal's ^C): it
# tells each client to stop, so none is left when it exits, and the resume
# right after it runs every set once, never two at once on a host.
test_expect_success 'Ctrl-C: no client is left on the hosts; a resume at once keeps Jobs=1' '
	: >"$REC/s2/hold.$A" && : >"$REC/s2/hold.$B" || return 1
	(cd s2 && exec $RUN run spec >stats 2>run.log) &
	master=$! && echo $master >>masters &&
	test_wait_for 60 test -s "$REC/s2/started.$A" &&
	test_wait_for 60 test -s "$REC/s2/started.$B" &&
	test -n "$(clients_of "$A" "$B")" &&
	kill -INT $master &&
	test_wait_for 30 sh -c "! kill -0 $master" &&
	{ wait $master; test $? = 6; } &&
	test_wait_for 10 sh -c "test -z \"\$(for u in $A $B; do pgrep -u \$u -x sweep_client; done)\"" &&
	sid=$(sed -n "s/^sweep: session \([0-9a-f]*\):.*/\1/p" s2/run.log) &&
	rm "$REC/s2/hold.$A" "$REC/s2/hold.$B" &&
	(cd s2 && $RUN resume "$sid" >stats 2>resume.log) &&
	collected s2 6 &&
	! test -e "$REC/s2/overlap"
'

test_done
