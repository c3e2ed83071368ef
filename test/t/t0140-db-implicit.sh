#!/bin/sh
# Implicit transactions (db_set_implicit_transactions), as the scheduler
# runs its RPCs: autocommit off and READ COMMITTED, so a transaction is
# begun by its first statement with no START TRANSACTION, and
# db_end_request() rolls back whatever a request left open. Tool A works
# in that mode; tool B, an ordinary connection, looks at what A's work
# shows to others.
test_description='implicit transactions: no START TRANSACTION, and nothing left open after a request'
. "$WSEQ_SRCDIR/test/test-lib.sh"

WSEQ_DB_NAME=wseq_implicit; export WSEQ_DB_NAME
. "$WSEQ_SRCDIR/test/t/lib-db-serve.sh"
# open transactions holding row locks, of any connection (InnoDB refreshes
# this table at most every 0.1 s: wait for it)
locking() { test_sql -e "select count(*) from information_schema.innodb_trx where trx_rows_locked > 0"; }
locks_held() { test "$(locking)" = 1; }
no_locks_held() { test "$(locking)" = 0; }

test_expect_success 'both tools are up; A in implicit mode' '
	test "$(get 4 | cut -d" " -f1)" = ready &&
	test "$(get 6 | cut -d" " -f1)" = ready &&
	a "insert p1" ok && b "lookup p1" "ok 1" &&
	a implicit ok
'

test_expect_success 'a statement begins a transaction: what A inserts is not seen until it commits' '
	a begin ok && a "insert p2" ok &&
	b "lookup p2" not_found &&
	a commit ok &&
	b "lookup p2" "ok 2"
'

test_expect_success 'without begin too: autocommit is off, so a statement after a commit begins the next transaction' '
	a "insert p3" ok &&
	b "lookup p3" not_found &&
	a begin ok && a commit ok && b "lookup p3" "ok 3"
'

test_expect_success 'each statement sees what others committed when it ran (READ COMMITTED)' '
	a "lookup p1" "ok 1" &&
	b "insert p4" ok &&
	a "lookup p4" "ok 4" &&
	a end ok
'

test_expect_success 'what a request leaves open is rolled back at its end: its locks and its writes' '
	a "lock p1" ok && a "insert p5" ok &&
	test_wait_for 20 locks_held &&
	a end ok &&
	test_wait_for 20 no_locks_held &&
	b "lookup p5" not_found &&
	b begin ok && b "lock p1" ok && b commit ok
'

test_expect_success 'a transaction left open by mistake is rolled back and logged' '
	a begin ok && a "insert p6" ok && a end ok &&
	b "lookup p6" not_found &&
	test_grep "transaction left open at the end of a request; rolled back" a.log
'

test_expect_success 'after its connection is killed, A reconnects in the same mode' '
	id=$(echo connid >&3 && get 4 | cut -d" " -f2) &&
	test_sql -e "kill connection $id" &&
	a "insert p7" ok &&
	b "lookup p7" not_found &&
	a end ok && b "lookup p7" not_found &&
	a begin ok && a "insert p8" ok && a commit ok && b "lookup p8" "ok 8"
'

a quit -
b quit -
test_done
