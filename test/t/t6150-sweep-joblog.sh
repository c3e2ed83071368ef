#!/bin/sh
test_description='sweep --joblog FILE in GNU parallel'"'"'s format over two real sshd slaves (a line a run, retries included, whole after a kill -9 and resume), --resume-failed running exactly the sets the joblog shows not done, --retries N as MaxTotal'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wsjl
. "$WSEQ_SRCDIR/test/t/lib-sweep-slaves.sh"
sweep_slaves_up 2

# make_sweep DIR ROWS [N=MODE ...]: a sweep of ROWS sets "n | mode" (ok unless
# named) over the two slaves, MaxTotal=2 (test/data/sweep-run: fail exits 3,
# bad is refused by Validate; while DIR.hold exists the sets above 9 wait).
make_sweep() {
	_dir=$1 _rows=$2
	shift 2
	mkdir -p "$_dir" && cp "$DATA/check.sh" "$_dir/" &&
	sed "s|^hold=HOLD$|hold=$TRASH_DIRECTORY/$_dir.hold|" "$DATA/worker.sh" >"$_dir/worker.sh" &&
	chmod 755 "$_dir/worker.sh" &&
	sweep_spec ${TO:-30} 1 >"$_dir/spec" &&
	cp "$D/cluster" "$_dir/cluster" &&
	set_modes "$_dir" "$_rows" "$@"
}

# set_modes DIR ROWS [N=MODE ...]: DIR/params anew
set_modes() {
	_dir=$1 _rows=$2
	shift 2
	{
		echo "n | mode"
		for _i in $(seq 1 "$_rows"); do
			_m=ok
			for _s in "$@"; do
				[ "${_s%%=*}" = "$_i" ] && _m=${_s#*=}
			done
			echo "$_i | $_m"
		done
	} >"$_dir/params"
}

RUN="sweep --sandbox $SB --ssh-config $D/ssh_config --progress none"

# runs LOG SEQ: the lines of joblog LOG for set SEQ
runs() {
	awk -F '\t' -v s="$2" 'NR > 1 && $1 == s' "$1"
}

# good_runs_at_least LOG N: joblog LOG has N runs with Exitval 0 or more
good_runs_at_least() {
	[ "$(awk -F '\t' 'NR > 1 && $7 == 0' "$1" 2>/dev/null | wc -l)" -ge "$2" ]
}

# blocks DIR: the sets of DIR/out.txt, "n=N" a line, in order
blocks() {
	grep -a '^### ' "$1/out.txt" | sed 's/^### n=\([0-9]*\) .*/\1/'
}

make_sweep s1 8 3=fail 5=bad

test_expect_success 'sweep --joblog: a header and a line a run, retries included' '
	(cd s1 && $RUN --joblog ../s1.joblog run spec >stats 2>run.log; echo $? >rc) &&
	test "$(cat s1/rc)" = 4 &&
	head -n 1 s1.joblog >head &&
	printf "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n" >head.want &&
	test_cmp head.want head &&
	# 6 sets ran once, 3 and 5 twice (MaxTotal=2)
	test "$(wc -l <s1.joblog)" = $((1 + 6 + 2 + 2)) &&
	for set in 1 2 4 6 7 8; do
		runs s1.joblog $set >r && test_line_count = 1 r &&
		awk -F "\t" -v n=$set "NF == 9 && \$7 == 0 && \$8 == 0 && \$9 == \"./worker \" n \" ok\" &&
			\$3 ~ /^[0-9]+\\.[0-9][0-9][0-9]\$/ && \$4 ~ /^[0-9]+\\.[0-9][0-9][0-9]\$/" r >ok &&
		test_line_count = 1 ok || return 1
	done
'

test_expect_success 'joblog: a failed run has the worker'"'"'s exit status, an invalid one -2' '
	runs s1.joblog 3 | awk -F "\t" "\$7 == 3 && \$8 == 0 && \$9 == \"./worker 3 fail\"" >r3 &&
	test_line_count = 2 r3 &&
	runs s1.joblog 5 | awk -F "\t" "\$7 == -2 && \$8 == 0" >r5 &&
	test_line_count = 2 r5
'

test_expect_success 'joblog: Host is the slave as the cluster file names it' '
	awk -F "\t" "NR > 1 { print \$2 }" s1.joblog | sort -u >hosts &&
	while read -r h; do
		grep -qxF "$h" "$D/cluster" || return 1
	done <hosts &&
	test -s hosts
'

test_expect_success 'sweep --joblog --resume-failed: exactly the failed sets run, the old lines kept' '
	cp s1.joblog s1.joblog.before &&
	set_modes s1 8 &&
	(cd s1 && $RUN --joblog ../s1.joblog --resume-failed run spec >stats2 2>run2.log) &&
	grep "^session [0-9a-f]*: 2 tasks, 2 done, 0 running, 0 waiting, 0 failed$" s1/stats2 &&
	printf "3\n5\n" >sets.want && blocks s1 >sets && test_cmp sets.want sets &&
	# the joblog: its header, every old line, then one good run each of 3 and 5
	head -n 11 s1.joblog >kept && test_cmp s1.joblog.before kept &&
	tail -n +12 s1.joblog | awk -F "\t" "\$7 == 0 && \$8 == 0 { print \$1 }" | sort >new &&
	test_cmp sets.want new && test "$(wc -l <s1.joblog)" = 13
'

test_expect_success 'sweep --resume-failed with nothing left to run: no task, exit 0, joblog unchanged' '
	cp s1.joblog s1.joblog.before &&
	(cd s1 && $RUN --joblog ../s1.joblog --resume-failed run spec >stats3 2>run3.log) &&
	grep "^session [0-9a-f]*: 0 tasks, 0 done" s1/stats3 &&
	test_cmp s1.joblog.before s1.joblog
'

test_expect_success 'sweep --resume-failed without --joblog is a usage error' '
	{ sweep --resume-failed run s1/spec 2>err; test $? = 2; } &&
	grep -- "--resume-failed needs --joblog" err
'

test_expect_success 'sweep --retries 1: a failing set is run once (the spec says MaxTotal=2)' '
	make_sweep s2 4 2=fail &&
	(cd s2 && $RUN --joblog ../s2.joblog --retries 1 run spec >stats 2>run.log; echo $? >rc) &&
	test "$(cat s2/rc)" = 4 &&
	runs s2.joblog 2 >r2 && test_line_count = 1 r2 &&
	test "$(wc -l <s2.joblog)" = 5
'

# The sets above 9 wait at s3.hold, so the master is surely still running
# when it is killed.
test_expect_success 'joblog: written while the sweep runs; after kill -9 and sweep resume every set once' '
	TO=8 make_sweep s3 14 &&
	: >s3.hold || return 1
	(cd s3 && exec $RUN --joblog ../s3.joblog run spec >stats 2>run.log) &
	master=$! &&
	test_wait_for 60 grep -q "^sweep: session [0-9a-f]*:" s3/run.log &&
	sid=$(sed -n "s/^sweep: session \([0-9a-f]*\):.*/\1/p" s3/run.log) &&
	# written as the runs end (every 5 s), not only at the end
	test_wait_for 60 good_runs_at_least s3.joblog 3 &&
	kill -9 $master && { wait $master || :; } &&
	head -n 1 s3.joblog | grep -q "^Seq.Host.Starttime" &&
	for u in $SSHD_SLAVE_USERS; do
		pkill -KILL -u "$u" -x sweep_client; pkill -KILL -u "$u" -f "worker [0-9]" || :
	done &&
	rm s3.hold &&
	(cd s3 && $RUN --joblog ../s3.joblog resume "$sid" >stats 2>resume.log) &&
	grep "^session $sid: 14 tasks, 14 done" s3/stats &&
	awk -F "\t" "NR > 1 && \$7 == 0 { print \$1 }" s3.joblog | sort -n >done &&
	seq 1 14 >done.want && test_cmp done.want done
'

test_done
