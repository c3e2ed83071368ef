#!/bin/sh
test_description='sweep run and its hosts (issue 31, bugs 1, 2, 6): a host whose client was killed is started again while the others work; a Port from the ssh configuration is used; a host that takes the connection and never speaks ssh is named so and does not delay the end'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wshosts
. "$WSEQ_SRCDIR/test/t/lib-sweep-hosts.sh"

# a listener that takes connections and never says a word
SILENT=$(sshd_free_port_) || exit 1
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64); held = []
while True:
    held.append(s.accept()[0])
' "$SILENT" </dev/null >/dev/null 2>&1 &
test_atexit "kill $! 2>/dev/null"
test_wait_for 10 sshd_port_in_use_ "$SILENT" || exit 1

# --- bug 2: a Port in the ssh configuration ---------------------------------

cat >>"$D/ssh_config" <<EOT
Host portonly
    HostName 127.0.0.1
    Port $PA
EOT

make_sweep s1 30 4 "$A@portonly"

test_expect_success 'a host whose port only the ssh configuration names (Port) runs the sets' '
	(cd s1 && $RUN run spec >stats 2>run.log) &&
	collected s1 4 &&
	test "$(awk -v u="$A@portonly" "\$1 == u { print \$2 }" s1/stats)" = 4
'

# --- bug 6: a host that takes the connection and never speaks ssh -----------

make_sweep s2 30 4 "$B@127.0.0.1:$PB" "127.0.0.1:$SILENT"

# The sets wait until the master has judged the silent host: its start and
# its login check each give up after the connect timeout (banner included).
test_expect_success 'a silent host is judged within the connect timeout: "no ssh answer within 5 s"' '
	: >"$REC/s2/hold.$B" || return 1
	(cd s2 && exec $RUN run spec >stats 2>run.log) &
	master=$! && echo $master >>masters &&
	test_wait_for 30 sh -c "grep -q \"^127.0.0.1:$SILENT	unreachable	\" \"$ST\"/sessions/*/hosts" &&
	grep "^127.0.0.1:$SILENT	unreachable	no ssh answer within 5 s (" "$ST"/sessions/*/hosts &&
	rm "$REC/s2/hold.$B" &&
	wait $master &&
	collected s2 4 &&
	grep "^  127.0.0.1:$SILENT: unreachable: no ssh answer within 5 s (.*banner exchange" s2/stats
'

make_sweep s3 30 2 "$B@127.0.0.1:$PB" "127.0.0.1:$SILENT"

# The sets end long before the silent host could be judged: the master does
# not wait for a host still logging in, and says how long it waited.
test_expect_success 'a silent host does not delay the end, and is named with how long it said nothing' '
	(cd s3 && exec $RUN run spec >stats 2>run.log) &
	master=$! && echo $master >>masters &&
	test_wait_for 60 sh -c "test \"\$(grep -c \"^n=\" s3/out.txt 2>/dev/null)\" = 2" &&
	t0=$(date +%s) && wait $master && t1=$(date +%s) &&
	test $((t1 - t0)) -lt 8 &&
	collected s3 2 &&
	grep "^  127.0.0.1:$SILENT: unreachable: no ssh answer within [0-9]* s" s3/stats &&
	! grep -q "ssh exit 143" s3/stats
'

# --- bug 1: a killed client started again while the other host works ---------

make_sweep s4 20 6 "$A@127.0.0.1:$PA" "$B@127.0.0.1:$PB"

# Both hosts hold their first set; A's client (and its set) is killed while B
# stays busy. A must be started again and take a set before B is let go.
test_expect_success 'a host whose client was killed is started again while another host is busy' '
	: >"$REC/s4/hold.$A" && : >"$REC/s4/hold.$B" || return 1
	(cd s4 && exec $RUN run spec >stats 2>run.log) &
	master=$! && echo $master >>masters &&
	test_wait_for 60 test -s "$REC/s4/started.$A" &&
	test_wait_for 60 test -s "$REC/s4/started.$B" &&
	pkill -KILL -u "$A" -x sweep_client &&
	pkill -KILL -u "$A" -f "worker [0-9]" &&
	test_wait_for 15 sh -c "test \$(wc -l <\"$REC/s4/started.$A\") -ge 2" &&
	test "$(wc -l <"$REC/s4/started.$B")" = 1 &&
	rm "$REC/s4/hold.$A" "$REC/s4/hold.$B" &&
	wait $master &&
	collected s4 6 &&
	test "$(grep -c "host $A@127.0.0.1:$PA: starting the client" s4/run.log)" -ge 2
'

test_done
