#!/bin/sh
test_description='Collect=tag (GNU parallel'"'"'s --tag): every line of the collected output after its set'"'"'s values and a tab, in table order'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wstg
. "$WSEQ_SRCDIR/test/t/lib-sweep-slaves.sh"
sweep_slaves_up 2

test_expect_success 'Collect=tag: each line tagged with its set, a last line without newline too' '
	mkdir -p s1 && cp "$DATA/check.sh" s1/ &&
	printf "#!/bin/sh\necho \"n=\$1\"\nprintf second\nprintf x >bin.dat\n" >s1/worker.sh &&
	chmod 755 s1/worker.sh &&
	sweep_spec 60 1 | sed "s/^Collect=.*/Collect=tag/" >s1/spec &&
	printf "n | mode\n1 | ok\n2 | \"two words\"\n3 | ok\n" >s1/params &&
	cp "$D/cluster" s1/cluster &&
	(cd s1 && sweep --sandbox "$SB" --ssh-config "$D/ssh_config" --progress none run spec >stats 2>run.log) &&
	grep "^session [0-9a-f]*: 3 tasks, 3 done" s1/stats &&
	printf "1\tok\tn=1\n1\tok\tsecond\n1\tok\tx\n" >want &&
	printf "2\ttwo words\tn=2\n2\ttwo words\tsecond\n2\ttwo words\tx\n" >>want &&
	printf "3\tok\tn=3\n3\tok\tsecond\n3\tok\tx\n" >>want &&
	test_cmp want s1/out.txt
'

test_done
