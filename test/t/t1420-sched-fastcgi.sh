#!/bin/sh
test_description='the scheduler as a FastCGI server: one process, request after request, never one request'"'"'s host or user in the next; apps and config.xml read again when they change; a lost database answered cleanly and recovered from'
. "$WSEQ_SRCDIR/test/test-lib.sh"

SB="$TRASH_DIRECTORY/sb"
test_sandbox_up sb --no-daemons || exit 1
SCHED="${PROJECT_URL%wseq/}wseq_cgi/cgi"
PLATFORM=x86_64-pc-linux-gnu
LOG="$PROJECT_DIR/log/scheduler.log"

if [ ! -f /usr/lib/apache2/modules/mod_fcgid.so ]; then
	test_expect_success 'mod_fcgid is installed (libapache2-mod-fcgid)' 'false'
	test_done
fi

. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
request() { sched_host_request "$@"; }
report() { sched_report "$@"; }
jobs_of() { sched_reply_jobs "$@"; }

rpc() {
	curl -s -o "$2" -w "%{http_code}" --data-binary @"$1" "$SCHED"
}

# the pids of the scheduler.log lines from line $1 on
log_pids() { tail -n "+$1" "$LOG" | sed -n "s/^.* scheduler\[\([0-9]*\)\] .*/\1/p" | sort -u; }
log_lines() { cat "$LOG" 2>/dev/null | wc -l; }

apache_restart() {
	pid=$(cat "$SB/apache/run/httpd.pid") && kill "$pid" &&
	test_wait_for 30 sh -c "! kill -0 $pid 2>/dev/null" &&
	wseq_sandbox up --no-daemons "$SB" 2>>apache_restart.log
}

test_expect_success 'set up an app, 40 jobs, a second account; the scheduler limited to one process' '
	test_setup_sample_app &&
	echo input >in &&
	(cd "$PROJECT_DIR" && for i in $(seq 1 40); do
		bin/create_work --appname wseq_sample --wu_name job$i --min_quorum 1 --target_nresults 1 \
			--rsc_fpops_est 1e9 --delay_bound 3600 "$TRASH_DIRECTORY/in" || exit 1
	done && bin/transitioner --one_pass) >>setup.log 2>&1 &&
	printf "%s" "bobs password" >pw &&
	test_project bin/account create --email bob@example.org --name "Bob B" --password_file "$TRASH_DIRECTORY/pw" >bob.out &&
	BOB=$(sed -n "s/^account_key //p" bob.out) && test -n "$BOB" && echo "$BOB" >bob_key &&
	test_sql "$WSEQ_DB_NAME" -e "update user set project_prefs=\"<project_preferences><marker_admin/></project_preferences>\" where authenticator=\"$ADMIN_AUTHENTICATOR\"" &&
	sed -i "s|\(FcgidCmdOptions [^ ]*/cgi-bin/cgi \)MaxProcesses [0-9]* MinProcesses [0-9]*|\1MaxProcesses 1 MinProcesses 1|" \
		"$PROJECT_DIR/wseq.httpd.conf" &&
	test_grep "cgi-bin/cgi MaxProcesses 1 MinProcesses 1" "$PROJECT_DIR/wseq.httpd.conf" &&
	apache_restart
'

test_expect_success 'one persistent FastCGI process answers request after request' '
	from=$(($(log_lines) + 1)) &&
	request "$ADMIN_AUTHENTICATOR" 0 cpid-a 0 >ra &&
	for i in 1 2 3 4 5; do test "$(rpc ra reply.$i)" = 200 || return 1; done &&
	HOST_A=$(sed -n "s|^<hostid>\([0-9]*\)</hostid>$|\1|p" reply.1) && test -n "$HOST_A" &&
	echo "$HOST_A" >host_a &&
	log_pids $from >pids && test_line_count = 1 pids &&
	grep -q "cgi-bin/cgi" "/proc/$(cat pids)/cmdline" &&
	cp pids the_pid
'

# switches PID: how often the process gave up the CPU (it slept and was woken)
switches() { sed -n "s/^voluntary_ctxt_switches:[[:space:]]*//p" "/proc/$1/status"; }
test_expect_success 'waiting for a request, the process is woken by nothing: no timer (a signal while libfcgi accepts a connection drops it: HTTP 500)' '
	pid=$(cat the_pid) && before=$(switches "$pid") && test -n "$before" &&
	sleep 6 && test "$(switches "$pid")" = "$before"
'

test_expect_success 'interleaved requests of two hosts of two accounts: every reply is its own host'"'"'s' '
	from=$(($(log_lines) + 1)) &&
	BOB=$(cat bob_key) && HOST_A=$(cat host_a) &&
	request "$BOB" 0 cpid-b 0 >rb && test "$(rpc rb replyb)" = 200 &&
	HOST_B=$(sed -n "s|^<hostid>\([0-9]*\)</hostid>$|\1|p" replyb) && test -n "$HOST_B" &&
	test "$HOST_B" != "$HOST_A" && echo "$HOST_B" >host_b &&
	test_sql "$WSEQ_DB_NAME" -e "update host set venue=\"home\" where id=$HOST_A" &&
	last_a= last_b= &&
	for i in 1 2 3 4 5 6 7 8; do
		request "$ADMIN_AUTHENTICATOR" "$HOST_A" cpid-a 1 "$(report "$last_a")" >qa &&
		test "$(rpc qa a.$i)" = 200 &&
		request "$BOB" "$HOST_B" cpid-b 1 "$(report "$last_b")" >qb &&
		test "$(rpc qb b.$i)" = 200 &&
		printf "<bad" >qx && test "$(rpc qx x.$i)" = 200 && test_grep "<request_delay>" x.$i &&
		test_grep "<user_name>admin</user_name>" a.$i && test_grep -v "Bob B" a.$i &&
		test_grep "<user_name>Bob B</user_name>" b.$i &&
		test_grep -v "<user_name>admin" b.$i &&
		test_grep "<host_venue>home</host_venue>" a.$i && test_grep -v "<host_venue>home" b.$i &&
		test_grep "marker_admin" a.$i && test_grep -v "marker_admin" b.$i &&
		test_grep -v "<hostid>" a.$i && test_grep -v "<hostid>" b.$i &&
		test_grep -v "<user_name>\|<result>" x.$i &&
		ja=$(jobs_of a.$i) && jb=$(jobs_of b.$i) &&
		test -n "$ja" && test -n "$jb" &&
		test "$(test_sql "$WSEQ_DB_NAME" -e "select hostid from result where name=\"$ja\"")" = "$HOST_A" &&
		test "$(test_sql "$WSEQ_DB_NAME" -e "select hostid from result where name=\"$jb\"")" = "$HOST_B" &&
		if [ -n "$last_a" ]; then test_grep "<name>$last_a</name>" a.$i && test_grep -v "<name>$last_a</name>" b.$i; fi &&
		if [ -n "$last_b" ]; then test_grep "<name>$last_b</name>" b.$i && test_grep -v "<name>$last_b</name>" a.$i; fi &&
		last_a=$ja && last_b=$jb || return 1
	done &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result where server_state=5 and outcome=1 and hostid=$HOST_A")" = 7 &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result where server_state=5 and outcome=1 and hostid=$HOST_B")" = 7 &&
	log_pids $from >pids && test_cmp the_pid pids
'

test_expect_success 'a client cannot move the server clock: a header naming an offset file is not the setting' '
	echo 1000000 >clock &&
	request "$ADMIN_AUTHENTICATOR" 0 cpid-clock 0 >qc &&
	code=$(curl -s -o clockreply -w "%{http_code}" -H "WSEQ-TIME-OFFSET-FILE: $TRASH_DIRECTORY/clock" \
		-H "WSEQ-TIME-OFFSET: 1000000" --data-binary @qc "$SCHED") && test "$code" = 200 &&
	id=$(sed -n "s|^<hostid>\([0-9]*\)</hostid>$|\1|p" clockreply) && test -n "$id" &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select create_time < unix_timestamp() + 1000 from host where id=$id")" = 1
'

test_expect_success 'a new app version is served within a second, by the same process' '
	from=$(($(log_lines) + 1)) &&
	vdir="$PROJECT_DIR/apps/wseq_sample/wseq_sample_1.07_$PLATFORM" && mkdir -p "$vdir" &&
	cp "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample" "$vdir/wseq_sample_1.07_$PLATFORM" &&
	test_project bin/update_versions >>setup.log 2>&1 &&
	sleep 1.1 &&
	request "$ADMIN_AUTHENTICATOR" "$(cat host_a)" cpid-a 1 >qa && test "$(rpc qa newver)" = 200 &&
	test_grep "<version_num>107</version_num>" newver &&
	test_grep "apps or app versions changed" "$LOG" &&
	log_pids $from >pids && test_cmp the_pid pids
'

test_expect_success 'a change of config.xml is seen at the next request, by the same process' '
	from=$(($(log_lines) + 1)) &&
	cp "$PROJECT_DIR/config.xml" config.orig &&
	sed -i "s|<config>|<config>\n    <next_rpc_delay>77</next_rpc_delay>|" "$PROJECT_DIR/config.xml" &&
	request "$ADMIN_AUTHENTICATOR" "$(cat host_a)" cpid-a 0 >qa && test "$(rpc qa conf)" = 200 &&
	test_grep "<next_rpc_delay>77" conf &&
	test_grep "config.xml changed" "$LOG" &&
	cp config.orig "$PROJECT_DIR/config.xml" &&
	test "$(rpc qa conf2)" = 200 && test_grep -v "<next_rpc_delay>" conf2 &&
	log_pids $from >pids && test_cmp the_pid pids
'

test_expect_success 'its database connection killed by the server: the next request reconnects and is answered' '
	from=$(($(log_lines) + 1)) &&
	ids=$(test_sql "$WSEQ_DB_NAME" -e "select id from information_schema.processlist where db=\"$WSEQ_DB_NAME\" and id<>connection_id()") &&
	test -n "$ids" &&
	for id in $ids; do test_sql "$WSEQ_DB_NAME" -e "kill $id" 2>/dev/null; done &&
	request "$ADMIN_AUTHENTICATOR" "$(cat host_a)" cpid-a 1 >qa && test "$(rpc qa afterkill)" = 200 &&
	test_grep -v "project_is_down" afterkill && test "$(jobs_of afterkill | wc -l)" = 1 &&
	test_grep "reconnected to the database" "$LOG" &&
	log_pids $from >pids && test_cmp the_pid pids
'

test_expect_success 'with the database stopped: a clean message and a request delay; then it recovers by itself' '
	from=$(($(log_lines) + 1)) &&
	pid=$(cat "$SB/mysql/mariadbd.pid") && kill "$pid" &&
	test_wait_for 30 sh -c "! kill -0 $pid 2>/dev/null" &&
	request "$ADMIN_AUTHENTICATOR" "$(cat host_a)" cpid-a 1 >qa &&
	test "$(rpc qa down1)" = 200 && test_grep "<project_is_down/>" down1 &&
	test_grep "<message" down1 && test_grep "<request_delay>" down1 && test_grep -v "<result>" down1 &&
	test "$(rpc qa down2)" = 200 && test_grep "<project_is_down/>" down2 &&
	wseq_sandbox up --no-daemons "$SB" 2>/dev/null &&
	test "$(rpc qa up1)" = 200 && test_grep -v "project_is_down" up1 &&
	test "$(jobs_of up1 | wc -l)" = 1 &&
	log_pids $from >pids && test_cmp the_pid pids
'

test_expect_success 'no job was ever sent twice' '
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result group by workunitid having count(*) > 1" | wc -l)" = 0 &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result where server_state=4 and hostid=0")" = 0
'

# What the process passed over for one host (it had the workunit) goes to
# the next host; nothing the process remembers between requests hides it.
test_expect_success 'a result the process passed over (its host had the workunit) is sent to the next host' '
	(cd "$PROJECT_DIR" &&
	 bin/create_work --appname wseq_sample --wu_name pair --min_quorum 2 --target_nresults 2 \
		--rsc_fpops_est 1e9 --delay_bound 3600 --priority 10 "$TRASH_DIRECTORY/in" &&
	 bin/create_work --appname wseq_sample --wu_name solo --min_quorum 1 --target_nresults 1 \
		--rsc_fpops_est 1e9 --delay_bound 3600 --priority 9 "$TRASH_DIRECTORY/in" &&
	 bin/transitioner --one_pass) >>setup.log 2>&1 &&
	request "$ADMIN_AUTHENTICATOR" 0 cpid-p 1 >qp && test "$(rpc qp p.1)" = 200 &&
	HOST_P=$(sed -n "s|^<hostid>\([0-9]*\)</hostid>$|\1|p" p.1) && test -n "$HOST_P" &&
	test "$(jobs_of p.1)" = pair_0 &&
	request "$ADMIN_AUTHENTICATOR" "$HOST_P" cpid-p 1 >qp && test "$(rpc qp p.2)" = 200 &&
	test "$(jobs_of p.2)" = solo_0 &&
	got_pair_1() {
		i=$((i + 1)) &&
		request "$ADMIN_AUTHENTICATOR" 0 cpid-q$i 1 >qq && test "$(rpc qq q.$i)" = 200 &&
		jobs_of q.$i >>q.jobs && grep -qx pair_1 q.jobs
	} &&
	i=0 && got_pair_1 &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(distinct hostid) from result where name like \"pair\\_%\" and server_state=4")" = 2
'

test_expect_success 'stopped with Apache, the process ends by itself; the sanitizers saw nothing in it' '
	pid=$(cat the_pid) && kill -0 "$pid" &&
	apid=$(cat "$SB/apache/run/httpd.pid") && kill "$apid" &&
	test_wait_for 60 sh -c "! kill -0 $pid 2>/dev/null" &&
	test_grep -v "runtime error\|AddressSanitizer\|LeakSanitizer" "$SB/apache/logs/error.log"
'

test_done
