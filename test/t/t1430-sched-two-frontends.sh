#!/bin/sh
test_description='two web front ends, each with its own Apache and scheduler processes, one MariaDB (the second over TCP), shared download and upload trees: under concurrent load -- reading candidates as each request needs them, then claiming results ahead -- no job is sent twice and every report is counted once'
. "$WSEQ_SRCDIR/test/test-lib.sh"

SB="$TRASH_DIRECTORY/sb"
test_sandbox_up sb --no-daemons || exit 1
PLATFORM=x86_64-pc-linux-gnu
FE2="$TRASH_DIRECTORY/fe2"
HOSTS_PER_FE=4
RPCS=12
ROUNDS=2

. "$WSEQ_SRCDIR/test/t/lib-sched.sh"

# host NAME URL: a new host that makes $RPCS RPCs through URL, each
# reporting the job of the one before; NAME.jobs gets the jobs it was sent,
# NAME.reported the ones it reported and saw acknowledged, NAME.hostid its
# host id; NAME.err says what went wrong.
host() {
	name=$1 url=$2 hostid=0 last= i=1
	: >"$name.jobs"; : >"$name.reported"
	while [ $i -le $RPCS ]; do
		RPC_SEQNO=$i sched_host_request "$ADMIN_AUTHENTICATOR" "$hostid" "$name" 1 \
			"<code_sign_key>x</code_sign_key>$(sched_report "$last")" >"$name.req"
		code=$(curl -s -o "$name.reply" -w "%{http_code}" --data-binary @"$name.req" "$url")
		[ "$code" = 200 ] || { echo "RPC $i: HTTP $code" >>"$name.err"; return 1; }
		if grep -q "project_is_down\|<message" "$name.reply"; then
			echo "RPC $i: $(grep "<message" "$name.reply")" >>"$name.err"; return 1
		fi
		h=$(sed -n "s|^<hostid>\([0-9]*\)</hostid>$|\1|p" "$name.reply")
		[ -n "$h" ] && hostid=$h
		if [ -n "$last" ]; then
			grep -q "<name>$last</name>" "$name.reply" || { echo "RPC $i: $last not acknowledged" >>"$name.err"; return 1; }
			echo "$last" >>"$name.reported"
		fi
		last=$(sched_reply_jobs "$name.reply")
		[ -n "$last" ] && echo "$last" >>"$name.jobs"
		i=$((i + 1))
	done
	echo "$hostid" >"$name.hostid"
}

test_expect_success 'set up an app and 260 jobs' '
	test_setup_sample_app &&
	echo input >in &&
	(cd "$PROJECT_DIR" && for i in $(seq 1 260); do
		bin/create_work --appname wseq_sample --wu_name job$i --min_quorum 1 --target_nresults 1 \
			--rsc_fpops_est 1e9 --delay_bound 3600 "$TRASH_DIRECTORY/in" || exit 1
	done && bin/transitioner --one_pass) >>setup.log 2>&1 &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result where server_state=2")" = 260
'

test_expect_success 'a second front end: its own Apache, scheduler and log, the database over TCP, the download and upload trees shared' '
	mkdir -p "$FE2/log" "$FE2/apache/run/fcgid" "$FE2/apache/logs" &&
	cp -a "$PROJECT_DIR/cgi-bin" "$PROJECT_DIR/keys" "$FE2/" &&
	ln -s "$PROJECT_DIR/download" "$FE2/download" && ln -s "$PROJECT_DIR/upload" "$FE2/upload" &&
	sed "/<db_socket>/d" "$PROJECT_DIR/config.xml" >"$FE2/config.xml" &&
	test_grep "<db_host>127.0.0.1</db_host>" "$FE2/config.xml" &&
	test_grep -v "db_socket" "$FE2/config.xml" &&
	sed "s|$PROJECT_DIR|$FE2|g" "$PROJECT_DIR/wseq.httpd.conf" >"$FE2/wseq.httpd.conf" &&
	PORT2=$(wseq_sandbox free-port) && echo "$PORT2" >port2 &&
	sed -e "s|$SB/apache|$FE2/apache|g" -e "s|^Listen .*|Listen 127.0.0.1:$PORT2|" \
		-e "s|^Include .*|Include $FE2/wseq.httpd.conf|" "$SB/apache/httpd.conf" >"$FE2/apache/httpd.conf" &&
	chown -R www-data "$FE2/log" "$FE2/apache/run" &&
	test_atexit "kill \$(cat \"$FE2/apache/run/httpd.pid\") 2>/dev/null" &&
	apache2 -f "$FE2/apache/httpd.conf" -k start &&
	test_wait_for 30 curl -sf -o /dev/null "http://127.0.0.1:$PORT2/wseq_cgi/cgi" --data-binary "<x"
'

# load ROUND: 2 * HOSTS_PER_FE new hosts at once, half through each front end
load() {
	URL1="${PROJECT_URL%wseq/}wseq_cgi/cgi" && URL2="http://127.0.0.1:$(cat port2)/wseq_cgi/cgi" &&
	pids= &&
	for i in $(seq 1 $HOSTS_PER_FE); do
		host r$1-fe1-h$i "$URL1" & pids="$pids $!"
		host r$1-fe2-h$i "$URL2" & pids="$pids $!"
	done &&
	ok=0 && for p in $pids; do wait $p || ok=1; done &&
	cat *.err 2>/dev/null; test $ok = 0 && ! ls *.err 2>/dev/null
}

test_expect_success "$((2 * HOSTS_PER_FE)) hosts at once, half through each front end: every RPC answered" '
	load 1 &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result where lease_until>0")" = 0
'

test_expect_success "again, each scheduler process claiming 8 results ahead (sched_claim_ahead_min): every RPC answered" '
	for c in "$PROJECT_DIR/config.xml" "$FE2/config.xml"; do
		sed -i "s|<config>|<config>\n    <sched_claim_ahead_min>8</sched_claim_ahead_min>|" "$c" || return 1
	done &&
	load 2 &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result where server_state=4 and lease_until>0")" -gt 0 &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result where server_state=2 and lease_until>0")" -gt 0
'

test_expect_success 'both front ends served; the second one over TCP' '
	test_grep "sent 1 jobs" "$PROJECT_DIR/log/scheduler.log" &&
	test_grep "sent 1 jobs" "$FE2/log/scheduler.log" &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from information_schema.processlist where db=\"$WSEQ_DB_NAME\" and host like \"127.0.0.1:%\"")" -ge 1
'

test_expect_success 'no job was sent twice: each to one host, the one the database says' '
	cat *.jobs | sort >all.jobs && test "$(wc -l <all.jobs)" = $((ROUNDS * 2 * HOSTS_PER_FE * RPCS)) &&
	sort -u all.jobs | test_cmp all.jobs - &&
	for f in *.jobs; do
		[ "$f" = all.jobs ] && continue
		h=$(cat "${f%.jobs}.hostid") &&
		while read -r j; do
			test "$(test_sql "$WSEQ_DB_NAME" -e "select hostid from result where name=\"$j\"")" = "$h" || return 1
		done <"$f" || return 1
	done &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result where server_state in (4, 5)")" = $((ROUNDS * 2 * HOSTS_PER_FE * RPCS)) &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result group by workunitid having count(*) > 1" | wc -l)" = 0
'

test_expect_success 'every report was counted once' '
	cat *.reported | sort >all.reported &&
	test "$(wc -l <all.reported)" = $((ROUNDS * 2 * HOSTS_PER_FE * (RPCS - 1))) &&
	test_sql "$WSEQ_DB_NAME" -e "select name from result where server_state=5 and outcome=1" | sort >db.reported &&
	test_cmp all.reported db.reported &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result where server_state=4")" = $((ROUNDS * 2 * HOSTS_PER_FE))
'

test_expect_success 'the sanitizers saw nothing in either front end' '
	kill "$(cat "$FE2/apache/run/httpd.pid")" &&
	test_wait_for 60 sh -c "! pgrep -f \"$FE2/cgi-bin/[c]gi\" >/dev/null" &&
	test_grep -v "runtime error\|AddressSanitizer\|LeakSanitizer" "$FE2/apache/logs/error.log" &&
	test_grep -v "runtime error\|AddressSanitizer\|LeakSanitizer" "$SB/apache/logs/error.log"
'

test_done
