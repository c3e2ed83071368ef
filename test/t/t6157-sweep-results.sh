#!/bin/sh
# The worker's exit status and output reach the master (SendOutput=Yes in
# every new session's configuration, Exit/[Stdout]/[Stderr] on /complete and
# POST /failed): the joblog's Exitval, and sweep --results DIR with
# DIR/SEQ/stdout, stderr and exitval of every set's last run, over two real
# sshd slaves; a planted symlink in DIR is never followed; a session whose
# configuration lacks SendOutput (as an old master's) still runs, its
# stdout taken from the stdout result.
test_description='sweep --results DIR and the worker'"'"'s exit status and output reaching the master, over real sshd slaves; old-style sessions still work'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wsresults
. "$WSEQ_SRCDIR/test/t/lib-sweep-slaves.sh"
sweep_slaves_up 2

# make_sweep DIR ROWS [N=fail ...]: a sweep of ROWS sets "n | mode" over the
# two slaves; a set that fails prints "partial N" and "failing on purpose N"
# on stderr and exits 3, the others "n=N" and "note N" on stderr.
make_sweep() {
	_dir=$1 _rows=$2
	shift 2
	mkdir -p "$_dir" &&
	cat >"$_dir/worker.sh" <<-\WORKER &&
	#!/bin/sh
	if [ "$2" = fail ]; then
		echo "partial $1"; echo "failing on purpose $1" >&2; exit 3
	fi
	echo "n=$1"; echo "note $1" >&2
	WORKER
	chmod 755 "$_dir/worker.sh" &&
	cat >"$_dir/spec" <<-SPEC &&
	Parameters=params
	Cluster=cluster
	CommandLine=./worker \$n \$mode
	Timeout=30
	MaxAssign=1
	MaxTotal=2
	Collect=blocks
	Output=out.txt
	Ping=1
	Jobs=1
	Server=127.0.0.1:$PORT

	[Worker]
	Platform=x86_64-pc-linux-gnu
	File=worker.sh

	[Result]
	Name=out
	File=stdout
	SPEC
	cp "$D/cluster" "$_dir/cluster" &&
	{
		echo "n | mode"
		for _i in $(seq 1 "$_rows"); do
			_m=ok
			for _s in "$@"; do
				[ "${_s%%=*}" = "$_i" ] && _m=fail
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

# expect_set DIR SEQ STDOUT STDERR EXITVAL: DIR/SEQ holds them, each a regular 0644 file
expect_set() {
	printf "%s" "$3" >want.out && test_cmp want.out "$1/$2/stdout" &&
	printf "%s" "$4" >want.err && test_cmp want.err "$1/$2/stderr" &&
	printf "%s\n" "$5" >want.ev && test_cmp want.ev "$1/$2/exitval" &&
	for f in stdout stderr exitval; do
		test -f "$1/$2/$f" && ! test -h "$1/$2/$f" &&
		test "$(stat -c %a "$1/$2/$f")" = 644 || return 1
	done
}

make_sweep s1 4 3=fail

test_expect_success 'the joblog shows the exit status the client reported; --results DIR has every set'"'"'s streams and exit value' '
	(cd s1 && $RUN --joblog ../s1.joblog --results ../res run spec >stats 2>run.log; echo $? >rc) &&
	test "$(cat s1/rc)" = 4 &&
	runs s1.joblog 3 | awk -F "\t" "\$7 == 3 && \$8 == 0" >r3 && test_line_count = 2 r3 &&
	for set in 1 2 4; do
		expect_set res $set "n=$set
" "note $set
" 0 || return 1
	done &&
	expect_set res 3 "partial 3
" "failing on purpose 3
" 3 &&
	ls res | sort -n >sets && printf "1\n2\n3\n4\n" >sets.want && test_cmp sets.want sets
'

test_expect_success 'the session told its clients SendOutput=Yes, and the stored failure carries Exit and [Stderr]' '
	sid=$(sed -n "s/^sweep: session \([0-9a-f]*\):.*/\1/p" s1/run.log | head -n 1) && test -n "$sid" &&
	conf=$(find "$SB" -path "*/sweep/$sid/config") && test -n "$conf" &&
	grep "^SendOutput=Yes$" "$conf" &&
	grep -rlx "Exit=3" "$SB" >bodies && test -s bodies &&
	xargs grep -lx "failing on purpose 3" <bodies >failed && test_line_count = 2 failed &&
	xargs grep -lx "\[Stderr\]" <failed >with && test_line_count = 2 with
'

test_expect_success 'the same in the default mode (the embedded store and HTTP server, no project)' '
	make_sweep s4 3 2=fail &&
	(cd s4 && sweep --state "$TRASH_DIRECTORY/state" --ssh-config "$D/ssh_config" --progress none \
		--joblog ../s4.joblog --results ../res4 run spec >stats 2>run.log; echo $? >rc) &&
	test "$(cat s4/rc)" = 4 &&
	runs s4.joblog 2 | awk -F "\t" "\$7 == 3 && \$8 == 0" >r2 && test_line_count = 2 r2 &&
	expect_set res4 1 "n=1
" "note 1
" 0 &&
	expect_set res4 2 "partial 2
" "failing on purpose 2
" 3
'

test_expect_success '--results never writes through a symlink planted in DIR' '
	make_sweep s2 3 &&
	mkdir -p res2/3 outside && echo victim >victim &&
	ln -s "$TRASH_DIRECTORY/outside" res2/2 &&
	ln -s "$TRASH_DIRECTORY/victim" res2/3/stdout &&
	(cd s2 && $RUN --results ../res2 run spec >stats 2>run.log; echo $? >rc) &&
	test "$(cat s2/rc)" = 1 &&
	grep -- "--results: 2 is not a directory of its own" s2/run.log &&
	test "$(cat victim)" = victim && ! test -h res2/3/stdout &&
	expect_set res2 3 "n=3
" "note 3
" 0 &&
	expect_set res2 1 "n=1
" "note 1
" 0 &&
	test -z "$(ls outside)"
'

test_expect_success 'a session whose configuration lacks SendOutput (an old master'"'"'s) still runs: stdout from the stdout result, the exit value guessed' '
	make_sweep s3 3 2=fail &&
	wseq_sandbox up "$SB" >/dev/null 2>&1 &&
	(cd s3 && sweep --sandbox "$SB" create spec >sid 2>create.err) && sid=$(cat s3/sid) && test -n "$sid" &&
	conf=$(find "$SB" -path "*/sweep/$sid/config") && test -n "$conf" &&
	grep -v "^SendOutput=" "$conf" >conf.old && cp conf.old "$conf" &&
	! grep SendOutput "$conf" &&
	(cd s3 && $RUN --joblog ../s3.joblog --results ../res3 resume "$sid" >stats 2>run.log; echo $? >rc) &&
	test "$(cat s3/rc)" = 4 &&
	runs s3.joblog 2 | awk -F "\t" "\$7 == 3 && \$8 == 0" >r2 && test_line_count = 2 r2 &&
	expect_set res3 1 "n=1
" "" 0 &&
	# no [Stderr] came (the client sent the body as it always was): stderr is empty
	expect_set res3 2 "" "" 3
'

test_done
