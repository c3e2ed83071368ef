# A private mail server on loopback for the tests that mail (t71xx): Debian's
# python3-aiosmtpd (test/data/mail/smtpd.py) saves each message it takes as
# $MAIL_DIR/N.eml. Source it after test-lib.sh.
#
#   mail_server_up          start it on a free port: MAIL_PORT, MAIL_DIR, MAIL_URL (call
#                           it outside a test: a test body runs in a subshell)
#   mail_server_down        stop it (the port then refuses: "mail server down")
#   mail_project P          point project P's config.xml at it (<mail_server>)
#   mail_count              the messages received so far
#   mail_wait_for N         wait until N messages have arrived
#   mail_body N             message N, as received (headers and body)
#   mail_link N PAGE        the first link to PAGE (e.g. reset_passwd) in message N

mail_server_up() {
	MAIL_DIR="$TRASH_DIRECTORY/mail"
	MAIL_PORT=$(wseq_sandbox free-port) || return 1
	MAIL_URL="smtp://127.0.0.1:$MAIL_PORT"
	mkdir -p "$MAIL_DIR" && rm -f "$MAIL_DIR/ready"
	# Debian's python3, whose aiosmtpd the package list installs
	"${MAIL_PYTHON:-/usr/bin/python3}" "$WSEQ_SRCDIR/test/data/mail/smtpd.py" "$MAIL_PORT" "$MAIL_DIR" \
		>"$MAIL_DIR.log" 2>&1 &
	MAIL_PID=$!
	test_atexit "kill $MAIL_PID 2>/dev/null"
	test_wait_for 30 test -f "$MAIL_DIR/ready" || { cat "$MAIL_DIR.log" >&2; return 1; }
	export MAIL_DIR MAIL_PORT MAIL_URL
}

mail_server_down() {
	kill "$MAIL_PID" && test_wait_for 30 mail_port_closed_
}
mail_port_closed_() {
	! python3 -c "import socket; socket.create_connection(('127.0.0.1', $MAIL_PORT), 2)" 2>/dev/null
}

mail_project() {
	sed -i -e '/<mail_server>/d' -e "s|<config>|<config>\n    <mail_server>$MAIL_URL</mail_server>|" \
		"$1/config.xml"
}

mail_count() { ls "$MAIL_DIR" | grep -c '\.eml$'; }
mail_has_() { test "$(mail_count)" -ge "$1"; }
mail_wait_for() { test_wait_for 30 mail_has_ "$1"; }
mail_body() { cat "$MAIL_DIR/$1.eml"; }
mail_link() {
	tr -d '\r' <"$MAIL_DIR/$1.eml" | grep -o "https\?://[^ ]*/$2[^ ]*" | head -n 1
}
