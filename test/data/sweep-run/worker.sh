#!/bin/sh
# A worker for test/t/t6120: "./worker N MODE". ok: print "n=N" after a short
# nap, and write bin.dat -- binary, with a NUL and the protocol's end marker
# on a line of its own; slow: the same after 4 s; fail: exit 3; hang: sleep
# past any Timeout; bad: a result Validate refuses. The test can hold a run
# at a point it must act at (make_sweep writes the path HOLD here): while the
# file HOLD exists a set above 9 waits, and while HOLD.USER exists every set
# of the slave login USER waits.
n=$1 mode=$2
hold=HOLD me=$(id -un)
while { [ "$n" -gt 9 ] && [ -e "$hold" ]; } || [ -e "$hold.$me" ]; do
	sleep 0.2
done
sleep 0.4
case "$mode" in
slow) sleep 4; echo "n=$n" ;;
fail) echo "failing on purpose" >&2; exit 3 ;;
hang) sleep 600 ;;
bad) echo "n=wrong" ;;
*) echo "n=$n" ;;
esac
printf 'bin %s\000\n--end content--\nafter the marker %s' "$n" "$n" >bin.dat
