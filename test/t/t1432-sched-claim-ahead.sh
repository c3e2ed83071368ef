#!/bin/sh
test_description='results claimed ahead by a FastCGI scheduler process (sched_claim_ahead): handed out from memory; a process killed with -9 while it holds them loses none -- others take them when they have no other work, or when the lease ends -- and sends none twice; a process stopped gives them back'
. "$WSEQ_SRCDIR/test/test-lib.sh"

SB="$TRASH_DIRECTORY/sb"
test_sandbox_up sb --no-daemons || exit 1

if [ ! -f /usr/lib/apache2/modules/mod_fcgid.so ]; then
	test_expect_success 'mod_fcgid is installed (libapache2-mod-fcgid)' 'false'
	test_done
fi

. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
LOG="$PROJECT_DIR/log/scheduler.log"
q() { test_sql "$WSEQ_DB_NAME" -e "$1"; }

# ask NAME CPID SECONDS: a request of a new host (cpid CPID) for SECONDS of
# work, answered with HTTP 200 (a request mod_fcgid handed to the process
# killed just before is answered otherwise: then it is made again, never
# having reached the database); NAME.jobs gets the jobs sent.
post() { test "$(curl -s -o "$1.reply" -w "%{http_code}" --data-binary @"$1.req" "$SCHED")" = 200; }
ask() {
	sched_host_request "$ADMIN_AUTHENTICATOR" 0 "$2" "$3" >"$1.req" &&
	test_wait_for 60 post "$1" &&
	test_grep "<scheduler_reply>" "$1.reply" && test_grep -v "project_is_down" "$1.reply" &&
	sched_reply_jobs "$1.reply" >"$1.jobs"
}
# settings NAME=VALUE...: the scheduler's claim-ahead settings in config.xml
settings() {
	sed -i "/<sched_claim_ahead/d" "$PROJECT_DIR/config.xml" &&
	for s in "$@"; do
		sed -i "s|<config>|<config>\n    <${s%%=*}>${s#*=}</${s%%=*}>|" "$PROJECT_DIR/config.xml" || return 1
	done
}
# the scheduler processes (mod_fcgid's) of this sandbox
sched_pids() { pgrep -f "$PROJECT_DIR/cgi-bin/[c]gi"; }
leased() { q "select count(*) from result where server_state=2 and lease_until>=unix_timestamp()"; }
no_lease() { test "$(leased)" = 0; }
# gone PID...: none of the processes is left
gone() { for p in "$@"; do ! kill -0 "$p" 2>/dev/null || return 1; done; }
# jobs WU...: create 1-result workunits, each of priority PRIO (default 0)
jobs() {
	(cd "$PROJECT_DIR" && for w in "$@"; do
		bin/create_work --appname wseq_sample --wu_name "$w" --min_quorum 1 --target_nresults 1 \
			--rsc_fpops_est 1e9 --delay_bound 3600 --priority "${PRIO:-0}" \
			"$TRASH_DIRECTORY/in" || exit 1
	done && bin/transitioner --one_pass) >>setup.log 2>&1
}
no_job_twice() {
	test "$(q "select count(*) from result group by workunitid having count(*) > 1" | wc -l)" = 0 &&
	cat *.jobs | sort >all.list && sort -u all.list | test_cmp all.list - &&
	test "$(q "select count(*) from result where server_state=4")" = "$(wc -l <all.list)"
}

test_expect_success 'set up: the sample app, 12 jobs; one scheduler process claiming 10 ahead, held 10 minutes' '
	test_setup_sample_app &&
	echo input >in &&
	sed -i "s|\(FcgidCmdOptions [^ ]*/cgi-bin/cgi \)MaxProcesses [0-9]* MinProcesses [0-9]*|\1MaxProcesses 1 MinProcesses 1|" \
		"$PROJECT_DIR/wseq.httpd.conf" &&
	test_grep "cgi-bin/cgi MaxProcesses 1 MinProcesses 1" "$PROJECT_DIR/wseq.httpd.conf" &&
	settings sched_claim_ahead_min=10 sched_claim_ahead_lease=600 &&
	pid=$(cat "$SB/apache/run/httpd.pid") && kill "$pid" &&
	test_wait_for 30 sh -c "! kill -0 $pid 2>/dev/null" &&
	wseq_sandbox up --no-daemons "$SB" >/dev/null 2>&1 &&
	PRIO=9 jobs a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 &&
	PRIO=1 jobs b1 &&
	test "$(q "select count(*) from result where server_state=2")" = 12
'

test_expect_success 'one job asked for: it is sent, and the 10 next are claimed ahead, still unsent' '
	ask h1 cpid-1 1 && test "$(cat h1.jobs)" = a1_0 &&
	test "$(leased)" = 10 &&
	test "$(q "select count(*) from result where server_state=2 and lease_until=0")" = 1 &&
	test "$(q "select name from result where server_state=2 and lease_until=0")" = b1_0 &&
	test_line_count = 1 h1.jobs
'

test_expect_success 'the next request is served from them, in their order, without a new lease' '
	ask h2 cpid-2 1 && test "$(cat h2.jobs)" = a2_0 &&
	test "$(leased)" = 9 &&
	test "$(q "select lease_until from result where name=\"b1_0\"")" = 0
'

test_expect_success 'the process is killed with -9 while it holds 9' '
	pids=$(sched_pids) && test -n "$pids" &&
	kill -9 $pids &&
	test_wait_for 30 gone $pids &&
	test "$(leased)" = 9
'

test_expect_success 'a new process passes them over while it has other work: the free job of lower priority' '
	ask h3 cpid-3 1 && test "$(cat h3.jobs)" = b1_0 &&
	test "$(leased)" = 9 && test "$(q "select count(*) from result where server_state=2")" = 9
'

test_expect_success 'with no other work left it takes them: every job sent, none twice, none lost' '
	NCPUS=16 ask h4 cpid-4 1000000 &&
	test_line_count = 9 h4.jobs &&
	test "$(q "select count(*) from result where server_state=2")" = 0 &&
	no_job_twice && test "$(wc -l <all.list)" = 12 &&
	(cd "$PROJECT_DIR" && bin/db_check) >check.out 2>&1 || { cat check.out; false; }
'

test_expect_success 'a short lease (3 s): a process killed with leases, and after they end the first free job is the first leased' '
	settings sched_claim_ahead_min=10 sched_claim_ahead_lease=3 &&
	PRIO=5 jobs c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 &&
	ask h5 cpid-5 1 && test "$(cat h5.jobs)" = c1_0 &&
	test "$(q "select count(*) from result where server_state=2 and lease_until>0")" = 10 &&
	pids=$(sched_pids) && kill -9 $pids &&
	test_wait_for 60 no_lease &&
	ask h6 cpid-6 1 && test "$(cat h6.jobs)" = c2_0 &&
	no_job_twice
'

test_expect_success 'a process stopped with Apache gives back what it holds' '
	settings sched_claim_ahead_min=5 sched_claim_ahead_lease=600 &&
	pids=$(sched_pids) && kill -9 $pids && test_wait_for 30 gone $pids &&
	test_wait_for 60 no_lease &&
	ask h7 cpid-7 1 && test "$(cat h7.jobs)" = c3_0 &&
	test "$(leased)" = 5 &&
	pids=$(sched_pids) &&
	kill "$(cat "$SB/apache/run/httpd.pid")" &&
	test_wait_for 60 gone $pids &&
	test "$(leased)" = 0 &&
	test_grep "gave back .* results claimed ahead" "$LOG" &&
	test_grep -v "runtime error\|AddressSanitizer\|LeakSanitizer" "$SB/apache/logs/error.log"
'

test_expect_success 'claiming ahead is off for a CGI program and with sched_claim_ahead 0' '
	settings sched_claim_ahead=0 sched_claim_ahead_min=10 sched_claim_ahead_lease=600 &&
	wseq_sandbox up --no-daemons "$SB" >/dev/null 2>&1 &&
	ask h8 cpid-8 1 && test_line_count = 1 h8.jobs && test "$(leased)" = 0 &&
	settings sched_claim_ahead_min=10 &&
	(cd "$PROJECT_DIR/cgi-bin" && sched_host_request "$ADMIN_AUTHENTICATOR" 0 cpid-9 1 |
		REQUEST_METHOD=POST WSEQ_PROJECT_DIR="$PROJECT_DIR" ./cgi) >h9.out &&
	test_grep "<scheduler_reply>" h9.out && sed "1,/^\r*$/d" h9.out >h9.reply &&
	sched_reply_jobs h9.reply >h9.jobs && test_line_count = 1 h9.jobs && test "$(leased)" = 0 &&
	no_job_twice
'

# general_log FILE 1|0: MariaDB's general log of every statement into FILE, or off
general_log() {
	mariadb --socket="$WSEQ_DB_SOCKET" -uroot -e "SET GLOBAL log_output='FILE', \
		general_log_file='$TRASH_DIRECTORY/$1', general_log=$2"
}
test_expect_success 'no sequence made: a request reads nothing of sequences; the first one made is seen by the next request' '
	test "$(q "select count(*) from sequence")" = 0 &&
	general_log g1.log 1 && ask h10 cpid-10 1 && general_log g1.log 0 &&
	test_grep "SELECT MAX(id) FROM sequence" g1.log &&
	test_grep -v "FROM .sequence. WHERE\|seq_id<>0" g1.log &&
	mkdir init && (cd init && "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample" --state --init \
		--words 64 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_sample --seq_name S1 --segments 2 \
		--rsc_fpops_est 1e9 "$TRASH_DIRECTORY/init/state_out" >>setup.log 2>&1 &&
	general_log g2.log 1 && ask h11 cpid-11 1000 && general_log g2.log 0 &&
	test_grep "FROM .sequence. WHERE hostid=" g2.log &&
	test_grep "<name>S1_b0_s1_0</name>" h11.reply
'

test_done
