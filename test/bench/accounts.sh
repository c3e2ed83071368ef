#!/bin/bash
# Benchmark of the volunteers' doors through Apache on a project the size
# issue 13 names -- 100,000 users, 200,000 hosts, 1,000,000 results: the
# time of lookup_account.php (the client's and Manager's sign-in: a yescrypt
# check of the password hash) and of the account page (a session, the
# user, the team, the hosts, the recent tasks). Sequential requests, one
# connection each, timed by curl. A benchmark, not a test: it prints
# figures and fails only when a reply is wrong. See doc/bench.md.
set -u

prog=accounts.sh
usage() {
	cat <<EOT
usage: $prog [options]
  -u N          users (default: 100000)
  -H N          hosts (default: 200000)
  -r N          results (default: 1000000)
  -s N          users signing in, spread over the table (default: 50)
  -n N          requests of each kind per user (default: 4)
  -d DIR        sandbox directory (default: \$WSEQ_BUILDDIR/test/trash.bench-accounts)
  -k            keep the sandbox running at the end
  -h            this text
environment: WSEQ_BUILDDIR, the build to measure (default: _build_bench if it
exists, else _build); WSEQ_SRCDIR, the source tree (default: this script's).
EOT
}

NUSERS=100000 NHOSTS=200000 NRESULTS=1000000 NSAMPLE=50 NREQ=4 DIR= KEEP=0
while getopts u:H:r:s:n:d:kh opt; do
	case $opt in
	u) NUSERS=$OPTARG ;; H) NHOSTS=$OPTARG ;; r) NRESULTS=$OPTARG ;; s) NSAMPLE=$OPTARG ;;
	n) NREQ=$OPTARG ;; d) DIR=$OPTARG ;; k) KEEP=1 ;;
	h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
	esac
done

. "$(dirname "$0")/bench-lib.sh"
[ "$NUSERS" -ge "$NSAMPLE" ] || die "-u must be at least -s"
bench_init accounts
[ -x "$WSEQ_LIBEXECDIR/cgi-bin/web" ] || die "$WSEQ_BUILDDIR has no web program (run make there)"
bench_sandbox_up
bench_fill_volunteers "$NUSERS" $((NUSERS / 20 + 1)) "$NHOSTS" "$NRESULTS" || die "filling the database failed"
bench_settle

phash() { printf "%s%s" "$1" "$2" | md5sum | cut -d" " -f1; }

# The sample: users spread over the table, each with a password of its own.
say "setting the passwords of $NSAMPLE users"
SAMPLE=()
for ((k = 0; k < NSAMPLE; k++)); do
	n=$((k * (NUSERS / NSAMPLE) + 1))
	SAMPLE+=("$n")
	printf "password %d\n" "$n" >"$WORK/pw"
	(cd "$PROJECT_DIR" && bin/account password --email "user$n@example.org" --password_file "$WORK/pw") \
		>/dev/null 2>"$WORK/pw.err" || { cat "$WORK/pw.err" >&2; die "cannot set a password"; }
done

say "lookup_account: $NREQ rounds of $NSAMPLE users"
: >"$WORK/lookup.times"
for ((r = 0; r < NREQ; r++)); do
	for n in "${SAMPLE[@]}"; do
		h=$(phash "password $n" "user$n@example.org")
		curl -s -o "$WORK/lookup.out" -w '%{time_total}\n' \
			"${PROJECT_URL}lookup_account.php?email_addr=user$n%40example.org&passwd_hash=$h" \
			>>"$WORK/lookup.times" || die "lookup_account: curl failed"
		grep -q "<authenticator>$(sql -e "select authenticator from user where email_addr='user$n@example.org'")</authenticator>" \
			"$WORK/lookup.out" || { cat "$WORK/lookup.out" >&2; die "lookup_account: a wrong reply"; }
	done
done

say "the account page: $NREQ views by each of $NSAMPLE signed-in users"
: >"$WORK/account.times"
for n in "${SAMPLE[@]}"; do
	jar=$WORK/jar.$n
	curl -s -c "$jar" -o /dev/null "${PROJECT_URL}login" || die "login page: curl failed"
	token=$(sed -n 's/.*wseq_csrf\t//p' "$jar")
	code=$(curl -s -b "$jar" -c "$jar" -o /dev/null -w '%{http_code}' \
		--data "email_addr=user$n%40example.org&passwd=password%20$n&csrf=$token" "${PROJECT_URL}login")
	[ "$code" = 303 ] || die "signing in user $n: HTTP $code"
	for ((r = 0; r < NREQ; r++)); do
		curl -s -b "$jar" -o "$WORK/account.out" -w '%{time_total}\n' "${PROJECT_URL}account" \
			>>"$WORK/account.times" || die "account page: curl failed"
		grep -q "Volunteer $n<" "$WORK/account.out" || die "account page: not user $n's"
	done
done

read -r ln lmed lp90 lp99 lmax lmean < <(stats "$WORK/lookup.times")
read -r an amed ap90 ap99 amax amean < <(stats "$WORK/account.times")
cat <<EOT

accounts benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), source at commit $commit
machine:   $(bench_machine)
build:     $WSEQ_BUILDDIR: $build
database:  $(sql -e "select count(*) from user") users, $(sql -e "select count(*) from team") teams, $(sql -e "select count(*) from host") hosts, $(sql -e "select count(*) from result") results

request              count  median ms  p90 ms  p99 ms  max ms  mean ms
lookup_account.php   $(printf '%5s  %9s  %6s  %6s  %6s  %7s' "$ln" "$lmed" "$lp90" "$lp99" "$lmax" "$lmean")
account page         $(printf '%5s  %9s  %6s  %6s  %6s  %7s' "$an" "$amed" "$ap90" "$ap99" "$amax" "$amean")
EOT
exit 0
