# The sweep-hosts tests' setup (t6130, t6131): two loopback sshd machines A and B
# (ports PA, PB) for the users of SSHD_SLAVE_PREFIX (set it before sourcing),
# the master's state directory ST (the embedded store and server), the worker of test/data/sweep-hosts
# recording in REC, make_sweep, RUN and collected.

. "$WSEQ_SRCDIR/test/t/lib-sweep-slaves.sh"
sweep_slaves_up 2
ST="$TRASH_DIRECTORY/state"
DATA="$WSEQ_SRCDIR/test/data/sweep-hosts"
# masters a failed test left running
test_atexit "kill -KILL \$(cat '$TRASH_DIRECTORY/masters' 2>/dev/null) 2>/dev/null"
A=$(echo $SSHD_SLAVE_USERS | cut -d" " -f1) B=$(echo $SSHD_SLAVE_USERS | cut -d" " -f2)
PA=$(echo $SSHD_SLAVE_PORTS | cut -d" " -f1) PB=$(echo $SSHD_SLAVE_PORTS | cut -d" " -f2)
REC="$TRASH_DIRECTORY/rec"

# make_sweep DIR TIMEOUT ROWS HOST...: a sweep in DIR of sets n = 1..ROWS over
# the hosts (cluster lines); the worker's records in $REC/DIR (see worker.sh).
make_sweep() {
	_dir=$1 _to=$2 _rows=$3
	shift 3
	mkdir -p "$_dir" "$REC/$_dir" && chmod 1777 "$REC" "$REC/$_dir" &&
	cp "$DATA/check.sh" "$_dir/" &&
	sed "s|^dir=DIR |dir=$REC/$_dir |" "$DATA/worker.sh" >"$_dir/worker.sh" &&
	chmod 755 "$_dir/worker.sh" &&
	sed -e "s/TIMEOUT/$_to/" -e "s/PORT/$PORT/" "$DATA/spec.in" >"$_dir/spec" &&
	printf '%s\n' "$@" >"$_dir/cluster" &&
	{ echo "n"; seq 1 "$_rows"; } >"$_dir/params"
}

RUN="sweep --state $ST --ssh-config $D/ssh_config --progress lines --verbose"

# collected DIR N: out.txt holds the sets 1..N once each, in order
collected() {
	seq 1 "$2" | sed "s/^/n=/" >"$1/expect.txt" &&
	grep -a "^n=" "$1/out.txt" >"$1/got.txt" &&
	test_cmp "$1/expect.txt" "$1/got.txt"
}
