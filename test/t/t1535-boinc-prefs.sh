#!/bin/sh
test_description='a real BOINC client in venue work, with a coprocessor declared in cc_config.xml: the project preferences set on the web (headless Chromium) exclude one of two apps and the coprocessor, and over many RPCs it gets neither; preferences changed on the web change what it gets at the next RPC; computing preferences set on the web reach the client'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
# Daemons that look for work every second; one job in progress per CPU and
# per coprocessor, so the client comes back for work often (many RPCs).
sed -i -e 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' \
	-e 's|<config>|<config>\n    <max_wus_in_progress>1</max_wus_in_progress>\n    <max_wus_in_progress_gpu>1</max_wus_in_progress_gpu>|' \
	"$PROJECT_DIR/config.xml"
PLAT=x86_64-pc-linux-gnu
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
ASIC=miner_asic:2:5e12  # as in ../shared/fixtures/README.md
NJOBS=40

q() { test_sql_value "$1"; }
web() {
	PROJECT_URL=$PROJECT_URL WEB_OUT="$TRASH_DIRECTORY/web" WEB_PROFILE=alice \
		python3 "$WSEQ_SRCDIR/test/data/web/scenario.py" "$@"
}
mkdir -p web

# add_version APP CLASS: the sample binary as version 1.00 of APP (CLASS "": the CPU one).
add_version() {
	d="$PROJECT_DIR/apps/$1/$1_1.00_${PLAT}${2:+__$2}" &&
	mkdir -p "$d" && cp "$APP" "$d/$1_1.00_${PLAT}${2:+__$2}"
}

has_host() { _h=$(hostid_of A) && test -n "$_h" && test "$_h" != 0; }
hostid_of() {
	sed -n 's|.*<hostid>\([0-9]*\)</hostid>.*|\1|p' "$1/client_state.xml" | head -n 1
}

# sent HOSTID [SQL]: "APP CLASS" of each result sent to the host (and SQL holds), one a line.
sent() {
	q "select concat(a.name, \" \", if(v.plan_class=\"\", \"cpu\", v.plan_class)) from result r
		join app a on a.id=r.appid join app_version v on v.id=r.app_version_id
		where r.hostid=$1 ${2:+and $2} order by r.id"
}

test_expect_success 'set up: wseq_sample (CPU and asic versions), wseq_other (CPU); short jobs of each' '
	test_project bin/start &&
	test_setup_sample_app &&
	add_version wseq_sample asic && add_version wseq_other "" &&
	sed -i "s|</app>|</app>\n  <app><name>wseq_other</name><user_friendly_name>the other app</user_friendly_name></app>|" \
		"$PROJECT_DIR/project.xml" &&
	cp "$PROJECT_DIR/templates/wseq_sample_in" "$PROJECT_DIR/templates/wseq_other_in" &&
	cp "$PROJECT_DIR/templates/wseq_sample_out" "$PROJECT_DIR/templates/wseq_other_out" &&
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
	test "$(q "select count(*) from app_version")" = 3 &&
	q "select id from app where name=\"wseq_sample\"" >appA &&
	q "select id from app where name=\"wseq_other\"" >appB &&
	echo input >in &&
	for app in wseq_sample wseq_other; do
		for i in $(seq 1 $NJOBS); do
			echo "--wu_name ${app}_$i $TRASH_DIRECTORY/in" || return 1
		done >jobs_$app &&
		test_project bin/create_work --appname $app --min_quorum 1 --target_nresults 1 \
			--command_line "--steps 20 --step_ms 10" --rsc_fpops_est 1e9 \
			--rsc_fpops_bound 1e17 --stdin <jobs_$app || return 1
	done &&
	test "$(q "select count(*) from workunit")" = $((2 * NJOBS))
'

test_expect_success 'alice joins (venue work, as an account manager sets it) and sets her work prefs in Chromium: no wseq_other, no coprocessor' '
	printf "%s" "a password 1" >pw &&
	test_project bin/account create --email alice@example.org --name Alice \
		--password_file "$TRASH_DIRECTORY/pw" >alice.out &&
	KEY=$(sed -n "s/^account_key //p" alice.out) && echo "$KEY" >alice.key &&
	curl -sS "${PROJECT_URL}am_set_info.php?account_key=$KEY&venue=work" | test_grep "<success/>" &&
	web login alice@example.org "a password 1" &&
	web prefs project work "app_$(cat appB)=0" use_other_coproc=0 &&
	q "select project_prefs from user where email_addr=\"alice@example.org\"" >prefs1 &&
	test_grep "<venue name=\"work\">" prefs1 && test_grep "<no_other_coproc>1</no_other_coproc>" prefs1 &&
	test_grep "<app_id>$(cat appA)</app_id>" prefs1 && test_grep -v "<app_id>$(cat appB)</app_id>" prefs1
'

rpcs() { grep -c "Scheduler request completed" A/client.log; }
ok_results() { q "select count(*) from result where hostid=$(hostid_of A) and outcome=1"; }
# got_other: a wseq_other job sent after the second the change was saved in (changed_at).
got_other() { test -n "$(sent "$(hostid_of A)" "a.name=\"wseq_other\" and r.sent_time > $(cat changed_at)")"; }
many_done() { H=$(hostid_of A) && test -n "$H" && test "$(ok_results)" -ge 8 && test "$(rpcs)" -ge 6; }

test_expect_success 'her client with two miner_asic devices, attached: a host in venue work' '
	test_boinc_client_up A --coproc $ASIC --ncpus 2 &&
	test_grep "<type>miner_asic</type>" A/cc_config.xml &&
	test_boinc_attach A "$PROJECT_URL" "$(cat alice.key)" &&
	test_wait_for 60 has_host &&
	test "$(q "select venue from host where id=$(hostid_of A)")" = work
'

test_expect_success 'over many RPCs it gets only wseq_sample CPU jobs: never wseq_other, never the coprocessor' '
	test_boinc_poll A "$PROJECT_URL" 300 many_done || {
		tail -n 40 A/client.log >&2; return 1
	} &&
	H=$(hostid_of A) &&
	sent $H >sent1 && test -s sent1 &&
	test_grep -v "wseq_other" sent1 && test_grep -v "asic" sent1 &&
	test_grep "Requesting new tasks for.*Miner ASIC\|Requesting new tasks for.*miner_asic" A/client.log &&
	test_grep "<host_venue>work</host_venue>" A/client_state.xml
'

test_expect_success 'prefs changed in Chromium (wseq_other only): the next RPCs bring wseq_other and no more wseq_sample' '
	web prefs project work "app_$(cat appA)=0" "app_$(cat appB)=1" &&
	T=$(date +%s) && echo $T >changed_at &&
	H=$(hostid_of A) &&
	test_boinc_poll A "$PROJECT_URL" 300 got_other &&
	sent $H "r.sent_time > $T" >sent2 && test -s sent2 &&
	test_grep -v "wseq_sample" sent2 && test_grep -v "asic" sent2
'

cpus_halved() { test_boinccmd A --get_messages | grep -qE "max CPUs used: 1 *$"; }

# wseq_client writes a global_prefs_override.xml (max_ncpus_pct 100 among others) that
# would mask the project's: that line goes, so the web's value is the one in force.
test_expect_success 'computing prefs set in Chromium (work: at most 50% of the CPUs) reach the client; boinccmd shows them' '
	sed -i "/max_ncpus_pct/d" A/global_prefs_override.xml &&
	test_boinccmd A --read_global_prefs_override &&
	web prefs global work max_ncpus_pct=50 &&
	q "select global_prefs from user where email_addr=\"alice@example.org\"" >gp &&
	test_grep "<mod_time>" gp && test_grep "<max_ncpus_pct>50</max_ncpus_pct>" gp &&
	test_boinc_poll A "$PROJECT_URL" 120 cpus_halved &&
	test_grep "<max_ncpus_pct>50</max_ncpus_pct>" A/global_prefs.xml &&
	test_grep "<source_project>$PROJECT_URL</source_project>" A/global_prefs.xml
'

test_expect_success 'no sanitizer report from the scheduler or the web program' '
	test_grep -v "runtime error\|AddressSanitizer\|LeakSanitizer" "$SB/apache/logs/error.log"
'

test_done
