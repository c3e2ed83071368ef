#!/bin/bash
# Where the time of a scheduler RPC goes under load. On sched_load.sh's
# database (the sample app and -u unsent results), with the scheduler under
# mod_fcgid as the sandbox configures it, the load generator sched_load runs
# each mode twice: once with MariaDB's slow query log catching every
# statement in the measured seconds, summed up by statement shape
# (statements an RPC, mean time, share of all statement time, rows
# examined), and once under perf, on the FastCGI scheduler processes and on
# mariadbd, broken down by shared object and by symbol. Both runs also give
# the CPU an RPC costs MariaDB, the scheduler, Apache and the machine, as
# sched_load.sh does. A benchmark, not a test: it fails only when the load
# generator does. See doc/bench.md.
set -u

prog=sched_profile.sh
usage() {
	cat <<EOF
usage: $prog [options]
  -u N          unsent results in the database (default: 100000)
  -H N          simulated hosts (default: 2000)
  -C N          RPCs at once: threads of the load generator (default: 8)
  -T S          seconds measured in each run (default: 15)
  -W S          seconds of warm-up before them, not measured (default: 3)
  -M "MODES"    the modes to profile, in this order whatever the order given
                (default: "one"): nowork one ten seq, as sched_load.sh's
  -g            GPU hosts, as sched_load.sh's -g: 8 versions in 4 plan classes,
                each request with an NVIDIA GPU asking for GPU seconds
  -d DIR        sandbox directory (default: \$WSEQ_BUILDDIR/test/trash.bench-sched_profile)
  -k            keep the sandbox running at the end (stop it with wseq_sandbox down DIR/sb)
  -h            this text
Each mode runs twice after Apache is restarted and an untimed set-up run
(hosts registered; in seq mode, each given a sequence): with MariaDB's slow
log on (long_query_time=0) for the measured seconds, then with perf record
-F 999 -g on the scheduler's FastCGI processes and on mariadbd for them
(without perf, the second run is left out). The output goes to
DIR/profile.txt too; the slow logs of the measured seconds and the perf data
stay in DIR/work.
environment: WSEQ_BUILDDIR, the build to measure (default: _build_bench if it
exists, else _build); WSEQ_SRCDIR, the source tree (default: this script's).
EOF
}

UNSENT=100000 NHOSTS=2000 CONC=8 SECS=15 WARM=3 MODES=one DIR= KEEP=0 GPU=0
while getopts u:H:C:T:W:M:d:gkh opt; do
	case $opt in
	u) UNSENT=$OPTARG ;; H) NHOSTS=$OPTARG ;; C) CONC=$OPTARG ;; T) SECS=$OPTARG ;; W) WARM=$OPTARG ;;
	M) MODES=$OPTARG ;; d) DIR=$OPTARG ;; k) KEEP=1 ;; g) GPU=1 ;;
	h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
	esac
done

. "$(dirname "$0")/bench-lib.sh"
runmodes=
for m in nowork one ten seq; do
	case " $MODES " in *" $m "*) runmodes="$runmodes $m" ;; esac
done
for m in $MODES; do
	case $m in nowork | one | ten | seq) ;; *) die "-M: unknown mode $m" ;; esac
done
[ -n "$runmodes" ] || die "-M: no mode"
# as sched_load.sh's -L: a host's RPCs at 2,000 RPC/s, here over two runs, and a margin
NSEG=$(awk -v h="$NHOSTS" -v t="$((2 * (SECS + WARM)))" 'BEGIN { printf "%d", 2000 * t / h + 5 }')

bench_init sched_profile
LOAD=$WSEQ_BUILDDIR/test/bench/sched_load
[ -x "$LOAD" ] || die "$WSEQ_BUILDDIR has no test/bench/sched_load (run make there)"
[ -x "$WSEQ_LIBEXECDIR/create_sequence" ] || die "$WSEQ_BUILDDIR has no create_sequence (run make there)"
PERF=1
perf --version >/dev/null 2>&1 || { PERF=0; say "perf not found (Debian: linux-perf): no profiles, the slow log only"; }
[ "$(id -u)" = 0 ] || { [ $PERF = 0 ] || say "not root: perf may not see the scheduler (www-data) or mariadbd"; }
bench_sandbox_up
APACHE_CONF=$SB/apache/httpd.conf
SCHED_PAT="^$PROJECT_DIR/cgi-bin/cgi( |\$)"
OUT=$DIR/profile.txt

say "registering the sample app$([ $GPU = 1 ] && echo " (8 versions, 4 plan classes)"), creating $UNSENT unsent results"
t0=$EPOCHREALTIME
bench_setup_app >"$DIR/setup.log" 2>&1 &&
	{ [ $GPU = 0 ] || bench_setup_gpu_versions >>"$DIR/setup.log" 2>&1; } &&
	bench_unsent_work "$UNSENT" >>"$DIR/setup.log" 2>&1 ||
	{ cat "$DIR/setup.log" >&2; die "setup failed"; }
fill_secs=$(seconds_since "$t0")
nunsent=$(sql -e "select count(*) from result where server_state=2")
[ "$nunsent" = "$UNSENT" ] || die "$nunsent unsent results, not $UNSENT"
grep -q fcgid "$APACHE_CONF" ||
	say "mod_fcgid is not loaded (libapache2-mod-fcgid): the scheduler runs as plain CGI, perf sees none of it"

# MariaDB as root, through the sandbox's socket (root keeps its socket login).
root_sql() {
	mariadb --socket="$WSEQ_DB_SOCKET" -uroot --batch --skip-column-names "$@"
}
lqt0=$(root_sql -e "SELECT @@GLOBAL.long_query_time") || die "cannot reach MariaDB as root on $WSEQ_DB_SOCKET"
bench_settle

# Everything printed goes to DIR/profile.txt as well.
emit() { tee -a "$OUT"; }

emit <<EOT
scheduler RPC profile, $(date -u '+%Y-%m-%d %H:%M UTC'), source at commit $commit
machine:   $(bench_machine)
build:     $WSEQ_BUILDDIR: $build
database:  $UNSENT unsent results at the start (made in ${fill_secs} s)
load:      $NHOSTS hosts$([ $GPU = 1 ] && echo " with an NVIDIA GPU (-g)"), $CONC RPCs at once, each run $WARM s of warm-up and $SECS s measured;
           HTTP/1.0, a connection an RPC; the scheduler under mod_fcgid; the modes:$runmodes
EOT

# slowlog_summary FILE RPCS RPC/S NPROC: the statements of the scheduler's
# database user in MariaDB's slow log FILE by shape, RPCS RPCs measured at
# RPC/S, NPROC scheduler processes.
read -r -d '' SLOWLOG_AWK <<'EOF'
# The shape of a statement: values (numbers, quoted strings, NULL) made ?,
# lists of them (IN, VALUES) made (...), a SELECT's columns made "…".
function shape(s,   t, out, c, d, i, n, depth, up) {
	gsub(/[ \t\r\n]+/, " ", s)
	sub(/^ /, "", s)
	sub(/ ?;? ?$/, "", s)
	# a ? outside strings is a placeholder: the statement is being prepared
	t = s
	gsub(/'([^'\\]|\\.|'')*'/, "", t)
	gsub(/"([^"\\]|\\.|"")*"/, "", t)
	prep = index(t, "?") > 0
	gsub(/'([^'\\]|\\.|'')*'/, "?", s)
	gsub(/"([^"\\]|\\.|"")*"/, "?", s)
	out = ""
	while (match(s, /(0x[0-9A-Fa-f]+|[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?|NULL)/)) {
		t = substr(s, 1, RSTART - 1)
		c = substr(t, length(t), 1)
		n = substr(s, RSTART + RLENGTH, 1)
		if (c ~ /[A-Za-z0-9_$.]/ || n ~ /[A-Za-z0-9_$]/) {
			out = out substr(s, 1, RSTART + RLENGTH - 1)
		} else {
			# a minus sign after an operator, a comma or a parenthesis is the value's
			if (c == "-" && substr(t, length(t) - 1, 1) ~ /[=<>(, ]/)
				t = substr(t, 1, length(t) - 1)
			out = out t "?"
		}
		s = substr(s, RSTART + RLENGTH)
	}
	s = out s
	gsub(/[Ii][Nn] ?\( ?\?( ?, ?\?)* ?\)/, "IN (...)", s)
	gsub(/\( ?\?( ?, ?\?)* ?\)( ?, ?\( ?\?( ?, ?\?)* ?\))+/, "(...)", s)
	if (toupper(substr(s, 1, 7)) == "SELECT ") {
		up = toupper(s)
		depth = 0
		for (i = 8; i <= length(s); i++) {
			d = substr(s, i, 1)
			if (d == "(") depth++
			else if (d == ")") depth--
			else if (depth == 0 && substr(up, i, 6) == " FROM ") {
				s = "SELECT …" substr(s, i)
				break
			}
		}
	}
	return s
}
function flush() {
	if (text == "" || user != dbuser) { text = ""; return }
	k = shape(text)
	if (prep) k = "(prepare) " k
	n[k]++; qt[k] += q; re[k] += rows; all += q; nall++
	if (!(tid in conn)) { conn[tid] = 1; nconn++ }
	if (scan == "Yes") nscan[k]++
	if (fsort == "Yes") nsort[k]++
	if (tmp == "Yes") ntmp[k]++
	text = ""
}
/^# (Time|User@Host): / {
	flush()
	if ($2 == "User@Host:") { user = $3; sub(/\[.*/, "", user); started = 1 }
	next
}
/^# Thread_id: / { tid = $3 }
/^# administrator command: / { text = substr($0, 3); next }
/^# / {
	for (i = 2; i < NF; i++) {
		if ($i == "Query_time:") q = $(i + 1)
		else if ($i == "Rows_examined:") rows = $(i + 1)
		else if ($i == "Full_scan:") scan = $(i + 1)
		else if ($i == "Filesort:") fsort = $(i + 1)
		else if ($i == "Tmp_table:") tmp = $(i + 1)
	}
	if ($2 == "Query_time:") scan = fsort = tmp = "No"
	next
}
!started { next }
text == "" && (/^SET timestamp=[0-9]+;$/ || /^use [^ ]+;$/) { next }
{ text = text (text == "" ? "" : " ") $0 }
END {
	flush()
	for (k in n) {
		plan = (nscan[k] ? "scan " : "") (nsort[k] ? "sort " : "") (ntmp[k] ? "tmp " : "")
		if (plan == "") plan = "-"
		sub(/ $/, "", plan)
		cut = length(k) > 90 ? substr(k, 1, 89) "…" : k
		printf "%.6f\t%8.2f %9.0f %7.1f %9.1f  %-14s %s\n", qt[k], n[k] / rpcs, qt[k] * 1e6 / n[k],
			(all > 0 ? qt[k] * 100 / all : 0), re[k] / n[k], plan, cut
	}
	printf "TOTAL\t%d %.6f %d\n", nall, all, nconn
}
EOF

slowlog_summary() {
	local file=$1 rpcs=$2 rps=$3 lines total nall all nconn
	lines=$(awk -v dbuser="$WSEQ_DB_USER" -v rpcs="$rpcs" "$SLOWLOG_AWK" "$file") ||
		{ echo "  cannot read the slow log $file"; return; }
	total=$(printf '%s\n' "$lines" | sed -n 's/^TOTAL\t//p')
	read -r nall all nconn <<<"$total"
	if [ "${nall:-0}" = 0 ]; then
		echo "  no statement of $WSEQ_DB_USER in $file"
		return
	fi
	awk -v n="$nall" -v t="$all" -v r="$rpcs" -v conc="$CONC" -v rps="$rps" -v c="$nconn" -v p="$4" 'BEGIN {
		printf "  %d statements from %d connections (%d scheduler processes), %.2f an RPC;\n", n, c, p, n / r
		printf "  their time %.2f ms an RPC (Query_time summed),", t * 1000 / r
		printf " of the %.2f ms an RPC took on average (%d at once / %s RPC/s)\n\n", conc * 1000 / rps, conc, rps }'
	echo "  stmt/RPC   mean µs  time %  rows ex  plan           statement (shape)"
	printf '%s\n' "$lines" | grep -v '^TOTAL' | sort -t $'\t' -k1,1gr | cut -f 2- | sed 's/^/  /'
}

# perf_part RC FILE RPCS TITLE: the summary of one perf record (RC its exit
# status), or why there is none
perf_part() {
	if [ "$1" != 0 ] || [ ! -s "$2" ]; then
		echo "  $4: perf record failed:"
		tail -n 5 "$2.log" | sed 's/^/    /'
	else
		perf_summary "$2" "$4" "$3"
	fi
}

# perf_summary DATA WHAT RPCS: DATA's samples by shared object and the top
# 25 symbols.
perf_summary() {
	local data=$1 nsamp
	perf report -i "$data" --no-children --sort dso -g none --stdio -n --percent-limit 0.1 \
		>"$data.dso" 2>"$data.report.err" || { echo "  perf report failed:"; sed 's/^/    /' "$data.report.err" | tail -n 5; return; }
	nsamp=$(awk '!/^#/ && NF { s += $2 } END { print s + 0 }' "$data.dso")
	awk -v n="$nsamp" -v r="$3" -v w="$2" 'BEGIN {
		printf "  %s: %d samples at 999 Hz: %.2f CPU s, %.2f ms an RPC measured\n", w, n, n / 999, r ? n / 999 * 1000 / r : 0 }'
	echo "  by shared object:"
	grep -v '^#' "$data.dso" | grep -v '^[[:space:]]*$' | sed 's/^/  /'
	echo "  top 25 symbols:"
	perf report -i "$data" --no-children --sort dso,sym -g none --stdio 2>>"$data.report.err" |
		grep -v '^#' | grep -v '^[[:space:]]*$' | head -n 25 | cut -c 1-130 >"$data.sym"
	sed 's/^/  /' "$data.sym"
	! grep -q '\] 0x' "$data.sym" ||
		echo "  (an address for a name: that object has no symbol there; its -dbgsym package would name it)"
}

# gen_start MODE OUTPREFIX: the load generator in the background ($gen_pid),
# the CPU ticks noted; back when the warm-up is over.
gen_start() {
	local dbpid
	dbpid=$(cat "$SB/mysql/mariadbd.pid" 2>/dev/null)
	cpu0=$(ticks machine) sch0=$(ticks "$SCHED_PAT") web0=$(ticks "apache2 -f $APACHE_CONF")
	"$LOAD" ${dbpid:+--cpu-pid "$dbpid"} --url "$SCHED" --auth "$ADMIN_AUTHENTICATOR" --hosts "$NHOSTS" --concurrency "$CONC" \
		--duration "$SECS" --warmup "$WARM" --mode "$1" --prefix fcgi --state "$WORK/fcgi.state" \
		$([ $GPU = 1 ] && echo --gpu) --csv >"$2.out" 2>"$2.err" &
	gen_pid=$!
	sleep "$WARM"
}

# gen_end MODE OUTPREFIX RUN: wait for the generator; its line of the table
# into rows, its RPCs measured in $rpcs, RPC/s in $rps, seconds in $secs.
gen_end() {
	local rc med p90 p99 nerr all short noseq dbcpu
	wait "$gen_pid"
	rc=$?
	cpu1=$(ticks machine) sch1=$(ticks "$SCHED_PAT") web1=$(ticks "apache2 -f $APACHE_CONF")
	[ $rc -le 1 ] || { cat "$2.err" >&2; die "$1 ($3): sched_load failed"; }
	IFS=, read -r _ _ _ secs rpcs rps _ med p90 p99 _ nerr _ all _ _ _ short noseq dbcpu _ <<<"$(tail -n 1 "$2.out")"
	[ "${short:-0}" = 0 ] || say "$1 ($3): $short replies with fewer jobs than asked (no unsent work left? -u)"
	[ "${noseq:-0}" = 0 ] || say "$1 ($3): $noseq times a host without a sequence asked and got none"
	[ "$nerr" = 0 ] || { say "$1 ($3): $nerr errors:"; head -n 5 "$2.err" | sed 's/^/  /' >&2; }
	rows+=("$(printf '%-7s %-9s %6s %7s %7s %8s %8s %8s %7s %7s %7s %7s %7s' "$1" "$3" "$secs" "$rpcs" "$rps" \
		"$med" "$p90" "$p99" "$(awk -v c="$dbcpu" -v n="$rpcs" 'BEGIN { printf "%.2f", c < 0 || !n ? -1 : c * 1000 / n }')" \
		"$(per_rpc "$sch0" "$sch1" "$all")" "$(per_rpc "$web0" "$web1" "$all")" \
		"$(per_rpc "$cpu0" "$cpu1" "$all")" "$nerr")")
	NERR=$((NERR + nerr))
}

# profile MODE: the set-up run, the slow-log run and the perf run of MODE.
profile() {
	local mode=$1 out=$WORK/$1 log=$WORK/slow-$1.log t_on t_off spids dbpid p p1 p2 rc1 rc2 later
	local slow_secs slow_rpcs slow_rps
	if [ "$mode" = seq ]; then
		say "$NHOSTS sequences of $NSEG segments"
		bench_sequences "fcgiseq" "$NHOSTS" "$NSEG" >>"$DIR/setup.log" 2>&1 ||
			{ tail -n 20 "$DIR/setup.log" >&2; die "cannot make the sequences"; }
		bench_settle
	fi
	# MariaDB 10.11's slow_query_log is also a session variable, as are
	# long_query_time and log_slow_verbosity: a connection takes them from the
	# global values when it is made, and a FastCGI scheduler keeps its
	# connection from one RPC to the next. So the log is turned on (into a
	# file of its own) and Apache restarted before the set-up run: the
	# scheduler processes it starts connect with the log on.
	root_sql -e "SET GLOBAL slow_query_log_file='$WORK/slow-$mode-before.log', long_query_time=0,
		log_slow_verbosity='query_plan', slow_query_log=1" || die "cannot turn the slow log on"
	bench_apache_restart
	say "$mode: set-up (hosts registered or given their jobs or sequences), untimed"
	"$LOAD" --url "$SCHED" --auth "$ADMIN_AUTHENTICATOR" --hosts "$NHOSTS" --concurrency "$CONC" \
		--duration 0 --mode "$mode" --prefix fcgi --state "$WORK/fcgi.state" \
		$([ $GPU = 1 ] && echo --gpu) >"$out-setup.out" 2>&1
	[ $? -le 1 ] || { cat "$out-setup.out" >&2; die "$mode: the set-up run failed"; }

	say "$mode: slow log, $NHOSTS hosts, $CONC at once, $WARM + $SECS s"
	rm -f "$log"
	gen_start "$mode" "$out-slow"
	t_on=$EPOCHREALTIME
	# the measured seconds in a file of their own
	root_sql -e "SET GLOBAL slow_query_log_file='$log', long_query_time=0, log_slow_verbosity='query_plan', slow_query_log=1" ||
		say "$mode: cannot turn the slow log on"
	sleep "$SECS"
	root_sql -e "SET GLOBAL slow_query_log=0"
	t_off=$EPOCHREALTIME
	gen_end "$mode" "$out-slow" "slow log"
	rm -f "$WORK/slow-$mode-before.log"
	slow_secs=$secs slow_rpcs=$rpcs slow_rps=$rps

	{
		echo
		echo "== $mode: MariaDB's slow log, every statement of the scheduler ($WSEQ_DB_USER) in" \
			"$(awk -v a="$t_on" -v b="$t_off" 'BEGIN { printf "%.1f", b - a }') s of log over $slow_rpcs RPCs measured in $slow_secs s"
		echo "   Query_time is wall time in the server, from the statement's start to its end: on a busy"
		echo "   machine it includes waiting for a CPU and for locks, it is not CPU time. The shapes: values"
		echo "   made ?, IN and VALUES lists made (...), a SELECT's columns made …; sorted by their total"
		echo "   time; time %: share of all statement time; rows ex: mean Rows_examined; plan: some"
		echo "   executions did a full scan, a filesort or a temporary table (log_slow_verbosity=query_plan)"
		echo
		if [ -s "$log" ]; then
			slowlog_summary "$log" "$slow_rpcs" "$slow_rps" "$(pgrep -c -f "$SCHED_PAT")"
		else
			echo "  the slow log $log is empty or missing"
		fi
	} | emit

	[ $PERF = 1 ] || return 0
	say "$mode: perf, $NHOSTS hosts, $CONC at once, $WARM + $SECS s"
	gen_start "$mode" "$out-perf"
	spids=$(pgrep -d , -f "$SCHED_PAT")
	dbpid=$(cat "$SB/mysql/mariadbd.pid" 2>/dev/null)
	p1="" p2=""
	if [ -n "$spids" ]; then
		perf record -F 999 -g -o "$out-sched.perf" -p "$spids" -- sleep "$SECS" >"$out-sched.perf.log" 2>&1 &
		p1=$!
	fi
	if [ -n "$dbpid" ]; then
		perf record -F 999 -g -o "$out-db.perf" -p "$dbpid" -- sleep "$SECS" >"$out-db.perf.log" 2>&1 &
		p2=$!
	fi
	rc1=1 rc2=1
	[ -z "$p1" ] || { wait "$p1"; rc1=$?; }
	[ -z "$p2" ] || { wait "$p2"; rc2=$?; }
	later=0
	for p in $(pgrep -f "$SCHED_PAT"); do
		case ",$spids," in *",$p,"*) ;; *) later=$((later + 1)) ;; esac
	done
	gen_end "$mode" "$out-perf" perf
	{
		echo
		echo "== $mode: perf record -F 999 -g for $SECS s, the scheduler and mariadbd at once;" \
			"$rpcs RPCs measured in $secs s"
		if [ -z "$spids" ]; then
			echo "  the scheduler: no FastCGI process to profile (plain CGI?)"
		else
			[ "$later" = 0 ] || echo "  ($later scheduler processes started after perf did: not profiled)"
			perf_part "$rc1" "$out-sched.perf" "$rpcs" \
				"the scheduler ($(echo "$spids" | tr , '\n' | wc -l) FastCGI processes)"
		fi
		echo
		if [ -z "$dbpid" ]; then
			echo "  mariadbd: no pid in $SB/mysql/mariadbd.pid"
		else
			perf_part "$rc2" "$out-db.perf" "$rpcs" mariadbd
		fi
	} | emit
}

rows=() NERR=0
for mode in $runmodes; do profile "$mode"; done
root_sql -e "SET GLOBAL long_query_time=$lqt0"

emit <<EOT

== CPU an RPC, each run
   DB ms: CPU milliseconds of MariaDB an RPC, in the measured seconds; over the whole run
   (warm-up RPCs too), CPU ms an RPC of the FastCGI scheduler processes (sch ms), of Apache
   (web ms) and of the whole machine (all ms: those, the load generator, perf, the kernel);
   the slow log and perf cost something of their own: the runs are not the bare figures
   of sched_load.sh; errors: replies that failed sched_load's checks

mode    run         secs    RPCs   RPC/s   med ms   p90 ms   p99 ms   DB ms  sch ms  web ms  all ms  errors
$(printf '%s\n' "${rows[@]}")
EOT
[ "$NERR" = 0 ]
