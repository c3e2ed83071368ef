#!/bin/sh
# A worker for test/t/t6120: "./worker N MODE". ok: print "n=N" after a short
# nap, and write bin.dat -- binary, with a NUL and the protocol's end marker
# on a line of its own; slow: the same after 4 s; fail: exit 3; hang: sleep
# past any Timeout; bad: a result Validate refuses. While the test holds the
# sweep (the file HOLD exists; make_sweep writes its path here), a set above 9
# waits: a run cannot finish before the test has done what it must mid-run.
n=$1 mode=$2
hold=HOLD
if [ "$n" -gt 9 ]; then
	while [ -e "$hold" ]; do sleep 0.2; done
fi
sleep 0.4
case "$mode" in
slow) sleep 4; echo "n=$n" ;;
fail) echo "failing on purpose" >&2; exit 3 ;;
hang) sleep 600 ;;
bad) echo "n=wrong" ;;
*) echo "n=$n" ;;
esac
printf 'bin %s\000\n--end content--\nafter the marker %s' "$n" "$n" >bin.dat
