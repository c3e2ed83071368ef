#!/bin/sh
test_description='file_upload_handler behind the sandbox Apache: uploads with certificates for results in progress, get_file_size, resume, refusals, log'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_atexit "wseq_sandbox down '$TRASH_DIRECTORY/sb'"

# upload_req NAME MAX_NBYTES NBYTES MD5 OFFSET FILE [COUNT]: an upload request
# as the BOINC 7.20 client writes it (client/file_xfer.cpp), carrying COUNT
# bytes (default: the rest) of FILE from OFFSET on.
upload_req() {
	printf '<data_server_request>\n    <core_client_major_version>7</core_client_major_version>\n'
	printf '    <core_client_minor_version>20</core_client_minor_version>\n'
	printf '    <core_client_release>5</core_client_release>\n<file_upload>\n<file_info>\n'
	printf '<name>%s</name>\n<xml_signature>\n%s</xml_signature>\n' "$1" "$(cert "$1" "$2")"
	printf '<max_nbytes>%s</max_nbytes>\n</file_info>\n<nbytes>%s</nbytes>\n' "$2" "$3"
	printf '<md5_cksum>%s</md5_cksum>\n<offset>%s</offset>\n<data>\n' "$4" "$5"
	if [ -n "${7-}" ]; then
		tail -c +"$(($5 + 1))" "$6" | head -c "$7"
	else
		tail -c +"$(($5 + 1))" "$6"
	fi
}

# cert NAME MAX_NBYTES: the upload certificate the scheduler gives out with an output
cert() {
	crypt_prog -sign_string "<name>$1</name><max_nbytes>$2</max_nbytes>" \
		"$PROJECT_DIR/keys/upload_private" 2>/dev/null || echo 00
}

size_req() {
	printf '<data_server_request>\n    <core_client_major_version>7</core_client_major_version>\n'
	printf '    <core_client_minor_version>20</core_client_minor_version>\n'
	printf '    <core_client_release>5</core_client_release>\n'
	printf '    <get_file_size>%s</get_file_size>\n</data_server_request>\n' "$1"
}

# post REQFILE REPLYFILE: POST as the client does; fails unless HTTP 200 text/plain.
post() {
	curl -s -S -o "$2" -w '%{http_code} %{content_type}\n' --data-binary @"$1" \
		-H 'Content-Type: application/octet-stream' "$UPLOAD_URL" >"$2.http" &&
	grep -q '^200 text/plain' "$2.http" || { cat "$2.http" "$2"; return 1; }
}

# Where BOINC's rule puts NAME: md5 hex digits 2..8 as a number, modulo the fan-out.
hier_path() {
	h=$(printf %s "$1" | md5sum | cut -c2-8) &&
	printf '%s/upload/%x/%s\n' "$PROJECT_DIR" $((0x$h % FANOUT)) "$1"
}

file_size_of() {
	sed -n 's|.*<file_size>\([0-9]*\)</file_size>.*|\1|p' "$1"
}

md5_of() { md5sum <"$1" | cut -c1-32; }

test_expect_success 'set up a sandbox project and results in progress whose outputs are uploaded' '
	wseq_sandbox up sb --no-daemons 2>up.log &&
	wseq_sandbox env sb >env && . ./env &&
	url=$(wseq_config --project "$PROJECT_DIR" upload_url) &&
	test "$url" = "${PROJECT_URL%wseq/}wseq_cgi/file_upload_handler" &&
	test -x "$PROJECT_DIR/cgi-bin/file_upload_handler" &&
	cp "$WSEQ_SRCDIR/apps/templates/wseq_sample_out" "$PROJECT_DIR/templates/test_out" &&
	for wu in wu_123 res_7 off_8 big_9 late_10 huge_11 fcgi_12; do
		(cd "$PROJECT_DIR" && wseq_test daemons wu $wu) >/dev/null || return 1
	done &&
	(cd "$PROJECT_DIR" && transitioner --one_pass) >setup.log 2>&1 &&
	for wu in wu_123 res_7 off_8 big_9 late_10 huge_11 fcgi_12; do
		(cd "$PROJECT_DIR" && wseq_test daemons send ${wu}_0) || return 1
	done
'
. ./env
export WSEQ_PROJECT_DIR="$PROJECT_DIR"
UPLOAD_URL=$(wseq_config --project "$PROJECT_DIR" upload_url)
FANOUT=$(wseq_config --project "$PROJECT_DIR" uldl_dir_fanout)
LOG=$PROJECT_DIR/log/file_upload_handler.log

test_expect_success 'a small upload lands byte-identical where the fan-out rule says, nothing else left' '
	head -c 5000 /dev/urandom >small &&
	upload_req wu_123_0_0 100000 5000 "$(md5_of small)" 0 small >req &&
	post req reply &&
	test_grep "<status>0</status>" reply &&
	f=$(hier_path wu_123_0_0) &&
	case "$f" in */upload/14e/wu_123_0_0) ;; *) false ;; esac &&
	test_cmp small "$f" &&
	ls -A "$(dirname "$f")" >left && echo wu_123_0_0 >expect && test_cmp expect left
'

test_expect_success 'get_file_size: 0 for an unknown file, the size of an uploaded one' '
	size_req never_sent >req && post req reply &&
	test_grep "<status>0</status>" reply && test "$(file_size_of reply)" = 0 &&
	size_req wu_123_0_0 >req && post req reply && test "$(file_size_of reply)" = 5000
'

test_expect_success 'sending the same file again succeeds and changes nothing' '
	upload_req wu_123_0_0 100000 5000 "$(md5_of small)" 0 small >req &&
	post req reply && test_grep "<status>0</status>" reply &&
	test_cmp small "$(hier_path wu_123_0_0)"
'

test_expect_success 'a cut upload is kept, get_file_size reports it, the resumed upload completes it' '
	head -c 300000 /dev/urandom >big && sum=$(md5_of big) &&
	upload_req res_7_0_0 1000000 300000 "$sum" 0 big 100000 >req &&
	post req reply &&
	test_grep "<status>1</status>" reply &&
	test ! -e "$(hier_path res_7_0_0)" &&
	size_req res_7_0_0 >req && post req reply &&
	have=$(file_size_of reply) && test "$have" = 100000 &&
	upload_req res_7_0_0 1000000 300000 "$sum" "$have" big >req &&
	post req reply &&
	test_grep "<status>0</status>" reply &&
	test_cmp big "$(hier_path res_7_0_0)" &&
	ls -A "$(dirname "$(hier_path res_7_0_0)")" >left && test_grep -v "part" left
'

test_expect_success 'a resume at the wrong offset is refused without harm' '
	head -c 50000 /dev/urandom >mid && sum=$(md5_of mid) &&
	upload_req off_8_0_0 50000 50000 "$sum" 0 mid 20000 >req && post req reply &&
	upload_req off_8_0_0 50000 50000 "$sum" 30000 mid >req && post req reply &&
	test_grep "<status>1</status>" reply && test_grep "20000 bytes" reply &&
	size_req off_8_0_0 >req && post req reply && test "$(file_size_of reply)" = 20000
'

test_expect_success 'names with .. or / are refused permanently and nothing is written outside' '
	for name in ../escape_1 ../../escape_2 /tmp/escape_3 sub_4/x ..; do
		upload_req "$name" 100 5 "" 0 small 5 >req && post req reply &&
		test_grep "<status>-1</status>" reply &&
		size_req "$name" >req && post req reply &&
		test_grep "<status>-1</status>" reply || return 1
	done &&
	test ! -e "$PROJECT_DIR/upload/escape_1" && test ! -e "$PROJECT_DIR/escape_2" &&
	test ! -e /tmp/escape_3 && test ! -e "$PROJECT_DIR/upload/sub_4"
'

test_expect_success 'a file larger than max_nbytes is refused permanently' '
	upload_req big_9_0_0 10000 300000 "" 0 big >req && post req reply &&
	test_grep "<status>-1</status>" reply && test_grep "max_nbytes" reply &&
	test ! -e "$(hier_path big_9_0_0)" &&
	upload_req big_9_0_0 300000 1000 "" 0 big 2000 >req && post req reply &&
	test_grep "<status>-1</status>" reply && test ! -e "$(hier_path big_9_0_0)"
'

test_expect_success 'an upload without a certificate, or with a forged one, is refused before a byte is taken' '
	head -c 100 /dev/urandom >tiny &&
	upload_req late_10_0_0 100000 100 "" 0 tiny | sed "/<xml_signature>/,/<\/xml_signature>/d" >req &&
	post req reply && test_grep "<status>-1</status>" reply && test_grep "has no upload certificate" reply &&
	upload_req late_10_0_0 100000 100 "" 0 tiny | sed "/<xml_signature>/{n;s/^......../deadbeef/}" >req &&
	test_grep deadbeef req &&
	post req reply && test_grep "<status>-1</status>" reply && test_grep "invalid upload certificate" reply &&
	upload_req late_10_0_0 100000 100 "" 0 tiny | sed "s|<max_nbytes>100000<|<max_nbytes>999999<|" >req &&
	post req reply && test_grep "<status>-1</status>" reply && test_grep "invalid upload certificate" reply &&
	test ! -e "$(hier_path late_10_0_0)" && ! ls -A "$(dirname "$(hier_path late_10_0_0)")" | grep -q late_10
'

test_expect_success 'a name that is no result'"'"'s output, or whose result is over, is refused even with a certificate' '
	for name in late_10_0_1 late_10_0 nosuch_0_0 wseq_sample_1.00_x86_64-pc-linux-gnu; do
		upload_req "$name" 100000 100 "" 0 tiny >req && post req reply &&
		test_grep "<status>-1</status>" reply && test_grep "is not an output of any result" reply &&
		test ! -e "$(hier_path "$name")" || return 1
	done &&
	(cd "$PROJECT_DIR" && wseq_test daemons report late_10_0 --missing) &&
	upload_req late_10_0_0 100000 100 "" 0 tiny >req && post req reply &&
	test_grep "<status>-1</status>" reply && test_grep "late_10_0, which is not in progress" reply &&
	test ! -e "$(hier_path late_10_0_0)"
'

test_expect_success 'a complete upload is never replaced by other content' '
	head -c 5000 /dev/urandom >other &&
	upload_req wu_123_0_0 100000 5000 "$(md5_of other)" 0 other >req && post req reply &&
	test_grep "<status>-1</status>" reply && test_grep "different content" reply &&
	test_cmp small "$(hier_path wu_123_0_0)"
'

test_expect_success 'a body beyond Apache'"'"'s default limit (1 GiB) gets the protocol'"'"'s answer, not HTTP 413' '
	python3 - "$UPLOAD_URL" "$(cert huge_11_0_0 100000)" >reply <<-\PY &&
	import socket, sys, urllib.parse
	u = urllib.parse.urlsplit(sys.argv[1])
	head = ("<data_server_request>\n<file_upload>\n<file_info>\n<name>huge_11_0_0</name>\n"
	        "<xml_signature>\n" + sys.argv[2] + "</xml_signature>\n<max_nbytes>100000</max_nbytes>\n"
	        "</file_info>\n<nbytes>1073741900</nbytes>\n<md5_cksum></md5_cksum>\n<offset>0</offset>\n"
	        "<data>\n").encode()
	n = len(head) + 1073741900
	s = socket.create_connection((u.hostname, u.port))
	s.sendall(("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/octet-stream\r\n"
	           "Content-Length: %d\r\nConnection: close\r\n\r\n" % (u.path, u.netloc, n)).encode() + head)
	block, left = bytes(1 << 20), n - len(head)
	try:
	    while left > 0:
	        k = min(left, len(block)); s.sendall(block[:k]); left -= k
	except OSError as e:
	    print("send stopped:", e)
	s.shutdown(socket.SHUT_WR)
	r = b""
	while True:
	    d = s.recv(65536)
	    if not d: break
	    r += d
	print(r.decode("latin-1"))
	PY
	test_grep "^HTTP/1.1 200" reply &&
	test_grep "<status>-1</status>" reply && test_grep "more than its max_nbytes 100000" reply &&
	test ! -e "$(hier_path huge_11_0_0)"
'

test_expect_success 'a malformed request gets a permanent error in a 200 reply' '
	printf "GET me a file\n" >req && post req reply &&
	test_grep "<status>-1</status>" reply &&
	test_grep "not a data_server_request" reply
'

test_expect_success 'a GET gets a readable refusal, not a server error' '
	code=$(curl -s -o reply -w "%{http_code}" "$UPLOAD_URL") &&
	test "$code" = 200 &&
	test_grep "<status>-1</status>" reply && test_grep "only POST" reply
'

test_expect_success 'the log names the client and each refusal' '
	test_grep "client 127.0.0.1: received .wu_123_0_0. (5000 bytes)" "$LOG" &&
	test_grep "client 127.0.0.1: file name .\.\./escape_1. is not allowed" "$LOG" &&
	test_grep "client 127.0.0.1: upload of .res_7_0_0. cut short" "$LOG" &&
	test_grep "client 127.0.0.1: .big_9_0_0. has 300000 bytes, more than its max_nbytes 10000" "$LOG" &&
	test_grep "client 127.0.0.1: GET request refused" "$LOG"
'

test_expect_success 'without a readable config.xml the handler answers a transient error' '
	mkdir -p nocfg/cgi-bin &&
	(cd nocfg/cgi-bin && unset WSEQ_PROJECT_DIR &&
	 REQUEST_METHOD=POST CONTENT_LENGTH=0 file_upload_handler </dev/null >../out 2>../err) &&
	head -n 1 nocfg/out >first &&
	printf "Content-type: text/plain\n" >want && test_cmp want first &&
	test_grep "<status>1</status>" nocfg/out &&
	test_grep "config" nocfg/err
'

# The handler also runs as a FastCGI server (make_project maps it as plain
# CGI: mod_fcgid would read a whole upload before the handler sees a byte).
if [ -f /usr/lib/apache2/modules/mod_fcgid.so ]; then
	test_expect_success 'as a FastCGI server under mod_fcgid: one process takes uploads, sizes and refusals' '
		sed -i "s|<Files \"file_upload_handler\">|<Files \"file_upload_handler\">\n        <IfModule mod_fcgid.c>\n            SetHandler fcgid-script\n        </IfModule>|" \
			"$PROJECT_DIR/wseq.httpd.conf" &&
		pid=$(cat sb/apache/run/httpd.pid) && kill "$pid" &&
		test_wait_for 30 sh -c "! kill -0 $pid 2>/dev/null" &&
		wseq_sandbox up --no-daemons sb 2>>up.log &&
		from=$(($(wc -l <"$LOG") + 1)) &&
		head -c 200000 /dev/urandom >fc && sum=$(md5_of fc) &&
		upload_req fcgi_12_0_0 1000000 200000 "$sum" 0 fc 50000 >req && post req reply &&
		test_grep "<status>1</status>" reply &&
		size_req fcgi_12_0_0 >req && post req reply && test "$(file_size_of reply)" = 50000 &&
		upload_req fcgi_12_0_0 1000000 200000 "$sum" 50000 fc >req && post req reply &&
		test_grep "<status>0</status>" reply && test_cmp fc "$(hier_path fcgi_12_0_0)" &&
		curl -s "$UPLOAD_URL" >get && test_grep "<status>-1</status>" get &&
		upload_req "../x" 100 1 00 0 small 1 >req && post req reply && test_grep "<status>-1</status>" reply &&
		tail -n "+$from" "$LOG" | sed -n "s/^.* file_upload_handler\[\([0-9]*\)\] .*/\1/p" | sort -u >pids &&
		test_line_count = 1 pids && grep -q file_upload_handler "/proc/$(cat pids)/cmdline"
	'
else
	test_expect_success 'mod_fcgid is installed (libapache2-mod-fcgid)' 'false'
fi

test_done
