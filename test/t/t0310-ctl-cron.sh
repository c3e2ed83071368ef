#!/bin/sh
# bin/start --cron, run as crontab would every five minutes, over simulated
# hours (WSEQ_TIME_OFFSET): each <task> runs once per <period>, a disabled
# one never, a task that hangs is not started again while the others keep
# their times, the call returns at once, output goes to log/, the last-run
# times survive in pid/tasks/; daemons not running are started, but not
# after bin/stop.
test_description='bin/start --cron: daemons and periodic tasks'
. "$WSEQ_SRCDIR/test/test-lib.sh"

P="$TRASH_DIRECTORY/proj"
test_atexit "'$P/bin/stop' --timeout 1"
# the hanging task leads its own session: its group goes with it
test_atexit 'kill -9 -- -$(cat "$TRASH_DIRECTORY/proj/pid/tasks/hang.lock")'

alive() { kill -0 "$1" 2>/dev/null; }
dead() { ! kill -0 "$1" 2>/dev/null || test "$(ps -o stat= -p "$1" | cut -c1)" = Z; }
# how many times a task's program ran: the lines it wrote
runs() { grep -c "^ran .*$1" "$P/log/$2" 2>/dev/null || echo 0; }
# cron at simulated time $1 (seconds from now), verbose, output to cron.$1
cron() {
	WSEQ_TIME_OFFSET=$1 "$P/bin/start" --cron --verbose >"cron.$1" 2>&1
}

test_expect_success 'setup: a project with a daemon and four tasks, one disabled, one that hangs' '
	mkdir -p "$P/bin" &&
	cp "$WSEQ_BUILDDIR/test/test_daemon" "$P/bin/" &&
	for c in start stop status; do
		ln -s "$WSEQ_BUILDDIR/tools/wseq_ctl" "$P/bin/$c" || return 1
	done &&
	printf "#!/bin/sh\necho \"ran \$0 \$*\"\n" >"$P/bin/tick" &&
	printf "#!/bin/sh\necho \"ran \$0\"\nexec sleep 1000\n" >"$P/bin/hang" &&
	chmod +x "$P/bin/tick" "$P/bin/hang" &&
	cat >"$P/config.xml" <<-\EOF
	<boinc>
	  <config>
	    <master_url>http://localhost/test/</master_url>
	    <db_name>test</db_name>
	  </config>
	  <daemons>
	    <daemon><cmd>test_daemon --out d.out --sleep 0.2</cmd><pid_file>d.pid</pid_file></daemon>
	  </daemons>
	  <tasks>
	    <task><cmd>tick hourly</cmd><period>1 hour</period></task>
	    <task><cmd>tick two-hourly</cmd><period>2 hours</period><output>tock.out</output></task>
	    <task><cmd>hang</cmd><period>10 min</period></task>
	    <task><cmd>tick never</cmd><period>5 min</period><output>off.out</output><disabled/></task>
	  </tasks>
	</boinc>
	EOF
'

test_expect_success 'the first cron starts the daemon and every enabled task, and returns at once' '
	start=$(date +%s) && echo $start >start &&
	cron 0 &&
	test $(( $(date +%s) - start )) -lt $(test_patience 3) &&
	test_grep "^d: started (pid" cron.0 &&
	test_grep "^task tick: started" cron.0 &&
	test_grep "^task tock: started" cron.0 &&
	test_grep "^task hang: started" cron.0 &&
	test_grep "^task off: disabled" cron.0 &&
	alive "$(cat "$P/pid/d.pid")" &&
	test_wait_for 10 test "$(runs hang hang.log)" = 1 &&
	test_wait_for 10 test "$(runs "tick hourly" tick.log)" = 1 &&
	test_wait_for 10 test "$(runs "tick two-hourly" tock.out)" = 1 &&
	alive "$(cat "$P/pid/tasks/hang.lock")"
'

test_expect_success 'each log starts a run with a header line; the last-run times are kept' '
	test_grep "^=== .*: tick hourly (bin/start --cron) ===\$" "$P/log/tick.log" &&
	test_grep "^=== .*: hang (bin/start --cron) ===\$" "$P/log/hang.log" &&
	t=$(cat "$P/pid/tasks/tick.last") &&
	test "$t" -ge "$(cat start)" && test "$t" -le "$(date +%s)" &&
	test -s "$P/pid/tasks/tock.last" &&
	test ! -e "$P/log/off.out" && test ! -e "$P/pid/tasks/off.last"
'

test_expect_success 'four simulated hours of crons every 5 minutes: each task once per period' '
	t=300 &&
	while [ $t -le 14400 ]; do
		cron $t || { cat cron.$t; return 1; }
		t=$((t + 300))
	done &&
	test_wait_for 10 test "$(runs "tick hourly" tick.log)" = 5 &&
	test_wait_for 10 test "$(runs "tick two-hourly" tock.out)" = 3 &&
	sleep 1 &&
	test "$(runs "tick hourly" tick.log)" = 5 &&
	test "$(runs "tick two-hourly" tock.out)" = 3 &&
	test_grep "^task tick: not due for " cron.1800 &&
	test_grep "^task tick: started" cron.3600 &&
	test_grep "^task tock: started" cron.7200 &&
	test_grep "^task off: disabled" cron.14400 &&
	test ! -e "$P/log/off.out"
'

test_expect_success 'the hanging task was never started twice, and said so when due' '
	test "$(runs hang hang.log)" = 1 &&
	test_grep "^task hang: still running (pid $(cat "$P/pid/tasks/hang.lock"))" cron.600 &&
	test_grep "^task hang: still running" cron.14400 &&
	test "$(grep -c "^=== " "$P/log/hang.log")" = 1
'

test_expect_success 'bin/status shows the tasks: last run, running, disabled' '
	"$P/bin/status" >out &&
	test_grep "^tasks (run by bin/start --cron):" out &&
	test_grep "^  hang  *every 600 s; last started .*, running (pid $(cat "$P/pid/tasks/hang.lock"))" out &&
	test_grep "^  tick  *every 3600 s; last started " out &&
	test_grep "^  off  *disabled" out
'

test_expect_success 'once the hung task is gone, the next cron starts it again' '
	h=$(cat "$P/pid/tasks/hang.lock") &&
	kill -9 -- -"$h" &&
	test_wait_for 10 dead "$h" &&
	cron 14700 &&
	test_grep "^task hang: started" cron.14700 &&
	test_wait_for 10 test "$(runs hang hang.log)" = 2
'

test_expect_success 'a daemon that died is started again, quietly otherwise' '
	d=$(cat "$P/pid/d.pid") &&
	kill -9 "$d" &&
	test_wait_for 10 dead "$d" &&
	WSEQ_TIME_OFFSET=14760 "$P/bin/start" --cron >out 2>err &&
	test_grep "^d: removed stale pid file $P/pid/d.pid (pid $d is not test_daemon)" out &&
	test_grep "^d: started (pid" out &&
	test_line_count = 2 out &&
	test_line_count = 0 err &&
	alive "$(cat "$P/pid/d.pid")" &&
	WSEQ_TIME_OFFSET=14820 "$P/bin/start" --cron >out 2>err &&
	test_line_count = 0 out && test_line_count = 0 err
'

test_expect_success 'after bin/stop, cron starts no daemon but still runs tasks; bin/start undoes it' '
	"$P/bin/stop" >out &&
	test -e "$P/pid/stopped" &&
	{ "$P/bin/status" >out || :; } && test_grep "stopped with bin/stop" out &&
	cron 18300 &&
	test_grep "^daemons not started: the project was stopped with bin/stop" cron.18300 &&
	test ! -e "$P/pid/d.pid" &&
	test_grep "^task tick: started" cron.18300 &&
	"$P/bin/start" >out &&
	test ! -e "$P/pid/stopped" &&
	alive "$(cat "$P/pid/d.pid")"
'

test_expect_success 'the stop_daemons file also keeps cron from starting daemons' '
	"$P/bin/stop" >out && rm "$P/pid/stopped" &&
	: >"$P/stop_daemons" &&
	cron 18600 &&
	test_grep "^daemons not started: .*stop_daemons exists" cron.18600 &&
	test -e "$P/stop_daemons" && test ! -e "$P/pid/d.pid" &&
	rm "$P/stop_daemons"
'

test_expect_success 'two tasks with one name are a config error; --cron is start'"'"'s' '
	S="$TRASH_DIRECTORY/dup" &&
	mkdir -p "$S/bin" && ln -s "$WSEQ_BUILDDIR/tools/wseq_ctl" "$S/bin/start" &&
	ln -s "$WSEQ_BUILDDIR/tools/wseq_ctl" "$S/bin/stop" &&
	cat >"$S/config.xml" <<-\EOF &&
	<boinc><config><master_url>http://localhost/x/</master_url><db_name>x</db_name></config>
	<tasks><task><cmd>a 1</cmd><period>1 hour</period></task>
	<task><cmd>a 2</cmd><period>1 day</period></task></tasks></boinc>
	EOF
	test_must_fail "$S/bin/start" --cron 2>err &&
	test_grep "tasks .a 1. and .a 2. are both called a; give each its own <output>" err &&
	test_must_fail "$S/bin/stop" --cron 2>err &&
	test_grep "options of start only" err
'

test_expect_success 'a task whose program is missing is an error, tried again a period later' '
	S="$TRASH_DIRECTORY/missing" &&
	mkdir -p "$S/bin" && ln -s "$WSEQ_BUILDDIR/tools/wseq_ctl" "$S/bin/start" &&
	cat >"$S/config.xml" <<-\EOF &&
	<boinc><config><master_url>http://localhost/x/</master_url><db_name>x</db_name></config>
	<tasks><task><cmd>nothere</cmd><period>1 hour</period></task></tasks></boinc>
	EOF
	test_must_fail "$S/bin/start" --cron 2>err &&
	test_grep "nothere: cannot start $S/bin/nothere" err &&
	WSEQ_TIME_OFFSET=600 "$S/bin/start" --cron 2>err &&
	test_line_count = 0 err
'

test_done
