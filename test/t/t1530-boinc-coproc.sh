#!/bin/sh
test_description='real BOINC clients with a coprocessor declared in cc_config.xml (the generic type miner_asic): CPU and coprocessor jobs of one app run at once, the coprocessor ones with --device, all valid; a CPU-only client never gets the coprocessor version; a sequence lives on the coprocessor and relocates to a second such client'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
# Daemons that look for work every second; at most one job in progress per
# CPU and per coprocessor, so a client asking for both gets some of each.
sed -i -e 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' \
	-e 's|<config>|<config>\n    <max_wus_in_progress>1</max_wus_in_progress>\n    <max_wus_in_progress_gpu>1</max_wus_in_progress_gpu>|' \
	"$PROJECT_DIR/config.xml"
PLAT=x86_64-pc-linux-gnu
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
ASIC=miner_asic:2:5e12  # as in ../shared/fixtures/README.md
NJOBS=8
# A job is 300 steps of 25 ms: 7.5 s, long enough that A is surely seen
# running a CPU and a coprocessor job at once. C, which takes the second
# result of every job (one CPU job a CPU at a time), is given four CPUs
# (--ncpus 4) so that it needs two rounds rather than four.
STEPS=300

q() { test_sql_value "$1"; }

# add_version APP CLASS: the sample binary as version 1.00 of APP for plan class CLASS.
add_version() {
	d="$PROJECT_DIR/apps/$1/$1_1.00_${PLAT}__$2" &&
	mkdir -p "$d" && cp "$APP" "$d/$1_1.00_${PLAT}__$2"
}

# The host id a client was given (its client_state.xml; each test runs in a subshell).
hostid_of() {
	sed -n 's|.*<hostid>\([0-9]*\)</hostid>.*|\1|p' "$1/client_state.xml" | head -n 1
}

test_expect_success 'set up: wseq_sample with a CPU and an asic version, wseq_asic with only an asic one' '
	test_project bin/start &&
	test_setup_sample_app &&
	add_version wseq_sample asic && add_version wseq_asic asic &&
	sed -i "s|</app>|</app>\n  <app><name>wseq_asic</name><user_friendly_name>wseq on an ASIC</user_friendly_name></app>|" \
		"$PROJECT_DIR/project.xml" &&
	cp "$PROJECT_DIR/templates/wseq_sample_in" "$PROJECT_DIR/templates/wseq_asic_in" &&
	cp "$PROJECT_DIR/templates/wseq_sample_out" "$PROJECT_DIR/templates/wseq_asic_out" &&
	cat >"$PROJECT_DIR/plan_class_spec.xml" <<-EOF &&
	<plan_classes>
	  <plan_class>
	    <name>asic</name>
	    <gpu_type>miner_asic</gpu_type>
	    <cpu_frac>0.1</cpu_frac>
	  </plan_class>
	</plan_classes>
	EOF
	test_project bin/xadd >setup.log 2>&1 && test_project bin/update_versions >>setup.log 2>&1 &&
	test "$(q "select count(*) from app_version where plan_class=\"asic\"")" = 2 &&
	test "$(q "select count(*) from app_version where plan_class=\"\"")" = 1
'

test_expect_success "create_work makes $NJOBS jobs of wseq_sample with quorum 2" '
	for i in $(seq 1 $NJOBS); do
		printf "input %d %s\n" $i "$(head -c 64 /dev/urandom | od -An -tx1 | tr -d " \n")" >in_$i &&
		echo "--wu_name job_$i $TRASH_DIRECTORY/in_$i" || return 1
	done >jobs &&
	test_project bin/create_work --appname wseq_sample --min_quorum 2 --target_nresults 2 \
		--command_line "--steps $STEPS --step_ms 25" --rsc_fpops_bound 1e17 --stdin <jobs &&
	test "$(q "select count(*) from workunit")" = $NJOBS
'

test_expect_success 'client A declares two miner_asic devices, client C none and four CPUs; a bad --ncpus is refused' '
	test_boinc_client_up A --coproc $ASIC &&
	test_boinc_client_up C --ncpus 4 &&
	test_grep "<type>miner_asic</type>" A/cc_config.xml &&
	test_grep -v "<coproc>" C/cc_config.xml &&
	test_grep "<ncpus>4</ncpus>" C/cc_config.xml && test_grep -v "<ncpus>" A/cc_config.xml &&
	test_must_fail wseq_client up bad --ncpus 0 2>err && test_grep "ncpus: bad count" err &&
	test_must_fail wseq_client up bad --ncpus 2>err && test_grep "see --help" err &&
	! test -e bad/client.pid &&
	test_boinc_attach A "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_boinc_attach C "$PROJECT_URL" "$ADMIN_AUTHENTICATOR"
'

# One snapshot of A's tasks: a job on a miner_asic and a CPU-only job both executing.
cpu_and_asic_running() {
	test_boinccmd A --get_tasks | awk '
		/^[0-9]+\) -----/ { run = 0 }
		/active_task_state: EXECUTING/ { run = 1 }
		/resources:/ && run { if (tolower($0) ~ /asic/) asic = 1; else cpu = 1 }
		END { exit !(asic && cpu) }'
}

test_expect_success 'A runs a CPU job and a coprocessor job at the same time' '
	test_wait_for 150 cpu_and_asic_running || {
		test_boinccmd A --get_tasks >&2; tail -n 40 A/client.log >&2; return 1
	}
'

all_assimilated() {
	test "$(q "select count(*) from workunit where assimilate_state=2 and canonical_resultid>0")" = $NJOBS
}

# C asks every few seconds: while A has reported nothing it shares A's
# allowance of jobs in progress (a new host of the same account), so its first
# requests may get nothing and its client would wait minutes before the next.
test_expect_success 'every job ends validated and assimilated' '
	test_boinc_poll "A C" "$PROJECT_URL" 300 all_assimilated || {
		q "select name, server_state, outcome, validate_state, hostid, app_version_id from result" >&2
		tail -n 30 A/client.log >&2
		return 1
	}
'

# versions_on HOST: "CLASS COUNT" lines, the successful results of HOST per plan class.
versions_on() {
	q "select if(v.plan_class=\"\", \"cpu\", v.plan_class), count(*) from result r
		join app_version v on v.id=r.app_version_id where r.hostid=$1 and r.outcome=1
		group by 1 order by 1"
}

test_expect_success 'A did jobs as both versions, every result valid, nothing in error' '
	HA=$(hostid_of A) && test -n "$HA" &&
	versions_on $HA >a_versions &&
	test_grep "^asic	[1-9]" a_versions && test_grep "^cpu	[1-9]" a_versions &&
	test "$(q "select count(*) from result where validate_state=1")" = $((2 * NJOBS)) &&
	test "$(q "select count(*) from workunit where error_mask<>0")" = 0
'

# n_ok CLASS [SQL]: successful results of plan class CLASS ("" the CPU version), and SQL holds.
n_ok() {
	q "select count(*) from result r join app_version v on v.id=r.app_version_id
		where v.plan_class=\"$1\" and r.outcome=1 ${2:+and $2}"
}

test_expect_success 'the coprocessor jobs were started with --device, the CPU jobs without' '
	n=$(n_ok asic) && test "$n" -ge 1 &&
	test "$(n_ok asic "r.stderr_out regexp \"wseq_sample: started with --device [01]\n\"")" = "$n" &&
	test "$(n_ok "")" -ge 1 &&
	test "$(n_ok "" "r.stderr_out like \"%--device%\"")" = 0
'

test_expect_success 'the assimilated outputs equal a local run of the app' '
	for i in $(seq 1 $NJOBS); do
		rm -rf local && mkdir local && cp in_$i local/in &&
		(cd local && "$APP" --steps $STEPS 2>/dev/null) &&
		test_cmp local/out "$PROJECT_DIR/results/job_$i/out" || return 1
	done
'

test_expect_success 'the CPU-only client C worked but never got the coprocessor version' '
	HC=$(hostid_of C) && test -n "$HC" && test "$HC" != "$(hostid_of A)" &&
	versions_on $HC >c_versions &&
	test_grep "^cpu	[1-9]" c_versions &&
	test "$(q "select p_ncpus from host where id=$HC")" = 4 &&
	test "$(q "select count(*) from result r join app_version v on v.id=r.app_version_id
		where v.plan_class=\"asic\" and r.hostid=$HC")" = 0 &&
	test_grep -v "<plan_class>asic</plan_class>" C/client_state.xml &&
	test_grep "<plan_class>asic</plan_class>" A/client_state.xml
'

# The sequence is of wseq_asic, which has only the asic version: C cannot
# take it, so where it goes after A is gone is the second coprocessor client.
test_expect_success 'a 6-segment sequence of wseq_asic, states uploaded every 2nd' '
	mkdir init && (cd init && "$APP" --state --init --words 1024 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_asic --seq_name S --segments 6 \
		--answer_every 1 --state_upload_every 2 --rsc_fpops_est 1e9 --rsc_fpops_bound 1e17 \
		--max_result_time 3600 --command_line "--state --steps $STEPS --step_ms 10" \
		"$TRASH_DIRECTORY/init/state_out"
'

seg_done() { test_seg_done S "$1"; }

# Killed once segment 3 is reported and segment 4 is running on A; segment 4
# is made slow on A (2 s a step) so it is surely still running then.
three_done_four_running() {
	seg_done 3 && grep -q "Starting task S_b0_s4_0" A/client.log
}

test_expect_success 'the sequence runs on A as the asic version, and A vanishes after segment 3' '
	printf "2000\nS_b0_s4\n" >A/wseq_slow &&
	test_boinc_poll "A C" "$PROJECT_URL" 300 three_done_four_running &&
	HA=$(hostid_of A) && test -n "$HA" &&
	test "$(q "select hostid from sequence where name=\"S\"")" = "$HA" &&
	q "select distinct concat(r.hostid, \" \", v.plan_class) from result r
		join app_version v on v.id=r.app_version_id where r.name like \"S_b0_s%\"" >b0 &&
	echo "$HA asic" >want && test_cmp want b0 &&
	pid=$(cat A/client.pid) &&
	test_boinc_client_kill A &&
	test_wait_for 10 test_pid_gone "$pid" &&
	test "$(q "select last_state_seqno from sequence where name=\"S\"")" = 2
'

relocated() {
	test "$(q "select concat(branch, \" \", hostid, \" \", first_unsent_seqno) from sequence where name=\"S\"")" = "1 0 3"
}

c_rpcs() { grep -c "Scheduler request completed" C/client.log; }
c_asked_since() { test "$(c_rpcs)" -ge $(($1 + 2)); }

test_expect_success 'after the deadline it is relocated, and the CPU-only client does not take it' '
	(cd "$PROJECT_DIR" && WSEQ_TIME_OFFSET=100000 bin/transitioner --one_pass) &&
	test_wait_for 60 relocated &&
	n=$(c_rpcs) &&
	test_boinc_poll C "$PROJECT_URL" 120 c_asked_since $n &&
	test "$(q "select hostid from sequence where name=\"S\"")" = 0
'

seq_ended() {
	test "$(q "select state from sequence where name=\"S\"")" = 1
}

test_expect_success 'a second coprocessor client B takes it over as the asic version and completes it' '
	test_boinc_client_up B --coproc $ASIC &&
	test_boinc_attach B "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_boinc_poll "B C" "$PROJECT_URL" 300 seq_ended &&
	HB=$(hostid_of B) && test -n "$HB" && HC=$(hostid_of C) && test -n "$HC" &&
	q "select distinct concat(r.hostid, \" \", v.plan_class) from result r
		join app_version v on v.id=r.app_version_id where r.name like \"S_b1_s%\" and r.outcome=1" >b1 &&
	echo "$HB asic" >want && test_cmp want b1 &&
	test "$(q "select count(*) from result where name like \"S_b1_s%\" and outcome=1")" = 4 &&
	test "$(q "select count(*) from result where name like \"S_%\" and hostid=$HC")" = 0 &&
	test "$(q "select count(*) from result where name like \"S_b1_s%\" and outcome=1
		and stderr_out like \"%started with --device%\"")" = 4
'

test_expect_success 'the final state equals an uninterrupted run' '
	rm -rf local && mkdir local && cp init/state_out local/state_in &&
	(cd local && "$APP" --state --steps $((STEPS * 6)) 2>/dev/null) &&
	cmp local/state_out "$(find "$PROJECT_DIR/upload" -name S_b1_s6_state)" &&
	test_project bin/db_check
'

test_expect_success 'the clients report no job errors' '
	! grep -i "computation error\|missing signature\|Output file .* absent\|coproc_missing\|out of range" \
		A/client.log B/client.log C/client.log
'

test_done
