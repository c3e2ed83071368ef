#!/bin/sh
# update_stats, the daily decay of recent average credit: a row idle for
# more than a day decays as BOINC's formula says (halving in a week), a row
# updated within the day and a row with next to no RAC are left alone, and
# total credit never changes. Time runs on with WSEQ_TIME_OFFSET.
test_description='update_stats decays recent average credit'
. "$WSEQ_SRCDIR/test/test-lib.sh"

WEEK=604800

# rac TABLE ID: "expavg_credit expavg_time total_credit", full precision
rac() {
	test_sql_value "SELECT CONCAT(expavg_credit, ' ', expavg_time, ' ', total_credit)
		FROM $1 WHERE id=$2"
}

# decayed OLD NEW: NEW (a rac line) is OLD decayed from OLD's time to NEW's
# time, 2^(-dt/week), to 1e-9; total credit unchanged
decayed() {
	awk -v o="$1" -v n="$2" -v w=$WEEK 'BEGIN {
		split(o, a, " "); split(n, b, " ")
		want = a[1] * exp(-(b[2] - a[2]) * log(2) / w)
		d = b[1] - want; if (d < 0) d = -d
		if (d > 1e-9 * a[1] || a[3] != b[3]) {
			printf "want %.12f (%s after %.0f s), got %s\n", want, a[1], b[2] - a[2], n
			exit 1
		}
	}'
}

test_sandbox_up sb --no-daemons || exit 1

test_expect_success 'a project with idle, fresh and nearly idle users, hosts and teams' '
	now=$(date +%s) &&
	test_sql_value "
	INSERT INTO user (id, email_addr, authenticator, total_credit, expavg_credit, expavg_time)
	VALUES (101, \"idle@x.org\", \"a101\", 500, 100, $now - 2 * 86400),
	       (102, \"fresh@x.org\", \"a102\", 70, 40, $now - 3600),
	       (103, \"faint@x.org\", \"a103\", 9, 0.05, $now - 30 * 86400);
	INSERT INTO host (id, userid, total_credit, expavg_credit, expavg_time)
	VALUES (201, 101, 300, 80, $now - 3 * 86400), (202, 102, 20, 10, $now - 60);
	INSERT INTO team (id, name, name_lc, total_credit, expavg_credit, expavg_time)
	VALUES (301, \"t\", \"t\", 800, 120, $now - 10 * 86400);" &&
	for r in "user 101" "user 102" "user 103" "host 201" "host 202" "team 301"; do
		rac $r >"before.${r% *}.${r#* }" || return 1
	done
'

test_expect_success 'rows idle for more than a day decay as the formula says' '
	test_project bin/update_stats >out &&
	test_grep "^update_stats: 1 hosts decayed$" out &&
	test_grep "^update_stats: 1 users decayed$" out &&
	test_grep "^update_stats: 1 teams decayed$" out &&
	for r in "user 101" "host 201" "team 301"; do
		rac $r >"after.${r% *}.${r#* }" &&
		decayed "$(cat before.${r% *}.${r#* })" "$(cat after.${r% *}.${r#* })" || return 1
	done &&
	set -- $(cat after.user.101) &&
	test $(( ${2%.*} - $(date +%s) )) -le 0 && test $(( $(date +%s) - ${2%.*} )) -lt 60 &&
	awk -v v=$1 "BEGIN { exit !(v > 81.9 && v < 82.1) }"
'

test_expect_success 'a row updated within the last day and one with RAC below 0.1 are untouched' '
	for r in "user 102" "host 202" "user 103"; do
		test "$(rac $r)" = "$(cat before.${r% *}.${r#* })" || return 1
	done
'

test_expect_success 'a second run the same day decays nothing' '
	test_project bin/update_stats >out &&
	test "$(grep -c " 0 .* decayed$" out)" = 3 &&
	test "$(rac user 101)" = "$(cat after.user.101)"
'

test_expect_success 'a week later every idle row has halved, the fresh ones decayed too' '
	WSEQ_TIME_OFFSET=$WEEK test_project bin/update_stats >out &&
	test_grep "^update_stats: 2 users decayed$" out &&
	test_grep "^update_stats: 2 hosts decayed$" out &&
	rac user 101 >week.user.101 &&
	decayed "$(cat after.user.101)" "$(cat week.user.101)" &&
	awk -v o="$(cat after.user.101)" -v n="$(cat week.user.101)" -v w=$WEEK "BEGIN {
		split(o, a, \" \"); split(n, b, \" \")
		dt = b[2] - a[2]; r = b[1] / a[1]
		exit !(dt >= w && dt < w + 60 && r > 0.4999 && r <= 0.5)
	}" &&
	decayed "$(cat before.user.102)" "$(rac user 102)" &&
	decayed "$(cat before.host.202)" "$(rac host 202)" &&
	test "$(rac user 103)" = "$(cat before.user.103)"
'

test_expect_success '--update_users decays only users; --min_age and --min_rac bound what decays' '
	WSEQ_TIME_OFFSET=$((2 * WEEK)) test_project bin/update_stats --update_users >out &&
	test_grep "^update_stats: 2 users decayed$" out &&
	test_grep -v "hosts" out && test_grep -v "teams" out &&
	WSEQ_TIME_OFFSET=$((WEEK + 3600)) test_project bin/update_stats --update_hosts --min_age 7200 >out &&
	test_grep "^update_stats: 0 hosts decayed$" out &&
	WSEQ_TIME_OFFSET=$((WEEK + 3600)) test_project bin/update_stats --update_hosts --min_age 1800 >out &&
	test_grep "^update_stats: 2 hosts decayed$" out &&
	WSEQ_TIME_OFFSET=$((3 * WEEK)) test_project bin/update_stats --update_teams --min_rac 1000 >out &&
	test_grep "^update_stats: 0 teams decayed$" out &&
	test_must_fail test_project bin/update_stats --min_rac -1 2>err &&
	test_grep "min_rac" err
'

test_done
