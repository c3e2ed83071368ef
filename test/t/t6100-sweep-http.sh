#!/bin/sh
test_description='the sweep HTTP endpoints behind Apache: every status code of the protocol, tickets as results handed out again after their timeout, and the real sweep_client running a session to its end'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
HOSTPORT=$(echo "$PROJECT_URL" | sed 's|^http://\([^/]*\)/.*|\1|')
# the project's own endpoints: <cgi_url>sweep, the protocol's paths after it
BASE="http://$HOSTPORT/wseq_cgi/sweep"
SID=0123456789abcdef0123456789abcdef
SDIR="$PROJECT_DIR/sweep/$SID"
PLATFORM=x86_64-pc-linux-gnu

code() {   # code PATH: the HTTP status of GET BASE/PATH, its body in ./body
	curl -s -o body -w "%{http_code}" "$BASE/$1"
}
# task N TIMEOUT: a task whose worker prints its argument N
task() {
	test_sql "$WSEQ_DB_NAME" -e "insert into workunit (create_time, appid, name, xml_doc, batch,
		delay_bound, min_quorum, target_nresults, max_error_results, max_total_results,
		max_success_results, result_template_file, transition_time)
		values (unix_timestamp(), (select id from app where name=\"sweep\"), \"sweep_t$1\",
		\"CommandLine=worker $1\n[Result]\nName=out\nFile=stdout\n\",
		(select id from batch where name=\"sweep:$SID\"), $2, 1, 1, 3, 3, 1, \"templates/sweep_out\", 0)"
}
unsent() {
	test_sql_value "select count(*) from result where batch=(select id from batch where name=\"sweep:$SID\") and server_state=2"
}
ticket() { sed -n "s/^Ticket=//p" body; }

test_expect_success 'setup: a session (a batch and its files), a worker, two tasks with a ticket each' '
	test_sql "$WSEQ_DB_NAME" -e "insert into app (name, user_friendly_name, create_time) values (\"sweep\", \"sweep\", 1);
		insert into batch (name, state, create_time, app_id) values (\"sweep:$SID\", 1, 1, (select id from app where name=\"sweep\"))" &&
	printf "<output_template>\n<result>\n</result>\n</output_template>\n" >"$PROJECT_DIR/templates/sweep_out" &&
	mkdir -p "$SDIR/workers" && printf "DeleteWorker=No\nDeleteClient=No\nPing=1\n" >"$SDIR/config" &&
	echo worker >"$SDIR/worker_name" &&
	printf "#!/bin/sh\necho \"result of \$1\"\n" >"$SDIR/workers/$PLATFORM" &&
	chmod -R a+rX "$PROJECT_DIR/sweep" &&
	task 1 0 && task 2 0 &&
	test_project bin/transitioner --one_pass 2>/dev/null &&
	test "$(unsent)" = 2
'

test_expect_success '/config: 403 for a wrong or malformed session, the configuration otherwise' '
	test "$(code "config?sessionID=ffffffffffffffffffffffffffffffff")" = 403 &&
	test "$(code "config?sessionID=../../etc")" = 403 &&
	test "$(code "config")" = 403 &&
	test "$(code "config?sessionID=$SID")" = 200 && cmp body "$SDIR/config"
'

# refused URL: Apache maps it to nothing (403 or 404), though the session is right
refused() {
	case $(curl -s -o /dev/null -w "%{http_code}" "http://$HOSTPORT/$1") in
	403 | 404) ;;
	*) echo "$1 answered" >&2; return 1 ;;
	esac
}

test_expect_success 'the endpoints are the project'"'"'s own: nothing at the server'"'"'s root, no other path under sweep' '
	refused "config?sessionID=$SID" && refused "task?sessionID=$SID" &&
	refused "wseq/config?sessionID=$SID" && refused "wseq_cgi/config?sessionID=$SID" &&
	test "$(code "config/x?sessionID=$SID")" = 404 &&
	test "$(code "?sessionID=$SID")" = 404
'

test_expect_success '/worker: 403 for a wrong session or name, 415 for an unknown platform, the binary otherwise' '
	test "$(code "worker?sessionID=ffff&name=worker&platform=$PLATFORM")" = 403 &&
	test "$(code "worker?sessionID=$SID&name=other&platform=$PLATFORM")" = 403 &&
	test "$(code "worker?sessionID=$SID&name=worker&platform=sparc-sun-solaris")" = 415 &&
	test "$(code "worker?sessionID=$SID&name=worker&platform=..%2F..%2Fconfig.xml")" = 415 &&
	test "$(code "worker?sessionID=$SID&name=worker&platform=$PLATFORM")" = 200 &&
	cmp body "$SDIR/workers/$PLATFORM"
'

test_expect_success '/task: a ticket (unguessable, the result renamed), the timeout and the task body; 403 for a wrong session' '
	test "$(code "task?sessionID=ffff")" = 403 &&
	test "$(code "task?sessionID=$SID")" = 200 &&
	t=$(ticket) && echo "$t" >t1 && echo "$t" | grep -q "^[0-9a-f]\{32\}$" &&
	grep "^Timeout=0$" body && grep "^CommandLine=worker [12]$" body && grep "^File=stdout$" body &&
	test "$(test_sql_value "select server_state from result where name=\"$t\"")" = 4
'

test_expect_success '/ping: 204 while the ticket runs; 403 for a wrong session; 205 for an unknown ticket' '
	t=$(cat t1) &&
	test "$(code "ping?sessionID=$SID&ticket=$t")" = 204 &&
	test "$(code "ping?sessionID=ffff&ticket=$t")" = 403 &&
	test "$(code "ping?sessionID=$SID&ticket=0000")" = 205
'

test_expect_success '/complete: the results stored whole, the ticket over; a ping then gets 205' '
	t=$(cat t1) &&
	printf "[Result]\nName=out\nLength=19\n--begin content--\n--end content--\nxyz\n--end content--\n" >res &&
	test "$(curl -s -o /dev/null -w "%{http_code}" --data-binary @res "$BASE/complete?sessionID=$SID&ticket=$t")" = 200 &&
	cmp res "$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload "$t")" &&
	test "$(test_sql_value "select concat(server_state, outcome) from result where name=\"$t\"")" = 51 &&
	# due for the master'"'"'s judging; the transitioner has nothing to do before the verdict
	test "$(test_sql_value "select concat(w.need_validate, w.transition_time > unix_timestamp()) from workunit w join result r on r.workunitid=w.id where r.name=\"$t\"")" = 11 &&
	test "$(code "ping?sessionID=$SID&ticket=$t")" = 205 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" --data-binary @res "$BASE/complete?sessionID=ffff&ticket=$t")" = 403
'

test_expect_success '/complete again for the same ticket (its answer lost): 200, the results stay' '
	t=$(cat t1) &&
	test "$(curl -s -o /dev/null -w "%{http_code}" --data-binary @res "$BASE/complete?sessionID=$SID&ticket=$t")" = 200 &&
	cmp res "$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload "$t")" &&
	test "$(test_sql_value "select concat(server_state, outcome) from result where name=\"$t\"")" = 51
'

test_expect_success '/failed: the ticket ends in error and the task is handed out again' '
	test "$(code "task?sessionID=$SID")" = 200 && t=$(ticket) &&
	test "$(code "failed?sessionID=$SID&ticket=$t")" = 200 &&
	test "$(test_sql_value "select concat(server_state, outcome) from result where name=\"$t\"")" = 53 &&
	test "$(test_sql_value "select w.transition_time <= unix_timestamp() from workunit w join result r on r.workunitid=w.id where r.name=\"$t\"")" = 1 &&
	test "$(code "failed?sessionID=ffff&ticket=$t")" = 403 &&
	test "$(unsent)" = 0 &&
	test_project bin/transitioner --one_pass 2>/dev/null &&
	test "$(unsent)" = 1
'

test_expect_success '/failed with why=: the reason is kept with the ticket' '
	test "$(code "task?sessionID=$SID&host=h1.example.org")" = 200 && t=$(ticket) &&
	test "$(code "failed?sessionID=$SID&ticket=$t&host=h1.example.org&why=exit%20status%203")" = 200 &&
	test "$(test_sql_value "select replace(stderr_out, \"\n\", \"|\") from result where name=\"$t\"")" = "host=h1.example.org|why=exit status 3|" &&
	test_project bin/transitioner --one_pass 2>/dev/null
'

test_expect_success 'an expired ticket: ping 205, and the transitioner hands its task out again' '
	task 3 1 && test_project bin/transitioner --one_pass 2>/dev/null &&
	while test "$(code "task?sessionID=$SID")" = 200; do grep -q "^Timeout=1$" body && ticket >t3; done &&
	test -s t3 && test "$(cat body)" = "no task left" &&
	sleep 2 &&
	test "$(code "ping?sessionID=$SID&ticket=$(cat t3)")" = 205 &&
	(cd "$PROJECT_DIR" && WSEQ_TIME_OFFSET=10 bin/transitioner --one_pass 2>/dev/null) &&
	test "$(unsent)" = 1
'

state_of() {  # the server_state and outcome of a ticket
	test_sql_value "select concat(server_state, outcome) from result where name=\"$1\""
}
# post TICKET FILE [SESSION]: POST FILE to /complete, the reply in ./body, the status printed
post() {
	curl -s -o body -w "%{http_code}" --data-binary "@$2" "$BASE/complete?sessionID=${3:-$SID}&ticket=$1"
}
# raw_post TICKET LENGTH BYTES: a POST announcing LENGTH bytes that sends BYTES and hangs up
raw_post() {
	python3 - "${HOSTPORT%:*}" "${HOSTPORT#*:}" "/wseq_cgi/sweep/complete?sessionID=$SID&ticket=$1" "$2" "$3" <<-\PY
	import socket, sys
	host, port, path, length, data = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
	s = socket.create_connection((host, port), timeout=60)
	s.sendall(("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %s\r\n"
	           "Connection: close\r\n\r\n%s" % (path, host, length, data)).encode())
	s.shutdown(socket.SHUT_WR)
	reply = b""
	while True:
	    b = s.recv(65536)
	    if not b:
	        break
	    reply += b
	print(reply.split(b" ")[1].decode() if reply else "none")
	PY
}

test_expect_success '/complete needs the body it announced with the results its task asks for: else 400, logged, the ticket still open' '
	task 9 0 && test_project bin/transitioner --one_pass 2>/dev/null &&
	test "$(code "task?sessionID=$SID")" = 200 && t=$(ticket) && test -n "$t" && echo "$t" >t9 &&
	: >empty && test "$(post "$t" empty)" = 400 && grep "empty" body &&
	test "$(state_of "$t")" = 40 &&
	printf "hello\n" >junk && test "$(post "$t" junk)" = 400 && grep "complete:1" body &&
	printf "[Result]\nName=other\nLength=1\n--begin content--\nx\n--end content--\n" >other &&
	test "$(post "$t" other)" = 400 && grep "no \[Result\] .out." body &&
	printf "[Result]\nName=out\nLength=1\n--begin content--\nx\n--end content--\n[Result]\nName=other\nLength=1\n--begin content--\ny\n--end content--\n" >extra &&
	test "$(post "$t" extra)" = 400 && grep "other" body &&
	test "$(state_of "$t")" = 40 &&
	r=$(raw_post "$t" 1073741824 "[Result]") && echo "announced 1 GiB: $r" && test "$r" != 200 &&
	r=$(raw_post "$t" 100 "[Result]") && echo "announced 100: $r" && test "$r" != 200 &&
	test "$(state_of "$t")" = 40 &&
	! test -e "$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload "$t")" &&
	grep "complete: .*empty" "$PROJECT_DIR/log/sweep.log" &&
	printf "[Result]\nName=out\nLength=6\n--begin content--\nresult\n--end content--\n" >good &&
	test "$(post "$t" good)" = 200 && test "$(state_of "$t")" = 51
'

test_expect_success 'a ticket is only its own session'"'"'s: another session cannot complete, fail or ping it, and nothing of it changes' '
	SID2=fedcba9876543210fedcba9876543210 &&
	test_sql "$WSEQ_DB_NAME" -e "insert into batch (name, state, create_time, app_id) values (\"sweep:$SID2\", 1, 1, (select id from app where name=\"sweep\"))" &&
	task 10 0 && test_project bin/transitioner --one_pass 2>/dev/null &&
	test "$(code "task?sessionID=$SID")" = 200 && t=$(ticket) && test -n "$t" &&
	test "$(post "$t" good "$SID2")" = 400 && grep "no such ticket in this session" body &&
	test "$(code "failed?sessionID=$SID2&ticket=$t&why=mine")" = 200 &&
	test "$(code "ping?sessionID=$SID2&ticket=$t")" = 205 &&
	test "$(state_of "$t")" = 40 &&
	! test_sql_value "select stderr_out from result where name=\"$t\"" | grep mine &&
	! test -e "$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload "$t")" &&
	test "$(code "ping?sessionID=$SID&ticket=$t")" = 204 &&
	test "$(post "$t" good)" = 200 && test "$(state_of "$t")" = 51 &&
	test_sql "$WSEQ_DB_NAME" -e "update batch set state=4 where name=\"sweep:$SID2\""
'

test_expect_success 'identifiers and notes from the client are bounded: a long or odd ticket is refused, host= and why= are cut and cleaned' '
	test "$(code "ping?sessionID=$SID&ticket=$(printf "%065d" 0)")" = 400 && grep "ticket" body &&
	test "$(code "failed?sessionID=$SID&ticket=a%2Fb")" = 400 && grep "ticket" body &&
	test "$(code "complete?sessionID=$SID")" = 400 &&
	task 11 0 && test_project bin/transitioner --one_pass 2>/dev/null &&
	long=$(printf "%0400d" 0 | tr 0 h) &&
	test "$(code "task?sessionID=$SID&host=%ff%01$long")" = 200 && t=$(ticket) &&
	test "$(code "failed?sessionID=$SID&ticket=$t&why=%C3%A9%0Abad%00x$long")" = 200 &&
	test_sql_value "select replace(stderr_out, \"\n\", \"|\") from result where name=\"$t\"" | tr "|" "\n" >n &&
	grep "^host=??hhhh" n && grep "^why=é?bad?x" n && test "$(grep -c . n)" = 2 &&
	test "$(sed -n "s/^host=//p" n | wc -m)" -le 256 &&
	test "$(sed -n "s/^why=//p" n | wc -m)" -le 301 &&
	test_project bin/transitioner --one_pass 2>/dev/null
'

# failpost TICKET FILE [SESSION]: POST FILE to /failed (a client told SendOutput=Yes), reply in ./body
failpost() {
	curl -s -o body -w "%{http_code}" --data-binary "@$2" \
		"$BASE/failed?sessionID=${3:-$SID}&ticket=$1&why=the%20worker%20exited%20with%20status%203"
}
upload() { test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload "$1"; }
# out_ticket N: a ticket of a new task N, handed out, in ./t
out_ticket() {
	task "$1" 0 && test_project bin/transitioner --one_pass 2>/dev/null &&
	test "$(code "task?sessionID=$SID")" = 200 && ticket >t && test -s t
}

test_expect_success 'POST /failed with the exit status and output: the failure recorded, the body kept as its results' '
	out_ticket 12 && t=$(cat t) &&
	printf "Exit=3\n[Stderr]\nSize=5\nLength=5\n--begin content--\noops\n\n--end content--\n" >fbody &&
	test "$(failpost "$t" fbody)" = 200 &&
	test "$(state_of "$t")" = 53 && cmp fbody "$(upload "$t")" &&
	test_sql_value "select stderr_out from result where name=\"$t\"" | grep "why=the worker exited with status 3" &&
	# late: answered as always, and the kept body does not change
	printf "Exit=4\n" >late && test "$(failpost "$t" late)" = 200 && cmp fbody "$(upload "$t")" &&
	test "$(failpost "$t" fbody ffff)" = 403 &&
	# a POST without a body is the GET
	out_ticket 13 && t=$(cat t) && : >empty &&
	test "$(failpost "$t" empty)" = 200 && test "$(state_of "$t")" = 53 && ! test -e "$(upload "$t")"
'

test_expect_success 'POST /failed with a malformed or oversized body: 400, logged, the failure recorded, nothing kept' '
	out_ticket 14 && t=$(cat t) &&
	printf "Exit=256\n[Stdout]\n--begin content--\nx\n--end content--\n" >bad &&
	test "$(failpost "$t" bad)" = 400 &&
	grep "^output refused, the failure is recorded: failed:1: bad Exit .256. (0 to 255)" body &&
	test "$(state_of "$t")" = 53 && ! test -e "$(upload "$t")" &&
	grep "failed: output refused (the failure is recorded)" "$PROJECT_DIR/log/sweep.log" &&
	out_ticket 15 && t=$(cat t) &&
	{ printf "[Stderr]\nLength=1048577\n--begin content--\n" &&
	  head -c 1048577 /dev/zero | tr "\0" e && printf "\n--end content--\n"; } >big &&
	test "$(failpost "$t" big)" = 400 && grep "more than the 1048576 a stream may bring" body &&
	test "$(state_of "$t")" = 53 && ! test -e "$(upload "$t")"
'

test_expect_success 'POST /failed for a ticket this session does not have: 200, ignored, nothing kept' '
	test "$(failpost 00000000000000000000000000000000 fbody)" = 200 &&
	! test -e "$(upload 00000000000000000000000000000000)" &&
	test "$(failpost "a/b" fbody)" = 400 && grep "ticket" body &&
	test_project bin/transitioner --one_pass 2>/dev/null
'

test_expect_success '/task with nothing left: 503' '
	test_sql "$WSEQ_DB_NAME" -e "update result set server_state=5, outcome=5 where server_state=2" &&
	test "$(code "task?sessionID=$SID")" = 503
'

test_expect_success 'the real sweep_client runs a session to its end against these endpoints' '
	for i in 4 5 6 7 8; do task $i 30 || return 1; done &&
	test_project bin/transitioner --one_pass 2>/dev/null &&
	test "$(unsent)" = 5 &&
	md5=$(md5sum <"$SDIR/workers/$PLATFORM" | cut -c1-32) &&
	mkdir client &&
	echo "$SID" | "$WSEQ_BUILDDIR/sweep/client/sweep_client" --dir client --max-silence 20 - worker "$md5" \
		"$BASE/" 2>client.log &&
	test "$(unsent)" = 0 &&
	for i in 4 5 6 7 8; do
		t=$(test_sql_value "select r.name from result r join workunit w on w.id=r.workunitid where w.name=\"sweep_t$i\" and r.outcome=1") &&
		grep -a "^result of $i$" "$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload "$t")" || return 1
	done &&
	! grep -r "$SID" "$PROJECT_DIR/log"
'

# pids of the sweep.log lines from line $1 on
log_pids() { tail -n "+$1" "$PROJECT_DIR/log/sweep.log" | sed -n "s/^.* sweep\[\([0-9]*\)\] .*/\1/p"; }

if [ -f /usr/lib/apache2/modules/mod_fcgid.so ]; then
	test_expect_success 'with mod_fcgid one persistent FastCGI process answers request after request' '
		from=$(($(wc -l <"$PROJECT_DIR/log/sweep.log") + 1)) &&
		for i in 1 2 3 4 5; do
			test "$(code "config?sessionID=ffffffffffffffffffffffffffffffff")" = 403 || return 1
		done &&
		log_pids $from >all && test_line_count = 5 all &&
		sort all | uniq -c | sort -rn >pids &&
		read n pid <pids && test "$n" -ge 2 &&
		grep -q "cgi-bin/sweep" "/proc/$pid/cmdline"
	'
else
	test_skip 'with mod_fcgid one persistent FastCGI process answers request after request' \
		'mod_fcgid is not installed (libapache2-mod-fcgid): the endpoints run as plain CGI'
fi

test_expect_success 'a stopped database gives 503; the first request after it comes back works' '
	test "$(code "config?sessionID=$SID")" = 200 &&
	pid=$(cat "$sbdir/mysql/mariadbd.pid") && kill "$pid" &&
	test_wait_for 60 sh -c "! kill -0 $pid 2>/dev/null" &&
	test "$(code "config?sessionID=$SID")" = 503 &&
	test "$(code "task?sessionID=$SID")" = 503 && grep -q "database is unavailable" body &&
	wseq_sandbox up --no-daemons "$sbdir" 2>/dev/null &&
	test "$(code "config?sessionID=$SID")" = 200 && cmp body "$SDIR/config"
'

test_expect_success 'when Apache stops, the endpoint processes end (and sanitizers, if built in, report nothing)' '
	wseq_sandbox down "$sbdir" >/dev/null 2>&1 &&
	! pgrep -f "^$PROJECT_DIR/cgi-bin/sweep" &&
	test_grep -v "Sanitizer" "$sbdir/apache/logs/error.log" &&
	test_grep -v "terminating forcefully" "$sbdir/apache/logs/error.log"
'

test_done
