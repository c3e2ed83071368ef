#!/bin/bash
# A host's measured speed per app version replaces the projection once it
# returned jobs of it: a multi-threaded version that turns out slower than
# the plain one on a host stops being sent there; one faster than projected
# goes on being sent until its invalid results lower its standing.
test_description='version choice by measured speed and validity (host_app_version)'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
. "$WSEQ_SRCDIR/test/t/lib-host-upload.sh"

PLAT=x86_64-pc-linux-gnu
F=4e12                  # each job's rsc_fpops_est
q() { test_sql_value "$1"; }
# req HOSTID CPID [MORE]: a 4-CPU host (p_fpops 1e9) asking for 4000 s of work
req() { NCPUS=4 sched_host_request "$ADMIN_AUTHENTICATOR" "$1" "$2" 4000 "${3:-}"; }
# classes REPLY: the plan class of each job of the reply ("-" for none), sorted, unique
classes() {
	awk '/^<result>/ { r = 1; pc = "-" }
		r && /<plan_class>/ { pc = $0; sub(/.*<plan_class>/, "", pc); sub(/<\/plan_class>.*/, "", pc) }
		/^<\/result>/ { print pc; r = 0 }' "$1" | sort -u
}
validate() {
	test_project bin/transitioner --one_pass >>daemons.log 2>&1 &&
	test_project bin/validator --one_pass >>daemons.log 2>&1
}

test_expect_success 'set up: a plain and an mt version of one app, 40 jobs' '
	test_setup_sample_app &&
	d="$PROJECT_DIR/apps/wseq_sample/wseq_sample_1.00_${PLAT}__mt" && mkdir -p "$d" &&
	cp "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample" "$d/wseq_sample_1.00_${PLAT}__mt" &&
	cat >"$PROJECT_DIR/plan_class_spec.xml" <<-EOF &&
	<plan_classes>
	  <plan_class><name>mt</name><min_ncpus>2</min_ncpus><max_threads>4</max_threads></plan_class>
	</plan_classes>
	EOF
	test_project bin/update_versions >uv.log 2>&1 &&
	echo input >in &&
	for i in $(seq 1 40); do
		echo "--wu_name j$i --min_quorum 1 --target_nresults 1 --rsc_fpops_est $F $TRASH_DIRECTORY/in"
	done >jobs &&
	test_project bin/create_work --appname wseq_sample --stdin <jobs >setup.log 2>&1 &&
	test_project bin/transitioner --one_pass >>setup.log 2>&1
'

test_expect_success 'by projection a 4-CPU host gets the mt version (4 threads: 4e9 FLOPS)' '
	req 0 a >r && sched_rpc r reply1 &&
	H=$(sched_reply_hostid reply1) && test -n "$H" && echo "$H" >hid_a &&
	test "$(classes reply1)" = mt &&
	sched_reply_jobs reply1 >sent_a
'

test_expect_success 'its mt jobs run at 5e8 FLOPS: after two, it gets the plain version' '
	H=$(cat hid_a) && j1=$(sed -n 1p sent_a) && j2=$(sed -n 2p sent_a) &&
	host_upload_output "$j1" && host_upload_output "$j2" &&
	req "$H" a "$(sched_report "$j1" 5 0 8000; sched_report "$j2" 5 0 8000)" >r && sched_rpc r reply2 &&
	test "$(classes reply2)" = - &&
	test "$(q "select round(flops_avg) from host_app_version h join app_version v
		on v.id=h.app_version_id where h.host_id=$H and v.plan_class=\"mt\"")" = 500000000
'

test_expect_success 'another host whose mt jobs run at 1.5e9 FLOPS keeps getting mt' '
	req 0 b >r && sched_rpc r reply3 &&
	H=$(sched_reply_hostid reply3) && echo "$H" >hid_b &&
	test "$(classes reply3)" = mt &&
	sched_reply_jobs reply3 >sent_b &&
	j1=$(sed -n 1p sent_b) && j2=$(sed -n 2p sent_b) &&
	req "$H" b "$(sched_report "$j1" 5 0 2666.667; sched_report "$j2" 5 0 2666.667)" >r && sched_rpc r reply4 &&
	test "$(classes reply4)" = mt
'

test_expect_success 'its two results found invalid (no output uploaded), it gets the plain version' '
	H=$(cat hid_b) &&
	validate &&
	test "$(q "select n_invalid from host_app_version h join app_version v
		on v.id=h.app_version_id where h.host_id=$H and v.plan_class=\"mt\"")" = 2 &&
	req "$H" b >r && sched_rpc r reply5 &&
	test "$(classes reply5)" = -
'

test_done
