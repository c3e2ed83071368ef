#!/bin/bash
# The database's own floor under the scheduler: what MariaDB charges for one
# statement of each shape a scheduler RPC runs (one report, one job sent), on
# the database sched_load.sh uses (the sample app and -u unsent results), from
# one connection and from -t at once, each prepared once and executed many
# times with nothing else in between (test/bench/db_floor, C). Against the
# DB ms an RPC of sched_load.sh, it says how much of the scheduler's database
# time is the statements themselves and how much is their running together
# under load. A benchmark, not a test. See doc/bench.md.
set -u

prog=db_floor.sh
usage() {
	cat <<EOF2
usage: $prog [options]
  -u N     unsent results in the database (default: 100000)
  -t N     connections at once in the second run (default: 8)
  -n N     executions of each statement a connection (default: 2000)
  -d DIR   sandbox directory (default: \$WSEQ_BUILDDIR/test/trash.bench-db_floor)
  -k       keep the sandbox running at the end
  -h       this text
environment: WSEQ_BUILDDIR, the build (default: _build_bench if it exists, else _build)
EOF2
}
UNSENT=100000 THREADS=8 COUNT=2000 KEEP=0
while getopts "u:t:n:d:kh" o; do
	case $o in
	u) UNSENT=$OPTARG ;; t) THREADS=$OPTARG ;; n) COUNT=$OPTARG ;; d) DIR=$OPTARG ;;
	k) KEEP=1 ;; h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
	esac
done

. "$(dirname "$0")/bench-lib.sh"
bench_init db_floor
FLOOR=$WSEQ_BUILDDIR/test/bench/db_floor
[ -x "$FLOOR" ] || die "$WSEQ_BUILDDIR has no test/bench/db_floor (run make there)"
bench_sandbox_up
say "registering the sample app, creating $UNSENT unsent results"
bench_setup_app >"$DIR/setup.log" 2>&1 && bench_unsent_work "$UNSENT" >>"$DIR/setup.log" 2>&1 ||
	{ cat "$DIR/setup.log" >&2; die "setup failed"; }
# a host and a sequence for each connection, rows of their own
sql -e "INSERT INTO host (userid, domain_name) SELECT 1, CONCAT('floor', seq) FROM seq_1_to_64" ||
	die "cannot make the hosts"
bench_settle

host=$(sql -e "select min(id) from host")
user=$(sql -e "select min(id) from user")
res=$(sql -e "select min(id) from result where server_state=2")
wu=$(sql -e "select min(workunitid) from result where server_state=2")
cols() { bench_columns "$1"; }
# Statements of a one-job RPC, in the order the scheduler runs them (its
# general log); a report and a claim are the same row update here: both move
# a result's server_state and so its secondary index entries. Rows are
# 1,000 apart for each connection, past the results the candidate read locks.
# Claiming ahead (issue 34) replaces the candidate read of most one-job RPCs
# by one read of 6 + 32 and a lease of 32 every 32 jobs or so a process sends.
cat >"$WORK/statements" <<EOT
round trip (DO ?)|1|0|DO ?
account by key|$user|0|SELECT $(cols user) FROM user WHERE id=?
host, locked|$host|1|SELECT $(cols host) FROM host WHERE id=? FOR UPDATE
reported result|$((res + 50000))|1000|SELECT $(cols result) FROM result WHERE id=?
report/claim: result state|$((res + 50000))|1000|UPDATE result SET server_state=IF(server_state=2,4,2), sent_time=sent_time+1 WHERE id=?
touch workunit|$((wu + 50000))|1000|UPDATE workunit SET transition_time=transition_time+1 WHERE id=?
host's sequences|$host|1|SELECT $(cols sequence) FROM sequence WHERE hostid=? AND state=0 ORDER BY id
host's segments|$host|1|SELECT $(cols result) FROM result WHERE hostid=? AND server_state=4 AND seq_id<>0 ORDER BY id
free sequences, locked|1|0|SELECT $(cols sequence) FROM sequence WHERE state=0 AND hostid=0 AND need_relocate=0 ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED
candidates, locked (6)|6|0|SELECT $(cols result) FROM result WHERE server_state=2 AND lease_until<? ORDER BY priority DESC, id LIMIT ? FOR UPDATE SKIP LOCKED
candidates and 32 ahead, locked (38)|38|0|SELECT $(cols result) FROM result WHERE server_state=2 AND lease_until<? ORDER BY priority DESC, id LIMIT ? FOR UPDATE SKIP LOCKED
lease of 32 results|$((res + 50000))|1000|UPDATE result SET lease_until=lease_until+1 WHERE id>=? AND id<?+32 AND server_state=2
candidate workunit|$((wu + 50000))|1000|SELECT $(bench_prefixed workunit "$(cols workunit)") FROM workunit LEFT JOIN result r FORCE INDEX (res_wuid) ON r.workunitid=workunit.id AND r.hostid=? WHERE workunit.id IN (?) AND r.id IS NULL
host update|$host|1|UPDATE host SET rpc_time=rpc_time+1, rpc_seqno=rpc_seqno+1 WHERE id=?
EOT
dbpid=$(cat "$SB/mysql/mariadbd.pid" 2>/dev/null)
for t in 1 "$THREADS"; do
	echo
	echo "$t connection(s), $COUNT executions each; CPU microseconds a statement:"
	"$FLOOR" --socket "$WSEQ_DB_SOCKET" --user "$WSEQ_DB_USER" --db "$WSEQ_DB_NAME" \
		--threads "$t" --count "$COUNT" ${dbpid:+--cpu-pid "$dbpid"} "$WORK/statements" ||
		die "db_floor failed"
done
echo
echo "build: $build; commit $commit; $(bench_machine)"
