#!/bin/sh
test_description='running daemons survive a database restart and carry on'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
SB="$TRASH_DIRECTORY/sb"
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"

results_of() {
	test "$(test_sql_value "select count(*) from result r join workunit w on w.id=r.workunitid where w.name=\"$1\"")" = "$2"
}

test_expect_success 'the daemons run and make results for new work' '
	test_project bin/start && test_setup_sample_app &&
	echo one >in1 && test_project bin/create_work --appname wseq_sample --wu_name before "$TRASH_DIRECTORY/in1" &&
	test_wait_for 30 results_of before 2
'

test_expect_success 'the database stops: the daemons log it and keep running' '
	pid=$(cat "$SB/mysql/mariadbd.pid") && kill "$pid" &&
	test_wait_for 60 sh -c "! kill -0 $pid 2>/dev/null" &&
	test_wait_for 120 grep -l "database unavailable\|lost connection\|server has gone away" "$PROJECT_DIR"/log/*.log &&
	test_project bin/status
'

test_expect_success 'the database comes back: new work gets its results without restarting a daemon' '
	before=$(cat "$PROJECT_DIR"/pid/transitioner.pid) &&
	wseq_sandbox up --no-daemons "$SB" 2>/dev/null &&
	echo two >in2 && test_project bin/create_work --appname wseq_sample --wu_name after "$TRASH_DIRECTORY/in2" &&
	test_wait_for 60 results_of after 2 &&
	test "$(cat "$PROJECT_DIR"/pid/transitioner.pid)" = "$before" &&
	test_project bin/status
'

test_expect_success 'SIGTERM stops them gracefully, with a log line' '
	test_project bin/stop &&
	test_grep "exiting" "$PROJECT_DIR/log/transitioner.log"
'

test_done
