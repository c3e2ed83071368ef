#!/bin/sh
test_description='[Input] Source=FILE in the spec (GNU parallel'"'"'s --transferfile): a file of the master sent as it is with every task, next to the inputs made from the parameters'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wsis
. "$WSEQ_SRCDIR/test/t/lib-sweep-slaves.sh"
sweep_slaves_up 2

# A sweep of 4 sets whose worker prints its set and the fixed file table.dat,
# which the spec sends from tables/fixed.dat (placeholders in it stay as they are).
test_expect_success 'every task gets the Source file as it is' '
	mkdir -p s1/tables && cp "$DATA/check.sh" s1/ &&
	printf "#!/bin/sh\necho \"n=\$1\"\ncat table.dat\nprintf x >bin.dat\n" >s1/worker.sh &&
	chmod 755 s1/worker.sh &&
	printf "line one \$n {#}\r\nlast line, no newline" >s1/tables/fixed.dat &&
	sweep_spec 60 1 >s1/spec &&
	printf "\n[Input]\nFile=table.dat\nSource=tables/fixed.dat\n" >>s1/spec &&
	{ echo "n | mode"; for i in 1 2 3 4; do echo "$i | ok"; done; } >s1/params &&
	cp "$D/cluster" s1/cluster &&
	(cd s1 && sweep --sandbox "$SB" --ssh-config "$D/ssh_config" --progress none run spec >stats 2>run.log) &&
	grep "^session [0-9a-f]*: 4 tasks, 4 done" s1/stats &&
	for i in 1 2 3 4; do
		printf "n=$i\nline one \$n {#}\r\nlast line, no newlinex\n" || return 1
	done >want &&
	grep -a -v "^### " s1/out.txt >got &&
	test_cmp want got
'

test_expect_success 'the tasks carry the Source: sweep resume needs it no more' '
	sid=$(sed -n "s/^session \([0-9a-f]*\):.*/\1/p" s1/stats) &&
	mv s1/tables/fixed.dat s1/tables/fixed.dat.away &&
	(cd s1 && sweep --sandbox "$SB" --ssh-config "$D/ssh_config" --progress none resume "$sid" >stats2 2>resume.log) &&
	grep "^session $sid: 4 tasks, 4 done" s1/stats2 &&
	mv s1/tables/fixed.dat.away s1/tables/fixed.dat
'

test_expect_success 'a Source that cannot be read stops the sweep before it starts, naming it' '
	sed "s|^Source=.*|Source=tables/missing.dat|" s1/spec >s1/spec2 &&
	(cd s1 && test_must_fail sweep --sandbox "$SB" --progress none run spec2 >out 2>err) &&
	grep "spec2:[0-9]*: \[Input\] for '"'"'table.dat'"'"': .*missing.dat" s1/err &&
	test_must_fail grep -q "session" s1/err
'

test_done
