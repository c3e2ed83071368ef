#!/bin/bash
# Benchmark of a parameter sweep end to end: N short tasks (a worker that
# sleeps W seconds and echoes its argument) over two slaves reached by ssh
# -- real sshd instances on loopback ports, each with its own user
# (test/t/lib-sshd.sh) -- run
# (a) by GNU parallel (--sshlogin, ssh connection sharing: ControlMaster,
#     the worker copied to the slaves beforehand), and
# (b) by the sweep master, `sweep run SPEC`, cold: from the command to its
#     exit -- its start-up, the session, sweep_client deployed by ssh/sftp
#     to each slave (none there yet), every task, the output collected --
#     and the master's peak memory (its maximum resident set). By default the
#     master keeps the sweep in its own state directory and serves the
#     clients itself; with -p in a private project (wseq_sandbox up first,
#     untimed in the run's figure, reported apart).
# It counts the output lines of both, and prints the floor: N * W seconds of
# work shared by the slaves' J slots.
# Runs as root (lib-sshd.sh adds users and starts sshd). A benchmark, not a
# test: it prints figures and fails only when something goes wrong; a
# failing (b) is reported and the figure of (a) is still printed.
# See doc/bench.md.
set -u

prog=sweep_ssh.sh
usage() {
	cat <<EOT
usage: $prog [options]
  -n N          tasks (default: 1000)
  -w SECONDS    each task's work: the worker sleeps this long (default: 0)
  -p            (b) in a private wseq project (MariaDB, Apache) instead of the
                master's own state directory and server
  -s N          ssh slaves (default: 2)
  -j N          tasks at once on each slave, for both: GNU parallel -j N and the
                sweep's Jobs=N (sweep_client --jobs N) (default: 1)
  -t SECONDS    give up on sweep run after this (default: 1800)
  -d DIR        working directory (default: \$WSEQ_BUILDDIR/test/trash.bench-sweep_ssh)
  -k            keep the sandbox and the slaves running at the end
  -h            this text
environment: WSEQ_BUILDDIR, the build to measure (default: _build_bench if it
exists, else _build); WSEQ_SRCDIR, the source tree (default: this script's);
SSHD_SLAVE_PREFIX, the slaves' user names (default: wseqbench, so wseqbench1 ...).
EOT
}

NTASKS=1000 NSLAVES=2 JOBS=1 TMO=1800 DIR= KEEP=0 WORK_S=0 PROJECT=0
while getopts n:s:j:t:d:w:pkh opt; do
	case $opt in
	n) NTASKS=$OPTARG ;; s) NSLAVES=$OPTARG ;; j) JOBS=$OPTARG ;; t) TMO=$OPTARG ;;
	w) WORK_S=$OPTARG ;; p) PROJECT=1 ;;
	d) DIR=$OPTARG ;; k) KEEP=1 ;;
	h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
	esac
done

. "$(dirname "$0")/bench-lib.sh"
: "${SSHD_SLAVE_PREFIX:=wseqbench}"
. "$bench_lib_dir/../t/lib-sshd.sh"
[ "$(id -u)" = 0 ] || die "must run as root (the slaves are Unix users with their own sshd)"
command -v parallel >/dev/null || die "GNU parallel not found (apt-get install parallel)"
bench_init sweep_ssh
SSHDIR=$DIR/ssh
# ssh's control sockets need a short path (sun_path is 108 bytes)
CM=$(mktemp -d /tmp/wseq-cm.XXXXXX) || die "mktemp failed"
MUX=$SSHDIR/ssh_config.mux

cleanup() {
	local k
	for ((k = 1; k <= NSLAVES; k++)); do
		ssh -F "$MUX" -O exit "slave$k" >/dev/null 2>&1
	done
	rm -rf "$CM"
	if [ "$KEEP" = 1 ]; then
		say "slaves kept running: $SSHDIR (sshd_slaves_down in test/t/lib-sshd.sh stops them)"
	else
		sshd_slaves_down "$SSHDIR"
	fi
	bench_cleanup
}
trap cleanup EXIT

say "build $WSEQ_BUILDDIR: $build"
say "$NSLAVES ssh slaves in $SSHDIR"
sshd_slaves_up "$SSHDIR" "$NSLAVES" || die "the ssh slaves did not come up"
read -r -a PORTS <<<"$SSHD_SLAVE_PORTS"
read -r -a USERS <<<"$SSHD_SLAVE_USERS"

cd "$WORK" || exit 1
if [ "$WORK_S" = 0 ]; then
	printf '#!/bin/sh\necho "$1"\n' >worker
else
	printf '#!/bin/sh\nsleep %s\necho "$1"\n' "$WORK_S" >worker
fi
FLOOR_MS=$(awk -v n="$NTASKS" -v w="$WORK_S" -v s="$NSLAVES" -v j="$JOBS" 'BEGIN { printf "%.0f", n * w * 1000 / (s * j) }')
chmod 755 worker
seq 1 "$NTASKS" >values
{ echo "n"; cat values; } >params
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }
per_s() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.1f", n / (b - a) }'; }

# --- (a) GNU parallel ----------------------------------------------------------------
# The slaves as ssh host names slave1, slave2, ... with connection sharing.
{
	cat "$SSHD_SSH_CONFIG"
	for ((k = 1; k <= NSLAVES; k++)); do
		printf 'Host slave%d\n    HostName 127.0.0.1\n    Port %s\n    User %s\n' \
			"$k" "${PORTS[k - 1]}" "${USERS[k - 1]}"
	done
	printf 'Host *\n    ControlMaster auto\n    ControlPath %s/%%C\n    ControlPersist 300\n' "$CM"
} >"$MUX"
logins=
for ((k = 1; k <= NSLAVES; k++)); do
	# opens the shared connection, then copies the worker through it (untimed)
	ssh -F "$MUX" "slave$k" true </dev/null >/dev/null 2>par-setup.err &&
	scp -F "$MUX" -q worker "slave$k:worker" </dev/null 2>>par-setup.err ||
		{ cat par-setup.err >&2; die "cannot copy the worker to slave$k"; }
	logins="${logins:+$logins,}1/slave$k"
done
say "GNU parallel: $NTASKS tasks, -j $JOBS on each of $NSLAVES slaves ($logins), ControlMaster"
t0=$EPOCHREALTIME
parallel --will-cite --ssh "ssh -F $MUX" -S "$logins" -j "$JOBS" ./worker {} :::: values \
	>par.out 2>par.err
par_rc=$?
t1=$EPOCHREALTIME
par_ms=$(ms "$t0" "$t1") par_rate=$(per_s "$NTASKS" "$t0" "$t1")
par_lines=$(wc -l <par.out)
par_ok=yes
if [ $par_rc != 0 ] || ! sort -n par.out | cmp -s - values; then
	par_ok="NO (exit $par_rc, $par_lines lines; see $WORK/par.err)"
	head -n 5 par.err >&2
fi
say "GNU parallel: $par_ms ms, $par_rate tasks/s, $par_lines output lines, correct: $par_ok"

# --- (b) sweep run -------------------------------------------------------------------
sw_ms= sw_rate= sw_lines= sw_total_ms= sb_ms= sw_note=
if ! command -v sweep >/dev/null; then
	sw_note="no sweep in $WSEQ_BUILDDIR"
elif ! sweep --help 2>&1 | grep -q "run SPEC"; then
	sw_note="this build's sweep has no 'run' command yet ($(command -v sweep))"
else
	PORT=$(sshd_free_port_) || die "no free port"
	SERVER=127.0.0.1
	[ "$PROJECT" = 1 ] && SERVER=127.0.0.1:$PORT
	mkdir -p sweep && cp worker params sweep/ && cp "$SSHD_CLUSTER" sweep/cluster
	cat >sweep/spec <<-EOT
	# $prog: $NTASKS tasks over $NSLAVES loopback ssh slaves
	Parameters=params
	Cluster=cluster
	CommandLine=./worker \$n
	Timeout=60
	Jobs=$JOBS
	Collect=plain
	Output=out.txt
	Server=$SERVER

	[Worker]
	Platform=$PLATFORM
	File=worker

	[Result]
	Name=out
	File=stdout
	EOT
	HOME_OPT="--state $DIR/state" sb_ok=1
	if [ "$PROJECT" = 1 ]; then
		# The private project first, as sweep run would start it, so that the
		# run finds it up (and leaves it up: it did not start it).
		HOME_OPT="--sandbox $SB"
		say "starting the sweep's private project in $SB (127.0.0.1:$PORT)"
		t0=$EPOCHREALTIME
		if wseq_sandbox up "$SB" --name sweep --http-port "$PORT" --http-address 127.0.0.1 \
			>"$DIR/sandbox.log" 2>&1; then
			sb_ms=$(ms "$t0" "$EPOCHREALTIME")
		else
			sb_ok=0 sw_note="wseq_sandbox up failed; see $DIR/sandbox.log"
			tail -n 15 "$DIR/sandbox.log" >&2
		fi
	fi
	if [ "$sb_ok" = 1 ]; then
		say "sweep run: $NTASKS tasks on $NSLAVES slaves ($HOME_OPT)"
		t0=$EPOCHREALTIME
		# the master's peak memory: the largest resident set of the processes waited for
		(cd sweep && python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
open(sys.argv[1], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)' ../sweep.maxrss timeout "$TMO" sweep $HOME_OPT --ssh-config "$SSHD_SSH_CONFIG" \
			--progress none --verbose run spec) >sweep.stats 2>sweep.err
		sw_rc=$?
		t1=$EPOCHREALTIME
		sw_ms=$(ms "$t0" "$t1") sw_rate=$(per_s "$NTASKS" "$t0" "$t1")
		sw_total_ms=$((${sb_ms:-0} + sw_ms))
		sw_kb=$(cat sweep.maxrss 2>/dev/null)
		sw_lines=$(wc -l 2>/dev/null <sweep/out.txt || echo 0)
		if [ $sw_rc != 0 ]; then
			sw_note="sweep run failed: exit $sw_rc$([ $sw_rc = 124 ] && echo " (timeout after $TMO s)"); see $WORK/sweep.err"
			tail -n 15 sweep.err >&2
		elif ! sort -n sweep/out.txt | cmp -s - values; then
			sw_note="the output is not the $NTASKS values ($sw_lines lines)"
		fi
	fi
fi
[ -n "$sw_note" ] && say "sweep: $sw_note"

echo
echo "sweep over ssh benchmark, commit $commit, $(date -u +%Y-%m-%d), build: $build"
echo "$NTASKS tasks (#!/bin/sh worker: sleep $WORK_S; echo \$1) over $NSLAVES sshd slaves on loopback, $JOBS at once each; $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "the floor (the work alone, shared by the slots): $FLOOR_MS ms"
echo
printf '%-62s %9s %9s %7s\n' "what" "ms" "tasks/s" "lines"
printf '%-62s %9s %9s %7s\n' "GNU parallel -j $JOBS per slave, ssh ControlMaster" "$par_ms" "$par_rate" "$par_lines"
[ "$par_ok" = yes ] || echo "  GNU parallel: WRONG OUTPUT: $par_ok"
if [ -n "$sw_ms" ] && [ -n "$sw_note" ]; then
	printf '%-62s %9s\n' "sweep run, FAILED (no figure) after" "$sw_ms"
elif [ -n "$sw_ms" ]; then
	printf '%-62s %9s %9s %7s\n' "sweep run cold, Jobs=$JOBS ($([ "$PROJECT" = 1 ] && echo "a private project" || echo "its own store and server"))" "$sw_ms" "$sw_rate" "$sw_lines"
	printf '%-62s %9s\n' "  over the floor" "$((sw_ms - FLOOR_MS))"
	printf '%-62s %9s\n' "  the master's peak memory (maximum resident set, kB)" "${sw_kb:-?}"
	if [ "$PROJECT" = 1 ]; then
		printf '%-62s %9s\n' "  its private project's start-up (wseq_sandbox up), apart" "$sb_ms"
		printf '%-62s %9s %9s\n' "  total with the start-up" "$sw_total_ms" \
			"$(awk -v n="$NTASKS" -v m="$sw_total_ms" 'BEGIN { printf "%.1f", n * 1000 / m }')"
	fi
	printf '%-62s %9s\n' "GNU parallel's time / sweep run's" \
		"$(awk -v a="$sw_ms" -v b="$par_ms" 'BEGIN { printf "%.2f", b / a }')"
fi
[ -n "$sw_note" ] && echo "sweep run: NOT MEASURED OR WRONG -- $sw_note"
if [ -s "$WORK/sweep.stats" ]; then
	echo
	echo "sweep's statistics:"
	sed 's/^/  /' "$WORK/sweep.stats"
fi
[ "$par_ok" = yes ] && [ -z "$sw_note" ]
