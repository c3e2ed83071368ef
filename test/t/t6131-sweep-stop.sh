#!/bin/sh
test_description='sweep run and its hosts (issue 31, bugs 5, 7): the statistics of a host whose ssh dropped while its client worked on, a resume of a finished session that keeps why hosts were not used; Ctrl-C stops the clients on the hosts, and a resume at once never runs two sets at once on a Jobs=1 host'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wsstop
. "$WSEQ_SRCDIR/test/t/lib-sweep-hosts.sh"
CLOSED=$(sshd_closed_port) || exit 1

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
