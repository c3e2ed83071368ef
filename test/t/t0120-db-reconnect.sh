#!/bin/sh
# A lost or stopped database server. wseq_test db serve holds one connection
# and runs commands read from a FIFO; the test kills its connection from
# the server side, then stops and restarts the whole MariaDB, and checks
# the same process gets a clear error meanwhile and works again after.
test_description='database reconnection'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_mariadb_up
WSEQ_DB_NAME=wseq_reconnect; export WSEQ_DB_NAME
dbdir="$TRASH_DIRECTORY/db"

wseq_test db create "$WSEQ_SRCDIR/db/schema.sql" 2>create.log || {
	cat create.log; exit 1
}

mkfifo to_tool from_tool
wseq_test db serve <to_tool >from_tool 2>serve.log &
tool_pid=$!
test_atexit "kill $tool_pid"
exec 3>to_tool 4<from_tool

# One line from the tool; a hung tool fails the test instead of hanging it.
answer() {
	timeout 60 sh -c 'IFS= read -r l && printf "%s\n" "$l"' <&4
}
# ask CMD EXPECTED-REPLY
ask() {
	echo "$1" >&3 || return 1
	got=$(answer)
	test "$got" = "$2" && return 0
	echo "ask '$1': got '$got', expected '$2'" >&2
	return 1
}

test_expect_success 'the tool holds a working connection' '
	answer >ready &&
	test_grep "^ready $tool_pid\$" ready &&
	ask ping ok &&
	ask "insert a" ok &&
	ask count "ok 1"
'

test_expect_success 'a connection killed by the server is replaced without the caller noticing' '
	echo connid >&3 && old=$(answer) &&
	test_sql -e "kill connection ${old#ok }" &&
	ask count "ok 1" &&
	echo connid >&3 && new=$(answer) &&
	test "$new" != "$old" &&
	test_grep "reconnected to the database" serve.log
'

test_expect_success 'lost inside a transaction: retry, and the transaction is gone' '
	ask begin ok &&
	ask "insert b" ok &&
	echo connid >&3 && id=$(answer) &&
	test_sql -e "kill connection ${id#ok }" &&
	ask "insert c" retry &&
	ask "insert d" retry &&
	ask commit retry &&
	ask "lookup b" not_found &&
	ask "lookup c" not_found &&
	ask count "ok 1"
'

test_expect_success 'a stopped database gives a clear error, not a crash' '
	ask begin ok &&
	ask "insert e" ok &&
	wseq_sandbox down "$dbdir" 2>/dev/null &&
	ask "insert f" retry &&
	ask commit retry &&
	ask count error &&
	ask begin error &&
	ask ping error &&
	kill -0 $tool_pid &&
	test_grep "database unavailable: cannot connect to database .$WSEQ_DB_NAME. as .$WSEQ_DB_USER. on socket $WSEQ_DB_SOCKET" serve.log &&
	test_grep -v "$WSEQ_DB_PASSWD" serve.log
'

test_expect_success 'after a restart the same connection object works again' '
	wseq_sandbox up --db-only "$dbdir" 2>/dev/null &&
	ask count "ok 1" &&
	ask "lookup e" not_found &&
	ask "insert g" ok &&
	ask count "ok 2" &&
	ask begin ok &&
	ask "insert h" ok &&
	ask commit ok &&
	ask "lookup h" "ok $(test_sql "$WSEQ_DB_NAME" -e "select id from platform where name=\"h\"")" &&
	kill -0 $tool_pid
'

echo quit >&3
exec 3>&- 4<&-
wait $tool_pid
tool_rc=$?
test_expect_success 'the tool ends cleanly (and leak-free under ASan)' '
	test $tool_rc = 0
'

test_done
