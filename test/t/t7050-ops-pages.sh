#!/bin/sh
# The ops pages: every URL answers 401 until an admin signs in (from
# loopback too); sign-in by authenticator or by e-mail address and password,
# refused for wrong ones and for accounts that are not admins; forms need
# their CSRF token; headless Chromium signs in and opens the overview, a
# host, a batch and a relocated sequence whose SVG timeline has a row per
# branch, the dead one marked and its hosts named; the cancel actions do
# what they say in the database; a host's CPUs and GPUs (from a real
# client's recorded request) on both host pages, escaped; each version's
# plan class, resource and needs. Screenshots stay in web/*.png.
test_description='ops pages: admins only, CSRF, the pages and the timeline of a relocated sequence in Chromium, cancel actions'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
. "$WSEQ_SRCDIR/test/t/lib-ops.sh"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"

q() { test_sql_value "$1"; }
report() {
	sed -i "s|</scheduler_request>|<result><name>$1</name><state>5</state><exit_status>${2:-0}</exit_status><final_elapsed_time>5</final_elapsed_time></result>\n</scheduler_request>|" r
}
EVIL='alpha<&>"host'
ONE="--min_quorum 1 --target_nresults 1"

test_expect_success 'setup: a sequence F that ran on host A and was relocated to host B' '
	test_setup_sample_app &&
	mkdir init && (cd init && "$APP" --state --init --words 64 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_sample --seq_name F --segments 4 \
		--state_upload_every 1 --rsc_fpops_est 1e9 --max_result_time 100 \
		--command_line "--state" "$TRASH_DIRECTORY/init/state_out" >/dev/null &&
	CPID=hA sched_request 0 >r && sched_rpc r reply &&
	A=$(sched_reply_hostid reply) && echo $A >A &&
	test "$(grep -c "^<result>$" reply)" = 2 &&
	for f in F_b0_s1_state F_b0_s1_answer; do
		cp init/state_out "$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload $f)" || return 1
	done &&
	q "update seq_file set uploaded=1, upload_time=unix_timestamp() where name in (\"F_b0_s1_state\", \"F_b0_s1_answer\");
	   update sequence set last_state_seqno=1 where name=\"F\"" &&
	CPID=hA sched_request $A >r && report F_b0_s1_0 && sched_rpc r reply &&
	(cd "$PROJECT_DIR" && WSEQ_TIME_OFFSET=100000 bin/transitioner --one_pass) 2>/dev/null &&
	test_project bin/relocator --one_pass 2>/dev/null &&
	test "$(q "select concat(branch, \" \", nrelocations) from sequence where name=\"F\"")" = "1 1" &&
	CPID=hB sched_request 0 >r && sched_rpc r reply &&
	B=$(sched_reply_hostid reply) && echo $B >B &&
	test_grep "<name>F_b1_s2_0</name>" reply &&
	CPID=hB sched_request $B >r && report F_b1_s2_0 && sched_rpc r reply &&
	q "update host set domain_name=concat(\"alpha<&>\", char(34), \"host\") where id=$A;
	   update host set domain_name=\"beta-host\" where id=$B" &&
	test "$(q "select domain_name from host where id=$A")" = "$EVIL"
'

# The scheduler ran that history in a second; spread it over four hours, as
# it would have taken, so the timeline has something to show: A ran
# segments 1 to 3, went silent, the relocator moved F at T-110 min, B ran on.
test_expect_success 'setup: the history spread over four hours' '
	T=$(date +%s) &&
	q "update sequence set create_time=$T-14400 where name=\"F\";
	   update workunit set create_time=$T-14400 where name like \"F\\_b0\\_%\";
	   update workunit set create_time=$T-6600 where name like \"F\\_b1\\_%\";
	   update result set sent_time=$T-14300, received_time=$T-10800 where name=\"F_b0_s1_0\";
	   update result set sent_time=$T-14300, report_deadline=$T-7200 where name=\"F_b0_s2_0\";
	   update result set sent_time=$T-10800, report_deadline=$T-7000 where name=\"F_b0_s3_0\";
	   update result set sent_time=$T-6000, received_time=$T-3000 where name=\"F_b1_s2_0\";
	   update result set sent_time=$T-6000 where name=\"F_b1_s3_0\";
	   update result set sent_time=$T-3000 where name=\"F_b1_s4_0\";
	   update seq_file set upload_time=$T-10800 where name like \"F\\_b0\\_s1\\_%\"" &&
	printf "%s transitioner[1] info: [WU#1 <script>alert(1)</script>] & more\n" "$(date "+%F %T")" \
		>>"$PROJECT_DIR/log/transitioner.log"
'

test_expect_success 'setup: a batch of three jobs, an ordinary job, a volunteer' '
	q "insert into batch (user_id, create_time, name, app_id, state, njobs, expire_time)
		select 1, unix_timestamp(), \"condor<b>1\", id, 1, 3, unix_timestamp() + 86400 from app" &&
	bid=$(q "select id from batch") && echo $bid >bid &&
	for i in 1 2 3; do
		echo "in $i" >in_$i && echo "--wu_name bj_$i $TRASH_DIRECTORY/in_$i" || return 1
	done >jobs &&
	test_project bin/create_work --appname wseq_sample --rsc_fpops_est 1e9 $ONE --batch $bid --stdin <jobs &&
	echo crash >crash_in &&
	test_project bin/create_work --appname wseq_sample --rsc_fpops_est 1e9 $ONE --wu_name crash "$TRASH_DIRECTORY/crash_in" &&
	echo lone >lone_in &&
	test_project bin/create_work --appname wseq_sample --rsc_fpops_est 1e9 $ONE --wu_name lone "$TRASH_DIRECTORY/lone_in" &&
	test_project bin/transitioner --one_pass 2>/dev/null &&
	test "$(q "select count(*) from result where server_state=2 and name like \"bj\\_%\"")" = 3 &&
	B=$(cat B) &&
	q "update result set server_state=5, outcome=3, exit_status=-185, hostid=$B, sent_time=unix_timestamp()-600,
		received_time=unix_timestamp()-60, report_deadline=unix_timestamp()+3600,
		stderr_out=\"<stderr_txt>app crashed: <oops> & gone</stderr_txt>\" where name=\"crash_0\"" &&
	test "$(q "select outcome from result where name=\"crash_0\"")" = 3 &&
	echo "volunteer pw 1" >vpw && echo "admin pw 12" >apw &&
	test_project bin/account create --email vol@example.org --name Vol --password_file "$TRASH_DIRECTORY/vpw" &&
	test_project bin/account create --email sub@example.org --name Sub --password_file "$TRASH_DIRECTORY/vpw" \
		--submit_rights wseq_sample &&
	ADMIN_EMAIL=$(q "select email_addr from user where id=1") && echo "$ADMIN_EMAIL" >admin_email &&
	test_project bin/account password --email "$ADMIN_EMAIL" --password_file "$TRASH_DIRECTORY/apw"
'

URLS='
errors hosts host?id=1 batches batch?id=1 apps sequences sequences?state=active seq?id=1
seq?name=F wu?id=1 login logout cancel index.php nosuch host?id=abc deep/er/page'

test_expect_success 'without signing in, every ops URL answers 401 with the sign-in form, from loopback too' '
	for u in $URLS; do
		c=$(status "$OPS$u") &&
		{ test "$c" = 401 || { echo "GET $u: $c"; return 1; }; } &&
		test_grep "name=\"authenticator\"" out.html || return 1
		c=$(status --data "what=wu&id=1&csrf=x" "$OPS$u") &&
		{ test "$c" = 401 || test "$c" = 403 || { echo "POST $u: $c"; return 1; }; } || return 1
	done &&
	test "$(status "$OPS")" = 401 && test "$(status "${OPS%/}")" = 401 &&
	test "$(status -H "X-Forwarded-For: 127.0.0.1" "$OPS")" = 401 &&
	test "$(q "select count(*) from workunit where error_mask&16")" = 0
'

test_expect_success 'a volunteer'"'"'s session of the public site is no ops session' '
	rm -f vj && curl -s -c vj -o /dev/null "${PROJECT_URL}login" &&
	vt=$(sed -n "s/.*wseq_csrf\t//p" vj) &&
	curl -s -b vj -c vj -o /dev/null --data "email_addr=admin%40example.org&passwd=x&csrf=$vt" "${PROJECT_URL}login" ;
	e=$(cat admin_email) &&
	curl -s -b vj -c vj -o /dev/null --data-urlencode "email_addr=$e" --data-urlencode "passwd=admin pw 12" \
		--data "csrf=$vt" "${PROJECT_URL}login" &&
	tok=$(sed -n "s/.*wseq_session\t//p" vj) && test -n "$tok" &&
	test "$(status -b "wseq_ops_session=$tok" "$OPS")" = 401 &&
	test "$(status -b "wseq_session=$tok" "$OPS")" = 401
'

test_expect_success 'a wrong authenticator, a wrong password, a volunteer and a submitter of one app are refused' '
	test "$(signin j1 "authenticator=0123456789abcdef0123456789abcdef")" = 401 &&
	test_grep "Wrong e-mail address, password or authenticator" out.html &&
	test "$(signin j1 "email_addr=$(cat admin_email)" "passwd=not it")" = 401 &&
	test "$(signin j1 "email_addr=vol@example.org" "passwd=volunteer pw 1")" = 403 &&
	test_grep "not one of the project" out.html &&
	test "$(signin j1 "email_addr=sub@example.org" "passwd=volunteer pw 1")" = 403 &&
	vauth=$(q "select authenticator from user where email_addr=\"vol@example.org\"") &&
	test "$(signin j1 "authenticator=$vauth")" = 403 &&
	test "$(status -b j1 "$OPS")" = 401 &&
	test "$(q "select count(*) from web_session")" -le 1 &&
	test_grep "sign-in refused: Vol (user [0-9]*) \[127.0.0.1\] is not an admin" "$PROJECT_DIR/log/ops.log"
'

test_expect_success 'a submitter of every app (account create --submit_rights all) is no admin; account grant --ops makes one' '
	echo "scientist pw 1" >spw &&
	test_project bin/account create --email sci@example.org --name Sci --password_file "$TRASH_DIRECTORY/spw" \
		--submit_rights all >sci.out &&
	test "$(q "select submit_all from user_submit us join user u on u.id=us.user_id where u.email_addr=\"sci@example.org\"")" = 1 &&
	test "$(signin j3 "email_addr=sci@example.org" "passwd=scientist pw 1")" = 403 &&
	test_grep "not one of the project" out.html &&
	test "$(status -b j3 "${OPS}batches")" = 401 &&
	test_project bin/account grant --ops --email sci@example.org >grant.out &&
	test_grep "is one of the project" grant.out &&
	test "$(signin j3 "email_addr=sci@example.org" "passwd=scientist pw 1")" = 303 &&
	test "$(status -b j3 "${OPS}batches")" = 200 &&
	test_project bin/account revoke --ops --email sci@example.org >/dev/null &&
	test "$(status -b j3 "${OPS}batches")" = 401 &&
	test "$(q "select submit_all from user_submit us join user u on u.id=us.user_id where u.email_addr=\"sci@example.org\"")" = 1
'

test_expect_success 'ops sign-in: 40 wrong keys at once from one address, at most the limit checked; then the right key refused there (429)' '
	sed -i "s|<config>|<config>\n    <login_failures_max>10</login_failures_max>|" "$PROJECT_DIR/config.xml" &&
	rm -f j4 && curl -sS --interface 127.0.0.20 -c j4 -o /dev/null "${OPS}login" &&
	t4=$(sed -n "s/.*wseq_ops_csrf\t//p" j4) &&
	seq 1 40 | xargs -P 40 -I{} curl -sS --max-time 120 --interface 127.0.0.20 -b j4 -o /dev/null \
		-w "%{http_code}\n" --data "csrf=$t4&authenticator=0123456789abcdef0123456789abcd{}" "${OPS}login" >codes &&
	checked=$(grep -c "^401$" codes) && refused=$(grep -c "^429$" codes) &&
	say "40 ops key guesses at once: $checked checked, $refused refused" &&
	test "$checked" -le 10 && test $((checked + refused)) = 40 &&
	test "$(curl -sS --interface 127.0.0.20 -b j4 -o out.html -w "%{http_code}" --data-urlencode "csrf=$t4" \
		--data-urlencode "authenticator=$ADMIN_AUTHENTICATOR" "${OPS}login")" = 429 &&
	test_grep "Too many attempts" out.html &&
	test_grep "\[127.0.0.20\] sign-in refused: 11 attempts from this address" "$PROJECT_DIR/log/ops.log" &&
	sed -i "/<login_failures_max>/d" "$PROJECT_DIR/config.xml"
'

test_expect_success 'a sign-in form posted without its CSRF token, or with a wrong one, is refused' '
	rm -f j2 && curl -s -c j2 -o /dev/null "$OPS" &&
	test "$(status -b j2 --data-urlencode "authenticator=$ADMIN_AUTHENTICATOR" "${OPS}login")" = 403 &&
	test "$(status -b j2 --data-urlencode "authenticator=$ADMIN_AUTHENTICATOR" \
		--data "csrf=0123456789abcdef0123456789abcdef" "${OPS}login")" = 403 &&
	test "$(status -b j2 "$OPS")" = 401
'

test_expect_success 'Chromium: an admin opens a host page, signs in with the key and lands on it' '
	A=$(cat A) &&
	ops admin login "$ADMIN_AUTHENTICATOR" "host?id=$A" >login.out &&
	cat login.out && test_grep "^h1: Host $A$" login.out
'

test_expect_success 'Chromium: the overview, errors, hosts, a host, batches, a batch, apps, sequences' '
	A=$(cat A) && bid=$(cat bid) &&
	test "$(signin jar)" = 303 &&
	ops admin shot "" ops-02-overview "table#daemons" "table#wu_counts" "table#disk" >ov.out &&
	test_grep "^table#daemons: 1$" ov.out && test_grep "^table#disk: 1$" ov.out &&
	ops admin shot errors ops-03-errors "table#by_host" >er.out && test_grep "^h1: Recent errors" er.out &&
	status -b jar "${OPS}errors" >/dev/null && cp out.html errors.html &&
	test_grep "<td>client error</td><td class=\"num\">-185</td>" errors.html &&
	test_grep "app crashed: &lt;oops&gt; &amp; gone" errors.html &&
	status -b jar "$OPS" >/dev/null && cp out.html overview.html &&
	test_grep "&lt;script&gt;alert(1)&lt;/script&gt;\] &amp; more" overview.html &&
	! grep -q "<script" overview.html &&
	ops admin shot hosts ops-04-hosts "table#hosts tr" >ho.out &&
	test_grep "^table#hosts tr: 3$" ho.out &&
	ops admin shot "host?id=$A" ops-05-host "table#host_results tr" >h.out &&
	test_grep "^table#host_results tr: 4$" h.out &&
	ops admin shot batches ops-06-batches "table#batches tr" >bs.out &&
	test_grep "^table#batches tr: 2$" bs.out &&
	ops admin shot "batch?id=$bid" ops-07-batch "table#batch_jobs tr" "#cancel" >b.out &&
	test_grep "^table#batch_jobs tr: 4$" b.out && test_grep "^#cancel: 1$" b.out &&
	ops admin shot apps ops-08-apps "table#apps tr" >ap.out && test_grep "^table#apps tr: 2$" ap.out &&
	ops admin shot sequences ops-09-sequences "table#sequences tr" >sq.out &&
	test_grep "^table#sequences tr: 2$" sq.out
'

test_expect_success 'Chromium: the relocated sequence'"'"'s timeline: a row per branch, the dead one marked, hosts named' '
	sid=$(q "select id from sequence where name=\"F\"") &&
	ops admin shot "seq?id=$sid" ops-10-sequence "svg#timeline g.branch" "svg#timeline g.branch.dead" \
		"svg#timeline g.branch.live" "svg#timeline g.cut" "svg#timeline rect.seg" >seq.out &&
	cat seq.out &&
	test_grep "^svg#timeline g.branch: 2$" seq.out &&
	test_grep "^svg#timeline g.branch.dead: 1$" seq.out &&
	test_grep "^svg#timeline g.branch.live: 1$" seq.out &&
	test_grep "^svg#timeline g.cut: 1$" seq.out &&
	test_grep "^host label: $EVIL$" seq.out && test_grep "^host label: beta-host$" seq.out
'

# The server's SVG itself, as XML: a row per branch of the database, the
# dead branch marked and cut where the next one starts, every sent segment a
# bar named by its host's name, the hostile name escaped.
cat >timeline.py <<'EOF_PY'
import re, sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
page = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"<svg .*?</svg>", page, re.S)
assert m, "no svg"
svg = ET.fromstring(m.group(0))
for g in svg.iter(NS + "g"):
    cls = g.get("class", "").split()
    if "branch" not in cls:
        continue
    hosts = sorted({r.get("data-host") for r in g.iter(NS + "rect") if "seg" in r.get("class", "")})
    labels = [t.text for t in g.iter(NS + "text") if t.get("class") == "host"]
    sub = [t.text for t in g.iter(NS + "text") if t.get("class") == "sub"]
    print("branch %s %s segs=%d hosts=%s labels=%s sub=%s" % (
        g.get("data-branch"), "dead" if "dead" in cls else "live",
        sum(1 for r in g.iter(NS + "rect") if "seg" in r.get("class", "")),
        "|".join(hosts), "|".join(labels), "|".join(sub)))
for g in svg.iter(NS + "g"):
    if g.get("class") == "cut":
        print("cut %s: %s" % (g.get("data-branch"), g.find(NS + "text").text))
EOF_PY

test_expect_success 'the timeline SVG is well-formed and says what the database says' '
	sid=$(q "select id from sequence where name=\"F\"") &&
	test "$(status -b jar "${OPS}seq?id=$sid")" = 200 && cp out.html seq.html &&
	python3 timeline.py seq.html >tl.out && cat tl.out &&
	test "$(grep -c "^branch " tl.out)" = $(( $(q "select branch from sequence where name=\"F\"") + 1 )) &&
	n0=$(q "select count(*) from result where name like \"F\\_b0\\_%\" and sent_time>0") &&
	n1=$(q "select count(*) from result where name like \"F\\_b1\\_%\" and sent_time>0") &&
	test_grep "^branch 0 dead segs=$n0 hosts=$EVIL labels=$EVIL sub=dead from segment 2|1 not sent$" tl.out &&
	test_grep "^branch 1 live segs=$n1 hosts=beta-host labels=beta-host sub=live$" tl.out &&
	test_grep "^cut 0: relocated to branch 1 at segment 2$" tl.out &&
	test_grep "alpha&lt;&amp;&gt;&quot;host" seq.html && ! grep -q "$EVIL" seq.html
'

test_expect_success 'hostile ids and names: 400 or 404, never a database error' '
	for u in "host?id=-1" "host?id=0" "host?id=99999999999999999999" "host?id=1%27" "host?id=%00" \
		"seq?id=1e3" "seq?name=%3Cscript%3E" "seq?name=$(printf "%0300d" 0)" "batch?id=" \
		"wu?id=424242" "errors?days=0" "errors?days=x" "hosts?offset=-5" "sequences?state=%27" \
		"batches?before=0" "host?id=%2B1" "seq?name=" "wu?id=1.5"; do
		c=$(status -b jar "$OPS$u") &&
		case "$c" in 400|404) ;; *) echo "$u: $c"; return 1 ;; esac || return 1
	done &&
	! grep -i "database error" "$PROJECT_DIR/log/ops.log"
'

test_expect_success 'an action posted without its CSRF token, or with a wrong one, is refused and changes nothing' '
	wid=$(q "select id from workunit where name=\"lone\"") &&
	test "$(status -b jar --data "what=wu&id=$wid" "${OPS}cancel")" = 403 &&
	test "$(status -b jar --data "what=wu&id=$wid&csrf=0123456789abcdef0123456789abcdef" "${OPS}cancel")" = 403 &&
	login_tok=$(sed -n "s/.*wseq_ops_csrf\t//p" jar) &&
	test "$(status -b jar --data "what=wu&id=$wid&csrf=$login_tok" "${OPS}cancel")" = 403 &&
	test "$(status -b jar "${OPS}cancel?what=wu&id=$wid")" = 405 &&
	test "$(q "select error_mask from workunit where id=$wid")" = 0 &&
	test "$(q "select count(*) from result where workunitid=$wid and server_state=2")" = 1
'

test_expect_success 'cancelling a workunit: its unsent result not needed, error bit 16, logged with the admin' '
	wid=$(q "select id from workunit where name=\"lone\"") &&
	status -b jar "${OPS}wu?id=$wid" >/dev/null && t=$(csrf_of out.html) && test -n "$t" &&
	test "$(status -b jar --data "what=wu&id=$wid&csrf=$t" "${OPS}cancel")" = 200 &&
	test_grep "cancelled: 1 workunits" out.html &&
	test "$(q "select error_mask from workunit where id=$wid")" = 16 &&
	test "$(q "select concat(server_state, outcome) from result where workunitid=$wid")" = 55 &&
	test "$(q "select transition_time <= unix_timestamp() from workunit where id=$wid")" = 1 &&
	test_grep "admin admin (user 1) \[127.0.0.1\] cancelled workunit $wid: done" "$PROJECT_DIR/log/ops.log" &&
	test "$(status -b jar --data "what=wu&id=$wid&csrf=$t" "${OPS}cancel")" = 200 &&
	test_grep "nothing changed" out.html &&
	test "$(status -b jar --data "what=wu&id=424242&csrf=$t" "${OPS}cancel")" = 404 &&
	test "$(status -b jar --data "what=host&id=1&csrf=$t" "${OPS}cancel")" = 400
'

test_expect_success 'Chromium: cancelling the batch from its page: jobs cancelled, batch aborted' '
	bid=$(q "select id from batch") &&
	ops admin cancel "batch?id=$bid" ops-11-batch-cancelled >bc.out && cat bc.out &&
	test_grep "^outcome: batch $bid: cancelled: 3 workunits" bc.out &&
	test "$(q "select state from batch where id=$bid")" = 3 &&
	test "$(q "select count(*) from workunit where batch=$bid and error_mask=16")" = 3 &&
	test "$(q "select count(*) from result where batch=$bid and server_state=5 and outcome=5")" = 3
'

test_expect_success 'Chromium: cancelling the relocated sequence: it ends in error, its host is told' '
	sid=$(q "select id from sequence where name=\"F\"") &&
	ops admin cancel "seq?id=$sid" ops-12-seq-cancelled >sc.out && cat sc.out &&
	test_grep "^outcome: sequence $sid: cancelled: 0 workunits and 1 sequences" sc.out &&
	test "$(q "select concat(state, \"/\", error_msg) from sequence where id=$sid")" = "2/cancelled by admin admin" &&
	test "$(q "select count(*) from result where seq_id=$sid and server_state in (1, 2, 4)")" = 0 &&
	B=$(cat B) && CPID=hB sched_request $B >r &&
	sed -i "s|</scheduler_request>|<other_results><other_result><name>F_b1_s3_0</name></other_result></other_results>\n</scheduler_request>|" r &&
	sched_rpc r reply &&
	sed -n "/<result_abort>/,/<\/result_abort>/p" reply | test_grep "F_b1_s3_0" &&
	q "update host set domain_name=\"beta-host\" where id=$B" &&
	ops admin shot "seq?id=$sid" ops-13-seq-after "svg#timeline g.branch" "#cancel" >sa.out &&
	test_grep "^#cancel: 0$" sa.out &&
	test_project bin/db_check
'

test_expect_success 'Chromium: signing in with the e-mail address and password' '
	ops pw login_pw "$(cat admin_email)" "admin pw 12" >pw.out && test_grep "^h1: Overview$" pw.out &&
	ops wrong refused key 0123456789abcdef0123456789abcdef >wr.out && test_grep "^error: Wrong" wr.out
'

running() { test "$(grep -c "<td class=\"running\">running</td>" out.html)" = "$1"; }
test_expect_success 'the overview says which daemons run, as bin/status does' '
	status -b jar "$OPS" >/dev/null && running 0 &&
	test_project bin/start >/dev/null &&
	test_atexit "cd \"$PROJECT_DIR\" && bin/stop >/dev/null 2>&1" &&
	test_wait_for 60 eval "status -b jar \"$OPS\" >/dev/null && running 5" &&
	test_grep "<td>relocator</td>" out.html &&
	test_project bin/stop >/dev/null &&
	test_wait_for 60 eval "status -b jar \"$OPS\" >/dev/null && running 0"
'

test_expect_success 'an admin whose rights are taken away (account revoke --ops) is signed out at the next page' '
	test "$(status -b jar "$OPS")" = 200 &&
	e=$(cat admin_email) &&
	test_project bin/account revoke --ops --email "$e" >rev.out &&
	test_grep "is no longer one of the project" rev.out &&
	test "$(q "select submit_all from user_submit where user_id=1")" = 1 &&
	test "$(status -b jar "$OPS")" = 401 &&
	test_project bin/account grant --ops --email "$e" >/dev/null &&
	test "$(status -b jar "$OPS")" = 200
'

test_expect_success 'signing out ends the session: its row is gone and the pages answer 401 again' '
	status -b jar "$OPS" >/dev/null && t=$(csrf_of out.html) &&
	n=$(q "select count(*) from web_session") &&
	test "$(status -b jar -c jar --data "csrf=$t" "${OPS}logout")" = 303 &&
	test "$(q "select count(*) from web_session")" = $((n - 1)) &&
	test "$(status -b jar "$OPS")" = 401
'

test_expect_success 'the screenshots are kept in the trash directory' '
	ls web/ops-*.png >shots && cat shots &&
	test_line_count -ge 14 shots
'

test_expect_success 'the apps page says which app runs each job'"'"'s own executable' '
	q "insert into app (name, create_time, any_executable) values (\"own_prog\", 1, 1)" &&
	signin jar.apps >/dev/null &&
	test "$(status -b jar.apps "${OPS}apps")" = 200 &&
	grep "own_prog</td><td>[^<]*</td><td>jobs with their own executable</td>" out.html &&
	grep "wseq_sample</td><td>[^<]*</td><td>jobs</td>" out.html
'

# A host's resources, as the scheduler keeps them from the recorded H200
# client's request (test/data/client-7.20.5): on the ops host page and on the
# volunteers' host page, the GPU's name escaped when it holds markup.
DATA="$WSEQ_SRCDIR/test/data/client-7.20.5"
MARK='<script>alert(1)</script> & "x"'
GPU_ROW='1 × NVIDIA H200 (NVIDIA GPU, 143,155 MB, driver 580.99)'
# h200 CPID [SED ARGS...]: the H200 host's first request as a new host of the admin
h200() {
	_cpid=$1; shift
	sed -e "s|<authenticator>.*</authenticator>|<authenticator>$ADMIN_AUTHENTICATOR</authenticator>|" \
		-e "s|<host_cpid>.*</host_cpid>|<host_cpid>$_cpid</host_cpid>|" "$@" "$DATA/h200_request_1.xml"
}
cat >mark.sed <<'EOF'
s|<name>NVIDIA H200</name>|<name>\&lt;script\&gt;alert(1)\&lt;/script\&gt; \&amp; "x"</name>|
EOF

test_expect_success 'setup: the H200 host, and one whose GPU name holds markup, through the scheduler' '
	h200 gpu1 >r && sched_rpc r reply && G=$(sched_reply_hostid reply) && echo $G >G &&
	h200 gpu2 -f mark.sed >r && sched_rpc r reply && M=$(sched_reply_hostid reply) && echo $M >M &&
	test "$G" != "$M" &&
	test "$(q "select serialnum from host where id=$G")" = "[BOINC|7.20.5][CUDA|NVIDIA H200|1|143155MB|58099|0]" &&
	test "$(q "select serialnum from host where id=$M")" = "[BOINC|7.20.5][CUDA|$MARK|1|143155MB|58099|0]" &&
	q "update user set show_hosts=1 where id=1"
'

test_expect_success 'Chromium: the ops host page shows the CPUs, the GPU, its peak speed and the client; the hosts list its GPUs' '
	G=$(cat G) &&
	ops gpu login "$ADMIN_AUTHENTICATOR" "host?id=$G" >/dev/null &&
	ops gpu shot "host?id=$G" ops-15-host-gpu "table#host tr.gpu" "table#host tr.no-gpu" >hg.out &&
	cat hg.out &&
	test_grep "^table#host tr.gpu: 1$" hg.out && test_grep "^table#host tr.no-gpu: 0$" hg.out &&
	test_grep "^gpu: $GPU_ROW$" hg.out &&
	test_grep "^cpu: 16 × Intel(R) Xeon(R) Processor \[Family 6 Model 207 Stepping 2\] (GenuineIntel), [0-9,.]* GFLOPS each$" hg.out &&
	status -b jar.apps "${OPS}host?id=$G" >/dev/null &&
	test_grep "<th>GPU peak speed</th><td>33,454.08 GFLOPS (1 GPU in all)</td>" out.html &&
	test_grep "<th>BOINC client</th><td>7.20.5</td>" out.html &&
	status -b jar.apps "${OPS}hosts" >/dev/null &&
	test_grep "host?id=$G\">$G</a></td><td>vm</td><td>Linux Ubuntu</td><td class=\"num\">16</td><td class=\"num\">1</td>" out.html
'

test_expect_success 'Chromium: the volunteers'"'"' host page shows the GPU the same way' '
	G=$(cat G) &&
	ops anon public "${PROJECT_URL}host?id=$G" web-host-gpu "tr.gpu" >vg.out && cat vg.out &&
	test_grep "^h1: Computer $G$" vg.out &&
	test_grep "^tr.gpu: 1$" vg.out && test_grep "^gpu: $GPU_ROW$" vg.out
'

test_expect_success 'a host without a GPU says none' '
	B=$(cat B) &&
	ops gpu shot "host?id=$B" ops-16-host-no-gpu "table#host tr.gpu" "table#host tr.no-gpu" >hn.out &&
	test_grep "^table#host tr.gpu: 0$" hn.out && test_grep "^table#host tr.no-gpu: 1$" hn.out
'

test_expect_success 'Chromium: a GPU name holding markup is shown as text on both host pages' '
	M=$(cat M) &&
	ops gpu shot "host?id=$M" ops-17-host-markup "table#host tr.gpu" "table#host tr.gpu *" >hm.out &&
	cat hm.out &&
	test_grep "^table#host tr.gpu: 1$" hm.out && test_grep "^table#host tr.gpu \*: 2$" hm.out &&
	grep -Fx "gpu: 1 × $MARK (NVIDIA GPU, 143,155 MB, driver 580.99)" hm.out &&
	ops anon public "${PROJECT_URL}host?id=$M" web-host-markup "tr.gpu *" >vm.out && cat vm.out &&
	test_grep "^tr.gpu \*: 2$" vm.out &&
	grep -Fx "gpu: 1 × $MARK (NVIDIA GPU, 143,155 MB, driver 580.99)" vm.out &&
	status -b jar.apps "${OPS}host?id=$M" >/dev/null && cp out.html ops-markup.html &&
	curl -sS "${PROJECT_URL}host?id=$M" >web-markup.html &&
	for f in ops-markup.html web-markup.html; do
		grep -F "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;" $f &&
		! grep -q "<script" $f || return 1
	done
'

# Plan classes on the apps page: a CUDA class and a multi-threaded one in
# plan_class_spec.xml, and a version of a class the file does not define.
cat >plan_class_spec.xml <<'EOF'
<plan_classes>
  <plan_class>
    <name>cuda</name>
    <gpu_type>nvidia</gpu_type>
    <cuda/>
    <min_cuda_version>11000</min_cuda_version>
  </plan_class>
  <plan_class>
    <name>mt</name>
    <min_ncpus>2</min_ncpus>
    <max_threads>16</max_threads>
  </plan_class>
</plan_classes>
EOF

test_expect_success 'Chromium: the apps page shows each version'"'"'s class, resource and needs; an undefined class goes to no host' '
	cp plan_class_spec.xml "$PROJECT_DIR/" &&
	for v in "200 cuda" "210 mt" "220 nosuch"; do
		set -- $v &&
		q "insert into app_version (appid, platformid, version_num, plan_class, create_time)
			select appid, platformid, $1, \"$2\", unix_timestamp() from app_version
			where plan_class=\"\" order by id limit 1" || return 1
	done &&
	ops gpu shot apps ops-18-apps-plan-classes "table#versions tr" "td.undefined" "td.needs" >apc.out &&
	cat apc.out &&
	test_grep "^td.undefined: 1$" apc.out && test_grep "^td.needs: 3$" apc.out &&
	test_grep "^version: wseq_sample .* 1.00 CPU 1 CPU " apc.out &&
	test_grep "^version: wseq_sample .* 2.00 cuda NVIDIA GPU .*CUDA" apc.out &&
	test_grep "^version: wseq_sample .* 2.10 mt CPU multi-threaded" apc.out &&
	test_grep "^version: wseq_sample .* 2.20 nosuch - not defined in plan_class_spec.xml: sent to no host " apc.out
'

test_done
