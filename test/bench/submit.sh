#!/bin/bash
# Benchmark of remote job submission: one batch of N jobs sharing a few
# input files, submitted (1) with boinc_gahp, from the BOINC_SUBMIT request
# line to its result line, and (2) by the submit_batch RPC alone (curl), then
# BOINC_QUERY_BATCHES / query_batch2 over the whole batch. It starts a
# private sandbox (no daemons) and checks, untimed, that every job is in the
# database. A benchmark, not a test: it prints figures and fails only when
# something goes wrong. See doc/bench.md.
set -u

prog=submit.sh
usage() {
	cat <<EOT
usage: $prog [options]
  -n N          jobs in the batch (default: 10000)
  -f N          distinct input files the jobs share (default: 3)
  -q N          timed BOINC_QUERY_BATCHES / query_batch2 of the batch (default: 5)
  -d DIR        sandbox directory (default: \$WSEQ_BUILDDIR/test/trash.bench-submit)
  -k            keep the sandbox running at the end
  -h            this text
environment: WSEQ_BUILDDIR, the build to measure (default: _build_bench if it
exists, else _build); WSEQ_SRCDIR, the source tree (default: this script's).
EOT
}

NJOBS=10000 NFILES=3 NQ=5 DIR= KEEP=0
while getopts n:f:q:d:kh opt; do
	case $opt in
	n) NJOBS=$OPTARG ;; f) NFILES=$OPTARG ;; q) NQ=$OPTARG ;; d) DIR=$OPTARG ;; k) KEEP=1 ;;
	h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
	esac
done

. "$(dirname "$0")/bench-lib.sh"
bench_init submit
bench_sandbox_up
bench_setup_app
URL="${PROJECT_URL%/}/"
AUTH=$ADMIN_AUTHENTICATOR
GAHP=$WSEQ_BUILDDIR/gahp/boinc_gahp
uid=$(sql -e "select id from user where authenticator='$AUTH'")
sql -e "replace into user_submit (user_id, submit_all) values ($uid, 1)" || die "cannot grant submit access"

cd "$WORK" || exit 1
for i in $(seq 1 "$NFILES"); do head -c 100000 /dev/urandom >"in$i.dat"; done

ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }
count_jobs() { sql -e "select count(*) from workunit w join batch b on b.id=w.batch where b.name='$1'"; }

# --- (1) boinc_gahp -----------------------------------------------------------------
gahp_submit_ms= gahp_query_ms=
if [ -x "$GAHP" ]; then
	say "boinc_gahp: one BOINC_SUBMIT of $NJOBS jobs"
	{
		printf 'BOINC_SELECT_PROJECT %s %s\n' "$URL" "$AUTH"
		printf 'BOINC_SUBMIT 2 gbatch wseq_sample %d' "$NJOBS"
		for j in $(seq 1 "$NJOBS"); do
			f=$(( (j % NFILES) + 1 ))
			printf ' gbatch#%d.0 2 --steps 10 1 %s/in%d.dat in' "$j" "$WORK" "$f"
		done
		printf ' NULL NULL NULL NULL NULL NULL\n'
	} >submit.cmd
	gahp_run() {    # gahp_run FILE-OF-COMMANDS WAIT-FOR-REQID: result lines on stdout
		local in=$1 id=$2
		{
			cat "$in"
			while :; do
				sleep 0.05
				echo RESULTS
				if grep -q "^$id " gahp.out 2>/dev/null; then break; fi
			done
			echo QUIT
		} | "$GAHP" >gahp.out 2>gahp.err
	}
	t0=$EPOCHREALTIME
	gahp_run submit.cmd 2
	t1=$EPOCHREALTIME
	grep -q "^2 NULL$" gahp.out || { cat gahp.out gahp.err >&2; die "BOINC_SUBMIT failed"; }
	n=$(count_jobs gbatch)
	[ "$n" = "$NJOBS" ] || die "gahp batch: $n jobs in the database, $NJOBS expected"
	gahp_submit_ms=$(ms "$t0" "$t1")
	printf 'BOINC_SELECT_PROJECT %s %s\nBOINC_QUERY_BATCHES 3 0 1 gbatch\n' "$URL" "$AUTH" >query.cmd
	best=
	for k in $(seq 1 "$NQ"); do
		t0=$EPOCHREALTIME; gahp_run query.cmd 3; t1=$EPOCHREALTIME
		grep -q "^3 NULL [0-9.]* $NJOBS " gahp.out || { head -c 300 gahp.out >&2; die "BOINC_QUERY_BATCHES failed"; }
		m=$(ms "$t0" "$t1"); [ -z "$best" ] || [ "$m" -lt "$best" ] && best=$m
		all="${all:-}$m "
	done
	gahp_query_ms=$best gahp_query_all=$all
else
	say "no $GAHP: the boinc_gahp figures are skipped"
fi

# --- (2) the RPCs alone --------------------------------------------------------------
say "curl: create_batch, query_files, upload_files, submit_batch of $NJOBS jobs"
t0=$EPOCHREALTIME
printf '<create_batch><authenticator>%s</authenticator><batch_name>cbatch</batch_name><app_name>wseq_sample</app_name></create_batch>\n' "$AUTH" >req.xml
b=$(curl -sS -F "request=<req.xml" "${URL}submit_rpc_handler.php" | sed -n 's|.*<batch_id>\([0-9]*\)</batch_id>.*|\1|p')
[ -n "$b" ] || die "create_batch failed"
{
	printf '<upload_files><authenticator>%s</authenticator><batch_id>%s</batch_id>' "$AUTH" "$b"
	for i in $(seq 1 "$NFILES"); do printf '<phys_name>c%s.dat</phys_name>' "$i"; done
	printf '</upload_files>\n'
} >req.xml
args=(); for i in $(seq 1 "$NFILES"); do args+=(-F "file_$((i - 1))=@in$i.dat"); done
curl -sS -F "request=<req.xml" "${args[@]}" "${URL}job_file.php" | grep -q "<success/>" || die "upload_files failed"
{
	printf '<submit_batch><authenticator>%s</authenticator><batch><batch_id>%s</batch_id><app_name>wseq_sample</app_name>\n' "$AUTH" "$b"
	for j in $(seq 1 "$NJOBS"); do
		printf '<job><name>cbatch_%d</name><command_line>--steps 10</command_line><input_file><mode>local_staged</mode><source>c%d.dat</source></input_file></job>\n' "$j" $(( (j % NFILES) + 1 ))
	done
	printf '</batch></submit_batch>\n'
} >submit.xml
t1=$EPOCHREALTIME
curl -sS -F "request=<submit.xml" "${URL}submit_rpc_handler.php" >submit.out
t2=$EPOCHREALTIME
grep -q "<batch_id>$b</batch_id>" submit.out || { head -c 500 submit.out >&2; die "submit_batch failed"; }
n=$(count_jobs cbatch)
[ "$n" = "$NJOBS" ] || die "curl batch: $n jobs in the database, $NJOBS expected"
rpc_submit_ms=$(ms "$t1" "$t2")
printf '<query_batch2><authenticator>%s</authenticator><min_mod_time>0</min_mod_time><batch_name>cbatch</batch_name></query_batch2>\n' "$AUTH" >q.xml
best= all2=
for k in $(seq 1 "$NQ"); do
	t0=$EPOCHREALTIME
	curl -sS -F "request=<q.xml" "${URL}submit_rpc_handler.php" >q.out
	t1=$EPOCHREALTIME
	grep -q "<batch_size>$NJOBS</batch_size>" q.out || die "query_batch2 failed"
	m=$(ms "$t0" "$t1"); [ -z "$best" ] || [ "$m" -lt "$best" ] && best=$m
	all2="$all2$m "
done

echo
echo "submit benchmark, commit $commit, $(date -u +%Y-%m-%d), build: $build"
echo "$NJOBS jobs sharing $NFILES input files of 100 kB; a real MariaDB, Apache on loopback"
echo
printf '%-58s %10s\n' "what" "ms"
[ -n "$gahp_submit_ms" ] && printf '%-58s %10s\n' "boinc_gahp: BOINC_SUBMIT request line -> result line" "$gahp_submit_ms"
[ -n "$gahp_query_ms" ] && printf '%-58s %10s   (all: %s)\n' "boinc_gahp: BOINC_QUERY_BATCHES, best of $NQ" "$gahp_query_ms" "$gahp_query_all"
printf '%-58s %10s\n' "submit_batch RPC alone ($(du -k submit.xml | cut -f1) kB request)" "$rpc_submit_ms"
printf '%-58s %10s   (all: %s)\n' "query_batch2 RPC alone, best of $NQ ($(du -k q.out | cut -f1) kB reply)" "$best" "$all2"
