#!/bin/sh
# bin/start, bin/stop and bin/status on a project directory built by hand
# (config.xml with three test_daemon entries, one disabled), including the
# ways pid files go wrong: a daemon killed with -9, a stale pid file naming a
# live stranger, a daemon that ignores SIGTERM, a program that is missing or
# dies at once.
test_description='start, stop and status of a project'"'"'s daemons'
. "$WSEQ_SRCDIR/test/test-lib.sh"

# make_project DIR DAEMONS-XML: a minimal project whose bin/ holds
# test_daemon and start/stop/status (symlinks to wseq_ctl, as installed).
make_project() {
	mkdir -p "$1/bin" &&
	cp "$WSEQ_BUILDDIR/test/test_daemon" "$1/bin/" &&
	for c in start stop status; do
		ln -s "$WSEQ_BUILDDIR/tools/wseq_ctl" "$1/bin/$c" || return 1
	done &&
	cat >"$1/config.xml" <<-EOF
	<boinc>
	  <config>
	    <master_url>http://localhost/test/</master_url>
	    <db_name>test</db_name>
	    <log_dir>log</log_dir>
	    <pid_dir>pid</pid_dir>
	  </config>
	  <daemons>
	$2
	  </daemons>
	</boinc>
	EOF
}

# expect_exit CODE CMD...: CMD must exit with exactly CODE.
expect_exit() {
	want=$1; shift
	"$@"; rc=$?
	test "$rc" = "$want" && return 0
	echo "expect_exit: '$*' exited $rc, expected $want" >&2
	return 1
}

alive() { kill -0 "$1" 2>/dev/null; }
dead() { ! kill -0 "$1" 2>/dev/null || test "$(ps -o stat= -p "$1" | cut -c1)" = Z; }
pidof_file() { cat "$1"; }
# How many processes run this project's copy of test_daemon.
count_daemons() { pgrep -c -f "^$P/bin/test_daemon " || true; }

P="$TRASH_DIRECTORY/proj"
test_atexit "'$P/bin/stop' --timeout 1"

test_expect_success 'setup: a project with two daemons and a disabled one' '
	make_project "$P" "
	    <daemon><cmd>test_daemon --out a.out --sleep 0.2</cmd><pid_file>a.pid</pid_file></daemon>
	    <daemon><cmd>test_daemon --out \"b out.txt\" --sleep 0.2 -d 3</cmd>
	            <pid_file>b.pid</pid_file><output>b_daemon.log</output></daemon>
	    <daemon><cmd>test_daemon --out c.out</cmd><pid_file>c.pid</pid_file><disabled/></daemon>"
'

test_expect_success 'status before any start: not running, exit 3' '
	expect_exit 3 "$P/bin/status" >out &&
	test_grep "a  *not running" out &&
	test_grep "c  *disabled" out
'

test_expect_success 'start runs both enabled daemons and writes pid files' '
	: >"$P/stop_daemons" &&
	"$P/bin/start" >out &&
	test_grep "a: started (pid" out &&
	test_grep "b: started (pid" out &&
	test_grep "c: disabled" out &&
	test ! -e "$P/stop_daemons" &&
	alive "$(pidof_file "$P/pid/a.pid")" &&
	alive "$(pidof_file "$P/pid/b.pid")" &&
	test ! -e "$P/pid/c.pid" &&
	test "$(count_daemons)" = 2
'

test_expect_success 'the daemons run in the project with their output in log_dir' '
	test_wait_for 10 test -s "$P/a.out" &&
	test_wait_for 10 test -s "$P/b out.txt" &&
	test ! -e "$P/c.out" &&
	test_grep "info: starting" "$P/log/a.log" &&
	test_wait_for 10 grep "debug: pass 2" "$P/log/b_daemon.log"
'

test_expect_success 'status lists both as running and the disabled one; exit 0' '
	"$P/bin/status" >out &&
	test_grep "a  *running (pid $(pidof_file "$P/pid/a.pid"))" out &&
	test_grep "b  *running (pid $(pidof_file "$P/pid/b.pid"))" out &&
	test_grep "c  *disabled" out
'

test_expect_success 'start again: already running, no second copies' '
	a=$(pidof_file "$P/pid/a.pid") &&
	"$P/bin/start" >out &&
	test_grep "a: already running (pid $a)" out &&
	test_grep "b: already running" out &&
	test "$(pidof_file "$P/pid/a.pid")" = "$a" &&
	sleep 0.5 &&
	test "$(count_daemons)" = 2
'

test_expect_success 'wseq_ctl status works from inside the project too' '
	(cd "$P" && wseq_ctl status >../out) &&
	test_grep "a  *running" out
'

test_expect_success 'after kill -9 status says not running (stale pid file), exit 3' '
	a=$(pidof_file "$P/pid/a.pid") &&
	kill -9 "$a" &&
	test_wait_for 10 dead "$a" &&
	expect_exit 3 "$P/bin/status" >out &&
	test_grep "a  *not running (stale pid file: pid $a" out &&
	test_grep "b  *running" out &&
	test -e "$P/pid/a.pid"
'

test_expect_success 'start recovers: stale pid file replaced, daemon runs again' '
	a=$(pidof_file "$P/pid/a.pid") &&
	"$P/bin/start" >out &&
	test_grep "a: removed stale pid file" out &&
	test_grep "a: started" out &&
	test_grep "b: already running" out &&
	new=$(pidof_file "$P/pid/a.pid") &&
	test "$new" != "$a" &&
	alive "$new" &&
	"$P/bin/status" &&
	test "$(count_daemons)" = 2
'

test_expect_success 'stop ends every daemon and removes the pid files' '
	a=$(pidof_file "$P/pid/a.pid") &&
	b=$(pidof_file "$P/pid/b.pid") &&
	"$P/bin/stop" >out &&
	test_grep "a: stopped (pid $a)" out &&
	test_grep "b: stopped (pid $b)" out &&
	dead "$a" && dead "$b" &&
	test ! -e "$P/pid/a.pid" && test ! -e "$P/pid/b.pid" &&
	test "$(count_daemons)" = 0 &&
	test_grep "exiting: SIGTERM" "$P/log/a.log" &&
	expect_exit 3 "$P/bin/status" >out &&
	test_grep "b  *not running" out
'

test_expect_success 'stop when nothing runs says so and succeeds' '
	"$P/bin/stop" >out &&
	test_grep "a: not running" out
'

test_expect_success 'a pid file naming an unrelated live process is stale' '
	sleep 100 >/dev/null 2>&1 &
	s=$! &&
	echo "$s" >sleep.pid &&
	echo "$s" >"$P/pid/a.pid" &&
	expect_exit 3 "$P/bin/status" >out &&
	test_grep "a  *not running (stale pid file: pid $s is not test_daemon)" out &&
	"$P/bin/stop" >out &&
	test_grep "a: removed stale pid file" out &&
	alive "$s" &&
	test ! -e "$P/pid/a.pid" &&
	echo "$s" >"$P/pid/a.pid" &&
	"$P/bin/start" >out &&
	test_grep "a: removed stale pid file" out &&
	test_grep "a: started" out &&
	test "$(pidof_file "$P/pid/a.pid")" != "$s" &&
	alive "$s" &&
	"$P/bin/stop" >out &&
	alive "$s" &&
	kill "$s"
'
test_atexit 'kill $(cat "$TRASH_DIRECTORY/sleep.pid")'

Q="$TRASH_DIRECTORY/stubborn"
test_atexit "'$Q/bin/stop' --timeout 1"

test_expect_success 'a daemon ignoring SIGTERM is killed after --timeout' '
	make_project "$Q" "
	    <daemon><cmd>test_daemon --ignore_term --sleep 0.2 --out x.out</cmd></daemon>" &&
	"$Q/bin/start" >out &&
	x=$(pidof_file "$Q/pid/test_daemon.pid") &&
	test_wait_for 10 test -s "$Q/x.out" &&
	start=$(date +%s) &&
	"$Q/bin/stop" --timeout 1 >out &&
	test_grep "test_daemon: did not exit within 1 s; killed (pid $x)" out &&
	test $(( $(date +%s) - start )) -lt $(test_patience 10) &&
	dead "$x" &&
	test ! -e "$Q/pid/test_daemon.pid"
'

R="$TRASH_DIRECTORY/broken"
test_atexit "'$R/bin/stop' --timeout 1"

test_expect_success 'a missing program or one dying at once makes start fail' '
	make_project "$R" "
	    <daemon><cmd>no_such_daemon -d 2</cmd></daemon>
	    <daemon><cmd>test_daemon --bogus_option</cmd><pid_file>bogus.pid</pid_file></daemon>
	    <daemon><cmd>test_daemon --out ok.out</cmd><pid_file>ok.pid</pid_file></daemon>" &&
	test_must_fail "$R/bin/start" >out 2>err &&
	test_grep "no_such_daemon: cannot start $R/bin/no_such_daemon" err &&
	test_grep "bogus: failed to start (exit status 1), see $R/log/bogus.log" err &&
	test_grep "unknown option --bogus_option" "$R/log/bogus.log" &&
	test_grep "ok: started" out &&
	test ! -e "$R/pid/no_such_daemon.pid" &&
	test ! -e "$R/pid/bogus.pid" &&
	alive "$(pidof_file "$R/pid/ok.pid")" &&
	expect_exit 3 "$R/bin/status" >out &&
	test_grep "ok  *running" out &&
	test_grep "bogus  *not running" out &&
	"$R/bin/stop" >out
'

test_expect_success 'two daemons sharing a pid file is a config error' '
	S="$TRASH_DIRECTORY/dup" &&
	make_project "$S" "
	    <daemon><cmd>test_daemon --out 1</cmd></daemon>
	    <daemon><cmd>test_daemon --out 2</cmd></daemon>" &&
	test_must_fail "$S/bin/start" 2>err &&
	test_grep "would share the pid file" err &&
	test ! -e "$S/pid/test_daemon.pid" &&
	expect_exit 4 "$S/bin/status"
'

test_expect_success 'usage errors are one line naming the problem, exit 2; --help works' '
	expect_exit 2 "$P/bin/stop" --no_such_option 2>err &&
	test_grep "unknown option --no_such_option" err &&
	test_line_count = 1 err &&
	expect_exit 2 wseq_ctl restart 2>err &&
	test_grep "unknown command .restart." err &&
	test_line_count = 1 err &&
	expect_exit 2 wseq_ctl 2>err &&
	test_grep "a command is needed" err &&
	expect_exit 2 "$P/bin/status" --cron 2>err &&
	test_grep "options of start only" err &&
	expect_exit 2 "$P/bin/status" extra 2>err &&
	test_grep "unexpected argument .extra." err &&
	"$P/bin/start" --help >out &&
	test_grep "^usage: start \[options\]" out &&
	test_grep "start_wait" out &&
	test_grep -v "^usage: wseq_ctl" out &&
	wseq_ctl status --help >out &&
	test_grep "^usage: wseq_ctl status \[options\]" out &&
	wseq_ctl --help >out &&
	test_grep "^usage: wseq_ctl start|stop|status" out &&
	test_grep "^  stop \[options\]" out
'

test_expect_success 'the project directory: --project_dir and its spellings; status that cannot tell exits 4' '
	for o in --project_dir --config_dir --project --project_root; do
		expect_exit 4 wseq_ctl status $o "$TRASH_DIRECTORY/nowhere" 2>err &&
		test_grep "nowhere/config.xml" err || return 1
	done &&
	(cd / && expect_exit 3 wseq_ctl status --project_dir="$P" >"$TRASH_DIRECTORY/out") &&
	test_grep "^project $P" out
'

test_done
