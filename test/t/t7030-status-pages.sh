#!/bin/sh
test_description='server_status (HTML, ?xml=1 as monitoring tools read it, ?counts=1) and the apps page: the counters are the database'"'"'s, tasks in progress are counted per resource by plan class, the daemons are as bin/status sees them, typed names are escaped, and the status page answers with the database down'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
SB="$TRASH_DIRECTORY/sb"
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"
# a disabled daemon, shown as such
sed -i 's|</daemons>|    <daemon><cmd>spare_daemon -d 2</cmd><disabled>1</disabled></daemon>\n  </daemons>|' \
	"$PROJECT_DIR/config.xml"

# get PAGE: the page through Apache; the HTTP status goes to PAGE.code
get() {
	curl -sS --max-time 60 -o "$2" -w "%{http_code} %{content_type}\n" "${PROJECT_URL}$1" >"$2.code"
}

# The XML as section 10 of the fact sheet has it: the element names and
# their order, then "name value" lines to compare (daemon NAME STATUS,
# app ID NAME UNSENT IN_PROGRESS, resource NAME IN_PROGRESS, and each counter).
cat >status_xml.py <<'EOF'
import sys, xml.etree.ElementTree as ET
COUNTERS = ["results_ready_to_send", "results_in_progress", "workunits_waiting_for_validation",
            "workunits_waiting_for_assimilation", "workunits_waiting_for_deletion",
            "results_waiting_for_deletion", "transitioner_backlog_hours",
            "users_with_recent_credit", "users_with_credit", "users_registered_in_past_24_hours",
            "hosts_with_recent_credit", "hosts_with_credit", "hosts_registered_in_past_24_hours",
            "current_floating_point_speed", "sequences_in_progress"]
JOB_COUNTS = ["results_ready_to_send", "results_in_progress", "results_need_file_delete",
              "wus_need_validate", "wus_need_assimilate", "wus_need_file_delete"]
root = ET.parse(sys.argv[1]).getroot()
def tags(e): return [c.tag for c in e]
if root.tag == "job_counts":
    assert tags(root) in (JOB_COUNTS, []), tags(root)
    for c in root: print(c.tag, c.text)
    sys.exit(0)
assert root.tag == "server_status", root.tag
assert tags(root) == ["daemon_status", "database_file_states"], tags(root)
for d in root.find("daemon_status"):
    assert d.tag == "daemon" and tags(d) == ["host", "command", "status"], tags(d)
    assert d.find("status").text in ("running", "not running", "disabled")
    assert d.find("host").text
    print("daemon", d.find("command").text, d.find("status").text.replace(" ", "_"))
fs = root.find("database_file_states")
if len(fs) == 0:
    print("no counters")
    sys.exit(0)
assert tags(fs) == COUNTERS + ["tasks_by_app", "tasks_by_resource"], tags(fs)
for c in fs:
    if c.tag not in ("tasks_by_app", "tasks_by_resource"):
        float(c.text)
        print(c.tag, c.text)
for a in fs.find("tasks_by_app"):
    assert a.tag == "app" and tags(a) == ["id", "name", "unsent", "in_progress"], tags(a)
    print("app", a.find("id").text, a.find("name").text, a.find("unsent").text,
          a.find("in_progress").text)
res = fs.find("tasks_by_resource")
assert tags(res)[:1] == ["resource"], "CPU comes first"
for r in res:
    assert r.tag == "resource" and tags(r) == ["name", "in_progress"], tags(r)
    print("resource", r.find("name").text, r.find("in_progress").text)
EOF

# The HTML: every element closed in order (void ones aside), no script;
# prints the text, a line per text node, for grep.
cat >page_html.py <<'EOF'
import sys
from html.parser import HTMLParser
VOID = {"meta", "link", "br", "input", "img", "hr"}
class P(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
    def handle_starttag(self, tag, attrs):
        assert tag != "script", "a script"
        if tag not in VOID:
            self.stack.append(tag)
    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack)
        self.stack.pop()
    def handle_data(self, data):
        if data.strip():
            print(" ".join(data.split()))
p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
p.close()
assert not p.stack, p.stack
EOF

value() { sed -n "s/^$1 //p" "$2"; }
sample_id() { test_sql_value "select id from app where name=\"wseq_sample\""; }

test_expect_success 'setup: the sample app, and rows for every counter' '
	test_setup_sample_app &&
	appid=$(sample_id) &&
	now=$(date +%s) &&
	test_sql_value "
	insert into result (workunitid, name, server_state, appid) values
		(1, \"u1\", 2, $appid), (1, \"u2\", 2, $appid), (1, \"u3\", 2, $appid),
		(1, \"p1\", 4, $appid), (1, \"p2\", 4, $appid),
		(1, \"d1\", 5, $appid);
	update result set file_delete_state=1 where name=\"d1\";
	insert into workunit (appid, name, need_validate, transition_time) values
		($appid, \"v1\", 1, $now + 86400), ($appid, \"v2\", 1, $now + 86400);
	insert into workunit (appid, name, assimilate_state, transition_time) values
		($appid, \"a1\", 1, $now - 7200);
	insert into workunit (appid, name, file_delete_state, transition_time) values
		($appid, \"f1\", 1, $now + 86400), ($appid, \"f2\", 1, $now + 86400);
	insert into user (email_addr, name, authenticator, create_time, total_credit, expavg_credit) values
		(\"c1@example.org\", \"c1\", \"auth_c1\", $now - 100, 50, 10),
		(\"c2@example.org\", \"c2\", \"auth_c2\", $now - 3 * 86400, 20, 0.5);
	insert into host (userid, create_time, total_credit, expavg_credit) values
		(1, $now - 100, 30, 5), (1, $now - 3 * 86400, 10, 0), (1, $now - 50, 0, 0);
	insert into sequence (name, appid, state) values
		(\"s1\", $appid, 0), (\"s2\", $appid, 0), (\"s3\", $appid, 1)"
'

test_expect_success 'server_status.php?xml=1: the structure of section 10, text/xml' '
	get "server_status.php?xml=1" status.xml &&
	test_grep "^200 text/xml" status.xml.code &&
	python3 status_xml.py status.xml >status.txt &&
	cat status.txt &&
	test_grep "^daemon transitioner not_running$" status.txt &&
	test_grep "^daemon spare_daemon disabled$" status.txt
'

# The counters as the database says, each by its own SQL
db_counts() {
	cat <<-EOF
	results_ready_to_send select count(*) from result where server_state=2
	results_in_progress select count(*) from result where server_state=4
	workunits_waiting_for_validation select count(*) from workunit where need_validate=1
	workunits_waiting_for_assimilation select count(*) from workunit where assimilate_state=1
	workunits_waiting_for_deletion select count(*) from workunit where file_delete_state=1
	results_waiting_for_deletion select count(*) from result where file_delete_state=1
	users_with_recent_credit select count(*) from user where expavg_credit>1
	users_with_credit select count(*) from user where total_credit>0
	users_registered_in_past_24_hours select count(*) from user where create_time>unix_timestamp()-86400
	hosts_with_recent_credit select count(*) from host where expavg_credit>1
	hosts_with_credit select count(*) from host where total_credit>0
	hosts_registered_in_past_24_hours select count(*) from host where create_time>unix_timestamp()-86400
	sequences_in_progress select count(*) from sequence where state=0
	EOF
}

test_expect_success 'every counter equals the database'"'"'s' '
	db_counts >counts.sql &&
	while read -r name sql; do
		want=$(test_sql_value "$sql") &&
		got=$(value "$name" status.txt) &&
		{ [ "$got" = "$want" ] || { say "$name: page $got, database $want"; return 1; }; } || return 1
	done <counts.sql &&
	# GigaFLOPS: the users'"'"' recent average credit / 200
	rac=$(test_sql_value "select sum(expavg_credit) from user") &&
	speed=$(value current_floating_point_speed status.txt) &&
	python3 -c "import sys; sys.exit(not abs($rac / 200 - $speed) <= 0.005)" &&
	test "$(value results_ready_to_send status.txt)" = 3 &&
	test "$(value results_in_progress status.txt)" = 2 &&
	test "$(value sequences_in_progress status.txt)" = 2 &&
	test "$(value users_registered_in_past_24_hours status.txt)" -ge 1 &&
	test "$(value hosts_registered_in_past_24_hours status.txt)" = 2 &&
	# the a1 workunit was due two hours ago
	backlog=$(value transitioner_backlog_hours status.txt) &&
	python3 -c "import sys; sys.exit(not 1.9 < $backlog < 2.5)"
'

test_expect_success 'tasks_by_app: each app not deprecated with its unsent and in-progress tasks' '
	test_grep "^app $(sample_id) wseq_sample 3 2$" status.txt &&
	test_sql_value "insert into app (name, deprecated) values (\"old_app\", 1)" &&
	get "server_status.php?xml=1" status2.xml &&
	python3 status_xml.py status2.xml >status2.txt &&
	! test_grep "old_app" status2.txt
'

test_expect_success '?counts=1 gives the job counts' '
	get "server_status.php?counts=1" counts.xml &&
	test_grep "^200 text/xml" counts.xml.code &&
	python3 status_xml.py counts.xml >counts.txt &&
	cat counts.txt &&
	test "$(value results_ready_to_send counts.txt)" = 3 &&
	test "$(value results_in_progress counts.txt)" = 2 &&
	test "$(value results_need_file_delete counts.txt)" = 1 &&
	test "$(value wus_need_validate counts.txt)" = 2 &&
	test "$(value wus_need_assimilate counts.txt)" = 1 &&
	test "$(value wus_need_file_delete counts.txt)" = 2
'

test_expect_success 'the HTML page parses and shows the numbers' '
	get server_status status.html &&
	test_grep "^200 text/html" status.html.code &&
	python3 page_html.py status.html >status.html.txt &&
	test_grep "^Tasks ready to send$" status.html.txt &&
	grep -A1 "^Tasks ready to send$" status.html.txt | test_grep "^3$" &&
	grep -A1 "^Tasks in progress$" status.html.txt | test_grep "^2$" &&
	grep -A1 "^Sequences in progress$" status.html.txt | test_grep "^2$" &&
	grep -A1 "^Users with credit$" status.html.txt | test_grep "^$(value users_with_credit status.txt)$" &&
	grep -A1 "^Computers with credit$" status.html.txt | test_grep "^$(value hosts_with_credit status.txt)$" &&
	grep -A2 "^wseq sample$" status.html.txt | tr "\n" " " | test_grep "^wseq sample 3 2 " &&
	test_grep "not running" status.html &&
	test_grep "disabled" status.html
'

test_expect_success 'the apps page: each app and its current version per platform, names escaped' '
	test_sql_value "
	insert into app (name, user_friendly_name, create_time) values (\"esc_app\", \"Tom <b>&</b> Jerry\", 1);
	insert into platform (name, user_friendly_name) values (\"esc_os\", \"OS <b>&</b> more\");
	insert into app_version (appid, platformid, version_num, plan_class, create_time)
		select a.id, p.id, 100, \"\", 1700000000 from app a, platform p
		where a.name=\"esc_app\" and p.name=\"esc_os\";
	insert into app_version (appid, platformid, version_num, plan_class, create_time)
		select a.id, p.id, 205, \"\", 1700000000 from app a, platform p
		where a.name=\"esc_app\" and p.name=\"esc_os\";
	insert into app_version (appid, platformid, version_num, plan_class, create_time, deprecated)
		select a.id, p.id, 300, \"\", 1700000000, 1 from app a, platform p
		where a.name=\"esc_app\" and p.name=\"esc_os\";
	insert into app_version (appid, platformid, version_num, plan_class, create_time)
		select a.id, p.id, 150, \"mt\", 1700000000 from app a, platform p
		where a.name=\"esc_app\" and p.name=\"esc_os\"" &&
	get apps apps.html &&
	test_grep "^200 text/html" apps.html.code &&
	python3 page_html.py apps.html >apps.txt &&
	cat apps.txt &&
	test_grep "Tom &lt;b&gt;&amp;&lt;/b&gt; Jerry" apps.html &&
	! test_grep "<b>&" apps.html &&
	test_grep "^Tom <b>&</b> Jerry$" apps.txt &&
	test_grep "^wseq sample$" apps.txt &&
	grep -A1 "^Linux x86_64$" apps.txt | test_grep "^1.00$" &&
	grep -A1 "^OS <b>&</b> more$" apps.txt >esc.txt &&
	test_grep "^2.05$" esc.txt &&
	! test_grep "^1.00$" esc.txt &&
	! test_grep "3.00" apps.txt &&
	grep -A2 "^OS <b>&</b> more$" apps.txt | tr "\n" " " | test_grep "1.50 mt" &&
	test_grep "2 tasks in progress, 3 ready to send" apps.txt &&
	! test_grep "old_app" apps.txt
'

# Tasks in progress per resource. esc_app gets versions of plan classes
# cuda (NVIDIA), asic (a generic coprocessor) and nosuch (a class the file
# never defines), and tasks in progress of them, of the mt version (a
# CPU class), of no version (p1, p2) and of a version that is gone.
cat >pcs.xml <<'EOF'
<plan_classes>
  <plan_class>
    <name>cuda</name>
    <gpu_type>nvidia</gpu_type>
    <cuda/>
    <min_cuda_version>11000</min_cuda_version>
    <cpu_frac>0.1</cpu_frac>
  </plan_class>
  <plan_class>
    <name>mt</name>
    <min_ncpus>2</min_ncpus>
    <max_threads>16</max_threads>
  </plan_class>
  <plan_class>
    <name>opencl_ati</name>
    <gpu_type>ati</gpu_type>
    <opencl/>
  </plan_class>
  <plan_class>
    <name>asic</name>
    <gpu_type>miner_asic</gpu_type>
  </plan_class>
</plan_classes>
EOF
# resources FILE: the "resource NAME N" lines of server_status.php?xml=1, in order, on one line
resources() {
	get "server_status.php?xml=1" "$1.xml" && python3 status_xml.py "$1.xml" >"$1" &&
	sed -n "s/^resource //p" "$1" | tr "\n" " "
}

test_expect_success 'setup: versions of plan classes cuda, asic and nosuch; tasks in progress of each kind' '
	esc=$(test_sql_value "select id from app where name=\"esc_app\"") &&
	for v in "400 cuda" "410 nosuch" "420 asic"; do
		set -- $v &&
		test_sql_value "insert into app_version (appid, platformid, version_num, plan_class, create_time)
			select $esc, id, $1, \"$2\", 1700000000 from platform where name=\"esc_os\"" || return 1
	done &&
	vid() { test_sql_value "select id from app_version where appid=$esc and plan_class=\"$1\" and deprecated=0 order by version_num desc limit 1"; } &&
	test_sql_value "insert into result (workunitid, name, server_state, appid, app_version_id) values
		(1, \"g1\", 4, $esc, $(vid cuda)), (1, \"g2\", 4, $esc, $(vid cuda)), (1, \"g3\", 4, $esc, $(vid cuda)),
		(1, \"m1\", 4, $esc, $(vid mt)), (1, \"m2\", 4, $esc, $(vid mt)),
		(1, \"n1\", 4, $esc, $(vid nosuch)), (1, \"x1\", 4, $esc, 999999),
		(1, \"g4\", 2, $esc, $(vid cuda)), (1, \"g5\", 5, $esc, $(vid cuda))" &&
	test "$(test_sql_value "select count(*) from result where server_state=4")" = 9
'

test_expect_success 'no plan_class_spec.xml: every task in progress counts as CPU' '
	rm -f "$PROJECT_DIR/plan_class_spec.xml" &&
	test "$(resources r0)" = "CPU 9 " &&
	test "$(value results_in_progress r0)" = 9
'

test_expect_success 'server_status.php?xml=1: tasks in progress per resource, by the classes of plan_class_spec.xml' '
	cp pcs.xml "$PROJECT_DIR/plan_class_spec.xml" &&
	test "$(resources r1)" = "CPU 6 NVIDIA 3 ATI 0 miner_asic 0 " &&
	test "$(sed -n "s/^resource [^ ]* //p" r1 | awk "{ n += \$1 } END { print n }")" = "$(value results_in_progress r1)"
'

test_expect_success 'the HTML page shows the same counts, resources named for people' '
	get server_status res.html &&
	python3 page_html.py res.html >res.txt &&
	sed -n "/^Tasks in progress by resource$/,\$p" res.txt | head -n 11 | tr "\n" " " >res.row &&
	cat res.row &&
	test_grep "^Tasks in progress by resource Resource In progress CPU 6 NVIDIA GPU 3 AMD GPU 0 miner_asic 0 " res.row
'

test_expect_success 'plan_class_spec.xml changed: the next request reads it (nosuch now an AMD class)' '
	sed "s|</plan_classes>|<plan_class><name>nosuch</name><gpu_type>amd</gpu_type></plan_class>\n</plan_classes>|" \
		pcs.xml >"$PROJECT_DIR/plan_class_spec.xml.new" &&
	mv "$PROJECT_DIR/plan_class_spec.xml.new" "$PROJECT_DIR/plan_class_spec.xml" &&
	test "$(resources r2)" = "CPU 5 NVIDIA 3 ATI 1 miner_asic 0 " &&
	cp pcs.xml "$PROJECT_DIR/plan_class_spec.xml" &&
	test "$(resources r3)" = "CPU 6 NVIDIA 3 ATI 0 miner_asic 0 "
'

test_expect_success 'a plan_class_spec.xml that is not XML: all CPU, logged, still 200' '
	echo "<plan_classes><plan_class>" >"$PROJECT_DIR/plan_class_spec.xml" &&
	test "$(resources r4)" = "CPU 9 " &&
	test_grep "^200 text/xml" r4.xml.code &&
	test_grep "plan_class_spec.xml" "$PROJECT_DIR/log/web.log" &&
	cp pcs.xml "$PROJECT_DIR/plan_class_spec.xml"
'

test_expect_success 'the apps page says what each version runs on' '
	get apps apps2.html &&
	python3 page_html.py apps2.html >apps2.txt &&
	grep -A4 "^OS <b>&</b> more$" apps2.txt | tr "\n" " " >apps2.row && cat apps2.row &&
	test_grep "2.05 CPU " apps2.row &&
	test_grep "1.50 mt CPU " apps2.row &&
	test_grep "4.00 cuda NVIDIA GPU " apps2.row &&
	test_grep "4.20 asic miner_asic " apps2.row &&
	test_grep "4.10 nosuch not sent (no such plan class) " apps2.row
'

test_expect_success 'bin/start: the daemons show running; bin/stop: not running' '
	test_project bin/start &&
	get "server_status.php?xml=1" up.xml &&
	python3 status_xml.py up.xml >up.txt &&
	n=$(grep -c "^daemon " up.txt) && test "$n" -ge 4 &&
	test "$(grep -c "^daemon .* running$" up.txt)" = $((n - 1)) &&
	test_grep "^daemon spare_daemon disabled$" up.txt &&
	get server_status up.html &&
	python3 page_html.py up.html >up.html.txt &&
	test_grep "^running$" up.html.txt &&
	test_project bin/stop &&
	get "server_status.php?xml=1" down.xml &&
	python3 status_xml.py down.xml >down.txt &&
	test "$(grep -c "^daemon .* not_running$" down.txt)" = $((n - 1))
'

test_expect_success 'the database down: server_status still answers 200 with the daemons' '
	pid=$(cat "$SB/mysql/mariadbd.pid") && kill "$pid" &&
	test_wait_for 60 sh -c "! kill -0 $pid 2>/dev/null" &&
	get server_status nodb.html &&
	test_grep "^200 text/html" nodb.html.code &&
	python3 page_html.py nodb.html >nodb.txt &&
	test_grep "database cannot be reached" nodb.txt &&
	test_grep "^transitioner$" nodb.txt &&
	get "server_status.php?xml=1" nodb.xml &&
	test_grep "^200 text/xml" nodb.xml.code &&
	python3 status_xml.py nodb.xml >nodb.xml.txt &&
	test_grep "^daemon transitioner not_running$" nodb.xml.txt &&
	test_grep "^no counters$" nodb.xml.txt &&
	get "server_status.php?counts=1" nodb_counts.xml &&
	test_grep "^200 text/xml" nodb_counts.xml.code &&
	python3 status_xml.py nodb_counts.xml >nodb_counts.txt &&
	test_must_fail test -s nodb_counts.txt
'

test_expect_success 'the database back: the counters are back' '
	wseq_sandbox up --no-daemons "$SB" 2>/dev/null &&
	get "server_status.php?xml=1" back.xml &&
	python3 status_xml.py back.xml >back.txt &&
	test "$(value results_ready_to_send back.txt)" = \
		"$(test_sql_value "select count(*) from result where server_state=2")"
'

test_done
