#!/bin/sh
# A worker for test/t/t6130 and t6131: "./worker N" prints "n=N" after a
# short nap. It keeps a record in DIR (make_sweep writes the path here): each
# set appends N to DIR/started.USER (USER: the slave login, one a machine),
# and holds DIR/USER.lock (flock) while it runs -- a set that finds the lock
# taken appends to DIR/overlap: two sets ran at once on one machine. While
# DIR/hold.USER or DIR/hold.setN exists the set waits, so the test can act
# at a point it surely reaches.
n=$1
dir=DIR me=$(id -un)
exec 9>>"$dir/$me.lock"
flock -n 9 || echo "set $n on $me: another set runs" >>"$dir/overlap"
echo "$n" >>"$dir/started.$me"
while [ -e "$dir/hold.$me" ] || [ -e "$dir/hold.set$n" ]; do
	sleep 0.2 9>&-
done
sleep 0.3 9>&-
echo "n=$n"
