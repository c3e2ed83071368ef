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

# n = 1..N from bench_numbers as x.n; every 5th user and every 4th host
# without credit, every 3rd user in a team, every other one showing hosts.
fill() {
	local t0=$EPOCHREALTIME
	say "filling: $NUSERS users, $NTEAMS teams, $NHOSTS hosts, $NRESULTS results"
	sql -e "
	INSERT INTO user (create_time, email_addr, name, authenticator, country, url, total_credit,
		expavg_credit, expavg_time, teamid, show_hosts, has_profile, cross_project_id)
	SELECT 1600000000 + x.n, CONCAT('user', x.n, '@example.org'), CONCAT('Volunteer ', x.n),
		MD5(CONCAT('auth', x.n)), IF(x.n % 7 = 0, 'Germany', ''),
		IF(x.n % 11 = 0, CONCAT('https://example.org/~', x.n), ''),
		IF(x.n % 5 = 0, 0, x.n * 13.37), IF(x.n % 5 = 0, 0, x.n % 997 + 0.5),
		1700000000 + x.n, IF(x.n % 3 = 0, x.n % $NTEAMS + 1, 0), x.n % 2, x.n % 13 = 0,
		MD5(CONCAT('cpid', x.n))
	FROM ($(bench_numbers "$NUSERS")) x;
	INSERT INTO team (create_time, userid, name, name_lc, url, type, description, country,
		total_credit, expavg_credit, expavg_time)
	SELECT 1600000000 + x.n, x.n, CONCAT('Team ', x.n), CONCAT('team ', x.n),
		'https://team.example.org/', x.n % 8, 'We crunch & <compute> together', 'Norway',
		x.n * 101.5, x.n % 331 + 0.25, 1700000000 + x.n
	FROM ($(bench_numbers "$NTEAMS")) x;" || return 1
	sql -e "
	INSERT INTO host (create_time, userid, rpc_time, total_credit, expavg_credit, expavg_time,
		timezone, domain_name, p_ncpus, p_vendor, p_model, p_fpops, p_iops, p_membw,
		os_name, os_version, m_nbytes, m_cache, m_swap, d_total, d_free, n_bwup, n_bwdown,
		avg_turnaround, credit_per_cpu_sec, host_cpid, misc)
	SELECT 1600000000 + x.n, x.n % $NUSERS + 1, 1700000000 + x.n, IF(x.n % 4 = 0, 0, x.n * 3.25),
		IF(x.n % 4 = 0, 0, x.n % 500 + 0.125), 1700000000 + x.n, 3600, CONCAT('host', x.n),
		4 + x.n % 60, 'GenuineIntel', 'Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz [Family 6 Model 79]',
		4.1e9, 1.2e10, 1e9, 'Linux Debian', 'Debian GNU/Linux 12 (bookworm) [6.1.0-18-amd64]',
		3.3e10, 3.5e7, 2e9, 5e11, 2.5e11, 1e7, 5e7, 36000 + x.n % 1000, 0.0001,
		MD5(CONCAT('host', x.n)), ''
	FROM ($(bench_numbers "$NHOSTS")) x;" || return 1
	sql -e "
	INSERT INTO result (create_time, workunitid, server_state, outcome, hostid, userid, name,
		report_deadline, sent_time, received_time, granted_credit, appid)
	SELECT 1700000000 + x.n, x.n, 5, 1, x.n % $NHOSTS + 1, x.n % $NUSERS + 1,
		CONCAT('bench_', x.n, '_0'), 1700086400 + x.n, 1700000000 + x.n, 1700003600 + x.n,
		x.n % 50 + 0.5, 1
	FROM ($(bench_numbers "$NRESULTS")) x;" || return 1
	sql -e "ANALYZE TABLE user, team, host, result" >/dev/null || return 1
	say "filled in $(seconds_since "$t0") s"
}

fill || die "filling the database failed"
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
