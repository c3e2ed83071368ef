# Hand-made scheduler RPCs for the sequence tests (t40*). Source it after
# test-lib.sh and test_sandbox_up.

SCHED="${PROJECT_URL%wseq/}wseq_cgi/cgi"

# sched_request HOSTID [NCPUS] [NAME STATUS]...: a request of host HOSTID (0: a
# new host, cpid h1 unless CPID is set) asking for REQ_SECONDS (default 1000)
# of work, listing the sticky files given as "name status" pairs.
sched_request() {
	host=$1 ncpus=${2:-2}
	shift; [ $# -gt 0 ] && shift
	printf "<scheduler_request>\n<authenticator>%s</authenticator>\n<hostid>%s</hostid>\n" "$ADMIN_AUTHENTICATOR" "$host"
	printf "<platform_name>x86_64-pc-linux-gnu</platform_name>\n<code_sign_key>x</code_sign_key>\n"
	printf "<work_req_seconds>%s</work_req_seconds>\n" "${REQ_SECONDS:-1000}"
	printf "<host_info><host_cpid>%s</host_cpid><p_ncpus>%s</p_ncpus><p_fpops>1e9</p_fpops><m_nbytes>8e9</m_nbytes><d_free>1e11</d_free></host_info>\n" "${CPID:-h1}" "$ncpus"
	while [ $# -ge 2 ]; do
		printf "<file_info><name>%s</name><nbytes>100</nbytes><status>%s</status></file_info>\n" "$1" "$2"
		shift 2
	done
	printf "</scheduler_request>\n"
}

# sched_rpc REQUEST_FILE REPLY_FILE
sched_rpc() { curl -sf --data-binary @"$1" "$SCHED" >"$2"; }

# The host id a reply gives.
sched_reply_hostid() { sed -n "s|^<hostid>\([0-9]*\)</hostid>$|\1|p" "$1"; }

# sched_host_request KEY HOSTID CPID SECONDS [MORE]: a request of host
# HOSTID (0: new; host_cpid and domain name from CPID; NCPUS CPUs, default
# 2) of the account with key KEY asking for SECONDS of work, with the
# elements MORE (reports, other_results).
sched_host_request() {
	cat <<-EOT
	<scheduler_request>
	<authenticator>$1</authenticator>
	<hostid>$2</hostid>
	<rpc_seqno>${RPC_SEQNO:-1}</rpc_seqno>
	<core_client_major_version>7</core_client_major_version>
	<core_client_minor_version>20</core_client_minor_version>
	<core_client_release>5</core_client_release>
	<work_req_seconds>$4</work_req_seconds>
	<cpu_req_secs>$4</cpu_req_secs>
	<platform_name>x86_64-pc-linux-gnu</platform_name>
	${5:-}
	<host_info>
	    <host_cpid>$3</host_cpid>
	    <domain_name>host-$3</domain_name>
	    <p_ncpus>${NCPUS:-2}</p_ncpus>
	    <p_fpops>1000000000</p_fpops>
	    <m_nbytes>8000000000</m_nbytes>
	    <d_free>100000000000</d_free>
	    <os_name>Linux</os_name>
	</host_info>
	</scheduler_request>
	EOT
}

# sched_report NAME [STATE EXIT ELAPSED]: the report of job NAME, by default a
# success with no elapsed time (nothing for no name).
sched_report() {
	[ -n "$1" ] || return 0
	printf '<result>\n    <name>%s</name>\n    <final_cpu_time>1</final_cpu_time>\n' "$1"
	[ -z "${4:-}" ] || printf '    <final_elapsed_time>%s</final_elapsed_time>\n' "$4"
	printf '    <exit_status>%s</exit_status>\n    <state>%s</state>\n</result>\n' "${3:-0}" "${2:-5}"
}

# The names of the jobs a reply sends.
sched_reply_jobs() { sed -n "/^<result>$/,/^<\/result>$/s|^    <name>\(.*\)</name>$|\1|p" "$1"; }
