#!/bin/bash
test_description='the recorded request of a real 7.20.5 client with an NVIDIA H200, and variants of it, get the versions and jobs upstream would send: CPU, multi-threaded and GPU versions of one app chosen by plan class, per-resource requests filled, the reply'"'"'s <app_version> carrying avg_ncpus, flops, coproc and cmdline'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
DATA="$WSEQ_SRCDIR/test/data/client-7.20.5"
PLAT=x86_64-pc-linux-gnu
F=1e18                  # every job's rsc_fpops_est: a few jobs fill each request

q() { test_sql_value "$1"; }
rpc() { curl -s -o "$2" -w "%{http_code}" --data-binary @"$1" "$SCHED"; }

# variant N [SED...]: the recorded H200 request as a new host (cpid vN) of the
# test account, edited by the sed expressions given.
variant() {
	n=$1; shift
	set -- -e "s|<authenticator>.*</authenticator>|<authenticator>$ADMIN_AUTHENTICATOR</authenticator>|" \
		-e "s|<hostid>.*</hostid>|<hostid>0</hostid>|" \
		-e "s|<host_cpid>.*</host_cpid>|<host_cpid>v$n</host_cpid>|" "$@"
	sed "$@" "$DATA/h200_request_2.xml"
}

# jobs REPLY CLASS: the results of the reply sent as versions of plan class CLASS ("" none).
jobs() {
	awk -v c="$2" '
		/^<result>/ { in_r = 1; pc = "" }
		in_r && /<plan_class>/ { pc = $0; sub(/.*<plan_class>/, "", pc); sub(/<\/plan_class>.*/, "", pc) }
		/^<\/result>/ { if (pc == c) n++; in_r = 0 }
		END { print n + 0 }' "$1"
}

# av REPLY CLASS TAG: the text of TAG in the reply's <app_version> of plan class CLASS.
av() {
	awk -v c="$2" -v t="$3" '
		/^<app_version>/ { in_v = 1; pc = ""; val = "" }
		in_v && /<plan_class>/ { pc = $0; sub(/.*<plan_class>/, "", pc); sub(/<\/plan_class>.*/, "", pc) }
		in_v && index($0, "<" t ">") { val = $0; sub(".*<" t ">", "", val); sub("</" t ">.*", "", val) }
		/^<\/app_version>/ { if (pc == c) print val; in_v = 0 }' "$1"
}

# expect_jobs REQ_SECS REQ_INST FLOPS INST_PER_JOB: the jobs a resource gets --
# until its seconds (F / FLOPS each) and idle instances are covered.
expect_jobs() {
	awk -v s="$1" -v i="$2" -v fl="$3" -v per="$4" -v f="$F" 'BEGIN {
		n = 0; secs = 0; inst = 0
		while (secs < s || inst < i) { n++; secs += f / fl; inst += per }
		print n }'
}

test_expect_success 'set up: one app with CPU, mt, cuda and opencl_ati versions, their plan classes, 80 jobs' '
	test_setup_sample_app &&
	for pc in mt cuda opencl_ati; do
		d="$PROJECT_DIR/apps/wseq_sample/wseq_sample_1.00_${PLAT}__$pc" &&
		mkdir -p "$d" &&
		cp "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample" "$d/wseq_sample_1.00_${PLAT}__$pc" ||
		return 1
	done &&
	cp "$WSEQ_SRCDIR/test/data/plan_class/mt_cuda_ati.xml" "$PROJECT_DIR/plan_class_spec.xml" &&
	test_project bin/update_versions >uv.log 2>&1 &&
	test "$(q "select count(*) from app_version")" = 4 &&
	echo input >in &&
	for i in $(seq 1 80); do
		test_project bin/create_work --appname wseq_sample --wu_name j$i --min_quorum 1 \
			--target_nresults 1 --rsc_fpops_est $F --rsc_fpops_bound 1e19 \
			"$TRASH_DIRECTORY/in" >>setup.log 2>&1 || return 1
	done &&
	test_project bin/transitioner --one_pass >>setup.log 2>&1 &&
	test "$(q "select count(*) from result where server_state=2")" = 80
'

test_expect_success 'the recorded H200 request: cuda jobs for its GPU, mt jobs for its 16 CPUs, nothing else' '
	variant 1 >r1 && test "$(rpc r1 reply1)" = 200 &&
	GF=$(av reply1 cuda flops) && MF=$(av reply1 mt flops) &&
	test -n "$GF" && test -n "$MF" &&
	test "$(jobs reply1 cuda)" = "$(expect_jobs 51840 1 "$GF" 1)" &&
	test "$(jobs reply1 mt)" = "$(expect_jobs 829440 16 "$MF" 8)" &&
	test "$(jobs reply1 "")" = 0 && test "$(jobs reply1 opencl_ati)" = 0 &&
	test_grep -v "<plan_class>opencl_ati</plan_class>" reply1
'

test_expect_success 'its <app_version>s say how each uses the host, as the client expects' '
	test "$(av reply1 cuda avg_ncpus)" = 0.2 &&
	test "$(av reply1 cuda type)" = NVIDIA &&
	test "$(av reply1 cuda count)" = 1 &&
	awk -v g="$(av reply1 cuda flops)" "BEGIN { exit !(g >= 3.3454e13 && g < 3.35e13) }" &&
	test "$(av reply1 mt avg_ncpus)" = 8 &&
	test "$(av reply1 mt max_ncpus)" = 8 &&
	test "$(av reply1 mt cmdline)" = "--nthreads 8" &&
	test "$(av reply1 mt flops)" = 8000000000 &&
	test -z "$(av reply1 mt type)"
'

test_expect_success 'the results in the database name the versions they were sent as' '
	H=$(sched_reply_hostid reply1) &&
	q "select v.plan_class, count(*) from result r join app_version v on v.id=r.app_version_id
		where r.hostid=$H group by v.plan_class order by 1" >got &&
	printf "cuda\t%s\nmt\t%s\n" "$(jobs reply1 cuda)" "$(jobs reply1 mt)" >want &&
	test_cmp want got
'

test_expect_success 'two idle GPUs asking little: one cuda job for each' '
	variant 2 -e "s|<count>1</count>|<count>2</count>|" \
		-e "s|<req_secs>51840.000000</req_secs>|<req_secs>1</req_secs>|" \
		-e "s|<req_instances>1.000000</req_instances>|<req_instances>2.000000</req_instances>|" >r2 &&
	test "$(rpc r2 reply2)" = 200 &&
	test "$(jobs reply2 cuda)" = 2
'

test_expect_success 'an AMD GPU (<coproc_ati>) gets the opencl_ati version, never the cuda one' '
	variant 3 -e "s|coproc_cuda>|coproc_ati>|" -e "s|<have_opencl>0</have_opencl>|<have_opencl>1</have_opencl>|" >r3 &&
	test "$(rpc r3 reply3)" = 200 &&
	test "$(jobs reply3 opencl_ati)" -ge 1 &&
	test "$(av reply3 opencl_ati type)" = ATI &&
	test "$(jobs reply3 cuda)" = 0 && test_grep -v "<plan_class>cuda</plan_class>" reply3
'

# GPU rules the host fails: only the CPU gets work, and the cuda version is not sent.
no_gpu_job() {
	test "$(rpc "$1" "$2")" = 200 &&
	test "$(jobs "$2" cuda)" = 0 && test_grep -v "<plan_class>cuda</plan_class>" "$2" &&
	test "$(jobs "$2" mt)" -ge 1
}

test_expect_success 'compute capability below the class minimum: no cuda version' '
	variant 4 -e "s|<major>9</major>|<major>3</major>|" >r4 && no_gpu_job r4 reply4
'

test_expect_success 'a CUDA version older than the class minimum: no cuda version' '
	variant 5 -e "s|<cudaVersion>13000</cudaVersion>|<cudaVersion>10020</cudaVersion>|" >r5 &&
	no_gpu_job r5 reply5
'

test_expect_success 'too little GPU RAM for the class: no cuda version' '
	variant 6 -e "s|<available_ram>150109880320.000000</available_ram>|<available_ram>2000000000</available_ram>|" \
		-e "s|<totalGlobalMem>150109880320.000000</totalGlobalMem>|<totalGlobalMem>2000000000</totalGlobalMem>|" >r6 &&
	no_gpu_job r6 reply6
'

test_expect_success 'a malformed <coproc_cuda> is ignored: CPU work only' '
	variant 7 -e "s|<count>1</count>|<count>many</count>|" >r7 && no_gpu_job r7 reply7
'

test_expect_success 'a GPU-only request (CPUs busy elsewhere) gets GPU work and nothing for the CPU' '
	variant 8 -e "s|<work_req_seconds>829440.000000|<work_req_seconds>0|" \
		-e "s|<cpu_req_secs>829440.000000|<cpu_req_secs>0|" \
		-e "s|<cpu_req_instances>16.000000|<cpu_req_instances>0|" >r8 &&
	test "$(rpc r8 reply8)" = 200 &&
	test "$(jobs reply8 cuda)" = "$(expect_jobs 51840 1 "$(av reply8 cuda flops)" 1)" &&
	test "$(jobs reply8 mt)" = 0 && test "$(jobs reply8 "")" = 0
'

test_expect_success 'a CPU-only request gets no GPU job' '
	variant 9 -e "s|<req_secs>51840.000000</req_secs>|<req_secs>0</req_secs>|" \
		-e "s|<req_instances>1.000000</req_instances>|<req_instances>0</req_instances>|" >r9 &&
	test "$(rpc r9 reply9)" = 200 &&
	test "$(jobs reply9 cuda)" = 0 && test "$(jobs reply9 mt)" = 2
'

test_expect_success 'a one-CPU host without a GPU gets the plain CPU version, one thread' '
	variant 10 -e "/<coprocs>/,/<\/coprocs>/d" -e "s|<p_ncpus>16</p_ncpus>|<p_ncpus>1</p_ncpus>|" \
		-e "s|<cpu_req_instances>16.000000|<cpu_req_instances>1|" >r10 &&
	test "$(rpc r10 reply10)" = 200 &&
	test "$(jobs reply10 "")" = 1 && test "$(jobs reply10 mt)" = 0 && test "$(jobs reply10 cuda)" = 0 &&
	test "$(av reply10 "" avg_ncpus)" = 1 && test -z "$(av reply10 "" cmdline)"
'

test_expect_success 'no host without an NVIDIA GPU ever got a cuda job' '
	test "$(q "select count(*) from result r join app_version v on v.id=r.app_version_id
		join host h on h.id=r.hostid where v.plan_class=\"cuda\" and h.serialnum not like \"%CUDA%\"")" = 0
'

test_expect_success 'max_wus_in_progress_gpu bounds the GPU jobs a host holds, per GPU' '
	sed -i "s|<config>|<config>\n    <max_wus_in_progress_gpu>1</max_wus_in_progress_gpu>|" \
		"$PROJECT_DIR/config.xml" &&
	variant 11 -e "s|<req_instances>1.000000</req_instances>|<req_instances>3.000000</req_instances>|" >r11 &&
	test "$(rpc r11 reply11)" = 200 &&
	test "$(jobs reply11 cuda)" = 1 && test "$(jobs reply11 mt)" = 2 &&
	H=$(sched_reply_hostid reply11) &&
	sed "s|<hostid>0</hostid>|<hostid>$H</hostid>|" r11 >r11b &&
	test "$(rpc r11b reply11b)" = 200 &&
	test "$(jobs reply11b cuda)" = 0
'

test_done
