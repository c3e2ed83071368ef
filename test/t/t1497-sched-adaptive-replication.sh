#!/bin/bash
# Adaptive replication (README "Believable results") with simulated hosts
# speaking the real scheduler protocol to the real CGI, and the real
# transitioner and validator (with a check): a new host's jobs go with a
# replica -- to another account's host, never its own -- until it has
# earned trust (trust_after valid results, verified); a trusted host's jobs
# go singly, spot-checked at the configured rate, measured over 1,000 jobs
# against the binomial distribution (4 sigma); one wrong result takes its
# trust away at once. project.xml's <adaptive_replication> as xadd reads it.
test_description='adaptive replication: untrusted hosts replicated, trusted ones spot-checked'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
. "$WSEQ_SRCDIR/test/t/lib-host-upload.sh"

SLOG="$PROJECT_DIR/log/scheduler.log"
TRUST=3                 # trust_after
SPOT=0.1                # spot_check
NJOBS=1000              # jobs sent to the trusted host
PER_RPC=100             # max_wus_to_send
q() { test_sql_value "$1"; }
# req KEY HOSTID CPID [MORE]: a request asking for plenty of work
req() { sched_host_request "$1" "$2" "$3" 1000000000 "${4:-}"; }
# cv HOST: the host's consecutive_valid for the app's one version
cv() { q "select coalesce(max(consecutive_valid), 0) from host_app_version where host_id=$1"; }
# up RESULT [TEXT]: RESULT's output (TEXT, default "answer") uploaded as its host would
up() {
	set -- "$1" "${2:-answer}" $(host_output "$1" 1) &&
	echo "$2" >up.txt &&
	host_upload_req "$3" "$4" up.txt >up.req &&
	curl -sS --data-binary @up.req -H 'Content-Type: application/octet-stream' \
		"$(wseq_config --project "$PROJECT_DIR" upload_url)" >up.reply &&
	grep -q "<status>0</status>" up.reply
}
daemons() {
	test_project bin/transitioner --one_pass >>daemons.log 2>&1 &&
	test_project bin/validator --one_pass --check_cmd "$TRASH_DIRECTORY/check.sh" \
		>>daemons.log 2>&1 &&
	test_project bin/transitioner --one_pass >>daemons.log 2>&1
}
# jobs PREFIX N: N quorum-1 jobs PREFIX1..PREFIXN, their first results made
jobs() {
	i=1 && while [ $i -le $2 ]; do
		echo "--wu_name $1$i --min_quorum 1 --target_nresults 1 --rsc_fpops_est 1e9 $TRASH_DIRECTORY/in"
		i=$((i + 1))
	done >jobs.in &&
	test_project bin/create_work --appname wseq_sample --stdin <jobs.in >>setup.log 2>&1 &&
	test_project bin/transitioner --until_idle >>setup.log 2>&1
}

test_expect_success 'set up: the sample app; a check failing outputs that say "wrong"' '
	test_setup_sample_app &&
	echo input >in &&
	printf "#!/bin/sh\nif grep -q wrong \"\$@\"; then exit 1; fi\nexit 0\n" >check.sh &&
	chmod +x check.sh &&
	# the sandbox lets one account run a job twice (its demo has one user); a project does not
	sed -i "s|<config>|<config>\n    <max_wus_to_send>$PER_RPC</max_wus_to_send>|;
		s|<one_result_per_user_per_wu>0<|<one_result_per_user_per_wu>1<|" \
		"$PROJECT_DIR/config.xml" &&
	grep -q "<one_result_per_user_per_wu>1<" "$PROJECT_DIR/config.xml" &&
	q "insert into user (create_time, email_addr, name, authenticator, cross_project_id) values
		(unix_timestamp(), \"b@example.org\", \"Bee\", \"authB\", \"cpb\")"
'

# ar_xml BODY: project.xml whose app has BODY in it
ar_xml() {
	cat >"$PROJECT_DIR/project.xml" <<-EOT
	<boinc>
	  <app><name>wseq_sample</name>
	    $1
	  </app>
	  <platform><name>x86_64-pc-linux-gnu</name></platform>
	</boinc>
	EOT
}
app_row() { q "select target_nresults, trust_after, spot_check from app where name=\"wseq_sample\""; }

test_expect_success 'xadd refuses bad <adaptive_replication> values, naming the line; nothing changes' '
	before=$(app_row) &&
	for bad in "<replicas>1</replicas>" "<replicas>two</replicas>" "<spot_check>1.5</spot_check>" \
		"<spot_check>-0.1</spot_check>" "<trust_after>-1</trust_after>" "<trust_after>2.5</trust_after>" \
		"<quorum>2</quorum>"; do
		ar_xml "<adaptive_replication>$bad</adaptive_replication>" &&
		test_must_fail test_project bin/xadd 2>err &&
		test_grep "project.xml:3: <adaptive_replication>" err &&
		test "$(app_row)" = "$before" || return 1
	done
'

test_expect_success 'xadd: <adaptive_replication> stored in target_nresults, trust_after, spot_check' '
	ar_xml "<adaptive_replication><replicas>2</replicas><trust_after>$TRUST</trust_after>
		<spot_check>$SPOT</spot_check></adaptive_replication>" &&
	test_project bin/xadd >out 2>err &&
	test_grep "updated app wseq_sample" out &&
	test_grep "adaptive replication: a job made single goes with 2 results until the host has $TRUST consecutive valid results" out &&
	test_grep -v "target_nresults" err &&
	test "$(app_row)" = "2	$TRUST	$SPOT"
'

test_expect_success 'xadd: upstream bare <target_nresults> above 1 turns it on with the defaults' '
	cat >p2.xml <<-EOT &&
	<boinc><app><name>other</name><target_nresults>3</target_nresults></app></boinc>
	EOT
	test_project bin/xadd --file "$TRASH_DIRECTORY/p2.xml" >out 2>err &&
	test_grep "app other: adaptive replication: a job made single goes with 3 results until the host has 10 consecutive valid results of its version, then alone, spot-checked at 0.1" out &&
	test "$(q "select target_nresults, trust_after, spot_check from app where name=\"other\"")" = "3	10	0.1"
'

test_expect_success 'a new host: each job it gets is replicated, in the transaction that sends it' '
	jobs t $TRUST &&
	req "$ADMIN_AUTHENTICATOR" 0 hA >r && sched_rpc r reply &&
	A=$(sched_reply_hostid reply) && test -n "$A" && echo "$A" >hidA &&
	sched_reply_jobs reply | sort >sent &&
	test_line_count = $TRUST sent &&
	test "$(q "select count(*) from workunit where name like \"t%\" and target_nresults=2
		and min_quorum=2 and max_total_results>=3")" = $TRUST &&
	test_grep "host $A: result t1_0: not trusted yet for version .* (0 consecutive valid, trust after $TRUST); replicated" "$SLOG"
'

test_expect_success 'the replicas go to another account'"'"'s host, never to the first host or its user' '
	A=$(cat hidA) &&
	test_project bin/transitioner --one_pass >>daemons.log 2>&1 &&
	test "$(q "select count(*) from result where name like \"t%\" and server_state=2")" = $TRUST &&
	req "$ADMIN_AUTHENTICATOR" "$A" hA >r && sched_rpc r reply &&
	test "$(sched_reply_jobs reply | wc -l)" = 0 &&
	req "$ADMIN_AUTHENTICATOR" 0 hA2 >r && sched_rpc r reply &&
	test "$(sched_reply_jobs reply | wc -l)" = 0 &&
	req authB 0 hB >r && sched_rpc r reply &&
	B=$(sched_reply_hostid reply) && test -n "$B" && echo "$B" >hidB &&
	sched_reply_jobs reply | sort >sentB &&
	test_line_count = $TRUST sentB && ! grep -v "_1$" sentB
'

test_expect_success 'both hosts agree: valid and verified, so the first host earns trust' '
	A=$(cat hidA) B=$(cat hidB) &&
	rep= && repB= && i=1 && while [ $i -le $TRUST ]; do
		up t${i}_0 && up t${i}_1 &&
		rep="$rep$(sched_report t${i}_0 5 0 10)" &&
		repB="$repB$(sched_report t${i}_1 5 0 10)" &&
		i=$((i + 1)) || return 1
	done &&
	req "$ADMIN_AUTHENTICATOR" "$A" hA "$rep" >r && sched_rpc r reply &&
	req authB "$B" hB "$repB" >r && sched_rpc r reply &&
	daemons &&
	test "$(q "select count(*) from result where name like \"t%\" and validate_state=1")" = $((2 * TRUST)) &&
	test "$(cv "$A")" = $TRUST && test "$(cv "$B")" = $TRUST
'

test_expect_success "a trusted host: $NJOBS jobs, spot-checked at $SPOT within 4 sigma, the rest single" '
	A=$(cat hidA) &&
	jobs s $NJOBS &&
	n=0 && rpcs=0 && while [ $n -lt $NJOBS ] && [ $rpcs -lt 30 ]; do
		req "$ADMIN_AUTHENTICATOR" "$A" hA >r && sched_rpc r reply &&
		n=$((n + $(sched_reply_jobs reply | wc -l))) && rpcs=$((rpcs + 1)) || return 1
	done &&
	test $n = $NJOBS &&
	spot=$(q "select count(*) from workunit w join result r on r.workunitid=w.id
		where w.name like \"s%\" and r.hostid=$A and w.target_nresults=2 and w.min_quorum=2") &&
	single=$(q "select count(*) from workunit w join result r on r.workunitid=w.id
		where w.name like \"s%\" and r.hostid=$A and w.target_nresults=1") &&
	test $((spot + single)) = $NJOBS &&
	echo "$spot" >spot &&
	echo "# $spot of $NJOBS jobs spot-checked in $rpcs RPCs (expected 100, 4 sigma 38)" &&
	# binomial(1000, 0.1): mean 100, sigma sqrt(1000 * 0.1 * 0.9) = 9.49; 4 sigma = 38
	test "$spot" -ge 62 && test "$spot" -le 138 &&
	test "$(grep -c "spot-checked for version" "$SLOG")" = "$spot"
'
[ -f spot ] && say "$(cat spot) of $NJOBS jobs spot-checked (expected 100, 4 sigma 38)"

test_expect_success 'the spot checks replicas go to the other account, none to the trusted host' '
	A=$(cat hidA) B=$(cat hidB) spot=$(cat spot) &&
	test_project bin/transitioner --one_pass >>daemons.log 2>&1 &&
	test "$(q "select count(*) from result where name like \"s%\" and server_state=2")" = "$spot" &&
	req "$ADMIN_AUTHENTICATOR" "$A" hA >r && sched_rpc r reply &&
	test "$(sched_reply_jobs reply | wc -l)" = 0 &&
	n=0 && while [ $n -lt "$spot" ]; do
		req authB "$B" hB >r && sched_rpc r reply &&
		k=$(sched_reply_jobs reply | wc -l) && test "$k" -gt 0 &&
		n=$((n + k)) || return 1
	done &&
	test "$(q "select count(*) from result where name like \"s%\" and hostid=$B")" = "$spot" &&
	test "$(q "select count(*) from result r join workunit w on w.id=r.workunitid
		where w.name like \"s%\" group by w.id having count(distinct r.hostid) < count(*)" | wc -l)" = 0
'

test_expect_success 'a result sent singly and valid earns no trust (HAV_VALID_UNVERIFIED)' '
	A=$(cat hidA) &&
	w=$(q "select w.name from workunit w where w.name like \"s%\" and w.target_nresults=1
		order by w.id limit 1") && echo "$w" >single1 &&
	up ${w}_0 &&
	req "$ADMIN_AUTHENTICATOR" "$A" hA "$(sched_report ${w}_0 5 0 10)" >r && sched_rpc r reply &&
	daemons &&
	test "$(q "select validate_state from result where name=\"${w}_0\"")" = 1 &&
	test "$(cv "$A")" = $TRUST &&
	test "$(q "select n_valid from host_app_version where host_id=$A")" = $((TRUST + 1))
'

test_expect_success 'one wrong result takes the trust away at once: the next job is replicated' '
	A=$(cat hidA) &&
	w=$(q "select w.name from workunit w where w.name like \"s%\" and w.target_nresults=1
		and w.name<>\"$(cat single1)\" order by w.id limit 1") &&
	up ${w}_0 wrong &&
	req "$ADMIN_AUTHENTICATOR" "$A" hA "$(sched_report ${w}_0 5 0 10)" >r && sched_rpc r reply &&
	daemons &&
	test "$(q "select validate_state from result where name=\"${w}_0\"")" = 2 &&
	test "$(cv "$A")" = 0 &&
	jobs u 2 &&
	req "$ADMIN_AUTHENTICATOR" "$A" hA >r && sched_rpc r reply &&
	sched_reply_jobs reply >sent && test_line_count = 2 sent &&
	test "$(q "select count(*) from workunit where name like \"u%\" and target_nresults=2")" = 2 &&
	test_grep "host $A: result u1_0: not trusted yet" "$SLOG"
'

test_done
