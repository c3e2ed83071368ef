#!/bin/sh
# Credit by a named rule (validator --credit_rule, doc/credit.md). Under
# runtime a CPU host and a GPU host -- the GPU's speeds those of the real
# NVIDIA H200 client in ../shared/fixtures/ -- doing jobs of one estimate
# earn the same credit within 5% (the spread of their run times around their
# averages), where fpops (as today) bounds the GPU by its CPU benchmark; an
# absurd elapsed time is capped at the job's FLOPs bound; a quorum credits
# its lowest claim; credit_by_app adds up to the credit granted; fixed and
# fpops behave as before; a bad rule is refused.
test_description='credit rules fixed, fpops, runtime: fair across CPU and GPU, capped, per app'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-daemons.sh"

daemons_setup || exit 1

FIX="$WSEQ_SRCDIR/../shared/fixtures/client-7.20.5-nvidia-h200/sched_request_1.xml"
# The H200 host: its CPU benchmark and its GPU's peak FLOPS, as it reported them.
P_FPOPS=$(sed -n 's|.*<p_fpops>\([^<]*\)</p_fpops>.*|\1|p' "$FIX" | head -n 1)
PEAK=$(sed -n 's|.*<peak_flops>\([^<]*\)</peak_flops>.*|\1|p' "$FIX" | head -n 1)
EST=1e13                # every job's rsc_fpops_est
BOUND=1e14              # and rsc_fpops_bound
CPU_SPEED=1e9           # the CPU host's measured speed
# the GPU host's measured speed: a tenth of its peak
GPU_SPEED=$(awk -v p="$PEAK" 'BEGIN { printf "%g", p / 10 }')
# est * COBBLESTONE_SCALE (200 / 86400e9): what the job is worth
WORTH=23.148148

# job NAME HOST ELAPSED [RULE...]: a quorum-1 job run on HOST's app version
# (the host's domain name is the version's plan class) in ELAPSED seconds,
# sent SENT seconds before it was received (default a day), validated with the given options.
SENT=86400
job() {
	name=$1 host=$2 el=$3 && shift 3 &&
	tool wu "$name" --quorum 1 --target 1 >/dev/null &&
	q "update workunit set rsc_fpops_est=$EST, rsc_fpops_bound=$BOUND where name=\"$name\"" &&
	in_project transitioner --until_idle -d 1 2>/dev/null &&
	report "${name}_0" "$host" "$el" &&
	in_project transitioner --until_idle -d 1 2>/dev/null &&
	in_project validator --until_idle -d 1 "$@" 2>>val.log
}
# report RESULT HOST ELAPSED: RESULT reported by HOST's owner on its version.
report() {
	tool report "$1" --output "answer" &&
	q "update result r join host h on h.domain_name=\"$2\"
		join app_version v on v.plan_class=\"$2\"
		set r.userid=h.userid, r.hostid=h.id, r.app_version_id=v.id, r.elapsed_time=$3,
		r.cpu_time=$3, r.sent_time=r.received_time-$SENT where r.name=\"$1\""
}
granted() { q "select round(granted_credit, 6) from result where name=\"$1_0\""; }
# within A B PCT: A and B differ by at most PCT percent of B
within() { awk -v a="$1" -v b="$2" -v p="$3" "BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }"; }

test_expect_success 'the H200 fixture: a 1 GFLOPS CPU benchmark and a GPU of 3.3e13 peak FLOPS' '
	test "$P_FPOPS" = 1000000000.000000 && test "$PEAK" = 33454080000000.000000
'

test_expect_success 'set up: users on a CPU host, a GPU host and an unmeasured host; a version each' '
	q "insert into user (create_time, email_addr, name, authenticator, cross_project_id) values
		(unix_timestamp(), \"c@example.org\", \"Cpu\", \"authC\", \"cpc\"),
		(unix_timestamp(), \"g@example.org\", \"Gpu\", \"authG\", \"cpg\"),
		(unix_timestamp(), \"n@example.org\", \"New\", \"authN\", \"cpn\")" &&
	q "insert into app (create_time, name) values (unix_timestamp(), \"testapp\")" &&
	for h in cpu:Cpu cuda:Gpu new:New; do
		q "insert into host (create_time, userid, domain_name, p_fpops, p_ncpus)
			select unix_timestamp(), id, \"${h%%:*}\", $P_FPOPS, 8 from user where name=\"${h#*:}\"" &&
		q "insert into app_version (create_time, appid, version_num, platformid, plan_class)
			select unix_timestamp(), id, 100, 1, \"${h%%:*}\" from app where name=\"testapp\"" || return 1
	done &&
	q "insert into host_app_version (host_id, app_version_id, n_jobs, flops_avg, elapsed_avg)
		select h.id, v.id, 8, if(h.domain_name=\"cpu\", $CPU_SPEED, $GPU_SPEED),
			$EST / if(h.domain_name=\"cpu\", $CPU_SPEED, $GPU_SPEED)
		from host h join app_version v on v.plan_class=h.domain_name where h.domain_name<>\"new\"" &&
	q "insert into host_app_version (host_id, app_version_id, n_jobs, flops_avg, elapsed_avg)
		select h.id, v.id, 1, 1e15, 0.01 from host h join app_version v on v.plan_class=h.domain_name
		where h.domain_name=\"new\"" &&
	test "$(q "select count(*) from host_app_version")" = 3
'

test_expect_success 'fpops (the default, as today): the GPU is bounded by its CPU benchmark' '
	job f_cpu cpu 10000 &&
	job f_gpu cuda 3 &&
	test "$(granted f_cpu)" = $WORTH &&
	test "$(granted f_gpu)" = "$(awk -v f=$P_FPOPS "BEGIN { printf \"%.6f\", 10 * f * 3 * 200 / 86400e9 }")"
'

test_expect_success 'runtime: the CPU host and the GPU host earn the same within 5%' '
	cpu_t=$(awk -v e=$EST -v s=$CPU_SPEED "BEGIN { print e / s * 1.02 }") &&
	gpu_t=$(awk -v e=$EST -v s=$GPU_SPEED "BEGIN { print e / s * 0.98 }") &&
	job r_cpu cpu "$cpu_t" --credit_rule runtime &&
	job r_gpu cuda "$gpu_t" --credit_rule runtime &&
	c=$(granted r_cpu) && g=$(granted r_gpu) && say "runtime: CPU $c, GPU $g" &&
	within "$g" "$c" 5 && within "$c" $WORTH 5 && within "$g" $WORTH 5
'

test_expect_success 'runtime: an absurd elapsed time is capped at the job FLOPs bound' '
	SENT=100000000 job r_absurd cpu 1e12 --credit_rule runtime &&
	test "$(granted r_absurd)" = "$(awk -v b=$BOUND "BEGIN { printf \"%.6f\", b * 200 / 86400e9 }")" &&
	test "$(q "select round(claimed_credit, 6) from result where name=\"r_absurd_0\"")" = "$(granted r_absurd)"
'

test_expect_success 'runtime: no longer than from sending to receipt either' '
	SENT=20000 job r_wall cpu 1e12 --credit_rule runtime &&
	test "$(granted r_wall)" = "$(awk -v s=$CPU_SPEED "BEGIN { printf \"%.6f\", 20000 * s * 200 / 86400e9 }")"
'

test_expect_success 'runtime: a version measured on fewer than 2 jobs earns as under fpops' '
	job r_new new 1e6 --credit_rule runtime &&
	test "$(granted r_new)" = $WORTH &&
	job r_new3 new 3 --credit_rule runtime &&
	test "$(granted r_new3)" = "$(awk -v f=$P_FPOPS "BEGIN { printf \"%.6f\", 10 * f * 3 * 200 / 86400e9 }")"
'

test_expect_success 'runtime: a quorum of two credits both the lower claim' '
	tool wu r_q --quorum 2 --target 2 >/dev/null &&
	q "update workunit set rsc_fpops_est=$EST, rsc_fpops_bound=$BOUND where name=\"r_q\"" &&
	in_project transitioner --until_idle -d 1 2>/dev/null &&
	report r_q_0 cpu 10000 && report r_q_1 cuda 90 &&
	in_project transitioner --until_idle -d 1 2>/dev/null &&
	in_project validator --until_idle -d 1 --credit_rule runtime 2>>val.log &&
	test "$(q "select round(granted_credit, 6) from result where name like \"r\\_q\\_%\" group by granted_credit")" = $WORTH &&
	test "$(q "select round(claimed_credit, 6) from result where name=\"r_q_0\"")" = $WORTH &&
	within "$(q "select claimed_credit from result where name=\"r_q_1\"")" \
		"$(awk -v b=$BOUND "BEGIN { print b * 200 / 86400e9 }")" 0.001
'

test_expect_success 'fixed: --credit C, with or without --credit_rule fixed' '
	job x1 cpu 10 --credit 7 &&
	job x2 cuda 10 --credit_rule fixed --credit 7 &&
	test "$(granted x1)" = 7.000000 && test "$(granted x2)" = 7.000000
'

test_expect_success 'a bad rule, fixed without --credit or --credit with another rule: refused' '
	test_must_fail in_project validator --one_pass --credit_rule cobbles 2>err &&
	test_grep "not fixed, fpops or runtime" err &&
	test_must_fail in_project validator --one_pass --credit_rule fixed 2>err &&
	test_grep "goes with --credit_rule fixed" err &&
	test_must_fail in_project validator --one_pass --credit_rule runtime --credit 3 2>err &&
	test_grep "goes with --credit_rule fixed" err &&
	in_project validator --help >help &&
	test_grep "credit_rule" help
'

test_expect_success 'credit_by_app adds up to the credit granted, per user, and to the users totals' '
	q "select c.userid, round(c.total_credit, 6), c.njobs from credit_by_app c order by c.userid" >actual &&
	q "select r.userid, round(sum(r.granted_credit), 6), count(*) from result r
		where r.validate_state=1 and r.granted_credit > 0 group by r.userid order by r.userid" >expect &&
	test_cmp expect actual &&
	q "select u.id, round(u.total_credit, 6) from user u where u.total_credit > 0 order by u.id" >expect &&
	q "select userid, round(sum(total_credit), 6) from credit_by_app group by userid order by userid" >actual &&
	test_cmp expect actual &&
	test "$(q "select count(distinct appid) from credit_by_app")" = 1
'

test_done
