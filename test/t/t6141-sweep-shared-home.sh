#!/bin/sh
test_description='sweep run on two machines sharing one home (an NFS home: two sshd of one user): the client bundle copied to a temporary name and renamed into place, so both machines run; a client running there while another master deploys a different client; a failed copy (sftp) tried once more'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wsshare
D="$TRASH_DIRECTORY/ssh"
SB="$TRASH_DIRECTORY/sb"
U=${SSHD_SLAVE_PREFIX}1
HOME_U="$D/home/$U"
BUNDLE="$WSEQ_LIBEXECDIR/sweep-client/x86_64-pc-linux-gnu"
test_atexit "sshd_slaves_down '$D'"
test_atexit "wseq_sandbox down '$SB' 2>/dev/null"

# Machine 1 by sshd_slaves_up; machine 2 a second sshd of the same user, whose
# home is the same directory (made fresh again: nothing is in it yet).
{
	sshd_slaves_up "$D" 1 && P1=$SSHD_SLAVE_PORTS &&
	sshd_start_ "$D" 2 "$U" "$D/id_ed25519.pub" && P2=$_port &&
	sshd_verify_ "$D" 2 "$U" "$P2"
} >"$TRASH_DIRECTORY/sshd-up.log" 2>&1 || {
	say "the two machines did not come up:"; sed 's/^/#   /' "$TRASH_DIRECTORY/sshd-up.log"; exit 1
}
M1="$U@127.0.0.1:$P1" M2="$U@127.0.0.1:$P2"
PORT=$(sshd_free_port_) || exit 1

# make_sweep DIR ROWS HOST...: a sweep of ROWS sets over the HOSTs; while the
# file DIR.hold exists every set waits.
make_sweep() {
	_dir=$1 _rows=$2
	shift 2
	mkdir -p "$_dir" &&
	printf '#!/bin/sh\nwhile [ -e %s ]; do sleep 0.1; done\necho "n=$1"\n' \
		"$TRASH_DIRECTORY/$_dir.hold" >"$_dir/worker.sh" &&
	cat >"$_dir/spec" <<-EOF &&
	Parameters=params
	Cluster=cluster
	CommandLine=./worker \$n
	Timeout=60
	MaxAssign=1
	MaxTotal=2
	Collect=blocks
	Output=out.txt
	DeleteWorker=No
	DeleteClient=No
	Ping=1
	Jobs=1
	Server=127.0.0.1:$PORT

	[Worker]
	Platform=x86_64-pc-linux-gnu
	File=worker.sh

	[Result]
	Name=out
	File=stdout
	EOF
	printf '%s\n' "$@" >"$_dir/cluster" &&
	seq 1 "$_rows" | sed '1i n' >"$_dir/params"
}

# Both masters share one private project, left running (--keep_server).
RUN="sweep --sandbox $SB --ssh-config $D/ssh_config --progress lines --verbose --keep_server"

# done_by DIR LABEL: the "done" column of the host LABEL in the statistics
done_by() {
	awk -v h="$2" '$1 == h { print $2 }' "$1/stats"
}

# workers_running N: N sets held by the shared user's workers (each client
# holds one at most: Jobs=1, MaxAssign=1). Only the clients' own children
# count: a worker's shell forks for each "sleep", and for a moment that
# child has the worker's command line too.
workers_running() {
	_clients=$(pgrep -u "$U" -x sweep_client | paste -sd, -) &&
	test -n "$_clients" &&
	test "$(pgrep -u "$U" -P "$_clients" -f "worker [0-9]" | wc -l)" -ge "$1"
}

# clients_running N: N sweep_client processes of the shared user
clients_running() {
	test "$(pgrep -u "$U" -x sweep_client | wc -l)" -ge "$1"
}

test_expect_success 'two machines, one fresh home: the bundle is copied in place whole and both run sets' '
	make_sweep s1 6 "$M1" "$M2" && : >s1.hold || return 1
	(cd s1 && exec $RUN run spec >stats 2>run.log) &
	master=$! &&
	# each client holds a task: both started from the one copy (two clients
	# running is not enough: the first may take every set before the second asks)
	test_wait_for 90 workers_running 2 &&
	rm s1.hold &&
	wait $master &&
	grep "6 tasks, 6 done" s1/stats &&
	test "$(done_by s1 "$M1")" -ge 1 && test "$(done_by s1 "$M2")" -ge 1 &&
	ls -a "$HOME_U/.wseq-sweep" | grep "^\.\?sweep_client-" >bundles &&
	test_line_count = 1 bundles &&
	grep "^sweep_client-[0-9a-f]\{32\}$" bundles &&
	diff -r "$HOME_U/.wseq-sweep/$(cat bundles)" "$BUNDLE"
'

test_expect_success 'a client runs from the shared home while another master deploys another client: both finish' '
	cp -R "$BUNDLE" other-client && echo "another build" >other-client/NOTE &&
	make_sweep s2 3 "$M1" && make_sweep s3 3 "$M2" && : >s2.hold || return 1
	(cd s2 && exec $RUN run spec >stats 2>run.log) &
	master=$! &&
	test_wait_for 90 clients_running 1 &&
	(cd s3 && $RUN --client "$TRASH_DIRECTORY/other-client" run spec >stats 2>run.log) &&
	grep "3 tasks, 3 done" s3/stats &&
	grep "host $M2: copying the client" s3/run.log &&
	clients_running 1 &&
	rm s2.hold &&
	wait $master &&
	grep "3 tasks, 3 done" s2/stats &&
	ls "$HOME_U/.wseq-sweep" | grep "^sweep_client-" >bundles &&
	test_line_count = 2 bundles &&
	test "$(ls -a "$HOME_U/.wseq-sweep" | grep -c "\.tmp-")" = 0
'

test_expect_success 'a copy that fails is tried once more' '
	mkdir -p bin && cat >bin/sftp <<-EOF &&
	#!/bin/sh
	# fails the first time, then is sftp
	if [ ! -e "$TRASH_DIRECTORY/scp.failed" ]; then
		: >"$TRASH_DIRECTORY/scp.failed"
		echo "lost connection on purpose" >&2
		exit 1
	fi
	exec "$(command -v sftp)" "\$@"
	EOF
	chmod 755 bin/sftp &&
	make_sweep s4 3 "$M1" &&
	(cd s4 && PATH="$TRASH_DIRECTORY/bin:$PATH" \
		$RUN --remote_dir .elsewhere run spec >stats 2>run.log) &&
	test -e scp.failed &&
	grep "host $M1: copying the client failed (sftp exit 1: lost connection on purpose); once more" \
		s4/run.log &&
	grep "3 tasks, 3 done" s4/stats &&
	test "$(done_by s4 "$M1")" = 3 &&
	ls -a "$HOME_U/.elsewhere" | grep "sweep_client-" >b4 && test_line_count = 1 b4 &&
	test -x "$HOME_U/.elsewhere/$(cat b4)/start"
'

test_done
