#!/bin/sh
# A deadlock in the middle of a locking SELECT's rows, then the same
# statement again on the same connection. Tool A holds row p3 (and some
# inserts, so it weighs more); tool B locks p1, p2, p3 in one SELECT ...
# FOR UPDATE and waits on p3 with two rows already sent; A then asks for p1:
# a deadlock, and MariaDB makes B, the lighter one, the victim -- its error
# arrives while its rows are being read. B rolls back and runs the very same
# SELECT (a cached prepared statement) again: it must answer. libmariadb
# leaves a statement that failed this way waiting for a reply the server
# never sends, holding the new transaction's locks (seen as a validator stuck
# for good, the whole project behind it): the layer must not reuse it.
test_description='a statement that failed in a deadlock is not used again'
. "$WSEQ_SRCDIR/test/test-lib.sh"

WSEQ_DB_NAME=wseq_deadlock; export WSEQ_DB_NAME
. "$WSEQ_SRCDIR/test/t/lib-db-serve.sh"

# B is blocked on a row lock (its SELECT waits on p3): the moment for A to ask for p1
b_waits() {
	test "$(test_sql -e "select count(*) from information_schema.innodb_trx where trx_state='LOCK WAIT'")" = 1
}

test_expect_success 'both tools are up, three rows to lock' '
	test "$(get 4 | cut -d" " -f1)" = ready &&
	test "$(get 6 | cut -d" " -f1)" = ready &&
	a "insert p1" ok && a "insert p2" ok && a "insert p3" ok
'

test_expect_success 'B waits on p3 in the middle of its rows; A asks for p1: B is the victim' '
	a begin ok && a "insert x1" ok && a "insert x2" ok && a "insert x3" ok &&
	a "lock p3" ok &&
	b begin ok && b "lockall p%" - &&
	test_wait_for 60 b_waits &&
	a "lock p1" - &&
	ra=$(get 4) && rb=$(get 6) &&
	echo "A: $ra, B: $rb" &&
	test "$ra" = ok && test "$rb" = error &&
	grep -i deadlock b.log
'

test_expect_success 'B rolls back and runs the same SELECT again: it answers' '
	a rollback ok &&
	b rollback ok && b begin ok && b "lockall p%" "ok 3" && b commit ok
'

test_expect_success 'nothing is held: A locks every row at once' '
	a begin ok && a "lockall p%" "ok 3" && a commit ok
'

a quit -
b quit -
test_done
