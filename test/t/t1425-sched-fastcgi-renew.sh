#!/bin/sh
test_description='a FastCGI process at its request limit renews itself (same pid, same socket): every request answered 200 across the renewals, one after another and several at once; no descriptor or database connection left behind'
. "$WSEQ_SRCDIR/test/test-lib.sh"

SB="$TRASH_DIRECTORY/sb"
test_sandbox_up sb --no-daemons || exit 1
SCHED="${PROJECT_URL%wseq/}wseq_cgi/cgi"
LOG="$PROJECT_DIR/log/scheduler.log"
CONF="$PROJECT_DIR/wseq.httpd.conf"

if [ ! -f /usr/lib/apache2/modules/mod_fcgid.so ]; then
	test_expect_success 'mod_fcgid is installed (libapache2-mod-fcgid)' 'false'
	test_done
fi

. "$WSEQ_SRCDIR/test/t/lib-sched.sh"

rpc() {
	curl -s -o "$2" -w "%{http_code}" --data-binary @"$1" "$SCHED"
}

# the pids of the scheduler.log lines from line $1 on
log_pids() { tail -n "+$1" "$LOG" | sed -n "s/^.* scheduler\[\([0-9]*\)\] .*/\1/p" | sort -u; }
log_lines() { cat "$LOG" 2>/dev/null | wc -l; }
renewals() { grep -c "fastcgi process renews itself" "$LOG"; }
# the scheduler's database connections
db_conns() {
	test_sql "$WSEQ_DB_NAME" -e "select count(*) from information_schema.processlist where db=\"$WSEQ_DB_NAME\" and id<>connection_id()"
}

apache_restart() {
	pid=$(cat "$SB/apache/run/httpd.pid") && kill "$pid" &&
	test_wait_for 30 sh -c "! kill -0 $pid 2>/dev/null" &&
	wseq_sandbox up --no-daemons "$SB" 2>>apache_restart.log
}

test_expect_success 'make_project tells mod_fcgid no request limit and no lifetime, the programs 10,000' '
	test_grep "cgi-bin/cgi .*MaxProcessLifetime 0 .*MaxRequestsPerProcess 0 InitialEnv WSEQ_FCGI_MAX_REQUESTS=10000" "$CONF" &&
	test_grep -v "MaxRequestsPerProcess [1-9]" "$CONF"
'

test_expect_success 'set up: 60 jobs; the scheduler one process renewing itself after 5 to 7 requests' '
	test_setup_sample_app &&
	echo input >in &&
	(cd "$PROJECT_DIR" && for i in $(seq 1 60); do
		bin/create_work --appname wseq_sample --wu_name job$i --min_quorum 1 --target_nresults 1 \
			--rsc_fpops_est 1e9 --delay_bound 3600 "$TRASH_DIRECTORY/in" || exit 1
	done && bin/transitioner --one_pass) >>setup.log 2>&1 &&
	sed -i "s|\(FcgidCmdOptions [^ ]*/cgi-bin/cgi \)MaxProcesses [0-9]* MinProcesses [0-9]*|\1MaxProcesses 1 MinProcesses 1|" "$CONF" &&
	sed -i "s|\(FcgidCmdOptions [^ ]*/cgi-bin/cgi .*WSEQ_FCGI_MAX_REQUESTS=\)[0-9]*|\15|" "$CONF" &&
	test_grep "cgi-bin/cgi MaxProcesses 1 MinProcesses 1 .*WSEQ_FCGI_MAX_REQUESTS=5\$" "$CONF" &&
	apache_restart
'

test_expect_success 'one host, 30 RPCs in a row, each reporting the job of the one before: all 200, one pid, renewed' '
	from=$(($(log_lines) + 1)) &&
	sched_host_request "$ADMIN_AUTHENTICATOR" 0 cpid-a 0 >q && test "$(rpc q r.0)" = 200 &&
	HOST=$(sed -n "s|^<hostid>\([0-9]*\)</hostid>$|\1|p" r.0) && test -n "$HOST" &&
	pid=$(log_pids $from) && test -n "$pid" && echo "$pid" >the_pid &&
	ls "/proc/$pid/fd" | wc -l >fds.before &&
	last= && i=1 &&
	while [ $i -le 30 ]; do
		sched_host_request "$ADMIN_AUTHENTICATOR" "$HOST" cpid-a 1 "$(sched_report "$last")" >q &&
		code=$(rpc q r.$i) &&
		{ test "$code" = 200 || { echo "RPC $i: HTTP $code"; return 1; }; } &&
		test_grep "</scheduler_reply>" r.$i &&
		job=$(sched_reply_jobs r.$i) && test -n "$job" &&
		if [ -n "$last" ]; then test_grep "<name>$last</name>" r.$i; fi &&
		last=$job && i=$((i + 1)) || return 1
	done &&
	test "$(renewals)" -ge 4 &&
	log_pids $from >pids && test_cmp the_pid pids &&
	grep -q "cgi-bin/cgi" "/proc/$pid/cmdline" &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result where server_state=5 and outcome=1 and hostid=$HOST")" = 29
'

test_expect_success 'after the renewals: no descriptor and no database connection more than before' '
	pid=$(cat the_pid) &&
	ls "/proc/$pid/fd" | wc -l >fds.after && cat fds.before fds.after &&
	test "$(cat fds.after)" -le "$(cat fds.before)" &&
	test "$(db_conns)" -le 1
'

test_expect_success 'two processes, 4 clients at once, 100 RPCs each: every one answered 200' '
	sed -i "s|\(FcgidCmdOptions [^ ]*/cgi-bin/cgi \)MaxProcesses 1 MinProcesses 1|\1MaxProcesses 2 MinProcesses 2|" "$CONF" &&
	apache_restart &&
	before=$(renewals) &&
	sched_host_request "$ADMIN_AUTHENTICATOR" 0 cpid-n 0 >qn &&
	for c in 1 2 3 4; do
		(for i in $(seq 1 100); do rpc qn /dev/null; echo; done >codes.$c) &
	done &&
	wait &&
	cat codes.1 codes.2 codes.3 codes.4 | sort | uniq -c >codes &&
	cat codes &&
	test "$(cat codes.1 codes.2 codes.3 codes.4 | grep -c "^200\$")" = 400 &&
	test "$(($(renewals) - before))" -ge 40
'

test_expect_success 'no job was ever sent twice; the sanitizers saw nothing' '
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result group by workunitid having count(*) > 1" | wc -l)" = 0 &&
	test_grep -v "runtime error\|AddressSanitizer\|LeakSanitizer\|cannot renew" "$SB/apache/logs/error.log"
'

test_done
