#!/bin/bash
# Benchmark of the sweep endpoints: how many tasks a second the master hands
# out and takes back (one GET /task and one POST /complete each) to K real
# sweep_client processes on this machine running a trivial worker (a shell
# script that echoes its parameter). It starts a private sandbox (no
# daemons), makes one session of N tasks per run with `sweep create`, lets
# the transitioner make every ticket before the clock starts, then times from
# starting the clients until the last one has exited, and checks in the
# database that every task came back once, a success. Runs with the endpoints under
# mod_fcgid (as make_project configures them when the module is loaded) and,
# for comparison, as plain CGI. A benchmark, not a test: it prints figures
# and fails only when something goes wrong. See doc/bench.md.
set -u

prog=sweep_http.sh
usage() {
	cat <<EOT
usage: $prog [options]
  -n N          tasks in each FastCGI run (default: 5000)
  -c "K..."     clients at once, one run each (default: "4 8")
  -g N          tasks in each plain-CGI run (default: 1000; 0: skip the CGI runs)
  -s SQL        run SQL on the project database before measuring (to try an index
                or a setting: -s 'alter table result add key ...')
  -w DIR        where the clients' work directories go, in a directory made there
                and removed at the end (default: /dev/shm when it is a tmpfs,
                else the sandbox directory)
  -d DIR        sandbox directory (default: \$WSEQ_BUILDDIR/test/trash.bench-sweep_http)
  -k            keep the sandbox running at the end (stop it with wseq_sandbox down DIR/sb)
  -h            this text
environment: WSEQ_BUILDDIR, the build to measure (default: _build_bench if it
exists, else _build); WSEQ_SRCDIR, the source tree (default: this script's).
EOT
}

NTASKS=5000 CLIENTS="4 8" NCGI=1000 DIR= KEEP=0 EXTRA_SQL= CDIR=
while getopts n:c:g:s:w:d:kh opt; do
	case $opt in
	n) NTASKS=$OPTARG ;; c) CLIENTS=$OPTARG ;; g) NCGI=$OPTARG ;; s) EXTRA_SQL=$OPTARG ;;
	w) CDIR=$OPTARG ;; d) DIR=$OPTARG ;; k) KEEP=1 ;;
	h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
	esac
done

. "$(dirname "$0")/bench-lib.sh"
bench_init sweep_http
command -v sweep_client >/dev/null && command -v sweep >/dev/null || die "sweep or sweep_client not built"
[ -f /usr/lib/apache2/modules/mod_fcgid.so ] ||
	say "mod_fcgid is not installed (libapache2-mod-fcgid): every run is plain CGI"
bench_sandbox_up
SWEEP_URL="${PROJECT_URL%wseq/}wseq_cgi/sweep"    # the project's own sweep endpoints
APACHE_CONF=$SB/apache/httpd.conf

if [ -n "$EXTRA_SQL" ]; then
	say "running: $EXTRA_SQL"
	sql -e "$EXTRA_SQL" || die "the SQL of -s failed"
fi

# The clients stand for hosts elsewhere: the files each task makes and removes
# (its directory, inputs, stdout) go to a tmpfs, so that churn does not slow
# the server's own file creation (on ext4, inode allocation next to many
# recently deleted inodes cost the endpoints more than half their CPU).
if [ -z "$CDIR" ]; then
	CDIR=$WORK
	[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && CDIR=/dev/shm
fi
CDIR=$(mktemp -d "$CDIR/wseq-bench-clients.XXXXXX") || die "cannot make a directory in $CDIR"
trap 'rm -rf "$CDIR"; bench_cleanup' EXIT

cd "$WORK" || exit 1
printf '#!/bin/sh\necho "task $1"\n' >worker.sh
chmod 755 worker.sh
MD5=$(md5sum <worker.sh | cut -c1-32)

# make_session N: a session of N tasks, every ticket made; its ID on stdout
make_session() {
	local n=$1 sid i made
	seq 1 "$n" | awk 'BEGIN { print "n" } { print }' >params
	cat >spec <<-EOT
	Parameters=params
	CommandLine=./worker \$n
	Timeout=600
	MaxAssign=1
	MaxTotal=2
	DeleteWorker=No
	DeleteClient=No
	Ping=0

	[Worker]
	Platform=$PLATFORM
	File=worker.sh

	[Result]
	Name=out
	File=stdout
	EOT
	sid=$(sweep --project "$PROJECT_DIR" create spec 2>create.err) || { cat create.err >&2; return 1; }
	for ((i = 0; i < 100; i++)); do
		(cd "$PROJECT_DIR" && bin/transitioner --one_pass --batch 100000) >/dev/null 2>&1
		made=$(sql -e "select count(*) from result r join workunit w on w.id=r.workunitid
			join batch b on b.id=w.batch where b.name='sweep:$sid' and r.server_state=2")
		if [ "$made" = "$n" ]; then
			# fresh statistics, as a database that has run for a while has them: on the
			# few rows of a new sandbox the optimizer may sort every unsent result
			sql -e "analyze table result, workunit" >/dev/null
			echo "$sid"
			return 0
		fi
	done
	echo "the transitioner made $made of $n tickets" >&2
	return 1
}

# ticks PATTERN: clock ticks of CPU the live processes whose command line
# matches PATTERN have used so far, with the children they reaped.
ticks() {
	local pid line t=0
	for pid in $(pgrep -f "$1"); do
		read -r line <"/proc/$pid/stat" 2>/dev/null || continue
		# shellcheck disable=SC2086
		set -- ${line##*) }
		t=$((t + ${12} + ${13} + ${14} + ${15}))
	done
	echo $t
}

# warm_up K: 2K loops of requests (at most 16, make_project's MaxProcesses)
# for 3 s, so mod_fcgid has started more endpoint processes than there are
# clients before the clock runs: it starts one only when a request finds
# none idle, and that request waits a second (as does one that finds every
# process busy).
warm_up() {
	local i n=$(($1 * 2 > 16 ? 16 : $1 * 2))
	for ((i = 0; i < n; i++)); do
		(end=$((SECONDS + 3))
		while [ $SECONDS -lt $end ]; do curl -s -o /dev/null "$SWEEP_URL/config?sessionID=warmup"; done) &
	done
	wait
}

# run MODE K N: K clients on a fresh session of N tasks; prints
# "tasks/s seconds db-cpu-s apache-cpu-s endpoints-cpu-s"
run() {
	local mode=$1 k=$2 n=$3 sid t0 t1 c0 c1 a0 a1 e0 e1 i pids= rc=0 st
	sid=$(make_session "$n") || die "cannot make a session of $n tasks"
	bench_settle >/dev/null 2>&1
	warm_up "$k"
	rm -rf "$CDIR/run" && mkdir "$CDIR/run"
	c0=$(bench_db_cpu)
	a0=$(ticks "apache2 -f $APACHE_CONF")
	e0=$(ticks "^$PROJECT_DIR/cgi-bin/sweep")
	t0=$EPOCHREALTIME
	for ((i = 1; i <= k; i++)); do
		echo "$sid" | sweep_client --dir "$CDIR/run/$i" --max-silence 60 --host "bench$i" - worker \
			"$MD5" "$SWEEP_URL" 2>"$CDIR/run/$i.log" &
		pids="$pids $!"
	done
	for i in $pids; do wait "$i" || rc=1; done
	t1=$EPOCHREALTIME
	c1=$(bench_db_cpu)
	a1=$(ticks "apache2 -f $APACHE_CONF")
	e1=$(ticks "^$PROJECT_DIR/cgi-bin/sweep")
	[ $rc = 0 ] || { tail -n 5 "$CDIR"/run/*.log >&2; die "$mode, $k clients: a client failed"; }
	# every task answered once, with success (untimed)
	st=$(sql -e "select count(distinct w.id), sum(r.server_state=5 and r.outcome=1), count(*)
		from result r join workunit w on w.id=r.workunitid join batch b on b.id=w.batch
		where b.name='sweep:$sid'")
	[ "$st" = "$(printf '%s\t%s\t%s' "$n" "$n" "$n")" ] ||
		die "$mode, $k clients: not every task came back once (tasks, successes, tickets: $st)"
	echo "$(rate "$n" "$t0" "$t1") $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" \
		"$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.2f", b - a }')" \
		"$(awk -v a="$a0" -v b="$a1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz }')" \
		"$(awk -v a="$e0" -v b="$e1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz }')"
}

results=()
if grep -q fcgid "$APACHE_CONF"; then
	for k in $CLIENTS; do
		say "FastCGI: $k clients, $NTASKS tasks"
		fig=$(run fastcgi "$k" "$NTASKS") || exit 1
		results+=("FastCGI|$k|$NTASKS|$fig")
	done
fi
if [ "$NCGI" -gt 0 ]; then
	bench_apache_restart cgi
	for k in $CLIENTS; do
		say "plain CGI: $k clients, $NCGI tasks"
		fig=$(run cgi "$k" "$NCGI") || exit 1
		results+=("plain CGI|$k|$NCGI|$fig")
	done
fi

echo
echo "sweep endpoints benchmark, commit $commit, $(date -u +%Y-%m-%d), build: $build"
echo "$(bench_machine); Apache on loopback, sweep_client and a /bin/sh worker on the same machine"
echo "a task = GET /task + the worker + POST /complete; timed from starting the clients until all have exited"
[ -n "$EXTRA_SQL" ] && echo "SQL run before measuring: $EXTRA_SQL"
echo
echo "CPU: seconds used by MariaDB, Apache and the FastCGI endpoint processes (CGI processes are"
echo "not counted: Apache does not collect their times); server ms/task: the three, a task"
echo
printf '%-10s %7s %6s %8s %8s %7s %7s %9s %14s\n' "endpoints" "clients" "tasks" "seconds" "tasks/s" \
	"DB CPU" "Apache" "endpoints" "server ms/task"
for r in "${results[@]}"; do
	IFS='|' read -r mode k n fig <<<"$r"
	read -r tps secs dbcpu apcpu epcpu <<<"$fig"
	if [ "$mode" = FastCGI ]; then
		per=$(awk -v a="$dbcpu" -v b="$apcpu" -v c="$epcpu" -v n="$n" \
			'BEGIN { printf "%.2f", (a + b + c) * 1000 / n }')
	else
		apcpu=- epcpu=- per=-
	fi
	printf '%-10s %7s %6s %8s %8s %7s %7s %9s %14s\n' "$mode" "$k" "$n" "$secs" "$tps" "$dbcpu" \
		"$apcpu" "$epcpu" "$per"
done
