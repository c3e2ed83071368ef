#!/bin/sh
test_description='lib-sshd.sh: three loopback sshd slaves, each its own user and home; ssh and scp reach them with the generated key; a slave without the key, a closed port and an unknown host fail as ssh fails; sshd_slaves_down leaves nothing running'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

D="$TRASH_DIRECTORY/ssh"
test_atexit "sshd_slaves_down '$D'"
test_atexit "sshd_slaves_down '$TRASH_DIRECTORY/ssh2'"

# Up at the top level, so that its variables stay for the tests.
sshd_slaves_up "$D" 3 >"$TRASH_DIRECTORY/up.log" 2>&1
up=$?

# ssh ends the messages it prints on stderr with CR LF
cr=$(printf '\r')

# rc_of OUT CMD...: run CMD, its stdout and stderr into OUT; print its exit status
rc_of() {
	_o=$1
	shift
	"$@" </dev/null >"$_o" 2>&1
	echo $?
}

# live_pids_of USER: its processes, zombies aside (PID 1 may reap them late)
live_pids_of() {
	ps -o pid=,stat= -u "$1" | awk '$2 !~ /^Z/ { print $1 }'
}

# slave_sshd_pids DIR: the pids of the sshd processes started from DIR
slave_sshd_pids() {
	ps -eo pid=,stat=,args= | awk -v d="$1/sshd-" '$2 !~ /^Z/ && ($3 == "sshd:" || $3 ~ /\/sshd$/) && index($0, d) { print $1 }'
}

test_expect_success 'sshd_slaves_up makes three slaves, a cluster file and an ssh_config' '
	cat "$TRASH_DIRECTORY/up.log" &&
	test "$up" = 0 &&
	test_line_count = 3 "$D/cluster" &&
	test "$SSHD_SLAVE_COUNT" = 3 &&
	test "$SSHD_SSH_CONFIG" = "$D/ssh_config" && test "$SSHD_CLUSTER" = "$D/cluster" &&
	test "$SSHD_SLAVE_USERS" = "wseqslave1 wseqslave2 wseqslave3" &&
	set -- $SSHD_SLAVE_PORTS && test $# = 3 &&
	test "$(printf "%s\n" "$@" | sort -u | wc -l)" = 3 &&
	printf "wseqslave1@127.0.0.1:%s\nwseqslave2@127.0.0.1:%s\nwseqslave3@127.0.0.1:%s\n" "$@" >expect &&
	test_cmp expect "$D/cluster" &&
	test "$(slave_sshd_pids "$D" | wc -l)" = 3 &&
	for k in 1 2 3; do kill -0 "$(cat "$D/sshd-$k.pid")" || return 1; done &&
	test -s "$D/id_ed25519" && test -s "$D/id_ed25519.pub" &&
	test_grep "IdentityFile $D/id_ed25519" "$D/ssh_config" &&
	test_grep "BatchMode yes" "$D/ssh_config" &&
	test_line_count = 3 "$D/known_hosts" &&
	(. "$D/env" && test "$SSHD_SLAVE_PORTS" = "$*")
'

test_expect_success 'ssh to each slave runs a command as its own user in its own home' '
	k=1 &&
	for p in $SSHD_SLAVE_PORTS; do
		ssh -F "$D/ssh_config" -p "$p" "wseqslave$k@127.0.0.1" "id -un; echo \$HOME; pwd" \
			</dev/null >out.$k 2>err.$k || { cat err.$k; return 1; }
		printf "wseqslave%s\n%s\n%s\n" $k "$D/home/wseqslave$k" "$D/home/wseqslave$k" >expect.$k &&
		test_cmp expect.$k out.$k &&
		test_grep "Accepted publickey for wseqslave$k" "$D/sshd-$k.log" || return 1
		k=$((k + 1))
	done &&
	test "$(id -u wseqslave1)" != "$(id -u wseqslave2)" &&
	test "$(stat -c %U "$D/home/wseqslave3")" = wseqslave3
'

test_expect_success 'scp copies a file to each slave (SFTP), owned by the slave user' '
	head -c 100000 /dev/urandom >payload &&
	k=1 &&
	for p in $SSHD_SLAVE_PORTS; do
		scp -F "$D/ssh_config" -P "$p" payload "wseqslave$k@127.0.0.1:copied" </dev/null 2>err.$k ||
			{ cat err.$k; return 1; }
		cmp payload "$D/home/wseqslave$k/copied" &&
		test "$(stat -c %U "$D/home/wseqslave$k/copied")" = wseqslave$k &&
		ssh -F "$D/ssh_config" -p "$p" "wseqslave$k@127.0.0.1" "md5sum <copied" </dev/null >sum.$k &&
		test "$(cut -d" " -f1 sum.$k)" = "$(md5sum <payload | cut -d" " -f1)" || return 1
		k=$((k + 1))
	done
'

test_expect_success 'a slave without the client key: ssh and scp exit 255, Permission denied (publickey)' '
	line=$(sshd_slave_noauth "$D") &&
	echo "$line" &&
	case $line in wseqslavena@127.0.0.1:[0-9]*) ;; *) return 1 ;; esac &&
	port=${line##*:} &&
	rc=$(rc_of noauth.err ssh -F "$D/ssh_config" -p "$port" wseqslavena@127.0.0.1 true) &&
	cat noauth.err &&
	test "$rc" = 255 &&
	test_grep "^wseqslavena@127.0.0.1: Permission denied (publickey)\.$cr\$" noauth.err &&
	rc=$(rc_of noauth-scp.err scp -F "$D/ssh_config" -P "$port" payload wseqslavena@127.0.0.1:x) &&
	test "$rc" = 255 &&
	test_grep "Permission denied (publickey)" noauth-scp.err &&
	test_grep "^scp: Connection closed" noauth-scp.err &&
	test ! -e "$D/home/wseqslavena/x"
'

test_expect_success 'a closed port: exit 255, Connection refused' '
	hp=$(sshd_closed_port) &&
	case $hp in 127.0.0.1:[0-9]*) ;; *) return 1 ;; esac &&
	rc=$(rc_of closed.err ssh -F "$D/ssh_config" -p "${hp##*:}" wseqslave1@127.0.0.1 true) &&
	cat closed.err &&
	test "$rc" = 255 &&
	test_grep "^ssh: connect to host 127.0.0.1 port ${hp##*:}: Connection refused$cr\$" closed.err
'

test_expect_success 'an unknown host: exit 255, Could not resolve hostname' '
	rc=$(rc_of unknown.err ssh -F "$D/ssh_config" wseqslave1@nonexistent-host.invalid true) &&
	cat unknown.err &&
	test "$rc" = 255 &&
	test_grep "^ssh: Could not resolve hostname nonexistent-host.invalid: " unknown.err
'

test_expect_success 'sshd_slaves_down stops every sshd of the directory and what runs as its users' '
	set -- $SSHD_SLAVE_PORTS &&
	ssh -F "$D/ssh_config" -p "$1" wseqslave1@127.0.0.1 "nohup sleep 600 >/dev/null 2>&1 &" </dev/null &&
	test -n "$(live_pids_of wseqslave1)" &&
	test "$(slave_sshd_pids "$D" | wc -l)" = 4 &&
	sshd_slaves_down "$D" &&
	test -z "$(slave_sshd_pids "$D")" &&
	for u in wseqslave1 wseqslave2 wseqslave3 wseqslavena; do
		test -z "$(live_pids_of $u)" || { ps -f -u $u; return 1; }
	done &&
	for p in "$@"; do
		rc=$(rc_of after.err ssh -F "$D/ssh_config" -p "$p" wseqslave1@127.0.0.1 true) &&
		test "$rc" = 255 && test_grep "Connection refused" after.err || return 1
	done &&
	id wseqslave1
'

test_expect_success 'the users are reused by slaves of another directory, their homes moved and fresh' '
	sshd_slaves_up "$TRASH_DIRECTORY/ssh2" 2 &&
	test "$(getent passwd wseqslave1 | cut -d: -f6)" = "$TRASH_DIRECTORY/ssh2/home/wseqslave1" &&
	test ! -e "$TRASH_DIRECTORY/ssh2/home/wseqslave1/copied" &&
	set -- $SSHD_SLAVE_PORTS &&
	ssh -F "$TRASH_DIRECTORY/ssh2/ssh_config" -p "$2" wseqslave2@127.0.0.1 pwd </dev/null >pwd2 &&
	echo "$TRASH_DIRECTORY/ssh2/home/wseqslave2" >expect &&
	test_cmp expect pwd2 &&
	sshd_slaves_down "$TRASH_DIRECTORY/ssh2" &&
	test -z "$(slave_sshd_pids "$TRASH_DIRECTORY/ssh2")"
'

test_done
