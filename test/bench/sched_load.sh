#!/bin/bash
# Benchmark of the scheduler under load: sched_load (the load generator built
# beside this script) runs H simulated hosts, C at a time, for T seconds in
# each mode -- RPCs that ask for nothing, that report one job and get one,
# that report ten and get ten, and those of hosts holding work sequences --
# through Apache with the scheduler under mod_fcgid (as make_project
# configures it when the module is loaded) and as plain CGI. It starts a
# private sandbox (no daemons), fills the database with unsent results,
# prints RPC/s, jobs/s and latency per mode, and after each run checks the
# database against what the hosts were sent and reported: no job sent twice,
# every report recorded as a success. With -g the hosts have an NVIDIA GPU
# and the app 8 versions in 4 plan classes (CPU, mt, cuda, opencl_ati). A
# benchmark, not a test: it fails only when an RPC or a check goes wrong.
# See doc/bench.md.
set -u

prog=sched_load.sh
usage() {
	cat <<EOF
usage: $prog [options]
  -u N          unsent results in the database (default: 100000)
  -H N          simulated hosts (default: 2000)
  -C N          RPCs at once: threads of the load generator (default: 8)
  -T S          seconds measured in each run (default: 20)
  -W S          seconds of warm-up before them, not measured (default: 3)
  -M "MODES"    the modes to run, in this order whatever the order given
                (default: "nowork one ten seq"):
                  nowork  ask for no work, report nothing
                  one     report the job the RPC before got, get one
                  ten     report the ten jobs the RPC before got, get ten
                  seq     hosts holding a work sequence: report segment k (its
                          files listed as sched_seq.sh does), get k+2
  -t fcgi|cgi|both
                the scheduler under mod_fcgid as the sandbox configures it,
                or plain CGI (Apache restarted without mod_fcgid), or both
                runs one after the other (default: both)
  -g            GPU hosts: the app gets 8 versions (1.00 and 1.01) in 4 plan
                classes -- none (CPU), mt, cuda, opencl_ati -- described in
                the project's plan_class_spec.xml (test/data/plan_class/
                mt_cuda_ati.xml, t1490's), and every host's request
                has a <coprocs> with one NVIDIA GPU (the <coproc_cuda> of a
                real 7.20.5 client's H200) and asks the mode's seconds of it
                (req_secs, req_instances 1), none of the CPU (cpu_req_secs 0),
                and the legacy work_req_seconds as an old client would: a
                scheduler that fills each resource's request sends CUDA jobs,
                one that reads only work_req_seconds sends CPU jobs; the mode
                column says +gpu
  -L N          segments of each sequence in the seq runs (default: enough
                for 2,000 RPC/s)
  -l N          the scheduler's FastCGI request limit (WSEQ_FCGI_MAX_REQUESTS,
                and mod_fcgid's MaxRequestsPerProcess where the sandbox sets
                one) for the runs, instead of 10,000: low enough that a run
                crosses every process's renewal (or replacement), whose
                effect the columns max ms, non-200 and procs show
  -s SQL        run SQL on the filled database before measuring (to try an
                index or a setting)
  -d DIR        sandbox directory (default: \$WSEQ_BUILDDIR/test/trash.bench-sched_load)
  -k            keep the sandbox running at the end (stop it with wseq_sandbox down DIR/sb)
  -h            this text
Each transport has its own H hosts (host_cpid fcgi-n or cgi-n), registered by
the first run, before its clock starts; the hosts keep their jobs in hand from
one mode to the next, and before each run's clock each host is brought to the
mode's number of jobs in hand (one or ten), so every measured RPC reports them. The seq run of a transport first makes H sequences, and
each host takes one before the clock starts.
environment: WSEQ_BUILDDIR, the build to measure (default: _build_bench if it
exists, else _build); WSEQ_SRCDIR, the source tree (default: this script's).
EOF
}

UNSENT=100000 NHOSTS=2000 CONC=8 SECS=20 WARM=3 MODES="nowork one ten seq" TRANSPORT=both
NSEG= DIR= KEEP=0 EXTRA_SQL= GPU=0 RLIMIT=
while getopts u:H:C:T:W:M:t:L:l:s:d:gkh opt; do
	case $opt in
	u) UNSENT=$OPTARG ;; H) NHOSTS=$OPTARG ;; C) CONC=$OPTARG ;; T) SECS=$OPTARG ;; W) WARM=$OPTARG ;;
	M) MODES=$OPTARG ;; t) TRANSPORT=$OPTARG ;; L) NSEG=$OPTARG ;; s) EXTRA_SQL=$OPTARG ;;
	l) RLIMIT=$OPTARG ;;
	d) DIR=$OPTARG ;; k) KEEP=1 ;; g) GPU=1 ;;
	h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
	esac
done

. "$(dirname "$0")/bench-lib.sh"
case $TRANSPORT in
fcgi | cgi) TRANSPORTS=$TRANSPORT ;; both) TRANSPORTS="fcgi cgi" ;;
*) die "-t: fcgi, cgi or both" ;;
esac
runmodes=
for m in nowork one ten seq; do
	case " $MODES " in *" $m "*) runmodes="$runmodes $m" ;; esac
done
for m in $MODES; do
	case $m in nowork | one | ten | seq) ;; *) die "-M: unknown mode $m" ;; esac
done
[ -n "$runmodes" ] || die "-M: no mode"
case $RLIMIT in '' | *[!0-9]*) [ -z "$RLIMIT" ] || die "-l: a number of requests" ;; esac
# a host's RPCs in a run at 2,000 RPC/s, its segment 1 and 2 before them, and a margin
: "${NSEG:=$(awk -v h="$NHOSTS" -v t="$((SECS + WARM))" 'BEGIN { printf "%d", 2000 * t / h + 5 }')}"

bench_init sched_load
LOAD=$WSEQ_BUILDDIR/test/bench/sched_load
[ -x "$LOAD" ] || die "$WSEQ_BUILDDIR has no test/bench/sched_load (run make there)"
[ -x "$WSEQ_LIBEXECDIR/create_sequence" ] || die "$WSEQ_BUILDDIR has no create_sequence (run make there)"
bench_sandbox_up
APACHE_CONF=$SB/apache/httpd.conf

say "registering the sample app$([ $GPU = 1 ] && echo " (8 versions, 4 plan classes)"), creating $UNSENT unsent results"
t0=$EPOCHREALTIME
bench_setup_app >"$DIR/setup.log" 2>&1 &&
	{ [ $GPU = 0 ] || bench_setup_gpu_versions >>"$DIR/setup.log" 2>&1; } && bench_unsent_work "$UNSENT" >>"$DIR/setup.log" 2>&1 ||
	{ cat "$DIR/setup.log" >&2; die "setup failed"; }
fill_secs=$(seconds_since "$t0")
nunsent=$(sql -e "select count(*) from result where server_state=2")
[ "$nunsent" = "$UNSENT" ] || die "$nunsent unsent results, not $UNSENT"
if [ -n "$EXTRA_SQL" ]; then
	say "running: $EXTRA_SQL"
	sql -e "$EXTRA_SQL" || die "the SQL of -s failed"
fi
bench_settle
SCHED_CONF=$PROJECT_DIR/wseq.httpd.conf
if [ -n "$RLIMIT" ]; then
	say "the scheduler's FastCGI request limit: $RLIMIT"
	sed -i -e "/cgi-bin\/cgi /s/WSEQ_FCGI_MAX_REQUESTS=[0-9]*/WSEQ_FCGI_MAX_REQUESTS=$RLIMIT/" \
		-e "/cgi-bin\/cgi /s/MaxRequestsPerProcess [1-9][0-9]*/MaxRequestsPerProcess $RLIMIT/" "$SCHED_CONF"
	grep -q "cgi-bin/cgi .*WSEQ_FCGI_MAX_REQUESTS=$RLIMIT" "$SCHED_CONF" || die "-l: no request limit in $SCHED_CONF"
	bench_apache_restart
fi
SCHED_LOG=$PROJECT_DIR/log/scheduler.log

# --- the database against what the hosts were sent -----------------------------

# Over every run so far: jobs the hosts received, reports acknowledged.
RECEIVED=0 REPORTED=0

# check_db: problems, one a line (nothing when all is well). As many
# results in progress or over as the hosts received (none sent that no host
# got); as many successes as reports acknowledged, and no other outcome; no
# workunit with two results sent; and the results in progress exactly those
# the hosts hold, each on the host that holds it (a job sent to two hosts
# is on one of them only).
check_db() {
	local sent over bad inprog multi held=0 f
	read -r sent over bad inprog <<<"$(sql -e "select sum(server_state in (4, 5)),
		sum(server_state = 5 and outcome = 1), sum(server_state = 5 and outcome <> 1),
		sum(server_state = 4) from result")"
	multi=$(sql -e "select count(*) from (select workunitid from result where server_state in (4, 5)
		group by workunitid having count(*) > 1) x")
	[ "$sent" = "$RECEIVED" ] || echo "$sent results sent in the database, $RECEIVED received by the hosts"
	[ "$over" = "$REPORTED" ] || echo "$over results over with success, $REPORTED reports acknowledged"
	[ "$bad" = 0 ] || echo "$bad results over without success"
	[ "$multi" = 0 ] || echo "$multi workunits with more than one result sent"
	# hostid and name of each job in hand, from the generator's state files
	for f in "$WORK"/*.state; do
		[ -f "$f" ] && awk '$1 == "host" { h = $3 } $1 == "job" { print h "\t" $2 }' "$f"
	done | LC_ALL=C sort >"$WORK/held.hosts"
	held=$(wc -l <"$WORK/held.hosts")
	[ "$inprog" = "$held" ] || echo "$inprog results in progress in the database, $held in the hosts' hands"
	sql -e "select hostid, name from result where server_state = 4" | LC_ALL=C sort >"$WORK/held.indb"
	LC_ALL=C comm -3 "$WORK/held.hosts" "$WORK/held.indb" >"$WORK/held.diff"
	[ -s "$WORK/held.diff" ] && echo "$(wc -l <"$WORK/held.diff") jobs in hand not on that host in the database" \
		"(or the reverse), e.g. $(head -n 1 "$WORK/held.diff" | tr '\t' ' ')"
	return 0
}

# How the scheduler runs: persistent processes of cgi-bin/cgi are mod_fcgid's.
sched_transport() {
	local n
	n=$(pgrep -c -f "^$PROJECT_DIR/cgi-bin/cgi( |\$)")
	if [ "${n:-0}" -gt 0 ]; then echo "FastCGI ($n processes)"; else echo "plain CGI"; fi
}

# sample_sched FILE: every 2 s until killed, "seconds pid VmRSS-kB" of each
# FastCGI scheduler process
sample_sched() {
	local p t0=$EPOCHSECONDS
	while :; do
		for p in $(pgrep -f "^$PROJECT_DIR/cgi-bin/cgi( |\$)"); do
			awk -v t=$((EPOCHSECONDS - t0)) -v p="$p" '/^VmRSS:/ { print t, p, $2 }' "/proc/$p/status" 2>/dev/null
		done >>"$1"
		sleep 2
	done
}

# renewals in the scheduler's log
renewals() { grep -c "fastcgi process renews itself" "$SCHED_LOG" 2>/dev/null; }

# run TRANSPORT MODE: one run of the generator; its line of the table into rows.
run() {
	local tr=$1 mode=$2 out=$WORK/$1-$2 rc line how probs dbpid sampler ren0 ren1 procs rss
	local m h c secs rpcs rps jps med p90 p99 max nerr setup all jobs rep held short noseq dbcpu mrep not200
	local cpu0 cpu1 sch0 sch1 web0 web1 sched_pat="^$PROJECT_DIR/cgi-bin/cgi( |\$)"
	if [ "$mode" = seq ]; then
		say "$tr: $NHOSTS sequences of $NSEG segments"
		bench_sequences "${tr}seq" "$NHOSTS" "$NSEG" >>"$DIR/setup.log" 2>&1 ||
			{ tail -n 20 "$DIR/setup.log" >&2; die "cannot make the sequences"; }
		bench_settle
	fi
	say "$tr: $mode, $NHOSTS hosts, $CONC at once, $WARM + $SECS s"
	dbpid=$(cat "$SB/mysql/mariadbd.pid" 2>/dev/null)
	# a FastCGI process that ends during the run takes its ticks with it; one that
	# renews itself keeps its pid and its ticks
	cpu0=$(ticks machine) sch0=$(ticks "$sched_pat") web0=$(ticks "apache2 -f $APACHE_CONF")
	ren0=$(renewals)
	: >"$out.rss"
	sample_sched "$out.rss" &
	sampler=$!
	"$LOAD" ${dbpid:+--cpu-pid "$dbpid"} --url "$SCHED" --auth "$ADMIN_AUTHENTICATOR" --hosts "$NHOSTS" --concurrency "$CONC" \
		--duration "$SECS" --warmup "$WARM" --mode "$mode" --prefix "$tr" --state "$WORK/$tr.state" \
		$([ $GPU = 1 ] && echo --gpu) --csv >"$out.out" 2>"$out.err"
	rc=$?
	kill "$sampler" 2>/dev/null
	wait "$sampler" 2>/dev/null
	ren1=$(renewals)
	# scheduler processes seen, their renewals; the RSS of the first and last samples (MB, all processes)
	procs="$(awk '{ print $2 }' "$out.rss" | sort -u | wc -l)/$((${ren1:-0} - ${ren0:-0}))"
	rss=$(awk 'NR == 1 { t0 = $1 } { s[$1] += $3; last = $1 }
		END { if (NR) printf "%.0f-%.0f", s[t0] / 1024, s[last] / 1024; else printf "-" }' "$out.rss")
	cpu1=$(ticks machine) sch1=$(ticks "$sched_pat") web1=$(ticks "apache2 -f $APACHE_CONF")
	how=$(sched_transport)
	[ $rc -le 1 ] || { cat "$out.err" >&2; die "$tr $mode: sched_load failed"; }
	line=$(tail -n 1 "$out.out")
	IFS=, read -r m h c secs rpcs rps jps med p90 p99 max nerr setup all jobs rep held short noseq dbcpu mrep not200 <<<"$line"
	RECEIVED=$((RECEIVED + jobs)) REPORTED=$((REPORTED + rep))
	check_db >"$out.check"
	probs=$(wc -l <"$out.check")
	[ "${short:-0}" = 0 ] || say "$tr $mode: $short replies with fewer jobs than asked (no unsent work left? -u)"
	[ "${noseq:-0}" = 0 ] || say "$tr $mode: $noseq times a host without a sequence asked and got none"
	[ "$nerr" = 0 ] || { say "$tr $mode: $nerr errors:"; head -n 5 "$out.err" | sed 's/^/  /' >&2; }
	[ "$probs" = 0 ] || { say "$tr $mode: the database does not match:"; sed 's/^/  /' "$out.check" >&2; }
	rows+=("$(printf '%-9s %-10s %6s %7s %7s %8s %7s %8s %8s %8s %8s %7s %7s %7s %7s %7s %7s %8s %11s %6s  %s' "$tr" "$mode$([ $GPU = 1 ] && echo +gpu)" "$secs" "$rpcs" "$rps" \
		"$jps" "$(awk -v r="$mrep" -v n="$rpcs" 'BEGIN { printf "%.2f", n ? r / n : 0 }')" "$med" "$p90" "$p99" "$max" "$(awk -v c="$dbcpu" -v n="$rpcs" 'BEGIN { printf "%.2f", c < 0 || !n ? -1 : c * 1000 / n }')" \
		"$(per_rpc "$sch0" "$sch1" "$all")" "$(per_rpc "$web0" "$web1" "$all")" \
		"$(per_rpc "$cpu0" "$cpu1" "$all")" "$nerr" "${not200:-?}" "$procs" "$rss" "$probs" "$how")")
}

rows=()
for tr in $TRANSPORTS; do
	if [ "$tr" = cgi ]; then
		bench_apache_restart cgi
	elif ! grep -q fcgid "$APACHE_CONF"; then
		say "mod_fcgid is not loaded (libapache2-mod-fcgid): the fcgi runs are plain CGI"
	fi
	for mode in $runmodes; do run "$tr" "$mode"; done
done

cat <<EOT

scheduler load benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), source at commit $commit
machine:   $(bench_machine)
build:     $WSEQ_BUILDDIR: $build
database:  $UNSENT unsent results at the start (made in ${fill_secs} s); now $(sql -e "select count(*) from workunit") workunits,
           $(sql -e "select count(*) from sequence") sequences, $(sql -e "select group_concat(concat(c, ' results in state ', server_state) separator ', ')
	from (select server_state, count(*) c from result group by server_state) s")
${EXTRA_SQL:+extra SQL: $EXTRA_SQL
}versions:  $(sql -e "select count(*) from app_version") of the app; results sent by plan class: $(sql -e "select group_concat(concat(c, ' ', pc)
	separator ', ') from (select if(v.plan_class = '', 'CPU', v.plan_class) pc, count(*) c from result r
	join app_version v on v.id = r.app_version_id where r.server_state in (4, 5) group by pc) s")
hosts:     $([ $GPU = 1 ] && echo "each with 2 CPUs and one NVIDIA H200 (<coproc_cuda>), asking for GPU seconds, none of the CPU, and the legacy work_req_seconds (-g)" ||
	echo "each with 2 CPUs and no coprocessor, asking for CPU work")
load:      $NHOSTS hosts a transport, $CONC RPCs at once, each run $WARM s of warm-up and $SECS s measured;
           HTTP/1.0, a connection an RPC; the scheduler as Apache ran it (last column);
           DB ms: CPU milliseconds of MariaDB an RPC, in the measured seconds; over the whole
           run (set-up and warm-up RPCs too), CPU ms an RPC of the FastCGI scheduler processes
           (sch ms; a CGI process's own is not seen), of Apache (web ms: with mod_cgid it
           does not include the CGI processes) and of the whole machine (all ms: those, the
           load generator, the kernel); errors: replies that failed sched_load's checks;
           db-ck: database checks failed after the run; rep/RPC: reports acknowledged an
           RPC in the measured seconds; max ms: the slowest measured reply, an HTTP error's
           too; non-200: replies whose HTTP status was not 200 (set-up and warm-up too);
           procs: scheduler processes seen (sampled every 2 s) / renewals logged
           (request limit ${RLIMIT:-as configured}); RSS MB: the scheduler processes' resident
           memory, summed, at the first and the last sample

transport mode       secs    RPCs   RPC/s   jobs/s rep/RPC  med ms   p90 ms   p99 ms   max ms   DB ms  sch ms  web ms  all ms  errors non-200    procs      RSS MB  db-ck  scheduler
EOT
printf '%s\n' "${rows[@]}"
nbad=$(cat "$WORK"/*.check 2>/dev/null | wc -l)
nerr=$(printf '%s\n' "${rows[@]}" | awk '{ s += $16 } END { print s + 0 }')
echo
echo "errors: $nerr in the replies, $nbad in the database checks (db-ck)"
[ "$nerr" = 0 ] && [ "$nbad" = 0 ]
