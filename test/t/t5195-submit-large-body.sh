#!/bin/sh
# A stranger's large body costs the submit endpoint no memory: a body over
# 64 KiB is read past its first 64 KiB only when they name, in the form
# field "request", the authenticator of an account with submit rights.
# Refused bodies -- 500 MB with a wrong authenticator, none, an account
# without submit rights, the request after the files -- get the submit
# RPC's <error>, a log line, and leave the FastCGI processes (and a plain
# CGI run) as small as they were; a submitter's large upload still works.
test_description='large submit bodies: authenticated before they are buffered'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
URL="${PROJECT_URL%/}/"
AUTH="$ADMIN_AUTHENTICATOR"
OTHER=otherauth0123456789
MB=1048576

# body FILE AUTH_ELEMENT MB [after]: a sparse multipart upload_files body of about MB
# megabytes, its request first (or after the file part)
body() {
	_req="<upload_files>$2<phys_name>0123456789abcdef0123456789abcdef.dat</phys_name></upload_files>"
	_head="--B\r\nContent-Disposition: form-data; name=\"file_0\"; filename=\"x\"\r\n\r\n"
	{
		[ "${4:-}" = after ] || printf -- "--B\r\nContent-Disposition: form-data; name=\"request\"\r\n\r\n%s\r\n" "$_req"
		printf -- "$_head"
	} >"$1" &&
	truncate -s $(($3 * MB)) "$1" &&
	{
		[ "${4:-}" = after ] && printf -- "\r\n--B\r\nContent-Disposition: form-data; name=\"request\"\r\n\r\n%s" "$_req"
		printf -- "\r\n--B--\r\n"
	} >>"$1"
}
# post FILE: POST it to job_file.php as it is streamed from disk; the reply in out, "STATUS SECONDS"
post() {
	curl -sS --max-time 600 -o out -w "%{http_code} %{time_total}\n" -X POST \
		-H "Content-Type: multipart/form-data; boundary=B" -T "$1" "${URL}job_file.php"
}
# hwm: the largest peak resident size (kB) of the submit FastCGI processes now
hwm() {
	_max=0
	for _p in $(pgrep -f "^$PROJECT_DIR/cgi-bin/submit"); do
		_k=$(sed -n "s/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$_p/status" 2>/dev/null)
		[ -n "$_k" ] && [ "$_k" -gt "$_max" ] && _max=$_k
	done
	echo "$_max"
}
refused() {
	test_grep "<error_num>-1</error_num>" out &&
	test_grep "<error_msg>a request of [0-9]* bytes (over 65536) is read only for an account with submit rights whose &lt;authenticator&gt; is in its first 65536 bytes: $1</error_msg>" out
}
nothing_stored() {
	test "$(test_sql_value "select count(*) from job_file")" = 0
}

test_expect_success 'setup: the admin may submit; another account may not; the submit program answers as FastCGI' '
	uid=$(test_sql_value "select id from user where authenticator=\"$AUTH\"") &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all) values ($uid, 1)" &&
	test_user other "$OTHER" &&
	curl -sS --form-string "request=<ping/>" "${URL}submit_rpc_handler.php" | test_grep "<success>1</success>" &&
	test "$(hwm)" -gt 0 && hwm >hwm.before && cat hwm.before
'

test_expect_success 'a 500 MB body with a wrong authenticator: the <error> of the RPC, a log line, and no process grew' '
	body big "<authenticator>wrong</authenticator>" 500 &&
	post big >st && tee -a figures <st && test "$(cut -d" " -f1 st)" = 200 &&
	after=$(hwm) && echo "fastcgi peak resident after 500 MB: $after kB (before: $(cat hwm.before) kB)" | tee -a figures &&
	test "$after" -lt $(($(cat hwm.before) + 64 * 1024)) &&
	refused "bad authenticator" &&
	test_grep "bad request: a request of $(stat -c %s big) bytes" "$PROJECT_DIR/log/submit.log" &&
	nothing_stored
'

test_expect_success 'no authenticator, an account without submit rights, the request after the file: each refused alike' '
	body b1 "" 64 && post b1 && cp out out1 &&
	body b2 "<authenticator>$OTHER</authenticator>" 64 && post b2 && cp out out2 &&
	body b3 "<authenticator>$AUTH</authenticator>" 64 after && post b3 && cp out out3 &&
	after=$(hwm) && echo "fastcgi peak resident after three 64 MB: $after kB" | tee -a figures &&
	test "$after" -lt $(($(cat hwm.before) + 64 * 1024)) &&
	cp out1 out && refused "no authenticator there" &&
	cp out2 out && refused "no submit access" &&
	cp out3 out && refused "no form field &apos;request&apos; there" &&
	nothing_stored
'

# cgi_peak FILE CONTENT_TYPE: run the submit program as a plain CGI on FILE; its peak resident kB
cgi_peak() {
	REQUEST_METHOD=POST CONTENT_TYPE="$2" CONTENT_LENGTH=$(stat -c %s "$1") \
	SCRIPT_NAME=/job_file.php REMOTE_ADDR=127.0.0.1 WSEQ_PROJECT_DIR="$PROJECT_DIR" \
	python3 -c "import resource, subprocess, sys
subprocess.run([sys.argv[1]], stdin=open(sys.argv[2], \"rb\"), stdout=open(\"out\", \"wb\"), check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)" "$PROJECT_DIR/cgi-bin/submit" "$1"
}

test_expect_success 'as a plain CGI, a 500 MB urlencoded body with a wrong authenticator is refused in a small process' '
	printf "request=%%3Cupload_files%%3E%%3Cauthenticator%%3Ewrong%%3C%%2Fauthenticator%%3E&file_0=" >u &&
	truncate -s $((500 * MB)) u &&
	peak=$(cgi_peak u application/x-www-form-urlencoded) && echo "cgi peak resident, 500 MB: $peak kB" | tee -a figures &&
	cp out out.big &&
	printf "request=%%3Cping%%2F%%3E" >small &&
	small=$(cgi_peak small application/x-www-form-urlencoded) && echo "cgi peak resident, a ping: $small kB" | tee -a figures &&
	test_grep "<success>1</success>" out &&
	test "$peak" -lt $((small + 64 * 1024)) &&
	cp out.big out && refused "bad authenticator" && nothing_stored
'

test_expect_success 'a submitter uploads a 40 MB job file: read whole and stored' '
	head -c $((40 * MB)) /dev/urandom >f40 && m=$(md5sum <f40 | cut -c1-32) &&
	printf "<upload_files><authenticator>%s</authenticator><phys_name>%s.dat</phys_name></upload_files>" "$AUTH" "$m" >req.xml &&
	curl -sS -F "request=<req.xml" -F "file_0=@f40" "${URL}job_file.php" >out &&
	test_grep "<success/>" out &&
	cmp f40 "$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path download "$m.dat")" &&
	test "$(test_sql_value "select count(*) from job_file where name=\"$m.dat\"")" = 1
'

test_expect_success 'a submit_batch of 600 jobs (over 64 KiB of XML), urlencoded as the Python client of BOINC sends it, passes' '
	test_setup_sample_app &&
	m=$(md5sum <f40 | cut -c1-32) &&
	{ printf "<submit_batch>\n<authenticator>%s</authenticator>\n<batch><batch_name>many</batch_name><app_name>wseq_sample</app_name>" "$AUTH" &&
	  for i in $(seq 1 600); do
		printf "<job><name>many_%d</name><command_line>--steps 3</command_line><input_file><mode>local_staged</mode><source>%s.dat</source></input_file></job>\n" $i "$m"
	  done &&
	  printf "</batch></submit_batch>\n"; } >many.xml &&
	test "$(stat -c %s many.xml)" -gt 65536 &&
	curl -sS --data-urlencode "request@many.xml" "${URL}submit_rpc_handler.php" >out &&
	test_grep "<batch_id>" out &&
	test "$(test_sql_value "select count(*) from workunit where name like \"many\\_%\"")" = 600
'

test_done
