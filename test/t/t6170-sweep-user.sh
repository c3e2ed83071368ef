#!/bin/sh
test_description='sweep run as an ordinary user (issue 31, item 1): made with useradd, PATH without /usr/sbin, nothing but ssh and the sweep kit (the master and the client, each with its libraries; the master maps no library of this machine); two loopback sshd machines, a dead one and a failing set: every other set collected once, the failure and the dead machine reported, the joblog and --results, and no MariaDB, Apache or other server started at any moment; the master killed with -9 and resumed; --halt soon,fail=3; --resume-failed reruns exactly the failed sets'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wsuser
. "$WSEQ_SRCDIR/test/t/lib-sweep-slaves.sh"
sweep_slaves_up 2
DATA="$WSEQ_SRCDIR/test/data/sweep-user"
REC="$TRASH_DIRECTORY/rec"
# the master's user: an ordinary one, its home fresh (sshd_slaves_down ends what it left)
M=${SSHD_SLAVE_PREFIX}m
sshd_user_ "$D" "$M" >"$TRASH_DIRECTORY/user.log" 2>&1 || {
	say "cannot make user $M:"; sed 's/^/#   /' "$TRASH_DIRECTORY/user.log"; exit 1
}
MH="$D/home/$M"
DEAD=$(sshd_closed_port) || exit 1

# what the user has: the sweep kit (the master and the client bundle, each with its
# libraries), its key and ssh configuration
KIT="$MH/wseq-sweep"
mkdir -p "$MH/.ssh" "$REC" && chmod 1777 "$REC" &&
cp -R "$WSEQ_LIBEXECDIR/sweep-kit/." "$KIT" &&
cp "$D/id_ed25519" "$D/known_hosts" "$MH/.ssh/" &&
sed "s|$D/|$MH/.ssh/|g" "$D/ssh_config" >"$MH/.ssh/config" &&
chown -R "$M:$(id -g "$M")" "$MH" && chmod 600 "$MH/.ssh/id_ed25519" || exit 1

# as_user CMD...: CMD as the user, in its home, with an ordinary user's PATH
as_user() {
	runuser -u "$M" -- env -i HOME="$MH" USER="$M" LOGNAME="$M" \
		PATH="$KIT:/usr/local/bin:/usr/bin:/bin" sh -c 'cd "$HOME" && "$@"' sh "$@"
}
SWEEP="sweep --progress lines --verbose"
A=$(echo $SSHD_SLAVE_USERS | cut -d" " -f1) B=$(echo $SSHD_SLAVE_USERS | cut -d" " -f2)
PA=$(echo $SSHD_SLAVE_PORTS | cut -d" " -f1) PB=$(echo $SSHD_SLAVE_PORTS | cut -d" " -f2)

# make_sweep DIR ROWS SERVER HOST...: sets n = 1..ROWS in the user's DIR over the hosts
make_sweep() {
	_n=$1 _d="$MH/$1" _rows=$2 _srv=$3
	shift 3
	mkdir -p "$_d" "$REC/$_n" && chmod 1777 "$REC/$_n" &&
	cp "$WSEQ_SRCDIR/test/data/sweep-hosts/check.sh" "$_d/" &&
	sed "s|^rec=REC$|rec=$REC/$_n|" "$DATA/worker.sh" >"$_d/worker.sh" &&
	chmod 755 "$_d/worker.sh" &&
	sed "s/^Server=SERVER$/Server=$_srv/" "$DATA/spec.in" >"$_d/spec" &&
	printf '%s\n' "$@" >"$_d/cluster" &&
	{ echo "n"; seq 1 "$_rows"; } >"$_d/params" &&
	chown -R "$M:$(id -g "$M")" "$_d"
}

# collected DIR N...: the output holds exactly the sets N..., once each, in order
collected() {
	_d="$MH/$1"
	shift
	printf 'n=%s\n' "$@" >"$_d/expect.txt" &&
	grep -a "^n=" "$_d/out.txt" >"$_d/got.txt" &&
	test_cmp "$_d/expect.txt" "$_d/got.txt"
}

# watch PID FILE: the user's processes (their command names), every 0.1 s while PID runs
watch_procs() {
	while kill -0 "$1" 2>/dev/null; do
		ps -u "$M" -o comm= >>"$2"
		sleep 0.1
	done
}

make_sweep s1 10 127.0.0.1 "$A@127.0.0.1:$PA" "$B@127.0.0.1:$PB" "$M@$DEAD"
: >"$REC/s1/fail.4"

test_expect_success 'sweep run as an ordinary user: exit 4, every other set collected once' '
	! as_user sh -c "command -v mariadbd mysqld apache2" &&
	test "$(as_user sh -c "command -v sweep")" = "$KIT/sweep" &&
	(as_user sh -c "cd s1 && exec $SWEEP --joblog ../s1.joblog --results ../s1.results run spec >stats 2>run.log";
	 echo $? >"$TRASH_DIRECTORY/s1.rc") &
	runner=$! &&
	watch_procs $runner procs.s1 &&
	wait $runner &&
	test "$(cat s1.rc)" = 4 &&
	collected s1 1 2 3 5 6 7 8 9 10 &&
	grep "^session [0-9a-f]\{32\}: 10 tasks, 9 done, 0 running, 0 waiting, 1 failed$" "$MH/s1/stats"
'

test_expect_success 'nothing but the master and its ssh ran as the user: no database or web server' '
	sort -u procs.s1 >names &&
	grep -qx sweep names &&
	grep -qx ssh names &&
	! grep -E "^(mariadbd|mysqld|mariadb|apache2|httpd|wseq_sandbox|make_project|feeder|transitioner)" names &&
	# the clients were given the master'"'"'s own server, at its root
	grep -q "the clients connect to http://127.0.0.1:[0-9]*\$" "$MH/s1/run.log" ||
	{ cat names; false; }
'

test_expect_success 'the state directory: under the user'"'"'s home, its own, 0700' '
	st="$MH/.wseq/sweep-state" &&
	test -s "$st/sessions.db" &&
	test "$(stat -c "%U %a" "$st")" = "$M 700" &&
	test "$(find "$st" ! -user "$M" | wc -l)" = 0
'

test_expect_success 'a state directory others can write, or another user'"'"'s, is refused' '
	mkdir -p "$MH/shared" && chown "$M" "$MH/shared" && chmod 777 "$MH/shared" &&
	test_must_fail as_user sweep --state "$MH/shared" status 00000000000000000000000000000000 2>err1 &&
	grep "not a directory of this user" err1 &&
	mkdir -p "$TRASH_DIRECTORY/roots" && chmod 755 "$TRASH_DIRECTORY/roots" &&
	test_must_fail as_user sweep --state "$TRASH_DIRECTORY/roots" status 00000000000000000000000000000000 2>err2 &&
	grep "not a directory of this user" err2 &&
	test ! -e "$MH/shared/sessions.db" && test ! -e "$TRASH_DIRECTORY/roots/sessions.db"
'

test_expect_success 'the failed set and the dead machine are reported, with why' '
	grep "127.0.0.1:$(echo $DEAD | cut -d: -f2).*unreachable.*" "$MH/s1/stats" &&
	grep "^  set 4" "$MH/s1/stats" || { cat "$MH/s1/stats"; false; }
'

test_expect_success 'the joblog: one line a run, the failed set twice (MaxTotal=2) with Exitval 3' '
	j="$MH/s1.joblog" &&
	head -n 1 "$j" | grep "^Seq	Host	Starttime	JobRuntime	Send	Receive	Exitval	Signal	Command$" &&
	test "$(wc -l <"$j")" = 12 &&
	test "$(awk -F "\t" "NR > 1 && \$1 == 4 && \$7 != 0" "$j" | wc -l)" = 2 &&
	test "$(awk -F "\t" "NR > 1 && \$1 != 4 && \$7 == 0" "$j" | cut -f1 | sort -n | uniq | wc -l)" = 9
'

test_expect_success '--results: each set'"'"'s stdout, stderr and exit status, of its last run' '
	r="$MH/s1.results" &&
	for i in 1 2 3 5 6 7 8 9 10; do
		test "$(cat "$r/$i/stdout")" = "n=$i" && test "$(cat "$r/$i/exitval")" = 0 &&
		test "$(stat -c %U "$r/$i/stdout")" = "$M" || return 1
	done &&
	test "$(cat "$r/4/exitval")" = 3 &&
	grep -x "set 4: no convergence" "$r/4/stderr" &&
	test ! -s "$r/4/stdout"
'

test_expect_success 'sweep status as the user, with no server running' '
	sid=$(sed -n "s/^session \([0-9a-f]*\):.*/\1/p" "$MH/s1/stats") &&
	as_user sweep status "$sid" >st &&
	grep "^session $sid: 10 tasks, 9 done, 0 running, 0 waiting, 1 failed$" st
'

test_expect_success '--resume-failed reruns exactly the failed set' '
	rm "$REC/s1/fail.4" "$REC/s1/started" &&
	as_user sh -c "cd s1 && $SWEEP --joblog ../s1.joblog --resume-failed run spec >stats2 2>run2.log" &&
	echo 4 >expect && test_cmp expect "$REC/s1/started" &&
	grep "^session [0-9a-f]*: 1 tasks, 1 done" "$MH/s1/stats2" &&
	# the joblog kept its lines and has the new run
	test "$(wc -l <"$MH/s1.joblog")" = 13 &&
	test "$(awk -F "\t" "NR > 1 && \$1 == 4 && \$7 == 0" "$MH/s1.joblog" | wc -l)" = 1
'

# The sets from 5 on wait at their hold files, so the master is surely still
# running when it is killed, however fast sets 1..4 end. Its clients on the
# machines outlive it and find the resumed master on the same port.
make_sweep s2 12 "127.0.0.1:$PORT" "$A@127.0.0.1:$PA" "$B@127.0.0.1:$PB"
test_expect_success 'the master killed with -9 mid-run; sweep resume collects each set once' '
	for i in $(seq 5 12); do : >"$REC/s2/hold.set$i" || return 1; done
	(as_user sh -c "cd s2 && exec $SWEEP run spec >stats 2>run.log") &
	runner=$! &&
	test_wait_for 60 grep -q "^sweep: session [0-9a-f]*:" "$MH/s2/run.log" &&
	sid=$(sed -n "s/^sweep: session \([0-9a-f]*\):.*/\1/p" "$MH/s2/run.log") &&
	test_wait_for 60 sh -c "runuser -u $M -- env HOME=$MH $KIT/sweep status $sid 2>/dev/null |
		grep -q \"tasks, 4 done\"" &&
	pid=$(pgrep -u "$M" -x sweep) && test -n "$pid" &&
	# the master runs on the kit'"'"'s libraries alone, none of this machine'"'"'s
	awk "\$6 ~ /\\.so/ { print \$6 }" /proc/$pid/maps | sort -u >libs &&
	grep -q "^$KIT/master/lib/libsqlite3" libs &&
	! grep -v "^$KIT/master/" libs &&
	kill -9 $pid && { wait $runner || :; } &&
	as_user sweep status "$sid" >before &&
	grep "12 tasks, 4 done" before &&
	rm "$REC"/s2/hold.set* &&
	as_user sh -c "cd s2 && $SWEEP resume $sid >stats 2>resume.log" &&
	grep "^session $sid: 12 tasks, 12 done, 0 running, 0 waiting, 0 failed$" "$MH/s2/stats" &&
	collected s2 $(seq 1 12)
'

make_sweep s3 20 127.0.0.1 "$A@127.0.0.1:$PA" "$B@127.0.0.1:$PB"
: >"$REC/s3/fail.all"
test_expect_success '--halt soon,fail=3: at most 3 failed sets and the 2 running, then exit 3' '
	(as_user sh -c "cd s3 && $SWEEP --halt soon,fail=3 --retries 1 --joblog ../s3.joblog run spec >stats 2>run.log";
	 echo $? >s3.rc) &&
	test "$(cat s3.rc)" = 3 &&
	runs=$(($(wc -l <"$MH/s3.joblog") - 1)) &&
	test "$runs" -ge 3 && test "$runs" -le 5 &&
	test "$(awk -F "\t" "NR > 1 && \$7 == 0" "$MH/s3.joblog" | wc -l)" = 0 ||
	{ cat "$MH/s3/run.log"; false; }
'

test_done
