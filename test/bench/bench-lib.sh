# test/bench/bench-lib.sh: what the benchmarks share. A script sets prog,
# parses its options and sources this file; bench_init then picks the build,
# makes the private sandbox directory and stops the sandbox at exit. Here
# too: SQL on the sandbox's database, the sample app, numbered rows for
# INSERT ... SELECT, work sequences, simulated scheduler requests timed
# through Apache or the CGI program run directly, Apache restarted as plain
# CGI, the statistics of the timings and the CPU used by RPCs.
# See doc/bench.md.

die() { echo "$prog: $*" >&2; exit 1; }
say() { echo "$prog: $*" >&2; }

bench_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$bench_lib_dir/../lib-one-account.sh"
PLATFORM=x86_64-pc-linux-gnu

# bench_init NAME: the build to measure (WSEQ_BUILDDIR), its programs on
# PATH, $build describing it, and DIR (default: the build's
# test/trash.bench-NAME) made empty, with $WORK and $SB in it.
bench_init() {
	local san cflags

	: "${WSEQ_SRCDIR:=$(cd "$bench_lib_dir/../.." && pwd)}"
	if [ -z "${WSEQ_BUILDDIR:-}" ]; then
		if [ -d "$WSEQ_SRCDIR/_build_bench" ]; then WSEQ_BUILDDIR=$WSEQ_SRCDIR/_build_bench
		else WSEQ_BUILDDIR=$WSEQ_SRCDIR/_build; fi
	fi
	WSEQ_BUILDDIR=$(cd "$WSEQ_BUILDDIR" 2>/dev/null && pwd) || die "no build directory (set WSEQ_BUILDDIR)"
	[ -x "$WSEQ_BUILDDIR/stage/libexec/cgi-bin/cgi" ] || die "$WSEQ_BUILDDIR has no built scheduler (run make there)"
	for p in curl mariadb awk; do command -v $p >/dev/null || die "$p not found"; done
	[ -n "${EPOCHREALTIME:-}" ] || die "bash 5 or later is needed (EPOCHREALTIME)"

	# Programs from the build tree, as in test/test-lib.sh.
	PATH="$WSEQ_BUILDDIR/stage/bin:$WSEQ_BUILDDIR/stage/libexec:$PATH"
	WSEQ_LIBEXECDIR=$WSEQ_BUILDDIR/stage/libexec
	WSEQ_DATADIR=$WSEQ_BUILDDIR/stage/share
	export PATH WSEQ_SRCDIR WSEQ_BUILDDIR WSEQ_LIBEXECDIR WSEQ_DATADIR
	unset WSEQ_TIME_OFFSET WSEQ_TIME_OFFSET_FILE

	san=$(sed -n 's/^SAN_CFLAGS = *//p' "$WSEQ_BUILDDIR/Makefile")
	cflags=$(sed -n 's/^CFLAGS = *//p' "$WSEQ_BUILDDIR/Makefile")
	case "$san" in
	*-fsanitize*) build="sanitizers ($san), CFLAGS $cflags -- timings are inflated" ;;
	*) build="no sanitizers, CFLAGS $cflags" ;;
	esac
	commit=$(git -C "$WSEQ_SRCDIR" rev-parse --short HEAD 2>/dev/null || echo '?')

	: "${DIR:=$WSEQ_BUILDDIR/test/trash.bench-$1}"
	WORK=$DIR/work
	SB=$DIR/sb
	[ -e "$SB" ] && wseq_sandbox down "$SB" >/dev/null 2>&1
	rm -rf "$DIR" && mkdir -p "$WORK" || die "cannot make $DIR"
	# Apache runs the CGI as www-data: the sandbox must be reachable by it.
	chmod 755 "$DIR"
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
}

bench_cleanup() {
	[ "${KEEP:-0}" = 1 ] && { say "sandbox kept running in $SB"; return; }
	wseq_sandbox down "$SB" >/dev/null 2>&1
}

# The sandbox, without daemons; its settings (PROJECT_DIR, WSEQ_DB_*,
# ADMIN_AUTHENTICATOR) and the scheduler's URL in $SCHED.
bench_sandbox_up() {
	say "build $WSEQ_BUILDDIR: $build"
	say "starting the sandbox in $SB"
	wseq_sandbox up "$SB" --no-daemons 2>"$DIR/sandbox.log" || { cat "$DIR/sandbox.log" >&2; exit 1; }
	eval "$(wseq_sandbox env "$SB")"
	one_account_many_hosts "$PROJECT_DIR/config.xml"
	SCHED="${PROJECT_URL%wseq/}wseq_cgi/cgi"
}

# bench_settle: wait (at most 300 s) until InnoDB has written out the pages
# dirtied by filling the tables, so a timed run does not compete with that
# flushing (it moved the relocator's figures by half); says how long it took.
bench_settle() {
	local pct lwm d i t0=$EPOCHREALTIME
	pct=$(sql -e "SELECT @@GLOBAL.innodb_max_dirty_pages_pct")
	lwm=$(sql -e "SELECT @@GLOBAL.innodb_max_dirty_pages_pct_lwm")
	sql -e "SET GLOBAL innodb_max_dirty_pages_pct_lwm=0.001; SET GLOBAL innodb_max_dirty_pages_pct=0"
	for ((i = 0; i < 300; i++)); do
		d=$(sql -e "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'" | awk '{ print $2 }')
		[ "${d:-0}" -lt 50 ] && break
		sleep 1
	done
	sql -e "SET GLOBAL innodb_max_dirty_pages_pct=$pct; SET GLOBAL innodb_max_dirty_pages_pct_lwm=$lwm"
	say "database settled in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s (${d:-?} dirty pages left)"
}

sql() {
	mariadb --socket="$WSEQ_DB_SOCKET" -u"$WSEQ_DB_USER" -p"$WSEQ_DB_PASSWD" \
		--batch --skip-column-names "$WSEQ_DB_NAME" "$@"
}

# The sample app as test_setup_sample_app in test/test-lib.sh registers it.
bench_setup_app() {
	local vdir="$PROJECT_DIR/apps/wseq_sample/wseq_sample_1.00_$PLATFORM"

	mkdir -p "$vdir" &&
	cp "$WSEQ_LIBEXECDIR/apps/wseq_sample" "$vdir/wseq_sample_1.00_$PLATFORM" &&
	cat >"$PROJECT_DIR/project.xml" <<-EOT &&
	<boinc>
	  <app><name>wseq_sample</name><user_friendly_name>wseq sample</user_friendly_name></app>
	  <platform><name>$PLATFORM</name><user_friendly_name>Linux x86_64</user_friendly_name></platform>
	</boinc>
	EOT
	cp "$WSEQ_SRCDIR/apps/templates/wseq_sample_in" "$WSEQ_SRCDIR/apps/templates/wseq_sample_out" \
		"$PROJECT_DIR/templates/" &&
	(cd "$PROJECT_DIR" && bin/xadd && bin/update_versions)
}

# GPU hosts' project (sched_load.sh and sched_profile.sh -g): versions 1.00
# and 1.01 of each plan class of test/data/plan_class/mt_cuda_ati.xml (mt,
# cuda, opencl_ati) and of none, besides bench_setup_app's 1.00, each its
# own executable (a copy of the sample) named after its directory,
# registered by update_versions.
bench_setup_gpu_versions() {
	local v pc dir

	cp "$WSEQ_SRCDIR/test/data/plan_class/mt_cuda_ati.xml" "$PROJECT_DIR/plan_class_spec.xml" ||
		return 1
	for v in 1.00 1.01; do
		for pc in "" __mt __cuda __opencl_ati; do
			dir=$PROJECT_DIR/apps/wseq_sample/wseq_sample_${v}_$PLATFORM$pc
			[ -d "$dir" ] && continue
			mkdir -p "$dir" && cp "$WSEQ_LIBEXECDIR/apps/wseq_sample" "$dir/${dir##*/}" || return 1
		done
	done
	(cd "$PROJECT_DIR" && bin/update_versions) || return 1
	[ "$(sql -e "select count(*) from app_version")" = 8 ] ||
		{ echo "$(sql -e "select count(*) from app_version") app versions, not 8"; return 1; }
}

# A SELECT of the numbers 1..$1 as column n: MariaDB's sequence engine, else
# a cross join of digits (up to 999,999).
bench_numbers() {
	if sql -e "select count(*) from seq_1_to_10" >/dev/null 2>&1; then
		echo "select seq as n from seq_1_to_$1"
		return
	fi
	sql -e "create table if not exists bench_digit (d int primary key);
		insert ignore into bench_digit values (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)" ||
		die "cannot make the table of digits"
	echo "select a.d + 10*b.d + 100*c.d + 1000*d.d + 10000*e.d + 100000*f.d + 1 as n
		from bench_digit a, bench_digit b, bench_digit c, bench_digit d, bench_digit e, bench_digit f
		having n <= $1"
}

# A project of volunteers: bench_fill_volunteers USERS TEAMS HOSTS RESULTS.
# n = 1..N from bench_numbers as x.n; every 5th user and every 4th host
# without credit, every 3rd user in a team, every other one showing hosts.
bench_fill_volunteers() {
	local NUSERS=$1 NTEAMS=$2 NHOSTS=$3 NRESULTS=$4 t0=$EPOCHREALTIME
	say "filling: $NUSERS users, $NTEAMS teams, $NHOSTS hosts, $NRESULTS results"
	sql -e "
	INSERT INTO user (create_time, email_addr, name, authenticator, country, url, total_credit,
		expavg_credit, expavg_time, teamid, show_hosts, has_profile, cross_project_id)
	SELECT 1600000000 + x.n, CONCAT('user', x.n, '@example.org'), CONCAT('Volunteer ', x.n),
		MD5(CONCAT('auth', x.n)), IF(x.n % 7 = 0, 'Germany', ''),
		IF(x.n % 11 = 0, CONCAT('https://example.org/~', x.n), ''),
		IF(x.n % 5 = 0, 0, x.n * 13.37), IF(x.n % 5 = 0, 0, x.n % 997 + 0.5),
		1700000000 + x.n, IF(x.n % 3 = 0, x.n % $NTEAMS + 1, 0), x.n % 2, x.n % 13 = 0,
		MD5(CONCAT('cpid', x.n))
	FROM ($(bench_numbers "$NUSERS")) x;
	INSERT INTO team (create_time, userid, name, name_lc, url, type, description, country,
		total_credit, expavg_credit, expavg_time)
	SELECT 1600000000 + x.n, x.n, CONCAT('Team ', x.n), CONCAT('team ', x.n),
		'https://team.example.org/', x.n % 8, 'We crunch & <compute> together', 'Norway',
		x.n * 101.5, x.n % 331 + 0.25, 1700000000 + x.n
	FROM ($(bench_numbers "$NTEAMS")) x;" || return 1
	sql -e "
	INSERT INTO host (create_time, userid, rpc_time, total_credit, expavg_credit, expavg_time,
		timezone, domain_name, p_ncpus, p_vendor, p_model, p_fpops, p_iops, p_membw,
		os_name, os_version, m_nbytes, m_cache, m_swap, d_total, d_free, n_bwup, n_bwdown,
		avg_turnaround, credit_per_cpu_sec, host_cpid, misc)
	SELECT 1600000000 + x.n, x.n % $NUSERS + 1, 1700000000 + x.n, IF(x.n % 4 = 0, 0, x.n * 3.25),
		IF(x.n % 4 = 0, 0, x.n % 500 + 0.125), 1700000000 + x.n, 3600, CONCAT('host', x.n),
		4 + x.n % 60, 'GenuineIntel', 'Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz [Family 6 Model 79]',
		4.1e9, 1.2e10, 1e9, 'Linux Debian', 'Debian GNU/Linux 12 (bookworm) [6.1.0-18-amd64]',
		3.3e10, 3.5e7, 2e9, 5e11, 2.5e11, 1e7, 5e7, 36000 + x.n % 1000, 0.0001,
		MD5(CONCAT('host', x.n)), ''
	FROM ($(bench_numbers "$NHOSTS")) x;" || return 1
	sql -e "
	INSERT INTO result (create_time, workunitid, server_state, outcome, hostid, userid, name,
		report_deadline, sent_time, received_time, granted_credit, appid)
	SELECT 1700000000 + x.n, x.n, 5, 1, x.n % $NHOSTS + 1, x.n % $NUSERS + 1,
		CONCAT('bench_', x.n, '_0'), 1700086400 + x.n, 1700000000 + x.n, 1700003600 + x.n,
		x.n % 50 + 0.5, 1
	FROM ($(bench_numbers "$NRESULTS")) x;" || return 1
	sql -e "ANALYZE TABLE user, team, host, result" >/dev/null || return 1
	say "filled in $(seconds_since "$t0") s"
}


# The columns of table $1 in order, but those named after it, comma-separated:
# copies made with INSERT ... SELECT then follow the schema.
bench_columns() {
	local t=$1 not
	shift
	not=$(printf "'%s'," "$@")
	sql -e "select group_concat(column_name order by ordinal_position) from information_schema.columns
		where table_schema=database() and table_name='$t' and column_name not in (${not%,})"
}

# The column list $2 with each name prefixed by the alias $1 ("w.a,w.b").
bench_prefixed() {
	echo "$2" | sed "s/[a-z0-9_]\+/$1.&/g"
}

# A line for the figures: CPUs, CPU model, MariaDB version.
bench_machine() {
	echo "$(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1);" \
		"$(mariadb --version | sed 's/.*Distrib \([^,]*\),.*/MariaDB \1/')"
}

seconds_since() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

# --- simulated scheduler requests ------------------------------------------

# The request of host $1 (0: new) with cpid $2 asking for $3 seconds of
# work; $4 is more XML (the key it has, reports, sticky files, other results).
request() {
	cat <<-EOT
	<scheduler_request>
	<authenticator>$ADMIN_AUTHENTICATOR</authenticator>
	<hostid>$1</hostid>
	<rpc_seqno>$RPC_SEQNO</rpc_seqno>
	<core_client_major_version>7</core_client_major_version>
	<core_client_minor_version>20</core_client_minor_version>
	<core_client_release>5</core_client_release>
	<work_req_seconds>$3</work_req_seconds>
	<cpu_req_secs>$3</cpu_req_secs>
	<cpu_req_instances>0</cpu_req_instances>
	<platform_name>$PLATFORM</platform_name>
	${4:-}
	<host_info>
	    <host_cpid>$2</host_cpid>
	    <domain_name>benchhost-$2</domain_name>
	    <p_ncpus>2</p_ncpus>
	    <p_fpops>1000000000</p_fpops>
	    <m_nbytes>8000000000</m_nbytes>
	    <d_free>100000000000</d_free>
	    <os_name>Linux</os_name>
	</host_info>
	</scheduler_request>
	EOT
}

# The report of result $1, a success; $2 is more XML (the file_infos of its
# uploaded outputs).
report() {
	cat <<-EOT
	<result>
	    <name>$1</name>
	    <final_cpu_time>1.5</final_cpu_time>
	    <final_elapsed_time>1.6</final_elapsed_time>
	    <exit_status>0</exit_status>
	    <state>5</state>
	${2:-}
	</result>
	EOT
}

# One RPC: request file $1, reply into $2; prints the seconds it took.
# Through Apache: curl's time_total, the transfer alone (curl's own
# start-up is not in it). One connection per request, as the BOINC client.
rpc_http() {
	curl -s -S -0 -H 'Expect:' -o "$2" -w '%{http_code} %{time_total}\n' \
		--data-binary @"$1" "$SCHED" | awk '$1 != 200 { exit 1 } { print $2 }'
}

# Directly: the CGI program from its directory, the request on stdin, as
# Apache runs it (process start-up included, Apache's share not).
rpc_cgi() {
	local t0=$EPOCHREALTIME t1
	(cd "$PROJECT_DIR/cgi-bin" && CONTENT_LENGTH=$(wc -c <"$1") REQUEST_METHOD=POST \
		REMOTE_ADDR=127.0.0.1 GATEWAY_INTERFACE=CGI/1.1 WSEQ_PROJECT_DIR= \
		exec ./cgi) <"$1" >"$2" || return 1
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }'
}

# --- Apache --------------------------------------------------------------------

# bench_apache_restart [cgi]: Apache restarted as wseq_sandbox configured it,
# or (cgi) without mod_fcgid, so that make_project's snippet maps every
# program to plain CGI; back when it answers.
bench_apache_restart() {
	local conf=$SB/apache/httpd.conf pid i hostport
	hostport=$(echo "$PROJECT_URL" | sed 's|^http://\([^/]*\)/.*|\1|')
	pid=$(cat "$SB/apache/run/httpd.pid" 2>/dev/null)
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 300; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	[ "${1:-}" = cgi ] && sed -i '/fcgid/Id' "$conf"
	apache2 -f "$conf" -k start >>"$SB/apache/logs/error.log" 2>&1 || die "Apache did not start"
	for ((i = 0; i < 100; i++)); do
		curl -s -o /dev/null "http://$hostport/" && return 0
		sleep 0.1
	done
	die "Apache does not answer"
}

# --- figures -------------------------------------------------------------------

# "count median p90 p99 max mean" in ms of the seconds in the files given.
stats() {
	cat "$@" | sort -g | awk '
	{ v[NR] = $1 * 1000; sum += $1 * 1000 }
	function rank(p,  k) { k = int(p * NR + 0.999999); return v[k < 1 ? 1 : k] }
	END {
		if (NR == 0) { print "0 - - - - -"; exit }
		printf "%d %.2f %.2f %.2f %.2f %.2f\n", NR, rank(0.5), rank(0.9), rank(0.99), v[NR], sum / NR
	}'
}

rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", n / (b - a) }'; }

# The number of lines in the files given (problems logged, one a line).
errors() {
	local f n=0
	for f in "$@"; do n=$((n + $(wc -l <"$f"))); done
	echo $n
}

# Seconds of CPU the sandbox's MariaDB server has used so far.
bench_db_cpu() {
	local pid
	pid=$(cat "$SB/mysql/mariadbd.pid" 2>/dev/null) || { echo 0; return; }
	sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null |
		awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($12 + $13) / hz }'
}

# CPU ticks (USER_HZ) used so far: the whole machine ("machine"), or the
# processes whose command line matches the pattern $1 (those alive now).
ticks() {
	local p
	if [ "$1" = machine ]; then
		awk '/^cpu / { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat
		return
	fi
	for p in $(pgrep -f "$1"); do
		sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null | awk '{ print $12 + $13 }'
	done | awk '{ s += $1 } END { print s + 0 }'
}

# ms of CPU an RPC from ticks a0 to a1 over n RPCs
per_rpc() { awk -v a="$1" -v b="$2" -v n="$3" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (n > 0 ? (b - a) * 1000 / hz / n : 0) }'; }

# --- filling the database ------------------------------------------------------

# bench_unsent_work N: N workunits, each with one unsent result: 4 real ones
# (create_work, then the transitioner makes their results), then copies of
# them made in SQL, their names (and the names inside their xml_doc and
# xml_doc_in) made unique. The input files stay shared, as they may be in
# a real project. Run it before anything else makes workunits: the
# transitioner pass takes every workunit.
bench_unsent_work() {
	local i nreal=4 copies=$(($1 - 4)) wcols rcols nums

	for i in $(seq 1 $nreal); do echo "bench input $i" >"$WORK/in$i"; done
	(cd "$PROJECT_DIR" && for i in $(seq 1 $nreal); do
		bin/create_work --appname wseq_sample --wu_name bench$i --min_quorum 1 --target_nresults 1 \
			--rsc_fpops_est 1e9 --delay_bound 86400 "$WORK/in$i" || exit 1
	done && bin/transitioner --one_pass) || return 1
	[ "$(sql -e "select count(*) from result where server_state=2")" = $nreal ] ||
		{ echo "the transitioner made no results" >&2; return 1; }
	[ $copies -gt 0 ] || return 0

	wcols=$(bench_columns workunit id name xml_doc)
	rcols=$(bench_columns result id name workunitid xml_doc_in)
	nums=$(bench_numbers $copies)
	# The templates are copied to temporary tables first: an INSERT that
	# selects from its own table buffers the whole SELECT in a temporary file.
	sql -e "
		create temporary table bench_tpl as
			select row_number() over (order by w.id) - 1 as k, w.id as wuid, w.name as wuname,
				r.id as resid, r.name as resname
			from workunit w join result r on r.workunitid = w.id
			where w.name like 'bench_' and r.server_state = 2;
		create temporary table bench_wu as select * from workunit where id in (select wuid from bench_tpl);
		create temporary table bench_res as select * from result where id in (select resid from bench_tpl);
		insert into workunit (name, xml_doc, $wcols)
			select concat(t.wuname, '_c', s.n), replace(w.xml_doc, t.wuname, concat(t.wuname, '_c', s.n)),
				$(bench_prefixed w "$wcols")
			from ($nums) s join bench_tpl t on t.k = s.n % $nreal join bench_wu w on w.id = t.wuid;
		insert into result (name, workunitid, xml_doc_in, $rcols)
			select concat(w.name, '_0'), w.id, replace(r.xml_doc_in, t.resname, concat(w.name, '_0')),
				$(bench_prefixed r "$rcols")
			from workunit w join bench_tpl t on w.name like concat(t.wuname, '\\_c%')
				join bench_res r on r.id = t.resid;
		analyze table workunit, result;" >/dev/null &&
	bench_certify
}

# bench_certify: the copies' upload certificates made for their own names, as
# the transitioner makes them for a result it makes (wseq_test work certify).
bench_certify() {
	WSEQ_PROJECT_DIR=$PROJECT_DIR "$WSEQ_BUILDDIR/test/wseq_test" work certify
}

# bench_copy_sequences PREFIX N HOSTID: copies of the sequences named
# PREFIX1, PREFIX2, ... (the templates, made by create_sequence) -- rows of
# sequence, workunit, result and seq_file, names (also inside xml_doc and
# xml_doc_in) made unique -- until there are N copies, named
# PREFIXk_c<n>. HOSTID is an SQL expression of the copy's number x.n: the
# host it is assigned to (0: none); its results that have a host get it.
bench_copy_sequences() {
	local prefix=$1 have count scols wcols rcols fcols nums maxid ntpl
	have=$(sql -e "select count(*) from sequence where name like '$prefix%\\_c%'")
	count=$(($2 - have))
	[ $count -gt 0 ] || return 0
	ntpl=$(sql -e "select count(*) from sequence where name regexp '^${prefix}[0-9]+\$'")
	[ "$ntpl" -gt 0 ] || { echo "no sequence $prefix<n> to copy" >&2; return 1; }
	maxid=$(sql -e "select max(id) from sequence")
	scols=$(bench_columns sequence id name hostid mod_time)
	wcols=$(bench_columns workunit id name xml_doc seq_id)
	rcols=$(bench_columns result id name workunitid xml_doc_in seq_id hostid)
	fcols=$(bench_columns seq_file id name seq_id)
	nums="select n + $have as n from ($(bench_numbers $count)) x"
	sql -e "
		create temporary table bench_tseq as
			select row_number() over (order by id) - 1 as k, s.* from sequence s
			where name regexp '^${prefix}[0-9]+\$';
		create temporary table bench_twu as select w.* from workunit w join bench_tseq t on w.seq_id = t.id;
		create temporary table bench_tres as
			select w.seqno as wseqno, r.* from result r join bench_twu w on r.workunitid = w.id;
		create temporary table bench_tfile as select f.* from seq_file f join bench_tseq t on f.seq_id = t.id;
		insert into sequence (name, hostid, $scols)
			select concat(t.name, '_c', x.n), $3, $(bench_prefixed t "$scols")
			from ($nums) x join bench_tseq t on t.k = x.n % $ntpl;
		create temporary table bench_map (primary key (sid)) as
			select s.id as sid, s.name as sname, s.hostid, t.id as tid, t.name as tname
			from sequence s join bench_tseq t on t.name = substring_index(s.name, '_c', 1)
			where s.id > $maxid;
		insert into workunit (name, xml_doc, seq_id, $wcols)
			select concat(m.sname, substr(w.name, length(m.tname) + 1)),
				replace(w.xml_doc, concat(m.tname, '_b'), concat(m.sname, '_b')), m.sid,
				$(bench_prefixed w "$wcols")
			from bench_map m join bench_twu w on w.seq_id = m.tid;
		insert into result (name, workunitid, xml_doc_in, seq_id, hostid, $rcols)
			select concat(w.name, '_0'), w.id,
				replace(r.xml_doc_in, concat(m.tname, '_b'), concat(m.sname, '_b')), m.sid,
				if(r.hostid, m.hostid, 0), $(bench_prefixed r "$rcols")
			from bench_map m join workunit w on w.seq_id = m.sid
				join bench_tres r on r.seq_id = m.tid and r.wseqno = w.seqno;
		insert into seq_file (name, seq_id, $fcols)
			select concat(m.sname, substr(f.name, length(m.tname) + 1)), m.sid, $(bench_prefixed f "$fcols")
			from bench_map m join bench_tfile f on f.seq_id = m.tid;
		analyze table sequence, workunit, result, seq_file;" >/dev/null &&
	bench_certify
}

# bench_sequences PREFIX N SEGMENTS: N unassigned work sequences of SEGMENTS
# segments each, shaped as sched_seq.sh's hosts' (every segment uploads its
# answer, every 10th its state; 2 segments in flight; 1e9 fpops a segment;
# an initial state of 64 words): PREFIX1 to PREFIX4 made by create_sequence,
# the others copies of them (bench_copy_sequences).
bench_sequences() {
	local prefix=$1 n=$2 nseg=$3 i ntpl
	ntpl=$((n < 4 ? n : 4))
	if [ ! -f "$WORK/init/state_out" ]; then
		mkdir -p "$WORK/init" &&
		(cd "$WORK/init" && "$WSEQ_LIBEXECDIR/apps/wseq_sample" --state --init --words 64) || return 1
	fi
	for i in $(seq 1 $ntpl); do
		(cd "$PROJECT_DIR" && bin/create_sequence --appname wseq_sample --seq_name "$prefix$i" \
			--segments "$nseg" --answer_every 1 --state_upload_every 10 --high_water 2 \
			--rsc_fpops_est 1e9 --command_line "--state --steps 5" "$WORK/init/state_out") || return 1
	done
	[ "$n" -le $ntpl ] || bench_copy_sequences "$prefix" $((n - ntpl)) 0
}
