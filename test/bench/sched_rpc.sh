#!/bin/bash
# Benchmark of the scheduler RPC: the time of one request that reports one
# result and gets one new job, through Apache on loopback, with many unsent
# results in the database. It starts a private sandbox (no daemons), fills
# the database, runs one simulated host for N RPCs and prints the figures;
# then it times the CGI program run directly (no Apache) and, optionally,
# several hosts at once. A benchmark, not a test: it prints figures and fails
# only when an RPC goes wrong. See doc/bench.md.
set -u

prog=sched_rpc.sh
usage() {
	cat <<EOT
usage: $prog [options]
  -n N          timed RPCs through Apache, one host (default: 1000)
  -u N          unsent results in the database (default: 100000)
  -c N          RPCs run through the CGI program directly (default: 300; 0: skip)
  -p N          hosts at once in the concurrency run (default: 2; 0 or 1: skip)
  -m N          RPCs per host in the concurrency run (default: 300)
  -s SQL        run SQL on the filled database before measuring (to try an
                index or a setting: -s 'alter table result add key ...')
  -d DIR        sandbox directory (default: \$WSEQ_BUILDDIR/test/trash.bench-sched_rpc)
  -k            keep the sandbox running at the end (stop it with wseq_sandbox down DIR)
  -h            this text
environment: WSEQ_BUILDDIR, the build to measure (default: _build_bench if it
exists, else _build); WSEQ_SRCDIR, the source tree (default: this script's).
EOT
}

N=1000 UNSENT=100000 NCGI=300 NPAR=2 MPAR=300 DIR= KEEP=0 EXTRA_SQL=
while getopts n:u:c:p:m:s:d:kh opt; do
	case $opt in
	n) N=$OPTARG ;; u) UNSENT=$OPTARG ;; c) NCGI=$OPTARG ;;
	p) NPAR=$OPTARG ;; m) MPAR=$OPTARG ;; s) EXTRA_SQL=$OPTARG ;; d) DIR=$OPTARG ;; k) KEEP=1 ;;
	h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
	esac
done

. "$(dirname "$0")/bench-lib.sh"
bench_init sched_rpc
bench_sandbox_up

# --- the project: the sample app and UNSENT unsent results ------------------

say "registering the sample app, creating $UNSENT unsent results"
t0=$EPOCHREALTIME
bench_setup_app >"$DIR/setup.log" 2>&1 && bench_unsent_work "$UNSENT" >>"$DIR/setup.log" 2>&1 ||
	{ cat "$DIR/setup.log" >&2; die "setup failed"; }
fill_secs=$(seconds_since "$t0")
nwu=$(sql -e "select count(*) from workunit")
nunsent=$(sql -e "select count(*) from result where server_state=2")
[ "$nunsent" = "$UNSENT" ] || die "$nunsent unsent results, not $UNSENT"
if [ -n "$EXTRA_SQL" ]; then
	say "running: $EXTRA_SQL"
	sql -e "$EXTRA_SQL" || die "the SQL of -s failed"
fi

# --- a simulated host --------------------------------------------------------

# "jobs job_name ack_name hostid" of a reply ("-" for none).
parse_reply() {
	awk '
	/^<result>$/ { inres = 1; n++; next }
	/^<\/result>$/ { inres = 0; next }
	/^<result_ack>$/ { inack = 1; next }
	/^<\/result_ack>$/ { inack = 0; next }
	/<name>/ && ((inres && job == "") || inack) {
		s = $0; sub(/^ *<name>/, "", s); sub(/<\/name>.*$/, "", s)
		if (inres) job = s; else ack = ack (ack == "" ? "" : ",") s
	}
	/^<hostid>[0-9]+<\/hostid>$/ { h = $0; gsub(/[^0-9]/, "", h) }
	END { print n + 0, job == "" ? "-" : job, ack == "" ? "-" : ack, h == "" ? "-" : h }' "$1"
}

# client NAME N TRANSPORT: host NAME makes a first RPC (registers, gets a
# job), then N RPCs that each report the job of the one before and ask for
# one second of work. Seconds per RPC go to $WORK/NAME.times, problems to
# $WORK/NAME.errors; the state to continue (hostid, job) to $WORK/NAME.state.
client() {
	local name=$1 n=$2 transport=$3 i t hostid job jobs got ack h req rep
	local errs=$WORK/$name.errors
	req=$WORK/$name.req rep=$WORK/$name.reply

	: >"$WORK/$name.times"; : >"$errs"
	RPC_SEQNO=1
	if [ -s "$WORK/$name.state" ]; then
		read -r hostid job <"$WORK/$name.state"
	else
		request 0 "$name" 1 >"$req"
		rpc_http "$req" "$rep" >/dev/null || { echo "first rpc: HTTP error" >>"$errs"; return 1; }
		read -r jobs job ack hostid <<<"$(parse_reply "$rep")"
		[ "$jobs" = 1 ] && [ "$hostid" != - ] ||
			{ echo "first rpc: $jobs jobs, hostid $hostid" >>"$errs"; cp "$rep" "$WORK/$name.bad"; return 1; }
	fi
	for ((i = 1; i <= n; i++)); do
		RPC_SEQNO=$((RPC_SEQNO + 1))
		request "$hostid" "$name" 1 "<code_sign_key>x</code_sign_key>
$(report "$job")" >"$req"
		t=$($transport "$req" "$rep") || { echo "rpc $i: transport error" >>"$errs"; continue; }
		echo "$t" >>"$WORK/$name.times"
		read -r jobs got ack h <<<"$(parse_reply "$rep")"
		if [ "$jobs" != 1 ] || [ "$ack" != "$job" ]; then
			echo "rpc $i: $jobs jobs, ack '$ack' for '$job'" >>"$errs"
			cp "$rep" "$WORK/$name.bad"
			[ "$jobs" = 1 ] || break        # nothing to report next time
		fi
		job=$got
	done
	echo "$hostid $job" >"$WORK/$name.state"
}

# --- runs ------------------------------------------------------------------

say "warming up (20 RPCs)"
client warm 20 rpc_http
say "one host, $N RPCs through Apache"
t0=$EPOCHREALTIME
client host1 "$N" rpc_http
t1=$EPOCHREALTIME
read -r n1 med1 p90_1 p99_1 max1 mean1 <<<"$(stats "$WORK/host1.times")"
wall1=$(rate "$n1" "$t0" "$t1")
serial1=$(awk -v m="$mean1" 'BEGIN { printf "%.0f", 1000 / m }')
err1=$(errors "$WORK/warm.errors" "$WORK/host1.errors")

if [ "$NCGI" -gt 0 ]; then
	say "the same host, $NCGI RPCs through the CGI program directly"
	client host1 "$NCGI" rpc_cgi
	read -r nc medc p90c p99c maxc meanc <<<"$(stats "$WORK/host1.times")"
	errc=$(errors "$WORK/host1.errors")
fi

if [ "$NPAR" -gt 1 ]; then
	say "$NPAR hosts at once, $MPAR RPCs each through Apache"
	for ((k = 1; k <= NPAR; k++)); do client "par$k" 1 rpc_http; done    # registered first
	t0=$EPOCHREALTIME
	for ((k = 1; k <= NPAR; k++)); do client "par$k" "$MPAR" rpc_http & done
	wait
	t1=$EPOCHREALTIME
	read -r np medp p90p p99p maxp meanp <<<"$(stats "$WORK"/par*.times)"
	wallp=$(rate "$np" "$t0" "$t1")
	errp=$(errors "$WORK"/par*.errors)
fi

# --- figures -----------------------------------------------------------------

cat <<EOT

scheduler RPC benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), source at commit $commit
machine:   $(bench_machine)
build:     $WSEQ_BUILDDIR: $build
database:  $nwu workunits, $(sql -e "select group_concat(concat(c, ' in state ', server_state) separator ', ')
	from (select server_state, count(*) c from result group by server_state) s") (results; $UNSENT unsent at the start, made in ${fill_secs} s)
${EXTRA_SQL:+extra SQL: $EXTRA_SQL
}one RPC:   report 1 result (state 5, exit 0), ask 1 s of work, get 1 job; HTTP/1.0, a connection each

                                   RPCs  median     p90     p99     max    mean (ms)
EOT
printf '%-32s %6s %7s %7s %7s %7s %7s\n' "one host, through Apache" "$n1" "$med1" "$p90_1" "$p99_1" "$max1" "$mean1"
[ "$NCGI" -gt 0 ] &&
	printf '%-32s %6s %7s %7s %7s %7s %7s\n' "one host, CGI run directly" "$nc" "$medc" "$p90c" "$p99c" "$maxc" "$meanc"
[ "$NPAR" -gt 1 ] &&
	printf '%-32s %6s %7s %7s %7s %7s %7s\n' "$NPAR hosts at once, through Apache" "$np" "$medp" "$p90p" "$p99p" "$maxp" "$meanp"
echo
echo "RPC/s, one host:      $serial1 back to back (1 / mean), $wall1 by the clock (with the client's own work)"
[ "$NPAR" -gt 1 ] && echo "RPC/s, $NPAR hosts at once: $wallp by the clock"
total_err=$((err1 + ${errc:-0} + ${errp:-0}))
echo "errors:               $total_err"
if [ "$total_err" -gt 0 ]; then
	cat "$WORK"/*.errors | head -n 10 | sed 's/^/  /'
	exit 1
fi
exit 0
