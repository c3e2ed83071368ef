#!/bin/bash
# Benchmark of the status pages: server_status (HTML), server_status.php?xml=1,
# ?counts=1 and apps, each fetched through Apache from a project the size issue
# 13 names -- 100,000 users, 200,000 hosts, 1,000,000 results -- with a third
# of the results unsent and a fifth in progress, 200,000 workunits and 10,000
# sequences. The app has 8 more versions across 4 plan classes (cuda,
# opencl_ati, mt, and one plan_class_spec.xml does not define), and the
# results are spread over its 9 versions and none, so the count of tasks in
# progress per resource has classes to join. Every counter is a COUNT over
# an index; this measures what that costs. Prints the median and tail of
# each page; fails only when a page does not answer 200. See
# doc/server_status.md.
set -u

prog=status_pages.sh
usage() {
	cat <<EOT
usage: $prog [options]
  -u N          users (default: 100000)
  -H N          hosts (default: 200000)
  -r N          results (default: 1000000)
  -n N          requests of each page (default: 20)
  -d DIR        sandbox directory (default: \$WSEQ_BUILDDIR/test/trash.bench-status_pages)
  -k            keep the sandbox running at the end (stop it with wseq_sandbox down DIR/sb)
  -h            this text
environment: WSEQ_BUILDDIR, the build to measure (default: _build_bench if it
exists, else _build); WSEQ_SRCDIR, the source tree (default: this script's).
EOT
}

NUSERS=100000 NHOSTS=200000 NRESULTS=1000000 NREQ=20 DIR= KEEP=0
while getopts u:H:r:n:d:kh opt; do
	case $opt in
	u) NUSERS=$OPTARG ;; H) NHOSTS=$OPTARG ;; r) NRESULTS=$OPTARG ;; n) NREQ=$OPTARG ;;
	d) DIR=$OPTARG ;; k) KEEP=1 ;;
	h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
	esac
done

. "$(dirname "$0")/bench-lib.sh"
bench_init status_pages
bench_sandbox_up
bench_setup_app >"$WORK/setup_app.log" 2>&1 || die "cannot register the sample app"

# 8 versions of the app beside the one update_versions made, two a class,
# and the classes of three of them.
plan_classes() {
	cat >"$PROJECT_DIR/plan_class_spec.xml" <<-EOT &&
	<plan_classes>
	  <plan_class><name>cuda</name><gpu_type>nvidia</gpu_type><cuda/></plan_class>
	  <plan_class><name>opencl_ati</name><gpu_type>ati</gpu_type><opencl/></plan_class>
	  <plan_class><name>mt</name><min_ncpus>2</min_ncpus><max_threads>16</max_threads></plan_class>
	</plan_classes>
	EOT
	sql -e "
	INSERT INTO app_version (create_time, appid, version_num, platformid, plan_class)
	SELECT 1700000000, 1, 100 + x.n, 1, ELT(1 + x.n % 4, 'cuda', 'opencl_ati', 'mt', 'undefined')
	FROM ($(bench_numbers 8)) x"
}

fill() {
	local t0=$EPOCHREALTIME nwu=$((NRESULTS / 5))
	say "filling: $NUSERS users, $NHOSTS hosts, $NRESULTS results, $nwu workunits"
	sql -e "
	INSERT INTO user (create_time, email_addr, name, authenticator, total_credit, expavg_credit)
	SELECT UNIX_TIMESTAMP() - x.n * 60, CONCAT('user', x.n, '@example.org'),
		CONCAT('Volunteer ', x.n), MD5(CONCAT('auth', x.n)),
		IF(x.n % 5 = 0, 0, x.n * 13.37), IF(x.n % 5 = 0, 0, x.n % 997 + 0.5)
	FROM ($(bench_numbers "$NUSERS")) x;
	INSERT INTO host (create_time, userid, total_credit, expavg_credit)
	SELECT UNIX_TIMESTAMP() - x.n * 30, x.n % $NUSERS + 1, IF(x.n % 4 = 0, 0, x.n * 3.25),
		IF(x.n % 4 = 0, 0, x.n % 500 + 0.125)
	FROM ($(bench_numbers "$NHOSTS")) x;" || return 1
	sql -e "
	INSERT INTO workunit (create_time, appid, name, need_validate, assimilate_state,
		file_delete_state, transition_time)
	SELECT 1700000000 + x.n, 1, CONCAT('bench_wu_', x.n), x.n % 50 = 0, IF(x.n % 40 = 0, 1, 2),
		IF(x.n % 30 = 0, 1, 0), UNIX_TIMESTAMP() + x.n
	FROM ($(bench_numbers "$nwu")) x;
	INSERT INTO result (create_time, workunitid, server_state, hostid, userid, name, appid,
		file_delete_state, app_version_id)
	SELECT 1700000000 + x.n, x.n % $nwu + 1, CASE WHEN x.n % 10 < 3 THEN 2
		WHEN x.n % 10 < 5 THEN 4 ELSE 5 END, x.n % $NHOSTS + 1, x.n % $NUSERS + 1,
		CONCAT('bench_', x.n, '_0'), 1, IF(x.n % 25 = 0, 1, 0), FLOOR(x.n / 10) % 10
	FROM ($(bench_numbers "$NRESULTS")) x;
	INSERT INTO sequence (create_time, name, appid, state)
	SELECT 1700000000 + x.n, CONCAT('bench_seq_', x.n), 1, x.n % 3 = 0
	FROM ($(bench_numbers 10000)) x;" || return 1
	sql -e "ANALYZE TABLE user, host, workunit, result, sequence" >/dev/null || return 1
	say "filled in $(seconds_since "$t0") s"
}

plan_classes || die "cannot add the plan classes' versions"
fill || die "filling the database failed"
bench_settle

# One page through Apache: its seconds (curl's time_total), or failure.
page() {
	curl -s -S -o "$WORK/page.out" -w '%{http_code} %{time_total}\n' "${PROJECT_URL}$1" |
		awk '$1 != 200 { exit 1 } { print $2 }'
}

ROWS=()
for p in "server_status" "server_status.php?xml=1" "server_status.php?counts=1" "apps"; do
	f=$WORK/times.$(echo "$p" | tr -c 'a-z0-9\n' _)
	: >"$f"
	page "$p" >/dev/null || die "$p does not answer 200"      # warm-up
	for ((k = 1; k <= NREQ; k++)); do
		page "$p" >>"$f" || die "$p does not answer 200"
	done
	read -r n med p90 p99 max mean <<<"$(stats "$f")"
	ROWS+=("$(printf '%-28s %5s %9s %9s %9s' "$p" "$n" "$med" "$p90" "$max")")
done
page "server_status.php?xml=1" >/dev/null && cp "$WORK/page.out" "$WORK/status.xml"

cat <<EOT

status pages benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), source at commit $commit
machine:   $(bench_machine)
build:     $WSEQ_BUILDDIR: $build
database:  $(sql -e "select count(*) from user") users, $(sql -e "select count(*) from host") hosts, $(sql -e "select count(*) from result") results ($(sql -e "select count(*) from result where server_state=2") unsent, $(sql -e "select count(*) from result where server_state=4") in progress), $(sql -e "select count(*) from workunit") workunits, $(sql -e "select count(*) from sequence") sequences

page                          reqs    median       p90       max   (ms, through Apache)
EOT
printf '%s\n' "${ROWS[@]}"
echo
sed -n 's:^ *<\(results_ready_to_send\|results_in_progress\|users_with_credit\|hosts_with_credit\)>\(.*\)<.*:\1 \2:p' \
	"$WORK/status.xml"
# the tasks in progress per resource, where the page has them
tr -d '\n ' <"$WORK/status.xml" | grep -o '<resource><name>[^<]*</name><in_progress>[0-9]*' |
	sed 's:<resource><name>\(.*\)</name><in_progress>:in progress on \1 :'
# the per-class count alone, as the server runs it
t0=$EPOCHREALTIME
for ((k = 1; k <= NREQ; k++)); do
	sql -e "SELECT COALESCE(app_version.plan_class, ''), COUNT(*) FROM result
		LEFT JOIN app_version ON app_version.id=result.app_version_id
		WHERE result.server_state=4 GROUP BY app_version.plan_class" >/dev/null
done
echo "the per-class GROUP BY alone: $(awk -v a="$t0" -v b="$EPOCHREALTIME" -v n="$NREQ" 'BEGIN { printf "%.1f", (b - a) * 1000 / n }') ms a query (mariadb client, $NREQ runs)"
exit 0
