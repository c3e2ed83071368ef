#!/bin/bash
test_description='the scheduler obeys the volunteer'"'"'s project preferences for the host'"'"'s venue: no job of an app not selected, none for a resource turned off, others only when allowed and the selected have none; am_set_info refuses malformed ones'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
DATA="$WSEQ_SRCDIR/test/data/client-7.20.5"
PLAT=x86_64-pc-linux-gnu
SLOG="$PROJECT_DIR/log/scheduler.log"
F=1e18

q() { test_sql_value "$1"; }
rpc() { curl -s -o "$2" -w "%{http_code}" --data-binary @"$1" "$SCHED"; }
web_rpc() { curl -sS --max-time 60 "${PROJECT_URL}$1.php?$2"; }

# variant N: the recorded H200 request (16 CPUs, one NVIDIA GPU) as a new host (cpid pN).
variant() {
	sed -e "s|<authenticator>.*</authenticator>|<authenticator>$ADMIN_AUTHENTICATOR</authenticator>|" \
		-e "s|<hostid>.*</hostid>|<hostid>0</hostid>|" \
		-e "s|<host_cpid>.*</host_cpid>|<host_cpid>p$1</host_cpid>|" "$DATA/h200_request_2.xml"
}

# count REPLY PREFIX CLASS: results of the reply whose name starts with PREFIX
# sent as a version of plan class CLASS ("*": any).
count() {
	awk -v p="$2" -v c="$3" '
		/^<result>/ { in_r = 1; pc = ""; nm = "" }
		in_r && /^    <name>/ { nm = $0; sub(/.*<name>/, "", nm); sub(/<\/name>.*/, "", nm) }
		in_r && /<plan_class>/ { pc = $0; sub(/.*<plan_class>/, "", pc); sub(/<\/plan_class>.*/, "", pc) }
		/^<\/result>/ { if (index(nm, p) == 1 && (c == "*" || pc == c)) n++; in_r = 0 }
		END { print n + 0 }' "$1"
}

# set_prefs XML: the test account's project_prefs.
set_prefs() { q "update user set project_prefs='$1' where authenticator='$ADMIN_AUTHENTICATOR'"; }
set_venue() { q "update user set venue='$1' where authenticator='$ADMIN_AUTHENTICATOR'"; }

test_expect_success 'set up: app A (CPU and cuda versions), app B (CPU), 150 jobs of each, 100 a reply' '
	test_setup_sample_app &&
	sed -i "s|<config>|<config>\n    <max_wus_to_send>100</max_wus_to_send>|" "$PROJECT_DIR/config.xml" &&
	d="$PROJECT_DIR/apps/wseq_sample/wseq_sample_1.00_${PLAT}__cuda" && mkdir -p "$d" &&
	cp "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample" "$d/wseq_sample_1.00_${PLAT}__cuda" &&
	d="$PROJECT_DIR/apps/wseq_other/wseq_other_1.00_$PLAT" && mkdir -p "$d" &&
	cp "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample" "$d/wseq_other_1.00_$PLAT" &&
	cp "$WSEQ_SRCDIR/test/data/plan_class/mt_cuda_ati.xml" "$PROJECT_DIR/plan_class_spec.xml" &&
	cat >"$PROJECT_DIR/project.xml" <<-EOT &&
	<boinc>
	  <app><name>wseq_sample</name></app>
	  <app><name>wseq_other</name></app>
	  <platform><name>$PLAT</name></platform>
	</boinc>
	EOT
	cp "$WSEQ_SRCDIR/apps/templates/wseq_sample_in" "$PROJECT_DIR/templates/wseq_other_in" &&
	cp "$WSEQ_SRCDIR/apps/templates/wseq_sample_out" "$PROJECT_DIR/templates/wseq_other_out" &&
	(cd "$PROJECT_DIR" && bin/xadd && bin/update_versions) >uv.log 2>&1 &&
	test "$(q "select count(*) from app_version")" = 3 &&
	A=$(q "select id from app where name=\"wseq_sample\"") && echo $A >appA &&
	B=$(q "select id from app where name=\"wseq_other\"") && echo $B >appB &&
	echo input >in &&
	for i in $(seq 1 150); do
		test_project bin/create_work --appname wseq_sample --wu_name a$i --min_quorum 1 \
			--target_nresults 1 --rsc_fpops_est $F --rsc_fpops_bound 1e19 \
			"$TRASH_DIRECTORY/in" >>setup.log 2>&1 &&
		test_project bin/create_work --appname wseq_other --wu_name b$i --min_quorum 1 \
			--target_nresults 1 --rsc_fpops_est $F --rsc_fpops_bound 1e19 \
			"$TRASH_DIRECTORY/in" >>setup.log 2>&1 || return 1
	done &&
	test_project bin/transitioner --one_pass >>setup.log 2>&1 &&
	test "$(q "select count(*) from result where server_state=2")" = 300
'

test_expect_success 'no prefs: both apps, and cuda jobs for the GPU' '
	variant 1 >r1 && test "$(rpc r1 reply1)" = 200 &&
	test "$(count reply1 a cuda)" -gt 0 && test "$(count reply1 b "*")" -gt 0 &&
	test "$(count reply1 a "")" -gt 0
'

test_expect_success 'venue work excludes app B and the NVIDIA GPU: the new host takes the account'"'"'s venue, gets A'"'"'s CPU jobs only' '
	A=$(cat appA) &&
	set_prefs "<project_preferences><venue name=\"work\"><no_cuda>1</no_cuda><project_specific><apps_selected><app_id>$A</app_id></apps_selected></project_specific></venue></project_preferences>" &&
	set_venue work &&
	for n in 2 3 4; do
		variant $n >r$n && test "$(rpc r$n reply$n)" = 200 &&
		H=$(sched_reply_hostid reply$n) &&
		test "$(q "select venue from host where id=$H")" = work &&
		test_grep "<host_venue>work</host_venue>" reply$n &&
		test "$(count reply$n a "")" -gt 0 &&
		test "$(count reply$n a cuda)" = 0 && test "$(count reply$n b "*")" = 0 || return 1
	done &&
	test_grep "<venue name=\"work\"><no_cuda>1</no_cuda>" reply2
'

test_expect_success 'a host in the default venue is not bound by the work block' '
	set_venue "" &&
	variant 5 >r5 && test "$(rpc r5 reply5)" = 200 &&
	test "$(count reply5 a cuda)" -gt 0 && test "$(count reply5 b "*")" -gt 0
'

test_expect_success 'no_cpu in the default block: the GPU only' '
	set_prefs "<project_preferences><no_cpu>1</no_cpu></project_preferences>" &&
	variant 6 >r6 && test "$(rpc r6 reply6)" = 200 &&
	test "$(count reply6 a cuda)" -gt 0 &&
	test "$(count reply6 a "")" = 0 && test "$(count reply6 b "*")" = 0
'

test_expect_success 'the selected app has no work: nothing, unless others are allowed -- then others, and the volunteer is told' '
	set_prefs "<project_preferences><project_specific><apps_selected><app_id>999</app_id></apps_selected></project_specific></project_preferences>" &&
	variant 7 >r7 && test "$(rpc r7 reply7)" = 200 &&
	test "$(count reply7 "" "*")" = 0 &&
	set_prefs "<project_preferences><project_specific><apps_selected><app_id>999</app_id></apps_selected><allow_non_preferred_apps>1</allow_non_preferred_apps></project_specific></project_preferences>" &&
	variant 8 >r8 && test "$(rpc r8 reply8)" = 200 &&
	test "$(count reply8 "" "*")" -gt 0 &&
	test_grep "No tasks are available for the applications you have selected" reply8
'

test_expect_success 'others allowed, but the selected app has work: only the selected app' '
	B=$(cat appB) &&
	set_prefs "<project_preferences><project_specific><apps_selected><app_id>$B</app_id></apps_selected><allow_non_preferred_apps>1</allow_non_preferred_apps></project_specific></project_preferences>" &&
	variant 9 >r9 && test "$(rpc r9 reply9)" = 200 &&
	test "$(count reply9 b "*")" -gt 0 && test "$(count reply9 a "*")" = 0 &&
	test_grep -v "you have selected" reply9
'

test_expect_success 'stored prefs that do not parse are ignored (logged), not a refusal' '
	set_prefs "<project_preferences><no_cpu>maybe</no_cpu></project_preferences>" &&
	variant 10 >r10 && test "$(rpc r10 reply10)" = 200 &&
	test "$(count reply10 a "")" -gt 0 &&
	test_grep "project prefs ignored: project_prefs:1: <no_cpu> must be 0 or 1" "$SLOG"
'

test_expect_success 'am_set_info: project prefs checked as the scheduler reads them, the venue one of the four' '
	K="$ADMIN_AUTHENTICATOR" &&
	web_rpc am_set_info "account_key=$K&project_prefs=%3Cproject_preferences%3E%3Cno_cuda%3E7%3C/no_cuda%3E%3C/project_preferences%3E" >o1 &&
	test_grep "<error_num>-112</error_num>" o1 && test_grep "no_cuda&gt; must be 0 or 1" o1 &&
	web_rpc am_set_info "account_key=$K&project_prefs=%3Cproject_preferences%3E%3Cvenue%20name=%22mars%22/%3E%3C/project_preferences%3E" >o2 &&
	test_grep "<error_num>-112</error_num>" o2 && test_grep "home, school or work" o2 &&
	web_rpc am_set_info "account_key=$K&venue=office" >o3 &&
	test_grep "venue must be home, school, work or empty" o3 &&
	web_rpc am_set_info "account_key=$K&venue=school&project_prefs=%3Cproject_preferences%3E%3Cno_cuda%3E1%3C/no_cuda%3E%3C/project_preferences%3E" >o4 &&
	test_grep "<success/>" o4 &&
	test "$(q "select concat(venue, \" \", project_prefs) from user where authenticator=\"$K\"")" = "school <project_preferences><no_cuda>1</no_cuda></project_preferences>"
'

test_expect_success 'sequences too: one of app B is not assigned to a host whose prefs exclude B, or the CPU it runs on; it is once they allow it' '
	mkdir init && (cd init && "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample" --state --init --words 64 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_other --seq_name S --segments 2 \
		--rsc_fpops_est 1e9 --command_line "--state --steps 10" "$TRASH_DIRECTORY/init/state_out" >seq.out &&
	A=$(cat appA) && set_venue "" &&
	set_prefs "<project_preferences><project_specific><apps_selected><app_id>$A</app_id></apps_selected></project_specific></project_preferences>" &&
	variant 11 >r11 && test "$(rpc r11 reply11)" = 200 &&
	test "$(q "select hostid from sequence where name=\"S\"")" = 0 &&
	test_grep -v "<name>S_b0_s1_0</name>" reply11 &&
	set_prefs "<project_preferences><no_cpu>1</no_cpu></project_preferences>" &&
	variant 12 >r12 && test "$(rpc r12 reply12)" = 200 &&
	test "$(q "select hostid from sequence where name=\"S\"")" = 0 &&
	set_prefs "" &&
	variant 13 >r13 && test "$(rpc r13 reply13)" = 200 &&
	test "$(q "select hostid from sequence where name=\"S\"")" = "$(sched_reply_hostid reply13)"
'

# A browser without the pages' help: curl with a cookie jar.
jar_get() { curl -s -o "$2" -w "%{http_code}" -b jar -c jar "$PROJECT_URL$1"; }
jar_post() { curl -s -o "$2" -w "%{http_code}" -b jar -c jar --data "$3" "$PROJECT_URL$1"; }
csrf_of() { sed -n "s/.*name=\"csrf\" value=\"\([0-9a-f]*\)\".*/\1/p" "$1" | head -n 1; }

test_expect_success 'the preferences pages: signed in only, CSRF checked, bad input refused with a clear error' '
	test "$(jar_get "prefs_edit.php?subset=project" p0.html)" = 403 && test_grep "Please sign in" p0.html &&
	printf "%s" "a password 1" >pw &&
	test_project bin/account create --email bob@example.org --name Bob --password_file "$TRASH_DIRECTORY/pw" >bob.out &&
	jar_get login l.html >/dev/null &&
	test "$(jar_post login l2.html "email_addr=bob%40example.org&passwd=a%20password%201&csrf=$(csrf_of l.html)")" = 303 &&
	test "$(jar_get "prefs_edit.php?subset=project&venue=mars" p1.html)" = 400 && test_grep "No such venue" p1.html &&
	test "$(jar_get "prefs_edit.php?subset=project&venue=home" p2.html)" = 200 &&
	T=$(csrf_of p2.html) && test -n "$T" && A=$(cat appA) && B=$(cat appB) &&
	test "$(jar_post prefs_edit.php p3.html "subset=project&venue=home&app_$A=1")" = 403 &&
	test "$(jar_post prefs_edit.php p4.html "csrf=$T&subset=project&venue=home&app_$A=1&resource_share=lots")" = 400 &&
	test_grep "The resource share must be a number from 0 to 100000" p4.html &&
	test "$(jar_post prefs_edit.php p5.html "csrf=$T&subset=project&venue=home&use_cpu=1")" = 400 &&
	test_grep "Select at least one application" p5.html &&
	test "$(q "select project_prefs from user where email_addr=\"bob@example.org\"")" = "" &&
	test "$(jar_post prefs_edit.php p6.html "csrf=$T&subset=project&venue=home&app_$B=1&use_cpu=1&resource_share=50")" = 303 &&
	q "select project_prefs from user where email_addr=\"bob@example.org\"" >bp &&
	test_grep "<venue name=\"home\">" bp && test_grep "<resource_share>50</resource_share>" bp &&
	test_grep "<app_id>$B</app_id>" bp && test_grep "<no_cuda>1</no_cuda>" bp &&
	test "$(jar_post prefs_edit.php g1.html "csrf=$T&subset=global&venue=work&max_ncpus_pct=500")" = 400 &&
	test_grep "must be a number from 1 to 100" g1.html &&
	test "$(jar_post prefs_edit.php g2.html "csrf=$T&subset=global&venue=work&max_ncpus_pct=50&run_on_batteries=1")" = 303 &&
	q "select global_prefs from user where email_addr=\"bob@example.org\"" >bg &&
	test_grep "<mod_time>[1-9][0-9]*</mod_time>" bg && test_grep "<venue name=\"work\">" bg &&
	test_grep "<max_ncpus_pct>50</max_ncpus_pct>" bg && test_grep "<run_on_batteries>1</run_on_batteries>" bg
'

test_expect_success 'computing prefs in the reply only when newer than the client'"'"'s; a newer client copy is stored' '
	K=$(sed -n "s/^account_key //p" bob.out) &&
	M=$(sed -n "s|.*<mod_time>\(.*\)</mod_time>.*|\1|p" bg) &&
	variant 20 | sed "s|<authenticator>.*</authenticator>|<authenticator>$K</authenticator>|" >r20 &&
	test "$(rpc r20 reply20)" = 200 && test_grep "<max_ncpus_pct>50</max_ncpus_pct>" reply20 &&
	sed "s|</scheduler_request>|<working_global_preferences><global_preferences><mod_time>$M</mod_time></global_preferences></working_global_preferences></scheduler_request>|" r20 >r21 &&
	test "$(rpc r21 reply21)" = 200 && test_grep -v "<global_preferences>" reply21 &&
	H=$(q "select email_addr from user where email_addr=\"bob@example.org\"") &&
	EH=$(printf "%s" "$H" | md5sum | cut -d" " -f1) &&
	sed "s|</scheduler_request>|<global_preferences><mod_time>$((M + 100))</mod_time><max_ncpus_pct>25</max_ncpus_pct></global_preferences><global_prefs_source_email_hash>$EH</global_prefs_source_email_hash></scheduler_request>|" r20 >r22 &&
	test "$(rpc r22 reply22)" = 200 && test_grep -v "<global_preferences>" reply22 &&
	q "select global_prefs from user where email_addr=\"bob@example.org\"" >bg2 &&
	test_grep "<max_ncpus_pct>25</max_ncpus_pct>" bg2
'

test_expect_success 'no sanitizer report from the scheduler' '
	test_grep -v "runtime error\|AddressSanitizer\|LeakSanitizer" "$SB/apache/logs/error.log"
'

test_done
