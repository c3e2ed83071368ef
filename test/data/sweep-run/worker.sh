#!/bin/sh
# A worker for test/t/t6120: "./worker N MODE". ok: print "n=N" after a short
# nap, and write bin.dat -- binary, with a NUL and the protocol's end marker
# on a line of its own; slow: the same after 4 s; fail: exit 3; hang: sleep
# past any Timeout; bad: a result Validate refuses.
n=$1 mode=$2
sleep 0.4
case "$mode" in
slow) sleep 4; echo "n=$n" ;;
fail) echo "failing on purpose" >&2; exit 3 ;;
hang) sleep 600 ;;
bad) echo "n=wrong" ;;
*) echo "n=$n" ;;
esac
printf 'bin %s\000\n--end content--\nafter the marker %s' "$n" "$n" >bin.dat
