#!/bin/sh
test_description='two projects made by make_project on one Apache (wseq_sandbox --extra-project): every URL of a project is its own -- its scheduler, account and submit RPCs, web pages, downloads and sweep endpoints answer for its own database and files only -- and nothing answers at the server root'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --name alpha --extra-project beta --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
DATA="$WSEQ_SRCDIR/test/data/sweep-session"

# penv NAME VAR: the sandbox's setting VAR for project NAME
penv() {
	(eval "$(wseq_sandbox env "$sbdir" "$1")" && eval "echo \"\$$2\"")
}
A_DIR=$(penv alpha PROJECT_DIR) A_KEY=$(penv alpha ADMIN_AUTHENTICATOR)
B_DIR=$(penv beta PROJECT_DIR) B_KEY=$(penv beta ADMIN_AUTHENTICATOR)
SERVER=${PROJECT_URL%alpha/}            # http://127.0.0.1:PORT/

# status URL: the HTTP status of GET URL, the body in ./body
status() { curl -s -o body -w "%{http_code}" "$1"; }
# unmapped PATH: Apache maps the server-relative PATH to nothing (403 or 404)
unmapped() {
	case $(status "$SERVER$1") in
	403 | 404) ;;
	*) echo "$SERVER$1 answered $(status "$SERVER$1")" >&2; return 1 ;;
	esac
}
# rpc NAME KEY: a scheduler RPC of a new host of account KEY to project NAME; reply in ./reply
rpc() {
	sched_host_request "$2" 0 "host-of-$2" 0 >req.xml &&
	curl -sf -o reply --data-binary @req.xml "$SERVER${1}_cgi/cgi"
}

test_expect_success 'the sandbox: two projects, two databases, one Apache including both snippets' '
	test "$A_DIR" = "$sbdir/project" && test "$B_DIR" = "$sbdir/project-beta" &&
	test "$(penv beta PROJECT_URL)" = "${SERVER}beta/" &&
	test "$(penv beta WSEQ_DB_NAME)" = beta &&
	test -n "$A_KEY" && test -n "$B_KEY" && test "$A_KEY" != "$B_KEY" &&
	test "$(test_sql beta -e "select authenticator from user where name=\"admin\"")" = "$B_KEY" &&
	grep "^Include " "$sbdir/apache/httpd.conf" >includes &&
	printf "Include %s\nInclude %s\n" "$A_DIR/alpha.httpd.conf" "$B_DIR/beta.httpd.conf" >expect &&
	test_cmp expect includes &&
	wseq_sandbox status "$sbdir" >st && test_grep "project   beta: ${SERVER}beta/" st
'

# The lines of a snippet outside its <Directory> blocks that map or set
# anything beyond the project NAME (root DIR): none may.
foreign_lines() {
	awk -v n="$1" -v d="$2" '
	/^[ \t]*(#|$)/ { next }
	/^<Directory / { indir = 1; next }
	/^<\/Directory>/ { indir = 0; next }
	indir { next }
	$1 == "Alias" || $1 == "ScriptAlias" {
		if ($2 == "/" n || index($2, "/" n "/") == 1 || $2 == "/" n "_cgi" || $2 == "/" n "_ops") next
	}
	$1 == "ScriptAliasMatch" && (index($2, "^/" n "/") == 1 || index($2, "^/" n "_ops(") == 1) { next }
	$1 == "FcgidCmdOptions" && index($2, d "/cgi-bin/") == 1 { next }
	$1 == "FcgidMaxRequestLen" && $2 == "1073741824" { next }
	$1 == "<IfModule" || $1 == "</IfModule>" { next }
	{ print }' "$2/$1.httpd.conf"
}

test_expect_success 'each snippet maps only URLs under its project'"'"'s name (FcgidMaxRequestLen, server-wide, the same in both)' '
	foreign_lines alpha "$A_DIR" >fa && foreign_lines beta "$B_DIR" >fb &&
	cat fa fb && ! test -s fa && ! test -s fb &&
	test "$(grep -c "^Alias\|^ScriptAlias" "$B_DIR/beta.httpd.conf")" -ge 8 &&
	grep "^FcgidMaxRequestLen" "$A_DIR/alpha.httpd.conf" >la &&
	grep "^FcgidMaxRequestLen" "$B_DIR/beta.httpd.conf" >lb && test_cmp la lb
'

test_expect_success 'each scheduler answers for its own database: an admin key works at its own project only' '
	rpc alpha "$A_KEY" && test_grep "<project_name>alpha</project_name>" reply &&
	test_grep "^<hostid>[1-9]" reply && test_grep -v "Invalid or missing account key" reply &&
	rpc beta "$A_KEY" && test_grep "<project_name>beta</project_name>" reply &&
	test_grep "Invalid or missing account key" reply &&
	rpc beta "$B_KEY" && test_grep "^<hostid>[1-9]" reply &&
	rpc alpha "$B_KEY" && test_grep "Invalid or missing account key" reply &&
	test "$(test_sql alpha -e "select count(*) from host")" = 1 &&
	test "$(test_sql beta -e "select count(*) from host")" = 1 &&
	test "$(test_sql beta -e "select h.host_cpid from host h join user u on u.id=h.userid where u.authenticator=\"$B_KEY\"")" = "host-of-$B_KEY"
'

# own_links NAME: every link of ./body to this server is under project NAME's own URLs
own_links() {
	grep -o "\(href\|src\|action\)=\"[^\"]*\"" body | sed "s/^[a-z]*=\"//; s/\"\$//" >links &&
	grep "^$SERVER" links >here && test -s here &&
	! grep -v -e "^$SERVER$1/" -e "^$SERVER${1}_cgi/" -e "^$SERVER${1}_ops/" here &&
	! grep "^/" links
}

test_expect_success 'the web pages and account RPCs name their own project, link to its URLs and know its accounts only' '
	for p in alpha beta; do
		test "$(status "$SERVER$p/get_project_config.php")" = 200 &&
		test_grep "<name>$p</name>" body &&
		test_grep "<master_url>$SERVER$p/</master_url>" body &&
		test "$(status "$SERVER$p/")" = 200 && test_grep "<title>$p" body &&
		test_grep "rel=\"boinc_scheduler\" href=\"$SERVER${p}_cgi/cgi\"" body && own_links $p &&
		for page in join login apps teams server_status; do
			test "$(status "$SERVER$p/$page")" = 200 && own_links $p || return 1
		done &&
		test_grep "^<scheduler>$SERVER${p}_cgi/cgi</scheduler>\$" "$(penv $p PROJECT_DIR)/html/user/index.html" &&
		test "$(status "$SERVER${p}_ops/")" = 401 ||
		return 1
	done &&
	test "$(status "${SERVER}alpha/am_get_info.php?account_key=$A_KEY")" = 200 && test_grep "<success/>" body &&
	test "$(status "${SERVER}beta/am_get_info.php?account_key=$A_KEY")" = 200 && test_grep "<error_num>-136</error_num>" body &&
	test "$(status "${SERVER}beta/am_get_info.php?account_key=$B_KEY")" = 200 && test_grep "<success/>" body
'

test_expect_success 'the submit RPCs: each knows its own accounts only' '
	printf "<query_batches>\n<authenticator>%s</authenticator>\n</query_batches>\n" "$A_KEY" >qa.xml &&
	curl -sf -F "request=<qa.xml" "${SERVER}alpha/submit_rpc_handler.php" >ra &&
	test_grep "<query_batches>" ra && test_grep -v "<error>" ra &&
	curl -sf -F "request=<qa.xml" "${SERVER}beta/submit_rpc_handler.php" >rb &&
	test_grep "bad authenticator" rb
'

test_expect_success 'downloads are each project'"'"'s own' '
	echo alpha-file >"$A_DIR/download/0/probe.txt" &&
	test "$(status "${SERVER}alpha/download/0/probe.txt")" = 200 && echo alpha-file >expect && test_cmp expect body &&
	test "$(status "${SERVER}beta/download/0/probe.txt")" = 404
'

test_expect_success 'a sweep session on each project (sweep create --project)' '
	mkdir a b && cp "$DATA"/* a/ && cp "$DATA"/* b/ &&
	(cd a && sweep --project "$A_DIR" create spec >../sid.a 2>../create.a) &&
	(cd b && sweep --project "$B_DIR" create spec >../sid.b 2>../create.b) &&
	test_grep "sweep_client.s URL: ${SERVER}alpha_cgi/sweep\$" create.a &&
	test_grep "sweep_client.s URL: ${SERVER}beta_cgi/sweep\$" create.b &&
	test "$(test_sql alpha -e "select count(*) from batch where name=\"sweep:$(cat sid.a)\"")" = 1 &&
	test "$(test_sql beta -e "select count(*) from batch where name=\"sweep:$(cat sid.a)\"")" = 0
'

test_expect_success 'each project'"'"'s sweep endpoints answer for their own sessions only' '
	SA=$(cat sid.a) SB=$(cat sid.b) &&
	test "$(status "${SERVER}alpha_cgi/sweep/config?sessionID=$SA")" = 200 &&
	test_cmp "$A_DIR/sweep/$SA/config" body &&
	test "$(status "${SERVER}beta_cgi/sweep/config?sessionID=$SA")" = 403 &&
	test "$(status "${SERVER}alpha_cgi/sweep/config?sessionID=$SB")" = 403 &&
	test "$(status "${SERVER}beta_cgi/sweep/task?sessionID=$SB")" = 200 &&
	t=$(sed -n "s/^Ticket=//p" body) && test -n "$t" &&
	test "$(status "${SERVER}alpha_cgi/sweep/ping?sessionID=$SB&ticket=$t")" = 403 &&
	test "$(status "${SERVER}beta_cgi/sweep/ping?sessionID=$SB&ticket=$t")" = 204 &&
	test "$(status "${SERVER}beta_cgi/sweep/task?sessionID=$SA")" = 403 &&
	test "$(test_sql alpha -e "select count(*) from result where server_state=4")" = 0
'

test_expect_success 'the real sweep_client runs a session at its own project'"'"'s URL; at the other one it is refused' '
	SA=$(cat sid.a) && md5=$(md5sum <"$DATA/worker.sh" | cut -c1-32) &&
	mkdir ca &&
	echo "$SA" | sweep_client --dir ca --max-silence 20 - worker "$md5" "${SERVER}beta_cgi/sweep" \
		2>refused.log; test $? = 2 &&
	echo "$SA" | sweep_client --dir ca --max-silence 20 - worker "$md5" "${SERVER}alpha_cgi/sweep" \
		2>client.log &&
	test "$(test_sql alpha -e "select count(*) from result r join batch b on b.id=r.batch where b.name=\"sweep:$SA\" and r.outcome=1")" = 3 &&
	test "$(test_sql beta -e "select count(*) from result where outcome=1")" = 0 &&
	test "$(test_sql beta -e "select count(*) from result where server_state=2")" = 2
'

test_expect_success 'nothing answers at the server root' '
	SA=$(cat sid.a) &&
	for path in "" index.html cgi file_upload_handler get_project_config.php \
		submit_rpc_handler.php download/0/probe.txt stats/ sweep/config \
		"config?sessionID=$SA" "task?sessionID=$SA" "sweep/task?sessionID=$SA" \
		"cgi-bin/sweep/config?sessionID=$SA" "_cgi/sweep/config?sessionID=$SA" ops/ _ops/; do
		unmapped "$path" || return 1
	done
'

test_expect_success 'a third project added to the running sandbox: Apache serves it too, the others keep their data' '
	web=$(cat "$sbdir/apache/run/httpd.pid") &&
	wseq_sandbox up "$sbdir" --no-daemons 2>/dev/null &&
	test "$(cat "$sbdir/apache/run/httpd.pid")" = "$web" &&
	wseq_sandbox up "$sbdir" --extra-project gamma --no-daemons 2>up3.log &&
	test_grep "master page at ${SERVER}gamma/" up3.log &&
	test "$(status "${SERVER}gamma/get_project_config.php")" = 200 && test_grep "<name>gamma</name>" body &&
	test "$(status "${SERVER}alpha/get_project_config.php")" = 200 && test_grep "<name>alpha</name>" body &&
	rpc gamma "$(penv gamma ADMIN_AUTHENTICATOR)" && test_grep "<project_name>gamma</project_name>" reply &&
	test "$(test_sql alpha -e "select count(*) from host")" = 1 &&
	test "$(penv gamma PROJECT_DIR)" = "$sbdir/project-gamma"
'

test_done
