#!/bin/sh
# The daemon skeleton as a real process (test_daemon): the common options,
# SIGTERM finishing the pass in progress, the stop_daemons file, and options
# read from config.xml.
test_description='the common daemon skeleton'
. "$WSEQ_SRCDIR/test/test-lib.sh"

expect_exit() {
	want=$1; shift
	"$@"; rc=$?
	test "$rc" = "$want" && return 0
	echo "expect_exit: '$*' exited $rc, expected $want" >&2
	return 1
}
alive() { kill -0 "$1" 2>/dev/null; }

# Daemons started in the background record their pids here for the cleanup.
test_atexit 'kill -9 $(cat "$TRASH_DIRECTORY/bg.pids")'
: >bg.pids

cat >config.xml <<EOF
<boinc>
  <config>
    <master_url>http://localhost/test/</master_url>
    <db_name>test</db_name>
    <work>2</work>
  </config>
</boinc>
EOF
O="$TRASH_DIRECTORY/passes"

test_expect_success '--one_pass does one pass and exits 0' '
	test_daemon --out "$O" --one_pass 2>log &&
	test_line_count = 2 "$O" &&
	test_grep "pass 1 pid .* end" "$O" &&
	test_grep "exiting after one pass" log
'

test_expect_success '--until_idle stops at the first pass with nothing to do' '
	rm -f "$O" &&
	test_daemon --out "$O" --until_idle --work 3 2>log &&
	test_grep "pass 4 .* end" "$O" &&
	test_line_count = 8 "$O" &&
	test_grep "exiting: nothing left to do" log
'

test_expect_success 'daemon options come from config.xml, the command line wins' '
	rm -f "$O" &&
	test_daemon --out "$O" --until_idle 2>log &&
	test_line_count = 6 "$O" &&
	rm -f "$O" &&
	test_daemon --out "$O" --until_idle --work=0 2>log &&
	test_line_count = 2 "$O"
'

test_expect_success '--mod N I is checked and reaches the daemon' '
	test_must_fail test_daemon --mod 2 5 --one_pass 2>err &&
	test_grep "\-\-mod 2 5" err &&
	test_line_count = 1 err &&
	rm -f "$O" &&
	test_daemon --out "$O" --mod 3 1 --one_pass 2>log &&
	test_grep "mod 3/1 end" "$O" &&
	test_grep "instance 1 of 3" log
'

test_expect_success 'an unknown option is a one-line error naming it' '
	test_must_fail test_daemon --frobnicate 2>err &&
	test_grep "unknown option --frobnicate" err &&
	test_line_count = 1 err &&
	test_must_fail test_daemon -q 2>err &&
	test_grep "unknown option -q" err &&
	test_must_fail test_daemon --sleep -3 2>err &&
	test_grep "sleep must be between 0 and 86400" err
'

test_expect_success '-d sets the log level' '
	test_daemon --one_pass -d 3 2>log &&
	test_grep "debug: pass 1" log &&
	test_daemon --one_pass -d 1 2>log &&
	test_grep -v "info:" log &&
	test_must_fail test_daemon --one_pass -d 9 2>err &&
	test_grep "\-d needs a log level from 1 to 4" err
'

test_expect_success '--help lists common and daemon options' '
	test_daemon --help >out &&
	test_grep "\-\-one_pass" out &&
	test_grep "\-\-mod N I" out &&
	test_grep "\-\-out FILE" out
'

# The pass waits at a gate the test opens only after the signal is sent:
# the signal surely lands mid-pass, however fast or slow the machine.
test_expect_success 'SIGTERM: the pass in progress finishes, then exit 0' '
	rm -f "$O" gate &&
	{ test_daemon --out "$O" --pass_until "$TRASH_DIRECTORY/gate" --sleep 0 2>log & } &&
	pid=$! && echo $pid >>"$TRASH_DIRECTORY/bg.pids" &&
	test_wait_for 10 grep "pass 1 .* start" "$O" &&
	kill -TERM $pid &&
	: >gate &&
	wait $pid &&
	tail -n 1 "$O" >last &&
	test_grep "pass 1 .* end" last &&
	test_line_count = 2 "$O" &&
	test_grep "exiting: SIGTERM" log
'

# It sleeps 60 s once its first pass has ended: ending within 30 (a generous
# bound for a busy machine) shows the signal woke it.
test_expect_success 'a sleeping daemon wakes at once for SIGINT' '
	rm -f "$O" &&
	{ test_daemon --out "$O" --sleep 60 2>log & } &&
	pid=$! && echo $pid >>"$TRASH_DIRECTORY/bg.pids" &&
	test_wait_for 10 grep "pass 1 .* end" "$O" &&
	start=$(date +%s) &&
	kill -INT $pid &&
	wait $pid &&
	test $(( $(date +%s) - start )) -le 30 &&
	test_grep "exiting: SIGINT" log
'

test_expect_success 'the stop_daemons file ends a running daemon and stops a new one' '
	rm -f "$O" &&
	{ test_daemon --out "$O" --sleep 0.2 2>log & } &&
	pid=$! && echo $pid >>"$TRASH_DIRECTORY/bg.pids" &&
	test_wait_for 10 test -s "$O" &&
	: >stop_daemons &&
	test_wait_for 10 grep "exiting: stop_daemons file present" log &&
	wait $pid &&
	rm -f "$O" &&
	test_daemon --out "$O" --one_pass 2>log &&
	test ! -e "$O" &&
	rm stop_daemons
'

test_expect_success 'a failing pass backs off and the daemon keeps going' '
	rm -f "$O" &&
	{ test_daemon --out "$O" --fail 2 --sleep 0.1 2>log & } &&
	pid=$! && echo $pid >>"$TRASH_DIRECTORY/bg.pids" &&
	test_wait_for 15 grep "pass 3 .* end" "$O" &&
	alive $pid &&
	kill $pid && wait $pid &&
	test_grep "pass 1 failed (1 in a row); next try in 1 s" log &&
	test_grep "pass 2 failed (2 in a row); next try in 2 s" log &&
	test_grep "pass 3 succeeded after 2 failed" log
'

test_expect_success 'a failing init ends the daemon with status 1' '
	test_must_fail test_daemon --init_fail 2>err &&
	test_grep "initialisation failed" err
'

test_expect_success '--check_config reads everything and exits' '
	test_daemon --check_config >out &&
	test_grep "configuration ok" out &&
	test_must_fail test_daemon --check_config --config nowhere.xml 2>err
'

test_done
