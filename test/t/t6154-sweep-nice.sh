#!/bin/sh
test_description='sweep --nice N (GNU parallel'"'"'s --nice): the workers run under nice -n N on the hosts; without it at the login'"'"'s own niceness'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wsnc
. "$WSEQ_SRCDIR/test/t/lib-sweep-slaves.sh"
sweep_slaves_up 2

# a sweep of 6 sets whose worker prints its niceness
make_sweep() {
	mkdir -p "$1" && cp "$DATA/check.sh" "$1/" &&
	printf "#!/bin/sh\necho \"n=\$1\"\necho \"nice=\$(nice)\"\nprintf x >bin.dat\n" >"$1/worker.sh" &&
	chmod 755 "$1/worker.sh" &&
	sweep_spec 60 1 >"$1/spec" &&
	{ echo "n | mode"; for i in $(seq 1 6); do echo "$i | ok"; done; } >"$1/params" &&
	cp "$D/cluster" "$1/cluster"
}

RUN="sweep --sandbox $SB --ssh-config $D/ssh_config --progress none"

test_expect_success 'without --nice the workers run at the login'"'"'s niceness' '
	make_sweep s2 &&
	(cd s2 && $RUN run spec >stats 2>run.log) &&
	grep "^session [0-9a-f]*: 6 tasks, 6 done" s2/stats &&
	grep -a "^nice=" s2/out.txt | sort -u >base &&
	test_line_count = 1 base
'

# The hosts' niceness is what sshd was started with (the tests may run under nice).
test_expect_success 'sweep --nice 7: every worker ran 7 nicer (as nice -n 7, at most 19)' '
	make_sweep s1 &&
	(cd s1 && $RUN --nice 7 run spec >stats 2>run.log) &&
	grep "^session [0-9a-f]*: 6 tasks, 6 done" s1/stats &&
	base=$(sed "s/nice=//" base) && want=$((base + 7)) &&
	{ [ $want -le 19 ] || want=19; } &&
	grep -a "^nice=" s1/out.txt | sort | uniq -c >got &&
	echo "      6 nice=$want" >want && test_cmp want got
'

test_expect_success 'sweep --nice 20 is a usage error' '
	{ sweep --nice 20 run s1/spec 2>err; test $? = 2; } &&
	grep -i "nice" err
'

test_done
