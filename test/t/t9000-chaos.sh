#!/bin/sh
test_description='chaos: 200 sequences and 1,000 jobs on simulated hosts while every daemon is killed at random, MariaDB once, one host reports garbage and one reports for results it does not hold'
. "$WSEQ_SRCDIR/test/test-lib.sh"

# Sizes (smaller ones for a quick look: CHAOS_JOBS=100 CHAOS_SEQUENCES=20).
# Every wait's bound is what a quiet machine needs, times WSEQ_TEST_PATIENCE.
NJOBS=${CHAOS_JOBS:-1000}
NSEQ=${CHAOS_SEQUENCES:-200}
SEGS=4                  # segments a sequence
STATE_EVERY=2           # M: states uploaded by segments 2 and 4
MRT=3600                # a segment's max_result_time; its deadline is 2 x MRT
JUMP=20000              # a clock jump: past every deadline (jobs 3600 s, segments 7200 s)
HOSTS=${CHAOS_HOSTS:-normal:24,vanish:4,flaky:1,slow:1,garbage:1,liar:1}
SIM="python3 -B $WSEQ_SRCDIR/test/chaos/simhost.py"
T=$TRASH_DIRECTORY
DAEMONS="transitioner validator assimilator file_deleter relocator"
START=$(date +%s)

test_sandbox_up sb --no-daemons || exit 1
SB=$T/sb
P=$PROJECT_DIR
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"

# One clock offset for every server program: the daemons read it when they
# start, the scheduler (a CGI) at every request -- Apache passes the file's name.
echo 0 >"$T/clock"
WSEQ_TIME_OFFSET_FILE=$T/clock
export WSEQ_TIME_OFFSET_FILE
q() { test_sql_value "$1"; }
elapsed() { echo $(( $(date +%s) - START )); }

# The assimilator records what it hands over: a line "WU MD5..." (the md5
# of each file), or "WU error MASK" for a workunit that failed.
cat >"$T/assimilated.sh" <<-EOT
	#!/bin/sh
	t=$T/assimilated.log.tmp.\$\$
	if [ "\$1" = --error ]; then echo "\$2 error \$3" >"\$t"; else
		w=\$1; shift
		printf '%s' "\$w" >"\$t"
		for f in "\$@"; do printf ' %s' "\$(md5sum <"\$f" | cut -c1-32)" >>"\$t"; done
		echo >>"\$t"
	fi
	cat "\$t" >>"$T/assimilated.log" && rm -f "\$t"
EOT
chmod 755 "$T/assimilated.sh"

test_expect_success 'a project: daemons that sleep 1 s, 6 sequences a host, the clock offset in every server program' '
	sed -i -e "s|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|" \
		-e "s|<cmd>assimilator -d 2 --sleep 1</cmd>|<cmd>assimilator -d 2 --sleep 1 --script $T/assimilated.sh</cmd>|" \
		-e "s|</config>|  <max_sequences_per_host>6</max_sequences_per_host>\n    <sched_down_delay>10</sched_down_delay>\n  </config>|" \
		"$P/config.xml" &&
	test_project bin/wseq_config --check &&
	echo "SetEnv WSEQ_TIME_OFFSET_FILE $T/clock" >>"$P/wseq.httpd.conf" &&
	apache2 -f "$SB/apache/httpd.conf" -k graceful &&
	test_setup_sample_app &&
	echo 1000000 >"$T/clock" &&
	probe_shifted() {
		CPID=chaos_probe_$(od -An -N4 -tu4 /dev/urandom | tr -d " ") sched_request 0 >probe.xml &&
		sched_rpc probe.xml probe.out &&
		id=$(sched_reply_hostid probe.out) && test -n "$id" &&
		test "$(q "select create_time > unix_timestamp() + 500000 from host where id=$id")" = 1
	} &&
	test_wait_for 15 probe_shifted &&
	echo 0 >"$T/clock" &&
	q "delete from host where host_cpid like \"chaos\\_probe\\_%\""
'

test_expect_success "$NJOBS jobs (a third with quorum 2, some inputs shared) and $NSEQ sequences of $SEGS segments" '
	$SIM make-work --dir "$T/work" --jobs $NJOBS --sequences $NSEQ --segments $SEGS --seed 12 &&
	test_project bin/create_work --appname wseq_sample --stdin <"$T/work/jobs.stdin" &&
	test_project bin/create_sequence --appname wseq_sample --segments $SEGS --answer_every 1 \
		--state_upload_every $STATE_EVERY --high_water 2 --max_result_time $MRT \
		--rsc_fpops_est 1e9 --stdin <"$T/work/sequences.stdin" >/dev/null &&
	test "$(q "select count(*) from workunit where seq_id=0")" = $NJOBS &&
	test "$(q "select count(*) from sequence")" = $NSEQ
'

# --- the chaos -------------------------------------------------------------

# A daemon is killed only if its pid file names a live process of that
# program. $2 says why: "chaos" (a random moment) or "jump" (a clock jump).
kill_daemon() {
	pid=$(cat "$P/pid/$1.pid" 2>/dev/null) || return 1
	tr "\0" " " <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$1" || return 1
	kill -9 "$pid" 2>/dev/null && echo "$(elapsed) $1 $pid $2" >>"$T/kills"
}

rand() { awk -v r="$(od -An -N2 -tu2 /dev/urandom)" -v lo="$1" -v hi="$2" 'BEGIN { printf "%.2f", lo + (hi - lo) * r / 65536 }'; }

# Round after round, each daemon in a random order dies by SIGKILL at a
# random moment and is started again a moment later.
chaos_loop() {
	while [ ! -e "$T/stop_chaos" ]; do
		for d in $(for d in $DAEMONS; do echo "$(od -An -N2 -tu2 /dev/urandom) $d"; done | sort -n | cut -d" " -f2-); do
			[ -e "$T/stop_chaos" ] && break
			sleep "$(rand 0.2 1.5)"
			kill_daemon "$d" chaos
			sleep "$(rand 0 0.8)"
			test_project bin/start >>"$T/chaos_start.log" 2>&1
		done
	done
}

# Start what is not running until everything runs at once (the chaos loop
# may kill a daemon bin/start has just started: start says it failed).
daemons_up() {
	test_project bin/start >>"$T/chaos_start.log" 2>&1
	test_project bin/status >/dev/null 2>&1
}
start_daemons() { test_wait_for 30 daemons_up; }

# Kill and restart every daemon: after a clock jump, each must read the new offset.
restart_daemons() {
	for d in $DAEMONS; do kill_daemon "$d" jump; done
	start_daemons
}

jump_clock() {
	echo $(( $(cat "$T/clock") + JUMP )) >"$T/clock.new" && mv "$T/clock.new" "$T/clock" &&
	restart_daemons &&
	echo "$(elapsed) jump to $(cat "$T/clock")" >>"$T/jumps"
}

# The hosts that hold their work until a deadline: vanished ones, and the
# garbage and lying hosts (what they hold may come back only through one).
quiet_hosts() { awk -F "\t" '$4 == 1 && $3 > 0 { print $3 }' "$T/work/hosts.tsv" | paste -sd, -; }

# Nothing left to do before a deadline passes: every job without a canonical
# result has a result in progress, only quiet hosts hold any, and every
# active sequence is held by one of them.
waiting_for_deadlines() {
	quiet=$(quiet_hosts); quiet=${quiet:-0}
	test "$(q "select
		(select count(*) from result where server_state=2) +
		(select count(*) from result where server_state=4 and hostid not in ($quiet)) +
		(select count(*) from sequence where state=0 and hostid not in ($quiet)) +
		(select count(*) from workunit w where seq_id=0 and canonical_resultid=0 and error_mask=0
			and not exists (select 1 from result r where r.workunitid=w.id and r.server_state=4))")" = 0
}

all_assimilated() {
	test "$(q "select (select count(*) from workunit where seq_id=0 and assimilate_state<>2) +
		(select count(*) from sequence where state<>1)")" = 0
}

all_files_deleted() {
	test "$(q "select (select count(*) from workunit where file_delete_state<>2 or assimilate_state<>2) +
		(select count(*) from result where server_state<>5 or file_delete_state=1)")" = 0
}

some_done() { test "$(q "select count(*) from workunit where seq_id=0 and canonical_resultid>0")" -ge "$1"; }

test_expect_success 'the daemons, the hosts and the chaos loop start' '
	test_project bin/start >>"$T/chaos_start.log" 2>&1 &&
	{ $SIM run --url "$PROJECT_URL" --auth "$ADMIN_AUTHENTICATOR" --dir "$T/work" \
		--hosts "$HOSTS" --stop-file "$T/stop_hosts" --offset-file "$T/clock" \
		--max-result-time $MRT --seed 12 2>"$T/simhost.log" & } &&
	echo $! >"$T/simhost.pid" &&
	test_atexit "touch \"$T/stop_hosts\"; kill $(cat "$T/simhost.pid") 2>/dev/null" &&
	{ chaos_loop & } && echo $! >"$T/chaos.pid" &&
	test_atexit "touch \"$T/stop_chaos\"; test_wait_for 8 test_pid_gone $(cat "$T/chaos.pid")" &&
	test_wait_for 30 test -s "$T/work/hosts.tsv"
'

test_expect_success 'MariaDB is killed (SIGKILL) while the work runs, and comes back' '
	test_wait_for 150 some_done $((NJOBS / 4)) &&
	pid=$(cat "$SB/mysql/mariadbd.pid") &&
	kill -9 "$pid" && echo "$(elapsed) mariadb $pid chaos" >>"$T/kills" &&
	test_wait_for 15 test_pid_gone "$pid" &&
	wseq_sandbox up --no-daemons "$SB" 2>"$T/db_restart.log" &&
	start_daemons
'

test_expect_success 'the hosts finish what they can; then the clock jumps past every deadline' '
	test_wait_for 150 waiting_for_deadlines &&
	say "$(elapsed) s: only vanished and bad hosts hold work: the clock jumps" &&
	jump_clock
'

test_expect_success 'every job and every sequence is assimilated (timed-out work redone, sequences relocated)' '
	test_wait_for 150 all_assimilated
'

test_expect_success 'the clock jumps again (stragglers time out); the file deleter finishes' '
	jump_clock &&
	test_wait_for 75 all_files_deleted &&
	touch "$T/stop_chaos" &&
	test_wait_for 15 test_pid_gone "$(cat "$T/chaos.pid")" &&
	start_daemons &&
	test_wait_for 75 all_files_deleted &&
	test_project bin/stop >"$T/stop.log" 2>&1 &&
	touch "$T/stop_hosts" &&
	test_wait_for 30 test_pid_gone "$(cat "$T/simhost.pid")" &&
	test -s "$T/work/stats.json"
'

# --- what must hold --------------------------------------------------------

test_expect_success 'every job and every live segment has the right output, and nothing else' '
	q "select s.name, w.seqno, w.branch, w.name, w.canonical_resultid, w.assimilate_state,
		w.branch = (select max(x.branch) from workunit x where x.seq_id=w.seq_id and x.seqno=w.seqno)
		from workunit w join sequence s on s.id=w.seq_id" >segments.tsv &&
	$SIM check --manifest "$T/work/manifest.json" --project "$P" --segments segments.tsv \
		--state-every $STATE_EVERY >check.out 2>&1; rc=$?; cat check.out; test $rc = 0
'

test_expect_success 'every sequence ended; none failed; db_check is clean' '
	test "$(q "select count(*) from sequence where state=1 and need_relocate=0")" = $NSEQ &&
	test "$(q "select count(*) from workunit where seq_id=0 and (canonical_resultid=0 or error_mask<>0)")" = 0 &&
	test_project bin/db_check
'

# Orphaned: a file in upload/ or download/ that nothing will use or delete.
# Once every workunit's files are deleted that is anything but the app's
# files, and a sequence's state and answer files (with their .md5): those
# live as long as their seq_file rows -- the server deletes none of them, a
# dead branch's included (doc/sequences-design.md) -- so a sequence file
# without a row is orphaned, and a row saying uploaded without the file is
# a lost file. While the work ran: every host's outputs are right, so a
# result that failed validation (VALIDATE_ERROR: an output missing or
# damaged on the server) or was judged invalid lost a file.
test_expect_success 'no file is lost or orphaned' '
	test "$(q "select count(*) from result where outcome=6 or validate_state=2")" = 0 &&
	q "select name from seq_file" | sort >seq_files &&
	(cd "$P/upload" && find . -type f | sed "s|.*/||") | sort >in_upload &&
	(cd "$P/download" && find . -type f | sed "s|.*/||") | sort >in_download &&
	ls "$P/apps/wseq_sample/wseq_sample_1.00_x86_64-pc-linux-gnu/" | sort >app_files &&
	comm -23 in_upload seq_files >orphans &&
	sed "s/\.md5$//" in_download | sort -u | comm -23 - seq_files | comm -23 - app_files >>orphans &&
	q "select name from seq_file where uploaded=1 and seqno>0" | sort | comm -23 - in_upload >lost &&
	q "select name from seq_file where uploaded=1 and seqno=0" | sort | comm -23 - in_download >>lost &&
	comm -23 app_files in_download >>lost &&
	{ test ! -s orphans || { echo "orphaned:"; cat orphans; false; }; } &&
	{ test ! -s lost || { echo "lost:"; cat lost; false; }; }
'

# Credit, as the validator records it: a result is granted credit when it is
# VALID, and granted_credit is written once per validation. Credited twice
# would be: credit on a result that is not valid; valid results of one
# workunit with different credit, or other than the workunit's canonical
# credit; two valid results of one workunit from one host; a user's credit
# for an app (credit_by_app) other than the sum of its valid results; a
# canonical result handed to the project as two different outputs. The
# assimilator may hand the same output over again after a kill (at least
# once, like BOINC's).
test_expect_success 'no result was credited twice' '
	test "$(q "select count(*) from result where granted_credit<>0 and (validate_state<>1 or outcome<>1)")" = 0 &&
	test "$(q "select count(*) from result r join workunit w on w.id=r.workunitid
		where r.validate_state=1 and (r.granted_credit<>w.canonical_credit or w.canonical_credit<=0)")" = 0 &&
	test "$(q "select count(*) from workunit w join result r on r.id=w.canonical_resultid
		where r.validate_state<>1 or r.workunitid<>w.id")" = 0 &&
	test "$(q "select count(*) from (select workunitid, hostid from result where validate_state=1
		group by workunitid, hostid having count(*)>1) x")" = 0 &&
	test "$(q "select count(*) from (select r.userid, r.appid, sum(r.granted_credit) s, count(*) n
		from result r where r.validate_state=1 and r.granted_credit>0 and r.userid>0 group by r.userid, r.appid) x
		left join credit_by_app c on c.userid=x.userid and c.appid=x.appid
		where c.userid is null or abs(c.total_credit - x.s) > 1e-6 or c.njobs <> x.n")" = 0 &&
	test "$(q "select count(*) from credit_by_app c where not exists (select 1 from result r
		where r.userid=c.userid and r.appid=c.appid and r.validate_state=1 and r.granted_credit>0)")" = 0 &&
	sort -u "$T/assimilated.log" | awk "{ print \$1 }" | sort | uniq -d >twice &&
	{ test ! -s twice || { echo "assimilated with different outputs:"; cat twice; false; }; } &&
	grep -v " error " "$T/assimilated.log" | sort -u | awk "{ print \$1 }" >assimilated &&
	q "select name from workunit where canonical_resultid>0" | sort >canonical &&
	test_cmp canonical assimilated
'

# A workunit that failed is only ever a dead branch's segment (retired by a relocation).
test_expect_success 'no job and no live segment failed' '
	awk "\$2 == \"error\" { print \$1 }" "$T/assimilated.log" | sort -u >failed &&
	awk -F "\t" "\$7 == 0 { print \$4 }" segments.tsv | sort >dead &&
	comm -23 failed dead >bad_failures &&
	{ test ! -s bad_failures || { echo "failed:"; cat bad_failures; false; }; }
'

test_expect_success 'every daemon was killed, MariaDB once; segments missed their deadlines, sequences relocated' '
	for d in $DAEMONS; do grep -q " $d [0-9]* chaos" "$T/kills" || { echo "$d never killed"; return 1; }; done &&
	test "$(grep -c " mariadb " "$T/kills")" = 1 &&
	test "$(q "select count(*) from result where seq_id>0 and outcome=4")" -gt 0 &&
	test "$(q "select sum(nrelocations) from sequence")" -gt 0
'

test_expect_success 'no daemon log and no CGI (Apache error log) has a sanitizer report' '
	! grep -l "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:" "$P"/log/*.log &&
	! grep "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:" "$SB/apache/logs/error.log"
'

test_expect_success 'the well-behaved hosts saw nothing wrong (no refusal, bad reply or bad file)' '
	python3 -c "import json,sys; s=json.load(open(sys.argv[1])); [print(a) for a in s[\"anomaly_list\"]]; sys.exit(1 if s.get(\"anomalies\") else 0)" \
		"$T/work/stats.json"
'

reloc() { grep -c "relocating ($1" "$P/log/relocator.log" 2>/dev/null; }
python3 - "$T/work/stats.json" "$(grep -c chaos "$T/kills" 2>/dev/null)" \
	"$(q "select sum(nrelocations) from sequence") (logged: $(reloc "a segment missed") deadline, $(reloc "a segment failed") error, $(reloc "the host is too slow") slow)" \
	"$(wc -l <"$T/assimilated.log" 2>/dev/null)" "$(sort -u "$T/assimilated.log" 2>/dev/null | wc -l)" "$(elapsed)" <<-\EOT | sed 's/^/# /'
	import json, sys
	try:
	    s = json.load(open(sys.argv[1]))
	except (OSError, ValueError):
	    s = {}
	g = lambda k: s.get(k, 0)
	print("chaos: %s hosts, %s RPCs (%s malformed and %s refused of the garbage host's, %s lies), %s jobs received"
	      % (g("hosts"), g("rpcs"), g("garbage_malformed"), g("rpc_refused_garbage"),
	         g("liar_foreign_reports") + g("liar_foreign_files"), g("jobs_received")))
	print("chaos: %s uploads (%s cut, %s resumed), %s downloads, %s hosts vanished, %s came back, %s failed on purpose"
	      % (g("uploads"), g("uploads_cut"), g("upload_resumed"), g("downloads"), g("vanished"), g("came_back"),
	         g("failed_on_purpose")))
	print("chaos: %s kills at random moments (MariaDB once), relocations: %s; %s assimilations (%s distinct); %s s"
	      % tuple(sys.argv[2:7]))
	EOT

test_done
