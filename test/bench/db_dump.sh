#!/bin/bash
# Benchmark of db_dump, the statistics export: the time it takes to write
# tables.xml, user.gz, team.gz and host.gz from a project the size issue 13
# names -- 100,000 users, 200,000 hosts, 1,000,000 results -- and teams. It
# starts a private sandbox (no daemons), fills the tables with INSERT ...
# SELECT (most users and hosts with credit, as on a live project), lets
# InnoDB settle, and times several runs of db_dump. After the runs it checks
# (untimed) that the export's counts and credit equal the database's. A
# benchmark, not a test: it prints figures and fails only when something
# goes wrong. See doc/bench.md.
set -u

prog=db_dump.sh
usage() {
	cat <<EOT
usage: $prog [options]
  -u N          users (default: 100000)
  -H N          hosts (default: 200000)
  -t N          teams (default: 5000)
  -r N          results (default: 1000000)
  -n N          timed runs (default: 3)
  -o OPTIONS    more db_dump options (e.g. "--batch 5000 --compression_level 1")
  -d DIR        sandbox directory (default: \$WSEQ_BUILDDIR/test/trash.bench-db_dump)
  -k            keep the sandbox running at the end (stop it with wseq_sandbox down DIR/sb)
  -h            this text
environment: WSEQ_BUILDDIR, the build to measure (default: _build_bench if it
exists, else _build); WSEQ_SRCDIR, the source tree (default: this script's).
EOT
}

NUSERS=100000 NHOSTS=200000 NTEAMS=5000 NRESULTS=1000000 NRUNS=3 OPTS= DIR= KEEP=0
while getopts u:H:t:r:n:o:d:kh opt; do
	case $opt in
	u) NUSERS=$OPTARG ;; H) NHOSTS=$OPTARG ;; t) NTEAMS=$OPTARG ;; r) NRESULTS=$OPTARG ;;
	n) NRUNS=$OPTARG ;; o) OPTS=$OPTARG ;; d) DIR=$OPTARG ;; k) KEEP=1 ;;
	h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
	esac
done

. "$(dirname "$0")/bench-lib.sh"
[ "$NUSERS" -ge 1 ] && [ "$NHOSTS" -ge 1 ] && [ "$NTEAMS" -ge 1 ] || die "-u, -H and -t must be at least 1"
bench_init db_dump
[ -x "$WSEQ_LIBEXECDIR/db_dump" ] || die "$WSEQ_BUILDDIR has no db_dump (run make there)"
bench_sandbox_up

# --- the database ----------------------------------------------------------------

bench_fill_volunteers "$NUSERS" "$NTEAMS" "$NHOSTS" "$NRESULTS" || die "filling the database failed"
bench_settle

# --- runs --------------------------------------------------------------------------

RUNS=()
for ((k = 1; k <= NRUNS; k++)); do
	TIMEFORMAT='%U %S'
	db0=$(bench_db_cpu)
	t0=$EPOCHREALTIME
	{ time { (cd "$PROJECT_DIR" && exec bin/db_dump $OPTS) >"$WORK/run.$k" 2>&1; }; } 2>"$WORK/cpu.$k" ||
		{ cat "$WORK/run.$k" >&2; die "db_dump failed"; }
	secs=$(seconds_since "$t0")
	db1=$(bench_db_cpu)
	cpu=$(awk '{ printf "%.1f", $1 + $2 }' "$WORK/cpu.$k")
	dbcpu=$(awk -v a="$db0" -v b="$db1" 'BEGIN { printf "%.1f", b - a }')
	RUNS+=("$(printf '%-4s %9s %12s %14s' "$k" "$secs" "$cpu" "$dbcpu")")
	say "run $k: $secs s"
done

# Untimed: the export's counts and credit are the database's.
STATS=$PROJECT_DIR/html/stats
python3 "$WSEQ_SRCDIR/test/data/stats/stats_read.py" summary "$STATS" >"$WORK/summary" ||
	die "the export does not parse"
for t in user team host; do
	case $t in host) w="total_credit>0 AND userid<>0" ;; *) w="total_credit>0" ;; esac
	sql -e "SELECT CONCAT('${t}s ', COUNT(*), ' ', CAST(SUM(total_credit) AS DECIMAL(30,6)))
		FROM $t WHERE $w"
done | sort >"$WORK/expect"
grep -E '^(users|teams|hosts) ' "$WORK/summary" | sort >"$WORK/actual"
cmp -s "$WORK/expect" "$WORK/actual" ||
	{ diff "$WORK/expect" "$WORK/actual" >&2; die "the export's counts or credit differ from the database's"; }

cat <<EOT

db_dump benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), source at commit $commit
machine:   $(bench_machine)
build:     $WSEQ_BUILDDIR: $build
database:  $(sql -e "select count(*) from user") users ($(sql -e "select count(*) from user where total_credit>0") with credit), $(sql -e "select count(*) from team") teams, $(sql -e "select count(*) from host") hosts ($(sql -e "select count(*) from host where total_credit>0") with credit), $(sql -e "select count(*) from result") results
db_dump:   ${OPTS:-default options}
export:    $(cd "$STATS" && for f in tables.xml user.gz team.gz host.gz; do printf '%s %s  ' "$f" "$(du -h "$f" | cut -f1)"; done)

run    seconds  CPU db_dump  CPU MariaDB (s)
EOT
printf '%s\n' "${RUNS[@]}"
echo
echo "the export's counts and credit sums equal the database's: checked after the runs"
exit 0
