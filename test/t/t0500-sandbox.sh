#!/bin/sh
test_description='wseq_sandbox gives a complete private project: MariaDB, Apache, project, daemons'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_atexit "wseq_sandbox down '$TRASH_DIRECTORY/sb1'"
test_atexit "wseq_sandbox down '$TRASH_DIRECTORY/sb2'"

pid_of() { cat "$1"; }
alive() { kill -0 "$(cat "$1")" 2>/dev/null; }

test_expect_success 'up starts MariaDB, Apache and the project' '
	wseq_sandbox up sb1 2>up.log &&
	test_grep "master page at http://127.0.0.1:" up.log &&
	alive sb1/mysql/mariadbd.pid && alive sb1/apache/run/httpd.pid &&
	test -f sb1/project/config.xml
'

test_expect_success 'env prints the sandbox settings with a 127.0.0.1 URL' '
	wseq_sandbox env sb1 >env &&
	. ./env &&
	test "$PROJECT_DIR" = "$TRASH_DIRECTORY/sb1/project" &&
	case "$PROJECT_URL" in http://127.0.0.1:*/wseq/) ;; *) false ;; esac &&
	test -S "$WSEQ_DB_SOCKET" && test -n "$WSEQ_DB_NAME" && test -n "$ADMIN_AUTHENTICATOR" &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select authenticator from user where name=\"admin\"")" = "$ADMIN_AUTHENTICATOR"
'

test_expect_success 'curl fetches the master page from the printed URL' '
	. ./env &&
	curl -sf "$PROJECT_URL" >master.html &&
	test_grep "^<link rel=\"boinc_scheduler\" href=\"http://127.0.0.1:[0-9]*/wseq_cgi/cgi\">$" master.html &&
	test_grep "^<scheduler>http://127.0.0.1:[0-9]*/wseq_cgi/cgi</scheduler>$" master.html &&
	test_grep "How to join" master.html
'

test_expect_success 'Apache serves the download directory and refuses what lies outside' '
	. ./env &&
	echo hello >sb1/project/download/0/probe.txt &&
	curl -sf "${PROJECT_URL}download/0/probe.txt" >probe &&
	echo hello >expect && test_cmp expect probe &&
	code=$(curl -s -o /dev/null -w "%{http_code}" "${PROJECT_URL}../wseq/config.xml") &&
	test "$code" != 200 &&
	code=$(curl -s -o /dev/null -w "%{http_code}" "${PROJECT_URL%wseq/}sandbox.conf") &&
	test "$code" != 200
'

test_expect_success 'bin/status in the project runs and reports its daemons' '
	(cd sb1/project && ./bin/status) >status.out; rc=$? &&
	test $rc = 0 &&
	wseq_config --project sb1/project --daemons >daemons &&
	while read -r kind prog rest; do
		# tasks (db_dump, update_stats) run from cron, not as daemons
		test "$kind" = daemon || continue
		test_grep "$prog" status.out || return 1
	done <daemons
'

test_expect_success 'up again is idempotent: same processes, same ports' '
	. ./env &&
	db=$(pid_of sb1/mysql/mariadbd.pid) && web=$(pid_of sb1/apache/run/httpd.pid) &&
	wseq_sandbox up sb1 2>/dev/null &&
	test "$(pid_of sb1/mysql/mariadbd.pid)" = "$db" &&
	test "$(pid_of sb1/apache/run/httpd.pid)" = "$web" &&
	wseq_sandbox env sb1 >env2 && test_cmp env env2
'

test_expect_success 'a second sandbox runs beside the first on other ports' '
	wseq_sandbox up sb2 2>/dev/null &&
	wseq_sandbox env sb2 >env.sb2 &&
	url2=$(. ./env.sb2 && echo "$PROJECT_URL") && . ./env &&
	test "$url2" != "$PROJECT_URL" &&
	curl -sf "$url2" >m2 && curl -sf "$PROJECT_URL" >m1 &&
	test_grep "$url2" m2 && test_grep "$PROJECT_URL" m1
'

test_expect_success 'down stops everything it started and nothing else' '
	db=$(pid_of sb1/mysql/mariadbd.pid) && web=$(pid_of sb1/apache/run/httpd.pid) &&
	wseq_sandbox down sb1 2>/dev/null &&
	! kill -0 "$db" 2>/dev/null && ! kill -0 "$web" 2>/dev/null &&
	. ./env && ! curl -sf "$PROJECT_URL" >/dev/null &&
	url2=$(. ./env.sb2 && echo "$PROJECT_URL") && curl -sf "$url2" >/dev/null
'

test_expect_success 'up after down restarts the same project with its database' '
	. ./env && auth=$ADMIN_AUTHENTICATOR &&
	wseq_sandbox up sb1 2>/dev/null &&
	wseq_sandbox env sb1 >env3 && test_cmp env env3 &&
	. ./env3 && curl -sf "$PROJECT_URL" >/dev/null &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select authenticator from user where name=\"admin\"")" = "$auth"
'

test_expect_success 'down twice and up twice in a row' '
	wseq_sandbox down sb1 2>/dev/null && wseq_sandbox down sb1 2>/dev/null &&
	wseq_sandbox up sb1 2>/dev/null && wseq_sandbox up sb1 2>/dev/null &&
	. ./env && curl -sf "$PROJECT_URL" >/dev/null
'

test_expect_success 'services killed with -9 are recovered by up' '
	db=$(pid_of sb1/mysql/mariadbd.pid) && web=$(pid_of sb1/apache/run/httpd.pid) &&
	kill -9 "$db" "$web" &&
	test_wait_for 60 test_pid_gone "$db" && test_wait_for 60 test_pid_gone "$web" &&
	test_must_fail wseq_sandbox status sb1 >st &&
	test_grep "mariadb *stopped" st &&
	wseq_sandbox up sb1 2>/dev/null &&
	. ./env && curl -sf "$PROJECT_URL" >/dev/null &&
	wseq_sandbox status sb1
'

# Apache and all its children killed (a crash): its FastCGI processes notice
# that their process manager is gone and end, instead of living on as orphans.
if [ -f /usr/lib/apache2/modules/mod_fcgid.so ]; then
	test_expect_success 'Apache killed whole: its FastCGI processes end by themselves' '
		. ./env && curl -sf "$PROJECT_URL" >/dev/null &&
		fcgi=$(pgrep -f "$TRASH_DIRECTORY/sb1/project/cgi-bin/[w]eb") && test -n "$fcgi" &&
		pkill -KILL -f "apache2 -f $TRASH_DIRECTORY/sb1/apache/httpd.conf" &&
		test_wait_for 60 sh -c "! pgrep -f \"apache2 -f $TRASH_DIRECTORY/sb1/apache/[h]ttpd.conf\" >/dev/null" &&
		for p in $fcgi; do test_wait_for 60 test_pid_gone "$p" || return 1; done &&
		wseq_sandbox up sb1 2>/dev/null && curl -sf "$PROJECT_URL" >/dev/null
	'
else
	test_expect_success 'mod_fcgid is installed (libapache2-mod-fcgid)' 'false'
fi

test_expect_success 'a taken port is a clear error' '
	port=$(. ./env && echo "$PROJECT_URL" | sed "s|http://127.0.0.1:\([0-9]*\)/.*|\1|") &&
	test_must_fail wseq_sandbox up sb3 --http-port "$port" 2>err &&
	test_grep "port $port on 127.0.0.1 is already in use" err &&
	wseq_sandbox down sb3 2>/dev/null; true
'

test_expect_success 'bad usage gets one-line errors' '
	test_must_fail wseq_sandbox up 2>e1 && test_grep "needs a directory" e1 &&
	test_must_fail wseq_sandbox up sb4 --bogus 2>e2 && test_grep "unknown option" e2 &&
	test_must_fail wseq_sandbox env nowhere 2>e3 && test_grep "no such directory" e3 &&
	test_must_fail wseq_sandbox frob x 2>e4 && test_grep "unknown command" e4 &&
	wseq_sandbox --help >h && test_grep "wseq_sandbox up DIR" h
'

test_done
