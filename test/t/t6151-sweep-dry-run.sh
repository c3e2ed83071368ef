#!/bin/sh
test_description='sweep --dry-run prints every command line and starts nothing (no ssh, no private project); GNU parallel'"'"'s {#} and {name} in CommandLine, through --dry-run and a real run over two sshd slaves'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wsdr
D="$TRASH_DIRECTORY/ssh"
SB="$TRASH_DIRECTORY/sb"
DATA="$WSEQ_SRCDIR/test/data/sweep-run"
test_atexit "sshd_slaves_down '$D'"
test_atexit "wseq_sandbox down '$SB' 2>/dev/null"

# a sweep in DIR whose CommandLine is CMD, over CLUSTER
make_sweep() {
	mkdir -p "$1" && cp "$DATA/check.sh" "$DATA/worker.sh" "$1/" &&
	sed -e "s/TIMEOUT/30/" -e "s/PORT/${PORT:-9}/" -e "s/JOBS/1/" \
		-e "s|^CommandLine=.*|CommandLine=$2|" "$DATA/spec.in" >"$1/spec" &&
	printf "n | mode\n1 | ok\n2 | ok\n3 | \"two words\"\n" >"$1/params" &&
	cp "$3" "$1/cluster"
}

# ssh and scp that only say they ran
mkdir -p fakebin &&
for t in ssh scp wseq_sandbox; do
	printf '#!/bin/sh\necho "$0 $*" >>%s/called\nexit 1\n' "$TRASH_DIRECTORY" >fakebin/$t &&
	chmod 755 fakebin/$t || exit 1
done
echo "node1.invalid" >cluster.none

test_expect_success 'sweep --dry-run: every command line, {#} the set'"'"'s number, {name} its value' '
	make_sweep d1 "./worker {#} {mode} -o out.{#} {nope} '"'"'{#}'"'"' \"\$n-{n}\"" cluster.none &&
	PATH="$TRASH_DIRECTORY/fakebin:$PATH" sweep --sandbox "$SB" --dry-run run d1/spec >out 2>err &&
	cat >want <<-\EOF &&
	./worker 1 ok -o out.1 '"'"'{nope}'"'"' '"'"'{#}'"'"' 1-1
	./worker 2 ok -o out.2 '"'"'{nope}'"'"' '"'"'{#}'"'"' 2-2
	./worker 3 '"'"'two words'"'"' -o out.3 '"'"'{nope}'"'"' '"'"'{#}'"'"' 3-3
	EOF
	test_cmp want out &&
	! test -s err
'

test_expect_success 'sweep --dry-run starts nothing: no ssh, no scp, no private project' '
	! test -e called &&
	! test -e "$SB"
'

test_expect_success 'sweep --dry-run --resume-failed: only the sets the joblog does not show done' '
	printf "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n" >log &&
	printf "1\th\t1.000\t0.1\t0\t0\t0\t0\tx\n2\th\t1.000\t0.1\t0\t0\t3\t0\tx\n" >>log &&
	sweep --dry-run --joblog log --resume-failed run d1/spec >out &&
	sed -n "2,3p" want >want.23 && test_cmp want.23 out
'

test_expect_success 'sweep --dry-run with a bad spec: exit 1 and the reason' '
	make_sweep d2 "./worker \$gamma" cluster.none &&
	test_must_fail sweep --dry-run run d2/spec >out 2>err &&
	grep "unknown parameter \$gamma" err &&
	! test -s out
'

test_expect_success 'sweep --dry-run resume is a usage error' '
	{ sweep --dry-run resume 0123 2>err; test $? = 2; } &&
	grep -- "--dry-run is for run SPEC" err
'

test_expect_success 'a real run: the clients get {#} and {name} expanded' '
	sshd_slaves_up "$D" 2 >sshd-up.log 2>&1 &&
	PORT=$(sshd_free_port_) &&
	make_sweep r1 "./worker {#} {mode}" "$D/cluster" &&
	sed -i "s/two words/ok/" r1/params &&
	(cd r1 && sweep --sandbox "$SB" --ssh-config "$D/ssh_config" --progress none run spec >stats 2>run.log) &&
	grep "^session [0-9a-f]*: 3 tasks, 3 done" r1/stats &&
	grep -a "^n=" r1/out.txt >got && printf "n=1\nn=2\nn=3\n" >want.n && test_cmp want.n got
'

test_done
