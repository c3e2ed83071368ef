#!/bin/sh
test_description='per-host job counts in the cluster file, as GNU parallel'"'"'s -S N/host: the client on that host runs N tasks at once, the others the spec'"'"'s Jobs'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wshj
. "$WSEQ_SRCDIR/test/t/lib-sweep-slaves.sh"
sweep_slaves_up 2
set -- $SSHD_SLAVE_USERS
U1=$1 U2=$2

test_expect_success 'a cluster file with 3/host: that host runs three tasks at once, the other one' '
	mkdir -p s1 && cp "$DATA/check.sh" "$DATA/worker.sh" s1/ &&
	sweep_spec 30 1 >s1/spec &&
	{ echo "n | mode"; for i in $(seq 1 24); do echo "$i | ok"; done; } >s1/params &&
	sed "1s|^|3/|" "$D/cluster" >s1/cluster &&
	grep -q "^3/$U1@" s1/cluster &&
	(cd s1 && sweep --sandbox "$SB" --ssh-config "$D/ssh_config" --progress none run spec >stats 2>run.log) &&
	grep "^session [0-9a-f]*: 24 tasks, 24 done" s1/stats &&
	grep -q "3 jobs at once" "$D/home/$U1/.wseq-sweep/client.log" &&
	! grep -q "jobs at once" "$D/home/$U2/.wseq-sweep/client.log" &&
	# the statistics name the host without its job count
	grep -q "^  $U1@127.0.0.1:[0-9]* " s1/stats
'

test_done
