#!/bin/sh
# A worker for test/t/t6170: "./worker N" prints "n=N". It appends N to
# REC/started (make_sweep writes the path here); while REC/hold.setN exists
# it waits, so the test acts at a point it surely reaches; while REC/fail.N
# or REC/fail.all exists it says why on stderr and exits 3.
n=$1
rec=REC
echo "$n" >>"$rec/started"
while [ -e "$rec/hold.set$n" ]; do
	sleep 0.2
done
if [ -e "$rec/fail.$n" ] || [ -e "$rec/fail.all" ]; then
	echo "set $n: no convergence" >&2
	exit 3
fi
sleep 0.2
echo "n=$n"
