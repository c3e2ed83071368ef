#!/bin/sh
# An admin's config.xml and daemon lines from an upstream BOINC project:
# every <config> option no wseq program reads is named as a warning (by
# wseq_config --check, a daemon's --check_config and every daemon at
# start), never ignored in silence; upstream's daemon flags and their
# single-dash spelling start a daemon. wseq_config --check reads
# plan_class_spec.xml too and names what of it wseq does not use.
test_description='upstream BOINC settings carry over or are named'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_atexit 'test -f "$TRASH_DIRECTORY/proj/bin/stop" && "$TRASH_DIRECTORY/proj/bin/stop" --timeout 1'

# Twenty options of upstream's scheduler and web pages that wseq does not implement.
UPSTREAM="shmem_key feeder_query_size locality_scheduling homogeneous_redundancy
one_result_per_host_per_wu min_core_client_version send_result_abort
reliable_max_error_rate reliable_max_avg_turnaround dont_generate_upload_certificates
grace_period_hours job_size_matching ban_os ban_cpu enable_assignment
delete_delay_hours msg_to_host user_filter profile_screening show_results"

P="$TRASH_DIRECTORY/proj"
mkdir -p "$P/bin" && cp "$WSEQ_BUILDDIR/test/test_daemon" "$P/bin/" &&
for c in start stop status; do ln -s "$WSEQ_BUILDDIR/tools/wseq_ctl" "$P/bin/$c"; done
{
	echo "<boinc>"
	echo "  <config>"
	echo "    <master_url>http://localhost/test/</master_url>"
	echo "    <db_name>test</db_name>"
	echo "    <log_dir>log</log_dir>"
	echo "    <pid_dir>pid</pid_dir>"
	echo "    <max_wus_to_send>7</max_wus_to_send>"
	echo "    <max_wus_in_progress>2</max_wus_in_progress>"
	for o in $UPSTREAM; do echo "    <$o>1</$o>"; done
	echo "    <max_wus_to_sned>3</max_wus_to_sned>"
	echo "  </config>"
	echo "  <daemons>"
	echo "    <daemon><cmd>test_daemon --sleep_interval 5 -d 4 --out up.out</cmd></daemon>"
	echo "    <daemon><cmd>test_daemon -sleep_interval 5 -mod 2 1 -out up2.out</cmd><pid_file>b.pid</pid_file></daemon>"
	echo "    <daemon><cmd>feeder -d 3</cmd></daemon>"
	echo "  </daemons>"
	echo "</boinc>"
} >"$P/config.xml"

test_expect_success 'wseq_config --check names each of the 20 upstream options, and a misspelt one' '
	wseq_config --project "$P" --check >out 2>err &&
	for o in $UPSTREAM; do
		test_grep "<$o> is an upstream BOINC option wseq does not implement" out || return 1
	done &&
	test $(grep -c "upstream BOINC option" out) = 20 &&
	test_grep "config.xml:[0-9]*: <max_wus_to_sned> is not a wseq or BOINC option" out &&
	test $(grep -c "^warning:" out) = 21 &&
	test_grep -v "<max_wus_to_send>\|<max_wus_in_progress>\|<log_dir>" out &&
	test_grep "ok (with the warnings above)" out
'

test_expect_success 'options wseq reads are not warned about' '
	sed "/shmem_key\|feeder_query\|locality\|homogeneous\|one_result\|min_core\|send_result\|reliable\|dont_gen\|grace\|job_size\|ban_\|enable_ass\|delete_delay\|msg_to\|user_filter\|profile_scr\|show_res\|sned/d" \
		"$P/config.xml" >clean.xml &&
	mkdir clean && cp clean.xml clean/config.xml &&
	wseq_config --project clean --check >out &&
	test_grep -v "warning" out &&
	test_grep "ok$" out
'

test_expect_success 'wseq_config --check reads plan_class_spec.xml: each note a warning with its line' '
	mkdir pc && cp clean.xml pc/config.xml &&
	{
		sed "\$d" "$WSEQ_SRCDIR/test/data/plan_class/plan_class_spec.xml" &&
		cat <<-\EOF
		    <plan_class>
		        <name>typo</name>
		        <max_thread>4</max_thread>
		        <min_cuda_version>eleven</min_cuda_version>
		    </plan_class>
		</plan_classes>
		EOF
	} >pc/plan_class_spec.xml &&
	wseq_config --project pc --check >out 2>err &&
	n=$(grep -n "<max_thread>" pc/plan_class_spec.xml | cut -d: -f1) &&
	test_grep "^warning: .*plan_class_spec.xml:$n: <max_thread> is not a plan class element; ignored" out &&
	test_grep "^warning: .*plan_class_spec.xml:$((n + 1)): <min_cuda_version>: .*eleven.* is not a number; ignored" out &&
	test_grep "^warning: .*plan_class_spec.xml:73: <min_opencl_version> is closed with <min_opencl_version>" out &&
	test_grep "^warning: .*plan_class_spec.xml:90: <wsl> is not checked by wseq: the class matches no host" out &&
	test $(grep -c "^warning:" out) = 5 &&
	test_grep "plan_class_spec.xml: 14 plan classes" out &&
	test_grep "ok (with the warnings above)" out
'

test_expect_success 'wseq_config --check fails on a plan_class_spec.xml that is not one' '
	printf "<plan_classes>\n<plan_class><name>cut</name>\n" >pc/plan_class_spec.xml &&
	test_must_fail wseq_config --project pc --check >out 2>err &&
	test_grep "^error: .*plan_class_spec.xml:2: <plan_class> is not closed before the end of the file" out &&
	test_grep -v "ok" out &&
	echo "<boinc/>" >pc/plan_class_spec.xml &&
	test_must_fail wseq_config --project pc --check >out 2>err &&
	test_grep "^error: .*plan_class_spec.xml:1: the document is not <plan_classes>" out &&
	rm pc/plan_class_spec.xml && wseq_config --project pc --check >out &&
	test_grep -v "plan class" out && test_grep "ok$" out
'

test_expect_success 'a daemon names them with --check_config and in its log at start' '
	test_daemon --config "$P/config.xml" --check_config >out &&
	test $(grep -c "upstream BOINC option wseq does not implement" out) = 20 &&
	test_grep "configuration ok" out &&
	test_daemon --config "$P/config.xml" --one_pass 2>log &&
	test $(grep -c "warning: .*upstream BOINC option wseq does not implement" log) = 20 &&
	test_grep "<max_wus_to_sned> is not a wseq or BOINC option" log
'

test_expect_success 'upstream daemon lines (--sleep_interval, -d 4, -mod, single dashes) start; the feeder is passed over' '
	"$P/bin/start" 2>start.err &&
	test_grep "feeder: not needed in wseq" start.err &&
	"$P/bin/status" >st &&
	test $(grep -c "running" st) = 2 &&
	test_wait_for 15 grep -q "debug:" "$P/log/test_daemon.log" &&
	test_wait_for 15 test -f "$P/up.out" &&
	test_wait_for 15 test -f "$P/up2.out" &&
	test_grep "instance 1 of 2" "$P/log/b.log" &&
	"$P/bin/stop" --timeout 5
'

test_expect_success 'upstream spellings reach the same options as ours' '
	rm -f o1 &&
	test_daemon -config "$P/config.xml" -one_pass -out o1 -d 3 2>log &&
	test_grep "pass 1 pid .* end" o1 &&
	test_grep "exiting after one pass" log &&
	test_daemon --help >help &&
	test_grep "\-\-sleep_interval S" help &&
	test_must_fail test_daemon -sleep_interval 2>err &&
	test_grep "needs a value" err &&
	test_must_fail test_daemon -frobnicate 2>err &&
	test_grep "unknown option -frobnicate" err &&
	test_must_fail test_daemon -d 5 2>err &&
	test_grep "level from 1 to 4" err
'

test_done
