#!/bin/bash
# Benchmark of the scheduler RPC of a host that holds a work sequence: each
# request reports the segment the host finished (its uploaded files listed,
# its sticky state files listed as the BOINC client lists them) and gets the
# next segment, through Apache on loopback, with many other sequences and
# ordinary unsent work in the database. It starts a private sandbox (no
# daemons), fills the database, runs one simulated host for N RPCs and
# prints the figures; then it times the CGI program run directly (no Apache)
# and, optionally, several hosts at once. A benchmark, not a test: it prints
# figures and fails only when an RPC goes wrong. See doc/bench.md.
set -u

prog=sched_seq.sh
usage() {
	cat <<EOT
usage: $prog [options]
  -n N          timed RPCs through Apache, one host (default: 1000)
  -q N          sequences in the database besides the hosts' own (default: 100000)
  -g N          segments of each of those sequences (default: 4)
  -a N          percent of them assigned to other (made-up) hosts (default: 10)
  -u N          ordinary unsent results in the database (default: 100000)
  -w S          seconds of work each request asks for (default: 1, a segment's
                estimate; more gets ordinary jobs too)
  -c N          RPCs run through the CGI program directly (default: 300; 0: skip)
  -p N          hosts at once in the concurrency run (default: 2; 0 or 1: skip)
  -m N          RPCs per host in the concurrency run (default: 300)
  -s SQL        run SQL on the filled database before measuring (to try an
                index or a setting)
  -d DIR        sandbox directory (default: \$WSEQ_BUILDDIR/test/trash.bench-sched_seq)
  -k            keep the sandbox running at the end (stop it with wseq_sandbox down DIR/sb)
  -h            this text
environment: WSEQ_BUILDDIR, the build to measure (default: _build_bench if it
exists, else _build); WSEQ_SRCDIR, the source tree (default: this script's).
EOT
}

N=1000 NSEQ=100000 NSEG=4 ASSIGNED=10 UNSENT=100000 WANT=1 NCGI=300 NPAR=2 MPAR=300 DIR= KEEP=0 EXTRA_SQL=
while getopts n:q:g:a:u:w:c:p:m:s:d:kh opt; do
	case $opt in
	n) N=$OPTARG ;; q) NSEQ=$OPTARG ;; g) NSEG=$OPTARG ;; a) ASSIGNED=$OPTARG ;;
	u) UNSENT=$OPTARG ;; w) WANT=$OPTARG ;; c) NCGI=$OPTARG ;; p) NPAR=$OPTARG ;; m) MPAR=$OPTARG ;;
	s) EXTRA_SQL=$OPTARG ;; d) DIR=$OPTARG ;; k) KEEP=1 ;;
	h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
	esac
done

. "$(dirname "$0")/bench-lib.sh"
NWARM=20        # untimed RPCs of the host first
UPLOAD_EVERY=10 # the long sequences upload their state every 10th segment, their answer every one
NREAL=4         # real other sequences, the templates of the copies
[ "$NSEQ" -ge $NREAL ] || die "-q must be at least $NREAL"
[ "$NPAR" -gt 1 ] || NPAR=0
bench_init sched_seq
[ -x "$WSEQ_LIBEXECDIR/create_sequence" ] || die "$WSEQ_BUILDDIR has no create_sequence (run make there)"
bench_sandbox_up

# --- the project -------------------------------------------------------------------

# One long sequence per simulated host, made first so that they have the
# lowest ids: a new host is given the unassigned sequence with the lowest
# id. Each is long enough for every RPC to get its next segment.
NLONG=$((1 + NPAR))
LONG=$((NWARM + N + NCGI + 2))
[ $((MPAR + 3)) -le $LONG ] || LONG=$((MPAR + 3))
long_sequences() {
	local i
	for i in $(seq 1 $NLONG); do
		(cd "$PROJECT_DIR" && bin/create_sequence --appname wseq_sample --seq_name long$i \
			--segments $LONG --answer_every 1 --state_upload_every $UPLOAD_EVERY --high_water 2 \
			--rsc_fpops_est 1e9 --command_line "--state --steps 5" "$WORK/init/state_out") || return 1
	done
}

# The other sequences: NREAL real ones, then copies; ASSIGNED percent of the
# copies are held by made-up hosts that have their segment 1.
other_sequences() {
	local i
	for i in $(seq 1 $NREAL); do
		(cd "$PROJECT_DIR" && bin/create_sequence --appname wseq_sample --seq_name fs$i \
			--segments "$NSEG" --state_upload_every 2 --rsc_fpops_est 1e9 \
			--command_line "--state --steps 5" "$WORK/init/state_out") || return 1
	done
	bench_copy_sequences fs $((NSEQ - NREAL)) \
		"if(x.n % 100 < $ASSIGNED, 1000000 + x.n % 5000, 0)" || return 1
	sql -e "
		update sequence set first_unsent_seqno=2, assign_time=unix_timestamp() where hostid >= 1000000;
		update result r join sequence s on s.id = r.seq_id
			set r.server_state=4, r.hostid=s.hostid, r.sent_time=unix_timestamp(),
				r.report_deadline=unix_timestamp() + 86400
			where s.hostid >= 1000000 and r.name = concat(s.name, '_b0_s1_0');"
}

say "registering the sample app, $UNSENT unsent results, $NSEQ sequences of $NSEG segments"
t0=$EPOCHREALTIME
{
	bench_setup_app && bench_unsent_work "$UNSENT" &&
	mkdir -p "$WORK/init" && (cd "$WORK/init" &&
		"$WSEQ_LIBEXECDIR/apps/wseq_sample" --state --init --words 64) &&
	long_sequences && other_sequences
} >"$DIR/setup.log" 2>&1 || { cat "$DIR/setup.log" >&2; die "setup failed"; }
fill_secs=$(seconds_since "$t0")
nunsent=$(sql -e "select count(*) from result where server_state=2")
[ "$nunsent" = "$UNSENT" ] || die "$nunsent unsent results, not $UNSENT"
if [ -n "$EXTRA_SQL" ]; then
	say "running: $EXTRA_SQL"
	sql -e "$EXTRA_SQL" || die "the SQL of -s failed"
fi

# --- a simulated host --------------------------------------------------------

# "jobs acks aborts deletes hostid" of a reply, lists comma-separated ("-" for none).
parse_reply() {
	awk '
	function add(l, s) { return l == "" ? s : l "," s }
	function name(s) { sub(/^ *<name>/, "", s); sub(/<\/name>.*$/, "", s); return s }
	/^<result>$/ { inres = 1; first = 1; next }
	/^<\/result>$/ { inres = 0; next }
	/^<result_ack>$/ { inack = 1; next }
	/^<\/result_ack>$/ { inack = 0; next }
	/^<result_abort>$/ { inabort = 1; next }
	/^<\/result_abort>$/ { inabort = 0; next }
	/<name>/ && inres && first { jobs = add(jobs, name($0)); first = 0 }
	/<name>/ && inack { acks = add(acks, name($0)) }
	/<name>/ && inabort { aborts = add(aborts, name($0)) }
	/^<delete_file_info>/ { s = $0; gsub(/<\/?delete_file_info>/, "", s); dels = add(dels, s) }
	/^<hostid>[0-9]+<\/hostid>$/ { h = $0; gsub(/[^0-9]/, "", h) }
	END {
		print (jobs == "" ? "-" : jobs), (acks == "" ? "-" : acks), (aborts == "" ? "-" : aborts),
			(dels == "" ? "-" : dels), (h == "" ? "-" : h)
	}' "$1"
}

# The report of segment $2 of sequence $1 (of $3 segments): a success with
# the file_infos of the outputs it uploaded, as the client lists them.
segment_report() {
	local seq=$1 k=$2 last=$3 files= f
	for f in answer state; do
		[ $f = answer ] || [ $((k % UPLOAD_EVERY)) = 0 ] || [ "$k" = "$last" ] || continue
		files="$files<file_info>
    <name>${seq}_b0_s${k}_$f</name>
    <nbytes>524</nbytes>
    <max_nbytes>10000000</max_nbytes>
    <md5_cksum>0123456789abcdef0123456789abcdef</md5_cksum>
</file_info>
"
	done
	report "${seq}_b0_s${k}_0" "$files"
}

# The sticky files the client holds, as it lists them in every request.
sticky_files() {
	local f
	for f in "$@"; do
		printf '<file_info>\n    <name>%s</name>\n    <nbytes>524</nbytes>\n    <status>1</status>\n</file_info>\n' "$f"
	done
}

# The segments (S_b<b>_s<k>_0) of a list of jobs, comma-separated; the
# ordinary jobs, one a line.
segments() { echo "$1" | tr , '\n' | grep -E '_b[0-9]+_s[0-9]+_0$' | paste -sd,; }
ordinary() { echo "$1" | tr , '\n' | grep -v -E -e '_b[0-9]+_s[0-9]+_0$' -e '^-$'; }

# seq_client NAME N TRANSPORT: host NAME makes a first RPC (registers, is
# given a long sequence and its segments 1 and 2), then N RPCs: each reports
# segment k (and any ordinary jobs the RPC before sent), lists the sticky
# state files the host holds and segment k+1 as still running, and asks
# for WANT seconds of work. The reply must acknowledge what was reported,
# send segment k+2 and no other segment, abort nothing, and delete every
# state file but that of k (the input of k+1). Ordinary jobs in a reply
# (the scheduler may give part of the seconds to ordinary work) are
# counted and reported by the next RPC. Seconds per RPC go to
# $WORK/NAME.times, ordinary jobs received to $WORK/NAME.ordinary,
# problems to $WORK/NAME.errors; the state to continue to $WORK/NAME.state,
# NAME.held (sticky files) and NAME.todo (ordinary jobs to report).
seq_client() {
	local name=$1 n=$2 transport=$3 i t hostid k seq last req rep jobs acks aborts dels h f
	local want wantack segs reports
	local errs=$WORK/$name.errors
	local -a held keep todo
	req=$WORK/$name.req rep=$WORK/$name.reply

	: >"$WORK/$name.times"; : >"$WORK/$name.ordinary"; : >"$errs"
	if [ -s "$WORK/$name.state" ]; then
		read -r hostid k seq last RPC_SEQNO <"$WORK/$name.state"
		mapfile -t held <"$WORK/$name.held"
		mapfile -t todo <"$WORK/$name.todo"
	else
		RPC_SEQNO=1
		request 0 "$name" "$WANT" >"$req"
		rpc_http "$req" "$rep" >/dev/null || { echo "first rpc: HTTP error" >>"$errs"; return 1; }
		read -r jobs acks aborts dels hostid <<<"$(parse_reply "$rep")"
		seq=$(echo "$jobs" | tr , '\n' | sed -n 's/_b0_s1_0$//p')
		segs=$(segments "$jobs")
		mapfile -t todo < <(ordinary "$jobs")
		if [ "$hostid" = - ] || [ "$segs" != "${seq}_b0_s1_0,${seq}_b0_s2_0" ] || [ "${seq#long}" = "$seq" ]; then
			echo "first rpc: jobs $jobs, hostid $hostid" >>"$errs"
			cp "$rep" "$WORK/$name.bad"
			return 1
		fi
		last=$(sql -e "select nsegments from sequence where name='$seq'")
		k=1
		held=("${seq}_b0_s0_state")     # the initial state, downloaded and sticky
	fi
	for ((i = 1; i <= n; i++)); do
		[ "$k" -le "$last" ] || { echo "rpc $i: sequence $seq has no segment $k" >>"$errs"; break; }
		RPC_SEQNO=$((RPC_SEQNO + 1))
		held+=("${seq}_b0_s${k}_state")
		reports=
		for f in "${todo[@]}"; do reports="$reports$(report "$f")
"; done
		request "$hostid" "$name" "$WANT" "<code_sign_key>x</code_sign_key>
$(segment_report "$seq" "$k" "$last")
$reports$(sticky_files "${held[@]}")
<other_results>
<other_result>
    <name>${seq}_b0_s$((k + 1))_0</name>
    <app_version>100</app_version>
</other_result>
</other_results>" >"$req"
		t=$($transport "$req" "$rep") || { echo "rpc $i: transport error" >>"$errs"; break; }
		echo "$t" >>"$WORK/$name.times"
		read -r jobs acks aborts dels h <<<"$(parse_reply "$rep")"
		want=-
		[ $((k + 2)) -le "$last" ] && want="${seq}_b0_s$((k + 2))_0"
		wantack=$(printf '%s\n' "${seq}_b0_s${k}_0" "${todo[@]}" | sed '/^$/d' | sort | paste -sd,)
		acks=$(echo "$acks" | tr , '\n' | sort | paste -sd,)
		segs=$(segments "$jobs")
		mapfile -t todo < <(ordinary "$jobs")
		echo ${#todo[@]} >>"$WORK/$name.ordinary"
		keep=()
		for f in "${held[@]}"; do
			case ",$dels," in *",$f,"*) ;; *) keep+=("$f") ;; esac
		done
		held=("${keep[@]}")
		if [ "${segs:--}" != "$want" ] || [ "$acks" != "$wantack" ] || [ "$aborts" != - ] ||
		   [ "${held[*]}" != "${seq}_b0_s${k}_state" ]; then
			echo "rpc $i (segment $k): jobs $jobs, acks $acks, aborts $aborts, deletes $dels," \
				"still held ${held[*]}" >>"$errs"
			cp "$rep" "$WORK/$name.bad"
			break                   # the host's state no longer follows
		fi
		k=$((k + 1))
	done
	echo "$hostid $k $seq $last $RPC_SEQNO" >"$WORK/$name.state"
	printf '%s\n' "${held[@]}" >"$WORK/$name.held"
	printf '%s\n' "${todo[@]}" | sed '/^$/d' >"$WORK/$name.todo"
}

# --- runs ------------------------------------------------------------------

say "warming up ($NWARM RPCs of the same host)"
seq_client host1 $NWARM rpc_http
[ -s "$WORK/host1.errors" ] && die "warm-up: $(head -n 3 "$WORK/host1.errors")"
say "one host, $N RPCs through Apache"
t0=$EPOCHREALTIME
seq_client host1 "$N" rpc_http
t1=$EPOCHREALTIME
read -r n1 med1 p90_1 p99_1 max1 mean1 <<<"$(stats "$WORK/host1.times")"
wall1=$(rate "$n1" "$t0" "$t1")
serial1=$(awk -v m="$mean1" 'BEGIN { printf "%.0f", 1000 / m }')
err1=$(errors "$WORK/host1.errors")

if [ "$NCGI" -gt 0 ]; then
	say "the same host, $NCGI RPCs through the CGI program directly"
	seq_client host1 "$NCGI" rpc_cgi
	read -r nc medc p90c p99c maxc meanc <<<"$(stats "$WORK/host1.times")"
	errc=$(errors "$WORK/host1.errors")
fi

if [ "$NPAR" -gt 1 ]; then
	say "$NPAR hosts at once, $MPAR RPCs each through Apache"
	for ((k = 1; k <= NPAR; k++)); do      # registered first
		seq_client "par$k" 1 rpc_http
		[ -s "$WORK/par$k.errors" ] && die "par$k: $(head -n 3 "$WORK/par$k.errors")"
	done
	t0=$EPOCHREALTIME
	for ((k = 1; k <= NPAR; k++)); do seq_client "par$k" "$MPAR" rpc_http & done
	wait
	t1=$EPOCHREALTIME
	read -r np medp p90p p99p maxp meanp <<<"$(stats "$WORK"/par*.times)"
	wallp=$(rate "$np" "$t0" "$t1")
	errp=$(errors "$WORK"/par*.errors)
fi

# --- figures -----------------------------------------------------------------

cat <<EOT

scheduler RPC benchmark, a host with a sequence, $(date -u '+%Y-%m-%d %H:%M UTC'), source at commit $commit
machine:   $(bench_machine)
build:     $WSEQ_BUILDDIR: $build
database:  $(sql -e "select count(*) from sequence") sequences ($NLONG long ones of $LONG segments for the simulated hosts,
           $NSEQ of $NSEG segments, $(sql -e "select count(*) from sequence where hostid >= 1000000") of them held by other hosts), $(sql -e "select count(*) from workunit") workunits,
           $(sql -e "select count(*) from result") results ($UNSENT ordinary unsent at the start), $(sql -e "select count(*) from seq_file") seq_file rows; made in ${fill_secs} s
${EXTRA_SQL:+extra SQL: $EXTRA_SQL
}one RPC:   report segment k (its answer uploaded, every ${UPLOAD_EVERY}th its state too), list 2 sticky
           states and segment k+1 running, ask $WANT s of work; get segment k+2 and the
           deletion of state k-1; HTTP/1.0, a connection each

                                   RPCs  median     p90     p99     max    mean (ms)
EOT
printf '%-32s %6s %7s %7s %7s %7s %7s\n' "one host, through Apache" "$n1" "$med1" "$p90_1" "$p99_1" "$max1" "$mean1"
[ "$NCGI" -gt 0 ] &&
	printf '%-32s %6s %7s %7s %7s %7s %7s\n' "one host, CGI run directly" "$nc" "$medc" "$p90c" "$p99c" "$maxc" "$meanc"
[ "$NPAR" -gt 1 ] &&
	printf '%-32s %6s %7s %7s %7s %7s %7s\n' "$NPAR hosts at once, through Apache" "$np" "$medp" "$p90p" "$p99p" "$maxp" "$meanp"
echo
echo "ordinary jobs a reply: $(cat "$WORK"/*.ordinary | awk '{ s += $1 } END { printf "%.2f", NR ? s / NR : 0 }') on average (sent besides the segment, and reported next time)"
echo "RPC/s, one host:      $serial1 back to back (1 / mean), $wall1 by the clock (with the client's own work)"
[ "$NPAR" -gt 1 ] && echo "RPC/s, $NPAR hosts at once: $wallp by the clock"
total_err=$((err1 + ${errc:-0} + ${errp:-0}))
echo "errors:               $total_err"
if [ "$total_err" -gt 0 ]; then
	cat "$WORK"/*.errors | head -n 10 | sed 's/^/  /'
	exit 1
fi
exit 0
