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

die() { echo "$prog: $*" >&2; exit 1; }
say() { echo "$prog: $*" >&2; }

: "${WSEQ_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
if [ -z "${WSEQ_BUILDDIR:-}" ]; then
	if [ -d "$WSEQ_SRCDIR/_build_bench" ]; then WSEQ_BUILDDIR=$WSEQ_SRCDIR/_build_bench
	else WSEQ_BUILDDIR=$WSEQ_SRCDIR/_build; fi
fi
WSEQ_BUILDDIR=$(cd "$WSEQ_BUILDDIR" 2>/dev/null && pwd) || die "no build directory (set WSEQ_BUILDDIR)"
[ -x "$WSEQ_BUILDDIR/stage/libexec/cgi-bin/cgi" ] || die "$WSEQ_BUILDDIR has no built scheduler (run make there)"
for p in curl mariadb awk; do command -v $p >/dev/null || die "$p not found"; done
[ -n "${EPOCHREALTIME:-}" ] || die "bash 5 or later is needed (EPOCHREALTIME)"

# Programs from the build tree, as in test/test-lib.sh.
PATH="$WSEQ_BUILDDIR/stage/bin:$WSEQ_BUILDDIR/stage/libexec:$PATH"
WSEQ_LIBEXECDIR=$WSEQ_BUILDDIR/stage/libexec
WSEQ_DATADIR=$WSEQ_BUILDDIR/stage/share
export PATH WSEQ_SRCDIR WSEQ_BUILDDIR WSEQ_LIBEXECDIR WSEQ_DATADIR
unset WSEQ_TIME_OFFSET WSEQ_TIME_OFFSET_FILE

san=$(sed -n 's/^SAN_CFLAGS = *//p' "$WSEQ_BUILDDIR/Makefile")
cflags=$(sed -n 's/^CFLAGS = *//p' "$WSEQ_BUILDDIR/Makefile")
case "$san" in
*-fsanitize*) build="sanitizers ($san), CFLAGS $cflags -- timings are inflated" ;;
*) build="no sanitizers, CFLAGS $cflags" ;;
esac

: "${DIR:=$WSEQ_BUILDDIR/test/trash.bench-sched_rpc}"
WORK=$DIR/work
SB=$DIR/sb
[ -e "$SB" ] && wseq_sandbox down "$SB" >/dev/null 2>&1
rm -rf "$DIR" && mkdir -p "$WORK" || die "cannot make $DIR"
# Apache runs the CGI as www-data: the sandbox must be reachable by it.
chmod 755 "$DIR"

cleanup() {
	[ "$KEEP" = 1 ] && { say "sandbox kept running in $SB"; return; }
	wseq_sandbox down "$SB" >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

commit=$(git -C "$WSEQ_SRCDIR" rev-parse --short HEAD 2>/dev/null || echo '?')
say "build $WSEQ_BUILDDIR: $build"
say "starting the sandbox in $SB"
wseq_sandbox up "$SB" --no-daemons 2>"$DIR/sandbox.log" || { cat "$DIR/sandbox.log" >&2; exit 1; }
eval "$(wseq_sandbox env "$SB")"
SCHED="${PROJECT_URL%wseq/}wseq_cgi/cgi"
PLATFORM=x86_64-pc-linux-gnu

sql() {
	mariadb --socket="$WSEQ_DB_SOCKET" -u"$WSEQ_DB_USER" -p"$WSEQ_DB_PASSWD" \
		--batch --skip-column-names "$WSEQ_DB_NAME" "$@"
}

# --- the project: the sample app and UNSENT unsent results ------------------

# The sample app as test_setup_sample_app in test/test-lib.sh registers it.
setup_app() {
	local vdir="$PROJECT_DIR/apps/wseq_sample/wseq_sample_1.00_$PLATFORM"

	mkdir -p "$vdir" &&
	cp "$WSEQ_LIBEXECDIR/apps/wseq_sample" "$vdir/wseq_sample_1.00_$PLATFORM" &&
	cat >"$PROJECT_DIR/project.xml" <<-EOT &&
	<boinc>
	  <app><name>wseq_sample</name><user_friendly_name>wseq sample</user_friendly_name></app>
	  <platform><name>$PLATFORM</name><user_friendly_name>Linux x86_64</user_friendly_name></platform>
	</boinc>
	EOT
	cp "$WSEQ_SRCDIR/apps/templates/wseq_sample_in" "$WSEQ_SRCDIR/apps/templates/wseq_sample_out" \
		"$PROJECT_DIR/templates/" &&
	(cd "$PROJECT_DIR" && bin/xadd && bin/update_versions)
}

# A few real workunits (create_work, then the transitioner makes their
# results), then copies of them made in SQL up to UNSENT results: each copy
# is a workunit of its own with one unsent result, its names (and the names
# inside its xml_doc and xml_doc_in) made unique. The input files stay
# shared, as they may be in a real project.
NREAL=4
fill_db() {
	local i copies=$((UNSENT - NREAL)) wcols rcols

	for i in $(seq 1 $NREAL); do echo "bench input $i" >"$WORK/in$i"; done
	(cd "$PROJECT_DIR" && for i in $(seq 1 $NREAL); do
		bin/create_work --appname wseq_sample --wu_name bench$i --min_quorum 1 --target_nresults 1 \
			--rsc_fpops_est 1e9 --delay_bound 86400 "$WORK/in$i" || exit 1
	done && bin/transitioner --one_pass) || return 1
	[ "$(sql -e "select count(*) from result where server_state=2")" = $NREAL ] ||
		{ echo "the transitioner made no results" >&2; return 1; }
	[ $copies -gt 0 ] || return 0

	# Every column but those we set, so the copies follow the schema.
	wcols=$(sql -e "select group_concat(column_name order by ordinal_position) from information_schema.columns
		where table_schema=database() and table_name='workunit' and column_name not in ('id','name','xml_doc')")
	rcols=$(sql -e "select group_concat(column_name order by ordinal_position) from information_schema.columns
		where table_schema=database() and table_name='result'
		and column_name not in ('id','name','workunitid','xml_doc_in')")
	# Numbers from MariaDB's sequence engine, else from a cross join.
	if sql -e "select count(*) from seq_1_to_10" >/dev/null 2>&1; then
		nums="select seq as n from seq_1_to_$copies"
	else
		sql -e "create table bench_digit (d int primary key);
			insert into bench_digit values (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)" || return 1
		nums="select a.d + 10*b.d + 100*c.d + 1000*d.d + 10000*e.d + 100000*f.d + 1 as n
			from bench_digit a, bench_digit b, bench_digit c, bench_digit d, bench_digit e, bench_digit f
			having n <= $copies"
	fi
	# The templates are copied to temporary tables first: an INSERT that
	# selects from its own table buffers the whole SELECT in a temporary file.
	sql -e "
		create temporary table bench_tpl as
			select row_number() over (order by w.id) - 1 as k, w.id as wuid, w.name as wuname,
				r.id as resid, r.name as resname
			from workunit w join result r on r.workunitid = w.id
			where w.name like 'bench_' and r.server_state = 2;
		create temporary table bench_wu as select * from workunit where id in (select wuid from bench_tpl);
		create temporary table bench_res as select * from result where id in (select resid from bench_tpl);
		insert into workunit (name, xml_doc, $wcols)
			select concat(t.wuname, '_c', s.n), replace(w.xml_doc, t.wuname, concat(t.wuname, '_c', s.n)),
				$(echo "$wcols" | sed 's/[a-z0-9_]\+/w.&/g')
			from ($nums) s join bench_tpl t on t.k = s.n % $NREAL join bench_wu w on w.id = t.wuid;
		insert into result (name, workunitid, xml_doc_in, $rcols)
			select concat(w.name, '_0'), w.id, replace(r.xml_doc_in, t.resname, concat(w.name, '_0')),
				$(echo "$rcols" | sed 's/[a-z0-9_]\+/r.&/g')
			from workunit w join bench_tpl t on w.name like concat(t.wuname, '\\_c%')
				join bench_res r on r.id = t.resid;
		drop table if exists bench_digit;
		analyze table workunit, result;" >/dev/null
}

say "registering the sample app, creating $UNSENT unsent results"
t0=$EPOCHREALTIME
setup_app >"$DIR/setup.log" 2>&1 && fill_db >>"$DIR/setup.log" 2>&1 ||
	{ cat "$DIR/setup.log" >&2; die "setup failed"; }
fill_secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
nwu=$(sql -e "select count(*) from workunit")
nunsent=$(sql -e "select count(*) from result where server_state=2")
[ "$nunsent" = "$UNSENT" ] || die "$nunsent unsent results, not $UNSENT"
if [ -n "$EXTRA_SQL" ]; then
	say "running: $EXTRA_SQL"
	sql -e "$EXTRA_SQL" || die "the SQL of -s failed"
fi

# --- a simulated host --------------------------------------------------------

# The request of host $1 (0: new) with cpid $2 asking for $3 seconds of
# work; $4 is more XML (the key it has, a report).
request() {
	cat <<-EOT
	<scheduler_request>
	<authenticator>$ADMIN_AUTHENTICATOR</authenticator>
	<hostid>$1</hostid>
	<rpc_seqno>$RPC_SEQNO</rpc_seqno>
	<core_client_major_version>7</core_client_major_version>
	<core_client_minor_version>20</core_client_minor_version>
	<core_client_release>5</core_client_release>
	<work_req_seconds>$3</work_req_seconds>
	<cpu_req_secs>$3</cpu_req_secs>
	<cpu_req_instances>0</cpu_req_instances>
	<platform_name>$PLATFORM</platform_name>
	${4:-}
	<host_info>
	    <host_cpid>$2</host_cpid>
	    <domain_name>benchhost-$2</domain_name>
	    <p_ncpus>2</p_ncpus>
	    <p_fpops>1000000000</p_fpops>
	    <m_nbytes>8000000000</m_nbytes>
	    <d_free>100000000000</d_free>
	    <os_name>Linux</os_name>
	</host_info>
	</scheduler_request>
	EOT
}

report() {
	cat <<-EOT
	<result>
	    <name>$1</name>
	    <final_cpu_time>1.5</final_cpu_time>
	    <final_elapsed_time>1.6</final_elapsed_time>
	    <exit_status>0</exit_status>
	    <state>5</state>
	</result>
	EOT
}

# One RPC: request file $1, reply into $2; prints the seconds it took.
# Through Apache: curl's time_total, the transfer alone (curl's own
# start-up is not in it). One connection per request, as the BOINC client.
rpc_http() {
	curl -s -S -0 -H 'Expect:' -o "$2" -w '%{http_code} %{time_total}\n' \
		--data-binary @"$1" "$SCHED" | awk '$1 != 200 { exit 1 } { print $2 }'
}

# Directly: the CGI program from its directory, the request on stdin, as
# Apache runs it (process start-up included, Apache's share not).
rpc_cgi() {
	local t0=$EPOCHREALTIME t1
	(cd "$PROJECT_DIR/cgi-bin" && CONTENT_LENGTH=$(wc -c <"$1") REQUEST_METHOD=POST \
		REMOTE_ADDR=127.0.0.1 GATEWAY_INTERFACE=CGI/1.1 WSEQ_PROJECT_DIR= \
		exec ./cgi) <"$1" >"$2" || return 1
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }'
}

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

# "count median p90 p99 max mean" in ms of the seconds in the files given.
stats() {
	cat "$@" | sort -g | awk '
	{ v[NR] = $1 * 1000; sum += $1 * 1000 }
	function rank(p,  k) { k = int(p * NR + 0.999999); return v[k < 1 ? 1 : k] }
	END {
		if (NR == 0) { print "0 - - - - -"; exit }
		printf "%d %.2f %.2f %.2f %.2f %.2f\n", NR, rank(0.5), rank(0.9), rank(0.99), v[NR], sum / NR
	}'
}

rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", n / (b - a) }'; }

errors() {
	local f n=0
	for f in "$@"; do n=$((n + $(wc -l <"$f"))); done
	echo $n
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

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
cat <<EOT

scheduler RPC benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), source at commit $commit
machine:   $(nproc) CPUs, $cpu; $(mariadb --version | sed 's/.*Distrib \([^,]*\),.*/MariaDB \1/')
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
