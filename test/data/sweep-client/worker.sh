#!/bin/sh
# The worker of test/t/t6000-sweep-client.sh; the first argument picks what it does.
mode=$1
shift
case $mode in
echo)   # stdout: the label and stdin; table.csv: deck.in with a headline
	printf 'label=%s\n' "$1"
	cat
	{ echo 'alpha,beta'; cat deck.in; } >table.csv ;;
binary) # NUL bytes and the protocol's end marker, on stdout and in bin.out
	printf 'a\000b\n--end content--\n\000tail' >bin.out
	cat bin.out ;;
fail)
	echo 'worker: something went wrong' >&2
	exit 3 ;;
nofile) # exits 0 but writes no table.csv
	echo 'no table today' ;;
hang)   # $1: file for its pid; a child in the same group; ignores SIGTERM
	trap '' TERM
	sleep 300 &
	echo $! >"$1.child"
	echo $$ >"$1.tmp" && mv "$1.tmp" "$1"
	wait ;;
sleep)
	sleep "$1"
	echo "slept $1" ;;
bg)     # $1: file for the pid of a process it leaves behind
	sleep 300 >/dev/null 2>&1 &
	echo $! >"$1"
	echo 'left one behind' ;;
symlink) # a result file that points out of the work directory
	ln -s /etc/hostname table.csv ;;
tamper) # $1: the worker file itself, changed under the client
	echo '# tampered' >>"$1"
	echo 'tampered' ;;
env)    # what the worker can see of its surroundings
	echo "args: $*"
	env
	cat /proc/$$/cmdline /proc/$PPID/cmdline 2>/dev/null | tr '\000' ' ' ;;
marker) # the wrong worker: must never run
	touch "$1" ;;
*)
	echo "worker: unknown mode $mode" >&2
	exit 2 ;;
esac
