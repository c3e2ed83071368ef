# Driving a real boinc_gahp from a shell test, as HTCondor's gridmanager
# does: gahp_start runs it with its stdin on a FIFO held open on fd 7 by the
# test script itself (so every test body, a subshell, can write to it), its
# stdout in gahp.out and stderr in gahp.err (log level 3: "request ID done").
# A long-lived process started after it must not inherit fd 7 (start it with
# 7>&-), or the gahp never sees its stdin closed.

# gahp_start [ARGS...]: start it in $TRASH_DIRECTORY/gahp, wait for its banner
gahp_start() {
	GAHP_DIR="$TRASH_DIRECTORY/gahp"
	mkdir -p "$GAHP_DIR" && rm -f "$GAHP_DIR/in" && mkfifo "$GAHP_DIR/in" || return 1
	(cd "$GAHP_DIR" && "$WSEQ_BUILDDIR/gahp/boinc_gahp" --log_level 3 "$@" \
		<in >gahp.out 2>gahp.err; echo $? >exit) &
	GAHP_PID=$!
	test_atexit "kill $GAHP_PID"
	exec 7>"$GAHP_DIR/in"
	test_wait_for 20 test -s "$GAHP_DIR/gahp.out"
}

gahp_send() {
	printf '%s\n' "$1" >&7
}

# gahp_lines: how many lines the gahp has printed
gahp_lines() {
	wc -l <"$GAHP_DIR/gahp.out"
}

# gahp_sync CMD: send a synchronous command, print its return line
gahp_sync() {
	n=$(gahp_lines)
	gahp_send "$1"
	test_wait_for 20 sh -c "test \$(wc -l <'$GAHP_DIR/gahp.out') -gt $n" || return 1
	tail -n +$((n + 1)) "$GAHP_DIR/gahp.out" | grep -v "^R$" | head -1
}

# gahp_do ID CMD [SECS]: send an asynchronous command (its return line must be
# S), wait until its result is queued, fetch it with RESULTS, print it
gahp_do() {
	r=$(gahp_sync "$2") || return 1
	test "$r" = S || { echo "return line '$r' for: $2" >&2; return 1; }
	gahp_result "$1" "${3:-60}"
}

# gahp_result ID [SECS]: the result line of request ID
gahp_result() {
	test_wait_for "${2:-60}" grep -q "request $1 done\$" "$GAHP_DIR/gahp.err" || return 1
	gahp_send RESULTS
	test_wait_for 20 grep -q "^$1 " "$GAHP_DIR/gahp.out" || return 1
	grep "^$1 " "$GAHP_DIR/gahp.out" | tail -1
}

# gahp_close: close its stdin, at the top level of the script (a test body is
# a subshell: the script would still hold the FIFO open)
gahp_close() {
	exec 7>&-
}

# gahp_exited: it has exited with status 0
gahp_exited() {
	test_wait_for 20 test -s "$GAHP_DIR/exit" && test "$(cat "$GAHP_DIR/exit")" = 0
}
