#!/bin/sh
# The record layer against a real MariaDB: every record type round-trips
# (the cmocka program test_db_records), and every named query the programs
# make uses an index.
test_description='database records and query plans'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_mariadb_up

test_expect_success 'every record type round-trips; transactions; duplicates; host_app_version' '
	"$WSEQ_BUILDDIR/test/unit/test_db_records" >out 2>&1 &&
	test_grep "^ok 6 - test_list_and_nested_statements" out &&
	test_grep "^ok 7 - test_insert_many" out &&
	test_grep "^ok 8 - test_sql_reused_buffers" out &&
	test_grep "^ok 9 - test_hav_moving_average" out &&
	test_grep "^ok 10 - test_hav_validated" out &&
	test_grep "^ok 11 - test_wu_fpops" out &&
	test_grep -v "not ok" out
'

WSEQ_DB_NAME=wseq_explain; export WSEQ_DB_NAME

test_expect_success 'a database with realistic contents' '
	wseq_test db create "$WSEQ_SRCDIR/db/schema.sql" &&
	wseq_test db fill 2000
'

test_expect_success 'no named query scans a whole result, workunit, host or sequence table' '
	wseq_test db explain >plans &&
	test_grep "0 full scans of hot tables" plans &&
	test_grep "^result_claim_timed_out " plans &&
	test_grep "^seq_for_host " plans
'

# A sweep session is often most of the table. Left to itself the optimizer
# then walked the primary key in id order (reading, and for /task locking,
# every older row) instead of the session's index range.
test_expect_success 'the sweep queries of a session that is most of the table use its index' '
	test_sql "$WSEQ_DB_NAME" -e "update result set batch=1, server_state=if(id%3=0,2,5);
		update workunit set batch=1; analyze table result, workunit" >/dev/null &&
	wseq_test db explain >plans
	for q in sweep_unsent sweep_returned sweep_ended sweep_count_running sweep_waiting; do
		test_grep "^$q  *result  *[a-z_]*  *res_batch_state" plans || return 1
	done &&
	for q in sweep_tasks wu_batch sweep_count_tasks; do
		test_grep "^$q  *workunit  *[a-z_]*  *wu_batch" plans || return 1
	done &&
	# the progress counts: each task'"'"'s own results, not every running one
	test "$(grep -c "^sweep_tasks  *result  *[a-z_]*  *res_wuid" plans)" = 2
'

test_expect_success 'the check notices a query that lost its index' '
	test_sql "$WSEQ_DB_NAME" -e "alter table result drop index res_wuid" &&
	test_must_fail wseq_test db explain >plans &&
	test_grep "^result_by_workunit .*full scan" plans
'

test_done
