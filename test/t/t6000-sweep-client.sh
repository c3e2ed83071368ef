#!/bin/sh
test_description='sweep_client against a fake master: results arrive byte for byte, failures and timeouts are reported, pings drop tasks, a wrong worker never runs, a silent master ends the client'
. "$WSEQ_SRCDIR/test/test-lib.sh"

DATA="$WSEQ_SRCDIR/test/data/sweep-client"
T="$TRASH_DIRECTORY"
M="$T/master"
SESSION=Sw33pSessionId4711xyz
WORKER="$DATA/worker.sh"
WMD5=$(md5sum <"$WORKER" | cut -d' ' -f1)

# start_master: a fresh fake master in $M; sets PORT
start_master() {
	rm -rf "$M" && mkdir -p "$M/tasks" "$M/served" &&
	echo "$SESSION" >"$M/session" &&
	cp "$WORKER" "$M/worker" &&
	printf 'DeleteWorker=No\nDeleteClient=No\nPing=0\n' >"$M/config" || return 1
	python3 "$DATA/fake_master.py" "$M" >"$M.stderr" 2>&1 &
	echo $! >"$T/master.pid"
	test_atexit "kill $(cat "$T/master.pid")"
	test_wait_for 20 test -s "$M/port" || return 1
	PORT=$(cat "$M/port")
}

# content FILE: a content block with its Length line
content() {
	printf 'Length=%d\n--begin content--\n' "$(wc -c <"$1")"
	cat "$1"
	printf '\n--end content--\n'
}

# task NAME TICKET TIMEOUT COMMANDLINE RESULT...: queue a task whose results
# are NAME=FILE pairs; inputs come from the files named in $inputs ("file:src ...")
task() {
	_n=$1 _t=$2 _to=$3 _cl=$4
	shift 4
	{
		printf 'Ticket=%s\nTimeout=%s\nCommandLine=%s\n' "$_t" "$_to" "$_cl"
		for _i in $inputs; do
			printf '[Input]\nFile=%s\n' "${_i%%:*}"
			content "${_i#*:}"
		done
		for _r in "$@"; do
			printf '[Result]\nName=%s\nFile=%s\n' "${_r%%=*}" "${_r#*=}"
		done
	} >"$M/tasks/$_n"
}

# client HOSTDIR ARGS...: run sweep_client (at most 120 s) for the master, logging to HOSTDIR.log
client() {
	_h=$1
	shift
	mkdir -p "$T/$_h"
	timeout 120 sweep_client --dir "$T/$_h" "$@" "$SESSION" worker "$WMD5" 127.0.0.1 "$PORT" \
		2>>"$T/$_h.log"
}

# test_expect_code_ STATUS CMD...: CMD exits with STATUS
test_expect_code_() {
	_want=$1
	shift
	"$@"
	_got=$?
	test "$_got" = "$_want" && return 0
	echo "exit status $_got, expected $_want: $*" >&2
	return 1
}

# served PATH TICKET STATUS: how many such requests the master logged
served() {
	grep -c "^$1 $2 $3\$" "$M/log"
}

# A worker the client failed to kill must not outlive the test (they ignore SIGTERM).
kill_leftovers() {
	for f in "$T"/pids.*; do
		p=$(cat "$f" 2>/dev/null)
		case $(readlink "/proc/$p/cwd" 2>/dev/null) in
		"$T"/*) kill -KILL "$p" ;;
		esac
	done
}
test_atexit kill_leftovers

start_master

test_expect_success 'the fake master is up and checks the session' '
	test -n "$PORT" &&
	curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$PORT/config?sessionID=wrong" >code &&
	test "$(cat code)" = 403
'

test_expect_success '--help and --version; bad arguments are refused' '
	sweep_client --help >help && grep -q "usage: sweep_client" help &&
	sweep_client --version >version && grep -q "x86_64-pc-linux-gnu" version &&
	test_expect_code_ 1 sweep_client a b &&
	test_expect_code_ 1 sweep_client "$SESSION" worker nothex 127.0.0.1 "$PORT" &&
	test_expect_code_ 1 sweep_client "$SESSION" worker "$WMD5" 127.0.0.1 99999 &&
	test_expect_code_ 1 sweep_client "$SESSION" worker "$WMD5" "ftp://127.0.0.1:$PORT/x" &&
	test_expect_code_ 1 sweep_client "$SESSION" worker "$WMD5" "http://127.0.0.1:$PORT/x?a=b" &&
	test_expect_code_ 1 sweep_client "$SESSION" worker "$WMD5" "http://u@127.0.0.1:$PORT/x" &&
	test_expect_code_ 1 sweep_client "$SESSION" worker "$WMD5" "http://127.0.0.1:$PORT/x" extra &&
	test_expect_code_ 1 sweep_client "$SESSION" worker "$WMD5" &&
	grep -q "SESSION COMMAND MD5 URL" help
'

# 2 is the master's "403" (sweep/master/sweep_hosts.c): a usage error must not look like it.
test_expect_success 'a usage error is one line on stderr and exit 1, never 2 (403 to the master)' '
	test_expect_code_ 1 sweep_client --no_such_option a b c d 2>err &&
	test_line_count = 1 err && test_grep "unknown option --no_such_option" err &&
	test_expect_code_ 1 sweep_client a b c 2>err &&
	test_line_count = 1 err && test_grep "need 4 or 5 arguments" err &&
	test_expect_code_ 1 sweep_client --max_silence=x a b c d 2>err &&
	test_line_count = 1 err
'

test_expect_success '403 on /config: exit 2 with a clear message' '
	echo 403 >"$M/config.status" &&
	test_expect_code_ 2 client c403 &&
	rm "$M/config.status" &&
	test_grep "refused the session (403" "$T/c403.log" &&
	test_grep -v "$SESSION" "$T/c403.log"
'

test_expect_success 'a wrong session ID: exit 2' '
	mkdir -p "$T/wrongsess" &&
	test_expect_code_ 2 timeout 60 sweep_client --dir "$T/wrongsess" NotTheSession worker "$WMD5" \
		127.0.0.1 "$PORT" 2>"$T/wrongsess.log" &&
	test_grep "403" "$T/wrongsess.log"
'

test_expect_success '415 on /worker: exit 3, no worker written' '
	echo 415 >"$M/worker.status" &&
	test_expect_code_ 3 client c415 &&
	rm "$M/worker.status" &&
	test_grep "no worker .worker. for platform x86_64-pc-linux-gnu (415" "$T/c415.log" &&
	test_grep "^/worker worker x86_64-pc-linux-gnu - 415" "$M/log" &&
	test ! -e "$T/c415/worker"
'

test_expect_success 'a downloaded worker with the wrong MD5 never runs (exit 4)' '
	printf "#!/bin/sh\ntouch %s/ran-wrong-worker\n" "$T" >"$M/worker" &&
	mkdir -p "$T/cmd5" && echo "old local copy" >"$T/cmd5/worker" && chmod +x "$T/cmd5/worker" &&
	inputs= task 0001 777 30 "./worker marker $T/ran-wrong-worker" out=stdout &&
	test_expect_code_ 4 client cmd5 &&
	cp "$WORKER" "$M/worker" &&
	test_grep "has md5 .*, not $WMD5" "$T/cmd5.log" &&
	test ! -e "$T/ran-wrong-worker" &&
	echo "old local copy" >expect && test_cmp expect "$T/cmd5/worker" &&
	test_grep -v "^/task" "$M/log" &&
	rm "$M/tasks/0001"
'

# The main run: results that must arrive byte for byte, and every kind of failure.
printf 'alpha = 0.3\nbeta  = 20\n' >deck.in
printf ' stdin line 1\n\nlast line without newline' >stdin.in
printf 'x\n' >other.in
printf 'alpha,beta\nalpha = 0.3\nbeta  = 20\n' >expect.table
{ printf "label= padded 'label'\n"; cat stdin.in; } >expect.out
printf 'a\000b\n--end content--\n\000tail' >expect.bin
# one argument " padded 'label'", quoted as the master quotes it
CL1001=$(cat <<\EOF
./worker echo ' padded '\''label'\'
EOF
)

test_expect_success 'queue tasks: two good ones, a failing worker, a missing result, unsafe inputs, garbage' '
	printf "DeleteWorker=Yes\nDeleteClient=Yes\nPing=0\n" >"$M/config" &&
	inputs="deck.in:deck.in stdin:stdin.in" task 1001 1001 30 "$CL1001" \
		out=stdout table=table.csv &&
	inputs= task 1002 1002 30 "./worker binary" out=stdout bin=bin.out &&
	inputs= task 1003 1003 30 "./worker fail" out=stdout &&
	inputs= task 1004 1004 30 "./worker nofile" out=stdout table=table.csv &&
	inputs="../escape:other.in" task 1005 1005 30 "./worker echo x" out=stdout &&
	inputs="$T/abs-escape:other.in" task 1006 1006 30 "./worker echo x" out=stdout &&
	printf "no task at all\n" >"$M/tasks/1007" &&
	printf "Ticket=1008\nTimeout=5\nCommandLine=./worker echo x\n[Input]\nFile=a\nLength=100\n--begin content--\nshort\n--end content--\n[Result]\nName=out\nFile=stdout\n" \
		>"$M/tasks/1008" &&
	inputs= task 1009 1009 30 "./worker env" out=stdout &&
	ls "$M/tasks" >queued && test_line_count = 9 queued
'

test_expect_success 'the client (a copy, fetching the worker) runs them all and exits 0 when no task is left' '
	mkdir -p "$T/h1" &&
	cp "$(command -v sweep_client)" "$T/h1/sweep_client_copy" &&
	timeout 120 "$T/h1/sweep_client_copy" --dir "$T/h1" "$SESSION" worker "$WMD5" 127.0.0.1 "$PORT" \
		2>"$T/h1.log" &&
	test_grep "no task left: 3 done, 5 failed" "$T/h1.log" &&
	test_grep "^/task - 503" "$M/log"
'

test_expect_success 'stdout and file results arrive byte for byte (blanks, quotes, stdin, NULs, end marker)' '
	test_cmp expect.out "$M/result.1001.out" &&
	test_cmp expect.table "$M/result.1001.table" &&
	cmp expect.bin "$M/result.1002.out" &&
	cmp expect.bin "$M/result.1002.bin" &&
	test_grep "^Length=25\$" "$M/complete.1002"
'

test_expect_success 'a failing worker and a missing result file are reported failed, with the reason in the log' '
	test $(served /failed 1003 200) = 1 && test $(served /complete 1003 200) = 0 &&
	test_grep "task 1003 failed: the worker exited with status 3" "$T/h1.log" &&
	test_grep "worker: something went wrong" "$T/h1.log" &&
	test $(served /failed 1004 200) = 1 && test $(served /complete 1004 200) = 0 &&
	test_grep "task 1004 failed: result file .table.csv. missing" "$T/h1.log"
'

test_expect_success 'input files named ../escape or an absolute path: nothing written outside, task failed' '
	test $(served /failed 1005 200) = 1 && test $(served /failed 1006 200) = 1 &&
	test_grep "task 1005 failed: .*unsafe file name" "$T/h1.log" &&
	test ! -e "$T/abs-escape" &&
	find "$T" -name escape >found && test_line_count = 0 found
'

test_expect_success 'a garbled task: failed when it names a ticket, skipped when not' '
	test $(served /failed 1008 200) = 1 &&
	test_grep "task 1008 failed: task:.*Length=100" "$T/h1.log" &&
	test_grep "unusable task from the master, without a ticket" "$T/h1.log"
'

test_expect_success 'the session ID reaches neither the worker nor the log' '
	test $(served /complete 1009 200) = 1 &&
	test_grep "args: " "$M/result.1009.out" &&
	test_grep -v "$SESSION" "$M/result.1009.out" &&
	test_grep -v "$SESSION" "$T/h1.log"
'

test_expect_success 'DeleteWorker and DeleteClient: the fetched worker and the client copy are gone, task directories too' '
	test_grep "^/worker worker x86_64-pc-linux-gnu - 200" "$M/log" &&
	test ! -e "$T/h1/worker" && test ! -e "$T/h1/sweep_client_copy" &&
	ls "$T/h1" >left && test_line_count = 0 left
'

test_expect_success 'a worker already there with the right MD5 is not fetched, and stays without DeleteWorker (session from stdin)' '
	printf "DeleteWorker=Yes\nDeleteClient=No\nPing=0\n" >"$M/config" &&
	mkdir -p "$T/h2" && cp "$WORKER" "$T/h2/worker" &&
	: >"$M/log" &&
	inputs= task 2001 2001 30 "./worker sleep 0" out=stdout &&
	echo "$SESSION" | timeout 120 sweep_client --dir "$T/h2" - worker "$WMD5" 127.0.0.1 "$PORT" \
		2>>"$T/h2.log" &&
	test $(served /complete 2001 200) = 1 &&
	test_grep -v "^/worker" "$M/log" &&
	test -x "$T/h2/worker"
'

test_expect_success 'a worker past its timeout is killed with its whole process group and reported failed' '
	: >"$M/log" &&
	inputs= task 2002 2002 1 "./worker hang $T/pids.hang" out=stdout &&
	start=$(date +%s) &&
	client h2 &&
	end=$(date +%s) &&
	test $((end - start)) -lt $(test_patience 20) &&
	test $(served /failed 2002 200) = 1 && test $(served /complete 2002 200) = 0 &&
	test_grep "task 2002 failed: timeout" "$T/h2.log" &&
	test_pid_gone $(cat "$T/pids.hang") &&
	test_pid_gone $(cat "$T/pids.hang.child")
'

test_expect_success 'a process the worker leaves behind is killed when the task ends' '
	: >"$M/log" &&
	inputs= task 2003 2003 30 "./worker bg $T/pids.bg" out=stdout &&
	client h2 &&
	test $(served /complete 2003 200) = 1 &&
	test_pid_gone $(cat "$T/pids.bg")
'

test_expect_success 'a result file that is a symbolic link out of the work directory: task failed' '
	: >"$M/log" &&
	inputs= task 2004 2004 30 "./worker symlink" table=table.csv &&
	client h2 &&
	test $(served /failed 2004 200) = 1 && test $(served /complete 2004 200) = 0 &&
	test_grep "task 2004 failed: result file .table.csv. leads out of the work directory" "$T/h2.log"
'

test_expect_success 'a worker that cannot start (its interpreter is missing): task failed, saying why' '
	mkdir -p "$T/h5" && printf "#!/nonexistent/interpreter\n" >"$T/h5/worker" &&
	chmod 755 "$T/h5/worker" && bmd5=$(md5sum <"$T/h5/worker" | cut -d" " -f1) &&
	: >"$M/log" &&
	inputs= task 2008 2008 30 "./worker echo x" out=stdout &&
	echo "$SESSION" | timeout 60 sweep_client --dir "$T/h5" - worker "$bmd5" 127.0.0.1 "$PORT" \
		2>"$T/h5.log" &&
	test $(served /failed 2008 200) = 1 && test $(served /complete 2008 200) = 0 &&
	test_grep "task 2008 failed: cannot start the worker: No such file or directory" "$T/h5.log"
'

test_expect_success 'a worker changed on disk is fetched again before the next task, never run as changed' '
	printf "DeleteWorker=No\nDeleteClient=No\nPing=0\n" >"$M/config" &&
	: >"$M/log" &&
	inputs= task 2005 2005 30 "./worker tamper $T/h2/worker" out=stdout &&
	inputs= task 2006 2006 30 "./worker sleep 0" out=stdout &&
	client h2 &&
	test $(served /complete 2005 200) = 1 && test $(served /complete 2006 200) = 1 &&
	test $(grep -c "^/worker" "$M/log") = 1 &&
	test_cmp "$WORKER" "$T/h2/worker"
'

test_expect_success 'pings while a task runs: 204 keeps it going' '
	printf "DeleteWorker=No\nDeleteClient=No\nPing=1\n" >"$M/config" &&
	: >"$M/log" &&
	inputs= task 3001 3001 60 "./worker sleep 3" out=stdout &&
	client h2 &&
	test $(served /complete 3001 200) = 1 &&
	test $(served /ping 3001 204) -ge 2 &&
	echo "slept 3" >expect.slept && test_cmp expect.slept "$M/result.3001.out"
'

test_expect_success 'a ping answered 205 drops the task: worker killed, neither complete nor failed' '
	: >"$M/log" &&
	echo 205 >"$M/ping.3002" &&
	inputs= task 3002 3002 600 "./worker hang $T/pids.205" out=stdout &&
	client h2 &&
	test $(served /ping 3002 205) = 1 &&
	test $(grep -c "^/complete\|^/failed" "$M/log") = 0 &&
	test_grep "task 3002: the master says it is done or expired (205)" "$T/h2.log" &&
	test_pid_gone $(cat "$T/pids.205") &&
	test_pid_gone $(cat "$T/pids.205.child")
'

test_expect_success 'a ping answered 403: worker killed, exit 2' '
	: >"$M/log" &&
	echo 403 >"$M/ping.3006" &&
	inputs= task 3006 3006 600 "./worker hang $T/pids.p403" out=stdout &&
	test_expect_code_ 2 client h2 &&
	test_grep "ping: the master refused the session (403" "$T/h2.log" &&
	test $(grep -c "^/complete\|^/failed" "$M/log") = 0 &&
	test_pid_gone $(cat "$T/pids.p403") &&
	test_pid_gone $(cat "$T/pids.p403.child")
'

test_expect_success '403 on /task: exit 2' '
	echo 403 >"$M/task.status" &&
	test_expect_code_ 2 client h2 &&
	rm "$M/task.status" &&
	test_grep "refused the session (403 Forbidden on /task)" "$T/h2.log"
'

test_expect_success 'COMMAND in a directory that does not exist yet: made, worker fetched there' '
	: >"$M/log" &&
	mkdir -p "$T/h7" &&
	timeout 60 sweep_client --dir "$T/h7" "$SESSION" bin/sub/worker "$WMD5" 127.0.0.1 "$PORT" \
		2>"$T/h7.log" &&
	test_cmp "$WORKER" "$T/h7/bin/sub/worker" &&
	test -x "$T/h7/bin/sub/worker" &&
	test_grep "^/worker worker x86_64-pc-linux-gnu - 200" "$M/log"
'

test_expect_success 'a base URL with a path: every request under it, the protocol'"'"'s paths after it' '
	: >"$M/log" && echo /proj_cgi/sweep >"$M/prefix" &&
	mkdir -p "$T/url" &&
	timeout 60 sweep_client --dir "$T/url" "$SESSION" worker "$WMD5" \
		"http://127.0.0.1:$PORT/proj_cgi/sweep/" 2>"$T/url.log" &&
	test "$(cat "$M/log")" = "$(printf "/config - 200\n/worker worker x86_64-pc-linux-gnu - 200\n/task - 503")" &&
	test_grep "master http://127.0.0.1:$PORT/proj_cgi/sweep," "$T/url.log" &&
	: >"$M/log" &&
	test_expect_code_ 5 timeout 60 sweep_client --dir "$T/url" --max-silence 2 "$SESSION" worker \
		"$WMD5" 127.0.0.1 "$PORT" 2>"$T/url-root.log" &&
	test_grep "^outside /config - 404" "$M/log" &&
	rm "$M/prefix"
'

test_expect_success 'a bare http://HOST:PORT is the server'"'"'s root, as HOST PORT is' '
	: >"$M/log" &&
	timeout 60 sweep_client --dir "$T/url" "$SESSION" worker "$WMD5" "http://127.0.0.1:$PORT" \
		2>"$T/url-bare.log" &&
	test "$(cat "$M/log")" = "$(printf "/config - 200\n/task - 503")"
'

test_expect_success 'no task at all: 503, clean exit 0 (logging to --log FILE)' '
	: >"$M/log" &&
	client h3 --log "$T/h3.file.log" &&
	test "$(cat "$M/log")" = "$(printf "/config - 200\n/worker worker x86_64-pc-linux-gnu - 200\n/task - 503")" &&
	test_grep "no task left: 0 done" "$T/h3.file.log" &&
	test_grep -v "no task left" "$T/h3.log"
'

test_expect_success 'the session ID is off the client process list while it runs' '
	: >"$M/log" &&
	inputs= task 3003 3003 3 "./worker hang $T/pids.ps" out=stdout &&
	{ client h2 & } &&
	test_wait_for 30 test -s "$T/pids.ps" &&
	pid=$(pgrep -f "^sweep_client --dir $T/h2" | head -n 1) &&
	test -n "$pid" &&
	tr "\000" " " <"/proc/$pid/cmdline" >cmdline &&
	test_grep -v "$SESSION" cmdline &&
	test_wait_for 60 grep -q "^/task - 503" "$M/log"
'

test_expect_success 'answers that cannot be used (500) are retried with back-off' '
	: >"$M/log" &&
	echo 2 >"$M/errors" &&
	inputs= task 3004 3004 30 "./worker sleep 0" out=stdout &&
	client h2 &&
	test $(served /config - 500) = 2 &&
	test $(served /complete 3004 200) = 1 &&
	test_grep "/config: unexpected answer 500" "$T/h2.log"
'

test_expect_success 'SIGTERM: the client kills the worker group and exits 1 without reporting the task' '
	: >"$M/log" &&
	inputs= task 3005 3005 600 "./worker hang $T/pids.term" out=stdout &&
	{ { client h6; echo $? >"$T/h6.rc"; } & } &&
	test_wait_for 30 test -s "$T/pids.term" &&
	pid=$(pgrep -f "^sweep_client --dir $T/h6") && test -n "$pid" && kill -TERM $pid &&
	test_wait_for 30 test -s "$T/h6.rc" &&
	test "$(cat "$T/h6.rc")" = 1 &&
	test_grep "stopped by a signal" "$T/h6.log" &&
	test $(grep -c "^/complete\|^/failed" "$M/log") = 0 &&
	test_pid_gone $(cat "$T/pids.term") &&
	test_pid_gone $(cat "$T/pids.term.child") &&
	ls "$T/h6" >left6 && test_line_count = 1 left6
'

test_expect_success 'the master gone: the client kills the worker and exits 5 within the silence bound' '
	: >"$M/log" &&
	inputs= task 4001 4001 600 "./worker hang $T/pids.gone" out=stdout &&
	{ { client h4 --max-silence 3; echo $? >"$T/h4.rc"; } & } &&
	test_wait_for 30 test -s "$T/pids.gone" &&
	kill $(cat "$T/master.pid") &&
	gone=$(date +%s) &&
	test_wait_for 30 test -s "$T/h4.rc" &&
	end=$(date +%s) &&
	test "$(cat "$T/h4.rc")" = 5 &&
	test $((end - gone)) -le $(test_patience 12) &&
	test_grep "giving up" "$T/h4.log" &&
	test_pid_gone $(cat "$T/pids.gone") &&
	test_pid_gone $(cat "$T/pids.gone.child")
'

test_expect_success 'no master at all: exit 5 after the silence bound, not before' '
	start=$(date +%s) &&
	test_expect_code_ 5 client h5 --max-silence 2 &&
	end=$(date +%s) &&
	test $((end - start)) -ge 2 && test $((end - start)) -le $(test_patience 10)
'

test_done
