#!/bin/sh
# What a submitter or a host sends is never an active page on the project's
# origin, where the volunteers' and the ops pages live: job file names with
# an extension a browser or a web server treats as active are refused at
# upload; download/ and get_output serve every file as a download (one
# fixed type, attachment, nosniff, a sandboxing CSP), which headless
# Chromium downloads instead of running its script; no handler runs in
# download/ even on a server configured to run them elsewhere.
# Screenshots stay in web/*/*.png.
test_description='active content: job file extensions, download/ and get_output headers, Chromium, no handler in download/'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
SB="$TRASH_DIRECTORY/sb"
URL="${PROJECT_URL%/}/"
AUTH="$ADMIN_AUTHENTICATOR"
TOOL="$WSEQ_BUILDDIR/test/wseq_test"
mkdir -p web

rpc() { curl -sS -F "request=<$2" "$URL$1"; }
req() { printf '%s\n' "$1" >req.xml; }
md5() { md5sum <"$1" | cut -c1-32; }
# upload NAME FILE: upload_files of FILE under NAME, the reply on stdout
upload() {
	req "<upload_files><authenticator>$AUTH</authenticator><phys_name>$1</phys_name></upload_files>" &&
	curl -sS -F "request=<req.xml" -F "file_0=@$2" "${URL}job_file.php"
}
# url_of download|upload NAME: where the project keeps NAME, as a URL of download/
path_of() { test_project "$TOOL" daemons path "$1" "$2"; }
url_of() { p=$(path_of download "$1") && echo "${URL}download/${p#"$PROJECT_DIR/download/"}"; }
# browse NAME URL: Chromium opens the join page, then URL; its findings in NAME.out
browse() {
	WEB_OUT="$TRASH_DIRECTORY/web" python3 "$WSEQ_SRCDIR/test/data/web/untrusted.py" \
		"$1" "${URL}join" "$2" >"$1.out" 2>&1
	_rc=$?
	cat "$1.out"
	return $_rc
}
# untrusted_headers FILE: the headers of a download of untrusted bytes
untrusted_headers() {
	tr -d '\r' <"$1" >"$1.lf" &&
	test_grep "^Content-Type: application/octet-stream$" "$1.lf" &&
	test_grep "^Content-Disposition: attachment" "$1.lf" &&
	test_grep "^X-Content-Type-Options: nosniff$" "$1.lf" &&
	test_grep "^Content-Security-Policy: default-src 'none'; sandbox$" "$1.lf"
}

cat >page.html <<'EOT'
<html><body>static<script>document.body.textContent = 'wseq-untrusted-ran cookie=[' + document.cookie + ']';</script></body></html>
EOT
cat >pic.svg <<'EOT'
<svg xmlns="http://www.w3.org/2000/svg"><text id="t" y="20">static</text><script>document.getElementById('t').textContent = 'wseq-untrusted-ran cookie=[' + document.cookie + ']';</script></svg>
EOT

test_expect_success 'setup: the sample app; the admin may submit' '
	test_setup_sample_app &&
	uid=$(test_sql_value "select id from user where authenticator=\"$AUTH\"") &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all) values ($uid, 1)"
'

test_expect_success 'job files named .html, .SVG, .xml, .php are refused at upload_files and query_files, naming the file; nothing is stored' '
	m=$(md5 page.html) &&
	for ext in html SVG xml php; do
		upload "$m.$ext" page.html >out &&
		test_grep "<error_msg>bad filename $m.$ext: a job file.*s extension may not be one a browser or a web server treats as active" out &&
		! test -e "$(path_of download "$m.$ext")" &&
		req "<query_files><authenticator>$AUTH</authenticator><phys_name>$m.$ext</phys_name></query_files>" &&
		rpc job_file.php req.xml | test_grep "<error_msg>bad filename $m.$ext" || return 1
	done &&
	test "$(test_sql_value "select count(*) from job_file")" = 0 &&
	test_grep "bad filename $m.html" "$PROJECT_DIR/log/submit.log"
'

test_expect_success '... the same bytes as a .dat are a job file like any other' '
	m=$(md5 page.html) &&
	upload "$m.dat" page.html | test_grep "<success/>" &&
	cmp "$(path_of download "$m.dat")" page.html
'

test_expect_success 'wseq_submit sends an input called page.html under its MD5 alone, and the batch is made' '
	echo "$AUTH" >auth &&
	printf "executable = wseq_sample\narguments = --steps 1\ntransfer_input_files = page.html\nqueue 1\n" >page.sub &&
	WSEQ_PROJECT_URL="$URL" WSEQ_AUTH_FILE="$TRASH_DIRECTORY/auth" \
		"$WSEQ_BUILDDIR/gahp/wseq_submit" submit page.sub >batch.out 2>ws.err &&
	b=$(cat batch.out) && test -n "$b" &&
	test "$(test_sql_value "select count(*) from job_file where name=\"$(md5 page.html)\"")" = 1 &&
	test "$(test_sql_value "select njobs from batch where name=\"$b\"")" = 1
'

test_expect_success 'a page in download/ (an admin input, a file from before) is served as a download: the fixed type, attachment, nosniff, the sandbox CSP' '
	for f in page.html pic.svg; do
		test_project bin/create_work --appname wseq_sample --wu_name "admin_$f" \
			"$TRASH_DIRECTORY/$f" >>cw.log 2>&1 || return 1
	done &&
	for f in page.html pic.svg; do
		curl -sS -f -D h -o got "$(url_of $f)" && cmp got $f && untrusted_headers h || return 1
	done
'

test_expect_success 'Chromium opening that page or that SVG on the project origin downloads it: no script runs on the project origin' '
	curl -sSf -o /dev/null "$(url_of page.html)" && curl -sSf -o /dev/null "$(url_of pic.svg)" &&
	browse html "$(url_of page.html)" && test_grep "^ran: no" html.out &&
	browse svg "$(url_of pic.svg)" && test_grep "^ran: no" svg.out
'

test_expect_success 'a host output that is a page: get_output and get_output2 serve it as a download, which Chromium does not run' '
	m=$(md5 page.html) &&
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>b1</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	b=$(rpc submit_rpc_handler.php req.xml | sed -n "s|.*<batch_id>\([0-9]*\)</batch_id>.*|\1|p") && test -n "$b" &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_id>$b</batch_id><app_name>wseq_sample</app_name><job><name>j1</name><input_file><mode>local_staged</mode><source>$m.dat</source></input_file></job></batch></submit_batch>" &&
	rpc submit_rpc_handler.php req.xml | test_grep "<batch_id>$b</batch_id>" &&
	test_project bin/transitioner --one_pass >/dev/null 2>&1 &&
	test_sql "$WSEQ_DB_NAME" -e "update result set server_state=5, outcome=1, exit_status=0 where name=\"j1_0\";
		update workunit set canonical_resultid=(select id from result where name=\"j1_0\") where name=\"j1\"" &&
	out1=$(test_sql_value "select xml_doc_in from result where name=\"j1_0\"" | sed -n "s|.*<name>\([^<]*\)</name>.*|\1|p" | head -1) &&
	p=$(path_of upload "$out1") && cp page.html "$p" && chmod 644 "$p" &&
	get="${URL}get_output.php?cmd=workunit_file&auth_str=$AUTH&wu_name=j1&file_num=0" &&
	curl -sS -f -D h -o got "$get" && cmp got page.html && untrusted_headers h &&
	rid=$(test_sql_value "select id from result where name=\"j1_0\"") &&
	curl -sS -f -D h2 -o got2 "${URL}get_output2.php?cmd=file&result_id=$rid&file_num=0&auth=$AUTH" &&
	cmp got2 page.html && untrusted_headers h2 &&
	curl -sS -D h3 -o /dev/null "${URL}get_output.php?cmd=workunit_file&auth_str=$AUTH&wu_name=%3Cscript%3E&file_num=0" &&
	test_grep "^X-Content-Type-Options: nosniff" h3 &&
	browse output "$get" && test_grep "^ran: no" output.out
'

test_expect_success 'the submit RPC replies, which quote what was sent, carry nosniff and the sandbox CSP' '
	req "<ping/>" && curl -sS -D h -o /dev/null -F "request=<req.xml" "${URL}submit_rpc_handler.php" &&
	tr -d "\r" <h >h.lf &&
	test_grep "^Content-Type: text/xml" h.lf &&
	test_grep "^X-Content-Type-Options: nosniff$" h.lf &&
	test_grep "^Content-Security-Policy: default-src .none.; sandbox$" h.lf
'

# Apache as an admin might have it: every option on everywhere, CGI and SSI
# by extension, a handler set server-wide by file name (as PHP's is).
permissive_apache() {
	conf="$SB/apache/httpd.conf" &&
	cp "$conf" httpd.conf.orig &&
	test_atexit "cp '$TRASH_DIRECTORY/httpd.conf.orig' '$conf'" &&
	awk '/^Include / && !done {
		print "LoadModule include_module /usr/lib/apache2/modules/mod_include.so"
		print "<Directory />\n    Options All\n</Directory>"
		print "AddHandler cgi-script .cgi"
		print "AddType text/html .shtml\nAddOutputFilter INCLUDES .shtml"
		print "<FilesMatch \"\\.phtml$\">\n    SetHandler cgi-script\n</FilesMatch>"
		done = 1 }
	     { print }' httpd.conf.orig >"$conf" &&
	apache_restart
}
apache_restart() {
	pid=$(cat "$SB/apache/run/httpd.pid") &&
	kill "$pid" && test_wait_for 60 test_pid_gone "$pid" &&
	apache2 -f "$SB/apache/httpd.conf" -k start &&
	test_wait_for 60 curl -sf -o /dev/null "${URL}get_project_config.php"
}

test_expect_success 'no handler runs in download/, even where the server runs CGI, SSI and a FilesMatch handler: each file comes back as its bytes' '
	printf "#!/bin/sh\necho Content-Type: text/plain\necho\necho wseq-handler-ran\n" >run.cgi &&
	cp run.cgi run.phtml &&
	printf "<!--#echo var=\"DOCUMENT_URI\" -->wseq-ssi\n" >inc.shtml &&
	for f in run.cgi run.phtml inc.shtml; do
		p=$(path_of download $f) && cp $f "$p" && chmod 755 "$p" || return 1
	done &&
	permissive_apache &&
	printf "#!/bin/sh\necho Content-Type: text/plain\necho\necho control-ran\n" >"$PROJECT_DIR/html/user/control.cgi" &&
	chmod 755 "$PROJECT_DIR/html/user/control.cgi" &&
	curl -sS "${URL}control.cgi" | test_grep "^control-ran$" &&
	for f in run.cgi run.phtml inc.shtml; do
		curl -sS -D h -o got "$(url_of $f)" && cmp got $f && untrusted_headers h || return 1
	done
'

test_done
