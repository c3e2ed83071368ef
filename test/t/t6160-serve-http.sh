#!/bin/sh
# The embedded HTTP server (serve/serve_http.c) that lets a serving handler
# -- the sweep endpoints', the scheduler's -- answer in-process with no web
# server: what the handler sees (the CGI variables, the body, PATH_INFO
# routing), what the client gets back (the handler's status and headers,
# nosniff on every reply), and what a stranger on the network cannot do to
# it (a body too large, junk, a slow client, a silent one, too many
# connections from one address), then a clean stop that finishes the
# request in flight. test/serve_http_echo is the handler; curl and a few
# lines of Python are the clients.
test_description='embedded HTTP server: CGI variables, bodies, routing, limits, slow clients, stop'
. "$WSEQ_SRCDIR/test/test-lib.sh"

# echo_up NAME [OPTIONS]: serve_http_echo in NAME/ on an ephemeral port
# (NAME/port once it listens); its exit status goes to NAME/rc, its pid to NAME/pid.
echo_up() {
	name=$1
	shift
	mkdir -p "$name" &&
	( serve_http_echo --port_file "$name/port" "$@" >"$name/out" 2>"$name/err" &
	  echo $! >"$name/pid"; wait $!; echo $? >"$name/rc" ) &
	test_wait_for 10 test -s "$name/pid" &&
	test_atexit "kill $(cat "$name/pid")" &&
	test_wait_for 10 test -s "$name/port"
}
url() { echo "http://127.0.0.1:$(cat "$1/port")$2"; }
count() { curl -s "$(url "$1" /count)"; }

# raw.py PORT WHAT: a client curl cannot be (see each case)
cat >raw.py <<'EOF'
import socket, sys, time
port, what = int(sys.argv[1]), sys.argv[2]

def conn():
    return socket.create_connection(("127.0.0.1", port), timeout=30)

def status(s):
    data = b""
    try:
        while b"\r\n" not in data:
            got = s.recv(4096)
            if not got:
                break
            data += got
    except ConnectionResetError:
        pass
    except socket.timeout:
        return "silent"
    return data.split(b"\r\n")[0].decode("latin-1") or "closed"

if what == "send":            # send argv[3] (with \r \n escapes), print the status line
    s = conn()
    s.sendall(sys.argv[3].encode("latin-1").decode("unicode_escape").encode("latin-1"))
    print(status(s))
elif what == "slow":          # a header byte a second for argv[3] seconds; argv[4] marks bytes sent
    s = conn()
    req = b"GET /env HTTP/1.1\r\nHost: x\r\nX-Test-Header: " + b"y" * 1000
    for i in range(int(sys.argv[3])):
        s.sendall(req[i:i + 1])
        open(sys.argv[4], "w").write("%d\n" % (i + 1))
        time.sleep(1)
    s.sendall(req[int(sys.argv[3]):] + b"\r\n\r\n")
    print(status(s))
elif what == "idle":          # connect, say nothing: the seconds until the server closes
    s = conn()
    t = time.time()
    try:
        while s.recv(4096):
            pass
    except ConnectionResetError:
        pass
    print("%.1f" % (time.time() - t))
elif what == "crowd":         # argv[3] silent connections, one more request (2 s), then none
    crowd = [conn() for i in range(int(sys.argv[3]))]
    time.sleep(0.5)
    s = conn()
    try:
        s.sendall(b"GET /env HTTP/1.1\r\nHost: x\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass
    s.settimeout(2)
    print("extra:", status(s))
    for c in crowd:
        c.close()
    s.settimeout(30)
    print("extra, the others gone:", status(s))
    time.sleep(0.5)
    s = conn()
    s.sendall(b"GET /env HTTP/1.1\r\nHost: x\r\n\r\n")
    print("after:", status(s))
elif what == "first":         # connect every 2 ms until a request is answered; print when
    end = time.time() + 60
    while time.time() < end:
        try:
            s = conn()
            s.sendall(b"GET /env HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            if status(s).startswith("HTTP/1.1 200"):
                break
        except ConnectionRefusedError:
            time.sleep(0.002)
    print("%.0f" % (time.time() * 1000))
EOF
raw() { python3 raw.py "$(cat "$1/port")" "$2" "$3" "$4"; }

test_expect_success 'an ephemeral port, reported on stdout and in the port file, and served' '
	echo_up s --timeout 3 --max_body 4000000 --max_per_ip 4 &&
	port=$(cat s/port) && test "$port" -gt 0 &&
	test_grep "^listening on 127.0.0.1 $port\$" s/out &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$(url s /env)")" = 200
'

test_expect_success 'GET with a query: the CGI variables as a handler reads them' '
	curl -s -H "X-Test-Header: hi there" -A agent/1 "$(url s "/env?a=1&b=%20x&c")" >env &&
	cat >expect <<-EOF &&
	REQUEST_METHOD=GET
	QUERY_STRING=a=1&b=%20x&c
	PATH_INFO=/env
	SCRIPT_NAME=
	REMOTE_ADDR=127.0.0.1
	CONTENT_LENGTH=(unset)
	CONTENT_TYPE=(unset)
	HTTP_USER_AGENT=agent/1
	HTTP_X_TEST_HEADER=hi there
	EOF
	test_cmp expect env
'

test_expect_success 'POST with a query and a body: CONTENT_LENGTH, CONTENT_TYPE, the body byte for byte' '
	curl -s -H "Content-Type: text/x-test" --data-binary "12345" "$(url s "/env?x=y")" >env &&
	test_grep "^REQUEST_METHOD=POST\$" env && test_grep "^QUERY_STRING=x=y\$" env &&
	test_grep "^CONTENT_LENGTH=5\$" env && test_grep "^CONTENT_TYPE=text/x-test\$" env &&
	printf "a\0b\r\n--end content--\n" >small &&
	curl -s --data-binary @small "$(url s /echo)" >back && cmp small back &&
	head -c 3000000 /dev/urandom >big &&
	curl -s --data-binary @big "$(url s /echo)" >back && cmp big back &&
	curl -s -H "Transfer-Encoding: chunked" --data-binary @big "$(url s /echo)" >back &&
	cmp big back
'

test_expect_success 'PATH_INFO routes; an escaped path is decoded; the handler'"'"'s 404 passes through' '
	test "$(curl -s "$(url s /count)")" -gt 0 &&
	curl -s "$(url s /%65nv)" | test_grep "^PATH_INFO=/env\$" - &&
	test "$(curl -s -o body -w "%{http_code}" "$(url s /task?sessionID=x)")" = 404 &&
	test "$(cat body)" = "no such request"
'

test_expect_success 'SCRIPT_NAME: under /sweep the handler gets the rest as PATH_INFO; outside it a 404 without the handler' '
	echo_up b --script_name /sweep &&
	curl -s "$(url b /sweep/env?q)" >env &&
	test_grep "^SCRIPT_NAME=/sweep\$" env && test_grep "^PATH_INFO=/env\$" env &&
	test "$(curl -s "$(url b /sweep)")" = "no such request" &&
	n=$(curl -s "$(url b /sweep/count)") &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$(url b /env)")" = 404 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$(url b /sweeper/env)")" = 404 &&
	test "$(curl -s "$(url b /sweep/count)")" = $((n + 1))
'

test_expect_success 'every reply carries X-Content-Type-Options: nosniff, whatever the handler said, and keeps its type' '
	for p in /env /nope /html /broken; do
		curl -s -D h -o /dev/null "$(url s $p)" &&
		test_grep "^X-Content-Type-Options: nosniff" h || return 1
	done &&
	curl -s -D h -o /dev/null "$(url s /html)" && test_grep "^Content-Type: text/html" h &&
	grep -i "^X-Content-Type-Options" h >xcto && test_line_count = 1 xcto &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$(url s /broken)")" = 500 &&
	test_grep "the handler.s reply is not CGI" s/err
'

test_expect_success 'a body past the limit: 413 before it is sent (Content-Length) or at its end (chunked); no handler' '
	n=$(count s) &&
	raw s send "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4000001\r\n\r\n" >st &&
	test_grep "^HTTP/1.1 413" st &&
	head -c 4000100 /dev/zero >over &&
	test "$(curl -s -o /dev/null -w "%{http_code}" --data-binary @over "$(url s /echo)")" = 413 &&
	head -c 4000100 /dev/zero | curl -s -D h -o /dev/null -H "Transfer-Encoding: chunked" \
		--data-binary @- "$(url s /echo)" &&
	test_grep "^HTTP/1.1 413" h && test_grep "^X-Content-Type-Options: nosniff" h &&
	test "$(count s)" = $((n + 1))
'

test_expect_success 'junk is answered 400 and never reaches the handler' '
	n=$(count s) &&
	raw s send "junk junk\r\n\r\n" >st && test_grep "^HTTP/1.1 400" st &&
	raw s send "GET /env HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n" >st && test_grep "^HTTP/1.1 400" st &&
	raw s send "GET env HTTP/1.1\r\nHost: x\r\n\r\n" >st && test_grep "^HTTP/1.1 400" st &&
	raw s send "GET /a%00b HTTP/1.1\r\nHost: x\r\n\r\n" >st && test_grep "^HTTP/1.1 400" st &&
	raw s send "GET /a%zz HTTP/1.1\r\nHost: x\r\n\r\n" >st && test_grep "^HTTP/1.1 400" st &&
	raw s send "GET /a%0Afake HTTP/1.1\r\nHost: x\r\n\r\n" >st && test_grep "^HTTP/1.1 400" st &&
	raw s send "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n" >st &&
	test_grep "^HTTP/1.1 4" st &&
	test "$(count s)" = $((n + 1))
'

test_expect_success 'a client sending one header byte a second does not stop another being served' '
	raw s slow 6 sent >slow.out &
	slow=$! &&
	test_wait_for 10 test -s sent &&
	for i in 1 2 3; do
		test "$(curl -s --max-time 2 -o /dev/null -w "%{http_code}" "$(url s /env)")" = 200 ||
		return 1
	done &&
	test "$(cat sent)" -lt 6 &&
	wait $slow && test_grep "^HTTP/1.1 200" slow.out
'

test_expect_success 'a silent connection is closed after the timeout (3 s)' '
	raw s idle >idle.out &&
	secs=$(cat idle.out) &&
	awk -v s="$secs" -v max="$(test_patience 3)" "BEGIN { exit !(s >= 2 && s <= 3 + max) }"
'

test_expect_success 'more connections from one address than allowed (4): the extra one is refused, then served' '
	raw s crowd 4 >crowd.out &&
	test_grep "^extra: closed\$" crowd.out &&
	test_grep "^extra, the others gone: closed\$" crowd.out &&
	test_grep "^after: HTTP/1.1 200" crowd.out
'

test_expect_success 'more connections in all than allowed (3): the extra one waits, unread, until one ends' '
	echo_up m --max_conns 3 &&
	raw m crowd 3 >crowd.out &&
	test_grep "^extra: silent\$" crowd.out &&
	test_grep "^extra, the others gone: HTTP/1.1 200" crowd.out
'

test_expect_success 'the handler lock: while the program'"'"'s own thread holds it, no handler runs' '
	kill -USR1 "$(cat s/pid)" &&
	test_wait_for 10 test_grep "^lock held" s/out &&
	test_must_fail curl -s --max-time 2 "$(url s /env)" || return 1
	curl -s --max-time 30 "$(url s /count)" >count.out &
	c=$!
	kill -USR1 "$(cat s/pid)" &&
	test_wait_for 10 test_grep "^lock free" s/out &&
	wait $c && test "$(cat count.out)" -gt 0
'

SID=0123456789abcdef0123456789abcdef
PLATFORM=x86_64-pc-linux-gnu

test_expect_success 'the sweep'"'"'s real endpoints on the embedded store: the protocol'"'"'s answers, results refused' '
	mkdir -p sw/results sw/sessions/$SID/workers &&
	printf "DeleteWorker=No\nDeleteClient=No\nPing=1\n" >sw/sessions/$SID/config &&
	echo worker >sw/sessions/$SID/worker_name &&
	printf "#!/bin/sh\necho \"result of \$1\"\n" >sw/sessions/$SID/workers/$PLATFORM &&
	echo_up w --sweep "$PWD/sw" --session $SID --tasks 5 &&
	curl -s -D h -o body "$(url w "/config?sessionID=$SID")" &&
	test_grep "^HTTP/1.1 200" h && test_grep "^X-Content-Type-Options: nosniff" h &&
	cmp body sw/sessions/$SID/config &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$(url w "/config?sessionID=ffff")")" = 403 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$(url w "/task?sessionID=../x")")" = 403 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$(url w "/worker?sessionID=$SID&name=worker&platform=vax")")" = 415 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$(url w "/nope?sessionID=$SID")")" = 404 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" --data-binary x "$(url w "/complete?sessionID=$SID&ticket=nosuch")")" = 400 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$(url w "/ping?sessionID=$SID&ticket=nosuch")")" = 205 &&
	curl -s "$(url w "/task?sessionID=$SID")" >task && t=$(sed -n "s/^Ticket=//p" task) &&
	test -n "$t" && test_grep "^CommandLine=worker 1\$" task &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$(url w "/ping?sessionID=$SID&ticket=$t")")" = 204 &&
	printf "[Result]\nName=bogus\n--begin content--\nx\n--end content--\n" >bogus &&
	test "$(curl -s -o body -w "%{http_code}" --data-binary @bogus "$(url w "/complete?sessionID=$SID&ticket=$t")")" = 400 &&
	test_grep "the ticket stays open" body &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$(url w "/ping?sessionID=$SID&ticket=$t")")" = 204 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$(url w "/failed?sessionID=$SID&ticket=$t")")" = 200
'

test_expect_success 'the real sweep_client runs the session'"'"'s other sets through the embedded server' '
	md5=$(md5sum <sw/sessions/$SID/workers/$PLATFORM | cut -c1-32) &&
	mkdir client &&
	echo "$SID" | "$WSEQ_BUILDDIR/sweep/client/sweep_client" --dir client --max-silence 20 - worker "$md5" \
		127.0.0.1 "$(cat w/port)" 2>client.log &&
	kill -TERM "$(cat w/pid)" &&
	test_wait_for 10 test -s w/rc && test "$(cat w/rc)" = 0 &&
	sed -n "s/^returned //p" w/out | sort -n >returned &&
	# set 1 failed above: its next ticket is the master'"'"'s tick'"'"'s work, and no master runs here
	test_line_count = 4 returned && test "$(cut -d" " -f1 returned | tr "\n" " ")" = "2 3 4 5 " &&
	while read row ticket; do
		f=$(find sw/results -name "$ticket" -type f) && test -n "$f" &&
		grep -a "^result of $row\$" "$f" || return 1
	done <returned
'

test_expect_success 'POST /failed on the embedded store: the body kept as the ticket'"'"'s results; a malformed one 400, the failure recorded' '
	mkdir -p sf/results sf/sessions/$SID/workers &&
	printf "DeleteWorker=No\nDeleteClient=No\nPing=1\nSendOutput=Yes\n" >sf/sessions/$SID/config &&
	echo worker >sf/sessions/$SID/worker_name &&
	echo_up wf --sweep "$PWD/sf" --session $SID --tasks 2 &&
	printf "Exit=3\n[Stderr]\nSize=5\nLength=5\n--begin content--\noops\n\n--end content--\n" >fbody &&
	curl -s "$(url wf "/task?sessionID=$SID")" >task && t=$(sed -n "s/^Ticket=//p" task) && test -n "$t" &&
	test "$(curl -s -o body -w "%{http_code}" --data-binary @fbody "$(url wf "/failed?sessionID=$SID&ticket=$t")")" = 200 &&
	f=$(find sf/results -name "$t" -type f) && test -n "$f" && cmp fbody "$f" &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$(url wf "/ping?sessionID=$SID&ticket=$t")")" = 205 &&
	curl -s "$(url wf "/task?sessionID=$SID")" >task && t=$(sed -n "s/^Ticket=//p" task) && test -n "$t" &&
	printf "Signal=0\n" >bad &&
	test "$(curl -s -o body -w "%{http_code}" --data-binary @bad "$(url wf "/failed?sessionID=$SID&ticket=$t")")" = 400 &&
	test_grep "output refused, the failure is recorded: failed:1: bad Signal" body &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$(url wf "/ping?sessionID=$SID&ticket=$t")")" = 205 &&
	test -z "$(find sf/results -name "$t")" &&
	kill -TERM "$(cat wf/pid)" && test_wait_for 10 test -s wf/rc && test "$(cat wf/rc)" = 0
'

test_expect_success 'start-up: the first request answered well under a second after the process started' '
	mkdir -p f &&
	port=$(python3 -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])") ||
	return 1
	python3 raw.py "$port" first >f/first &
	client=$!
	( date +%s%3N >f/start; exec serve_http_echo --port "$port" >f/out 2>f/err ) &
	server=$!
	test_atexit "kill $server" &&
	wait $client && ms=$(( $(cat f/first) - $(cat f/start) )) &&
	echo "first request served $ms ms after the process started (in-process: $(sed -n "s/^first request answered //p" f/out))" >f/figure &&
	test "$ms" -lt $(( $(test_patience 1) * 500 )) &&
	kill $server
'

say "$(cat f/figure 2>/dev/null)"

test_expect_success 'stop (SIGTERM) while a request is in the handler: it gets its reply, the process exits 0' '
	curl -s "$(url s "/slow?ms=1500")" >slow.reply &
	c=$! &&
	test_wait_for 10 test_grep "^slow request begins" s/out &&
	kill -TERM "$(cat s/pid)" &&
	wait $c && test "$(cat slow.reply)" = slept &&
	test_wait_for 10 test -s s/rc && test "$(cat s/rc)" = 0 &&
	test_grep "^stopped after" s/out &&
	test_must_fail curl -s --max-time 2 "$(url s /env)"
'

test_done
