#!/bin/sh
test_description='per-host job counts in the cluster file, as GNU parallel'"'"'s -S N/host: the client on that host runs N tasks at once, the others the spec'"'"'s Jobs'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wshj
D="$TRASH_DIRECTORY/ssh"
SB="$TRASH_DIRECTORY/sb"
DATA="$WSEQ_SRCDIR/test/data/sweep-run"
test_atexit "sshd_slaves_down '$D'"
test_atexit "wseq_sandbox down '$SB' 2>/dev/null"

sshd_slaves_up "$D" 2 >"$TRASH_DIRECTORY/sshd-up.log" 2>&1 || {
	say "sshd_slaves_up failed:"; sed 's/^/#   /' "$TRASH_DIRECTORY/sshd-up.log"; exit 1
}
PORT=$(sshd_free_port_) || exit 1
set -- $SSHD_SLAVE_USERS
U1=$1 U2=$2

test_expect_success 'a cluster file with 3/host: that host runs three tasks at once, the other one' '
	mkdir -p s1 && cp "$DATA/check.sh" "$DATA/worker.sh" s1/ &&
	sed -e "s/TIMEOUT/30/" -e "s/PORT/$PORT/" -e "s/JOBS/1/" "$DATA/spec.in" >s1/spec &&
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
