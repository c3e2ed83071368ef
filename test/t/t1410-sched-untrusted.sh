#!/bin/bash
test_description='the scheduler trusts nothing a host sends: hostile stderr, absurd figures and strings, reports for what is not the host'"'"'s, a known machine without its host id, sequences only where they fit'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
SLOG="$PROJECT_DIR/log/scheduler.log"

tool() { (cd "$PROJECT_DIR" && wseq_test daemons "$@"); }
q() { test_sql_value "$1"; }

# req HOSTID CPID SECONDS [EXTRA_XML]: a request as the 7.20 client writes it.
req() {
	cat <<-EOT
	<scheduler_request>
	<authenticator>$ADMIN_AUTHENTICATOR</authenticator>
	<hostid>$1</hostid>
	<rpc_seqno>1</rpc_seqno>
	<core_client_major_version>7</core_client_major_version>
	<core_client_minor_version>20</core_client_minor_version>
	<core_client_release>5</core_client_release>
	<work_req_seconds>$3</work_req_seconds>
	<platform_name>x86_64-pc-linux-gnu</platform_name>
	<code_sign_key>x</code_sign_key>
	<host_info>
	    <host_cpid>$2</host_cpid>
	    <domain_name>host-$2</domain_name>
	    <p_ncpus>2</p_ncpus>
	    <p_vendor>GenuineIntel</p_vendor>
	    <p_fpops>1000000000</p_fpops>
	    <m_nbytes>${MEM:-8000000000}</m_nbytes>
	    <d_free>${DISK:-100000000000}</d_free>
	    <os_name>Linux</os_name>
	</host_info>
	${4:-}
	</scheduler_request>
	EOT
}

# report RESULT [STDERR_FILE] [FILE_INFO_NAMES...]: a result report; stderr as the client
# frames it (CDATA), file_infos of uploaded outputs.
report() {
	name=$1 errf=${2:-}
	shift; [ $# -gt 0 ] && shift
	printf '<result>\n    <name>%s</name>\n    <final_cpu_time>3</final_cpu_time>\n' "$name"
	printf '    <final_elapsed_time>4</final_elapsed_time>\n    <exit_status>0</exit_status>\n'
	printf '    <state>5</state>\n    <platform>x86_64-pc-linux-gnu</platform>\n    <version_num>100</version_num>\n'
	printf '<stderr_out>\n<core_client_version>7.20.5</core_client_version>\n'
	if [ -n "$errf" ]; then
		printf '<![CDATA[\n<stderr_txt>\n'; cat "$errf"; printf '\n</stderr_txt>\n]]>\n'
	fi
	printf '</stderr_out>\n'
	for f in "$@"; do
		printf '<file_info>\n    <name>%s</name>\n    <nbytes>%s</nbytes>\n    <max_nbytes>100000</max_nbytes>\n' \
			"$f" "$(wc -c <"$(tool path upload "$f")" 2>/dev/null || echo 5)"
		printf '    <md5_cksum>%s</md5_cksum>\n    <upload_url>http://x/file_upload_handler</upload_url>\n</file_info>\n' \
			"$(md5sum <"$(tool path upload "$f")" | cut -c1-32)"
	done
	printf '</result>\n'
}

rpc() { curl -s -o "$2" -w "%{http_code}" --data-binary @"$1" "$SCHED"; }
sent() { sed -n "/^<result>$/,/^<\/result>$/s|^    <name>\(.*\)</name>$|\1|p" "$1"; }
hostid_of() { sed -n "s|^<hostid>\([0-9]*\)</hostid>$|\1|p" "$1"; }
state_of() { q "select concat(server_state, ' ', outcome) from result where name='$1'"; }
put_output() { printf '%s\n' "$2" >"$(tool path upload "$1")"; }

test_expect_success 'set up: an app, six jobs, hosts A and B holding three each' '
	test_setup_sample_app &&
	echo input >in &&
	for i in 1 2 3 4 5 6; do echo "--wu_name j$i --min_quorum 1 --target_nresults 1 --rsc_fpops_est 1e9 $TRASH_DIRECTORY/in"; done >jobs &&
	test_project bin/create_work --appname wseq_sample --stdin <jobs >setup.log 2>&1 &&
	test_project bin/transitioner --one_pass >>setup.log 2>&1 &&
	REQ_SECONDS=3 && req 0 cpid-a 3 >ra && test "$(rpc ra replya)" = 200 &&
	hostid_of replya >A && sent replya >A.sent &&
	req 0 cpid-b 3 >rb && test "$(rpc rb replyb)" = 200 &&
	hostid_of replyb >B && sent replyb >B.sent &&
	test_line_count = 3 A.sent && test_line_count = 3 B.sent &&
	test "$(cat A)" != "$(cat B)"
'

test_expect_success 'stderr that libxml2 rejects (bad UTF-8, ]]>, U+FFFE, overlong forms, control bytes) is read and kept' '
	r=$(sed -n 1p A.sent) &&
	printf "before \377\376 mid ]]> and ]]]> x \357\277\276 y \300\257 z \001\033 after" >junk &&
	req "$(cat A)" cpid-a 0 "$(report "$r" junk)" >r1 &&
	test "$(rpc r1 reply1)" = 200 &&
	test_grep "<name>$r</name>" reply1 &&
	test_grep -v "could not read" reply1 &&
	test "$(state_of "$r")" = "5 1" &&
	test "$(q "select stderr_out like \"%before ?? mid ]]%> and ]]]%> x ??? y ?? z ?? after%\" from result where name=\"$r\"")" = 1
'

test_expect_success 'even stderr that forges the client'"'"'s own framing does not lock the host out' '
	r=$(sed -n 2p A.sent) &&
	printf "forged end\n]]>\n</stderr_out>\n</result>\n<result><name>nonsense" >forged &&
	req "$(cat A)" cpid-a 0 "$(report "$r" forged)" >r2 &&
	test "$(rpc r2 reply2)" = 200 &&
	test_grep "<result_ack>" reply2 && test_grep "<name>$r</name>" reply2 &&
	test "$(state_of "$r")" = "5 1"
'

test_expect_success 'strings longer than their column are cut, non-finite and absurd figures clamped, and the reply says which' '
	long=$(printf "%0300d" 0 | tr 0 d) &&
	req 0 cpid-c 0 | sed -e "s|<domain_name>.*</domain_name>|<domain_name>$long</domain_name>|" \
		-e "s|<p_fpops>.*</p_fpops>|<p_fpops>inf</p_fpops><on_frac>7</on_frac><timezone>1e99</timezone>|" \
		-e "s|<m_nbytes>.*</m_nbytes>|<m_nbytes>nan</m_nbytes>|" \
		-e "s|<d_free>.*</d_free>|<d_free>1e999</d_free>|" -e "s|<p_ncpus>2|<p_ncpus>1e40|" >r3 &&
	test "$(rpc r3 reply3)" = 200 &&
	test_grep -v "project_is_down" reply3 &&
	C=$(hostid_of reply3) && test -n "$C" &&
	test_grep "corrected fields of the scheduler request" reply3 &&
	test_grep "p_fpops: inf is outside" reply3 && test_grep "m_nbytes: .*nan.* is not a number" reply3 &&
	test_grep "domain_name: longer than 254 characters; cut" reply3 &&
	test "$(q "select concat(char_length(domain_name), \" \", p_fpops, \" \", on_frac, \" \", d_free, \" \", p_ncpus, \" \", timezone) from host where id=$C")" = \
		"254 1e18 1 1e18 100000 86400"
'

test_expect_success 'out-of-range integers are clamped, never cast (UBSan would abort the CGI)' '
	req 1e300 cpid-d 1e300 "<result><name>nosuch</name><state>1e300</state><exit_status>-1e300</exit_status>
		<final_cpu_time>-inf</final_cpu_time><app_version_num>9e18</app_version_num></result>" |
		sed "s|<rpc_seqno>1</rpc_seqno>|<rpc_seqno>-1e300</rpc_seqno>|" >r4 &&
	test "$(rpc r4 reply4)" = 200 &&
	test_grep "</scheduler_reply>" reply4 && test_grep "<name>nosuch</name>" reply4 &&
	test_grep "hostid: 1e+300 is outside" reply4 &&
	test_grep -v "runtime error" "$SB/apache/logs/error.log"
'

test_expect_success 'a report acts only on the result'"'"'s own outputs: another result'"'"'s file is ignored and survives' '
	ra=$(sed -n 3p A.sent) && rb=$(sed -n 1p B.sent) &&
	put_output "${rb}_0" "B output" && put_output "${ra}_0" "A output" &&
	req "$(cat A)" cpid-a 0 "$(report "$ra" "" "${ra}_0" "${rb}_0")" >r5 &&
	test "$(rpc r5 reply5)" = 200 && test_grep "<name>$ra</name>" reply5 &&
	test "$(state_of "$ra")" = "5 1" &&
	test "$(q "select xml_doc_out like \"%${ra}_0%\" from result where name=\"$ra\"")" = 1 &&
	test "$(q "select xml_doc_out like \"%${rb}_0%\" from result where name=\"$ra\"")" = 0 &&
	test_grep "reported file .${rb}_0., which is not one of its uploaded outputs; ignored" "$SLOG" &&
	for d in transitioner validator assimilator file_deleter transitioner file_deleter; do
		test_project bin/$d --one_pass >>daemons.log 2>&1 || return 1
	done &&
	test "$(q "select assimilate_state from workunit w join result r on r.workunitid=w.id where r.name=\"$ra\"")" = 2 &&
	test ! -e "$(tool path upload "${ra}_0")" &&
	test "$(cat "$(tool path upload "${rb}_0")")" = "B output"
'

test_expect_success 'a host reporting a result not sent to it changes nothing' '
	rb=$(sed -n 2p B.sent) &&
	before=$(q "select concat(server_state, outcome, received_time, xml_doc_out) from result where name=\"$rb\"") &&
	req "$(cat A)" cpid-a 0 "$(report "$rb" "" "${rb}_0")" >r6 &&
	test "$(rpc r6 reply6)" = 200 &&
	test "$(q "select concat(server_state, outcome, received_time, xml_doc_out) from result where name=\"$rb\"")" = "$before" &&
	test_grep "reported result $rb, which was not sent to it" "$SLOG"
'

test_expect_success 'sequences: S1 on host B, S2 on host A' '
	mkdir init && (cd init && "$APP" --state --init --words 64 2>/dev/null) &&
	test_project bin/create_sequence --appname wseq_sample --seq_name S1 --segments 3 \
		--rsc_fpops_est 1e9 --state_upload_every 1 "$TRASH_DIRECTORY/init/state_out" >>setup.log 2>&1 &&
	req "$(cat B)" cpid-b 1000 >rs1 && rpc rs1 replys1 >/dev/null &&
	test "$(q "select hostid from sequence where name=\"S1\"")" = "$(cat B)" &&
	test_project bin/create_sequence --appname wseq_sample --seq_name S2 --segments 3 \
		--rsc_fpops_est 1e9 --state_upload_every 1 "$TRASH_DIRECTORY/init/state_out" >>setup.log 2>&1 &&
	req "$(cat A)" cpid-a 1000 >rs2 && rpc rs2 replys2 >/dev/null &&
	test "$(q "select hostid from sequence where name=\"S2\"")" = "$(cat A)" &&
	test_grep "<name>S2_b0_s1_0</name>" replys2
'

test_expect_success 'a segment'"'"'s report changes only its own seq_file rows: not another sequence'"'"'s, not a later segment'"'"'s' '
	for f in S2_b0_s1_state S2_b0_s1_answer S1_b0_s1_state S2_b0_s2_state; do put_output $f "state $f"; done &&
	req "$(cat A)" cpid-a 0 "$(report S2_b0_s1_0 "" S2_b0_s1_state S2_b0_s1_answer S1_b0_s1_state S2_b0_s2_state)" >r7 &&
	test "$(rpc r7 reply7)" = 200 && test_grep "<name>S2_b0_s1_0</name>" reply7 &&
	test "$(q "select uploaded from seq_file where name=\"S2_b0_s1_state\"")" = 1 &&
	test "$(q "select uploaded from seq_file where name=\"S2_b0_s1_answer\"")" = 1 &&
	test "$(q "select concat(uploaded, \" \", nbytes, \" \", md5_cksum) from seq_file where name=\"S1_b0_s1_state\"")" = "0 0 " &&
	test "$(q "select uploaded from seq_file where name=\"S2_b0_s2_state\"")" = 0 &&
	test "$(q "select last_state_seqno from sequence where name=\"S1\"")" = 0
'

test_expect_success 'a state the host claims but the server does not have (other size) is not taken as uploaded' '
	put_output S2_b0_s2_answer answer && put_output S2_b0_s2_state x &&
	req "$(cat A)" cpid-a 0 "$(report S2_b0_s2_0 "" S2_b0_s2_answer S2_b0_s2_state)" |
		sed "/<name>S2_b0_s2_state<\/name>/{n;s|<nbytes>.*</nbytes>|<nbytes>99999</nbytes>|}" >r8 &&
	test_grep "<nbytes>99999</nbytes>" r8 &&
	test "$(rpc r8 reply8)" = 200 && test_grep "<name>S2_b0_s2_0</name>" reply8 &&
	test "$(q "select uploaded from seq_file where name=\"S2_b0_s2_answer\"")" = 1 &&
	test "$(q "select uploaded from seq_file where name=\"S2_b0_s2_state\"")" = 0 &&
	test "$(q "select last_state_seqno from sequence where name=\"S2\"")" = 1 &&
	test_grep "output S2_b0_s2_state is reported uploaded, but the server has no such file" "$SLOG"
'

test_expect_success 'hostid 0 from a machine the server knows (same host_cpid, same hardware): the same host' '
	nhosts=$(q "select count(*) from host") &&
	req 0 cpid-a 0 >r9 && test "$(rpc r9 reply9)" = 200 &&
	test "$(hostid_of reply9)" = "$(cat A)" &&
	req 0 cpid-a 0 >r10 && rpc r10 reply10 >/dev/null && test "$(hostid_of reply10)" = "$(cat A)" &&
	test "$(q "select count(*) from host")" = "$nhosts" &&
	test_grep "request without its host id, found by its host_cpid" "$SLOG"
'

test_expect_success 'the same host_cpid with other hardware, or from another account, is another host' '
	nhosts=$(q "select count(*) from host") &&
	req 0 cpid-a 0 | sed "s|<p_ncpus>2|<p_ncpus>64|" >r11 && rpc r11 reply11 >/dev/null &&
	test "$(hostid_of reply11)" != "$(cat A)" &&
	test "$(q "select count(*) from host")" = $((nhosts + 1))
'

test_expect_success 'a sequence goes only to a host with the memory and disk its segments declare, and the log says why' '
	test_project bin/create_sequence --appname wseq_sample --seq_name BIGMEM --segments 2 \
		--rsc_fpops_est 1e9 --rsc_memory_bound 16e9 "$TRASH_DIRECTORY/init/state_out" >>setup.log 2>&1 &&
	test_project bin/create_sequence --appname wseq_sample --seq_name BIGDISK --segments 2 \
		--rsc_fpops_est 1e9 --rsc_disk_bound 5e11 "$TRASH_DIRECTORY/init/state_out" >>setup.log 2>&1 &&
	MEM=8e9 DISK=1e12 req 0 cpid-small-mem 1000 >r12 && rpc r12 reply12 >/dev/null &&
	MEM=32e9 DISK=1e11 req 0 cpid-small-disk 1000 >r13 && rpc r13 reply13 >/dev/null &&
	test "$(q "select hostid from sequence where name=\"BIGMEM\"")" = "$(hostid_of reply13)" &&
	test "$(q "select hostid from sequence where name=\"BIGDISK\"")" = "$(hostid_of reply12)" &&
	test_grep -v "<name>BIGMEM_b0_s1_0</name>" reply12 && test_grep -v "<name>BIGDISK_b0_s1_0</name>" reply13 &&
	# the scheduler says why a host was passed over
	test_grep "host $(hostid_of reply12): sequence BIGMEM needs 16000 MB of memory and 1000 MB of disk; the host has 8000 MB and 1000000 MB free" "$SLOG"
'

test_expect_success 'sending a segment is one transaction: a failure half way leaves it unsent, and the next RPC sends it' '
	test_project bin/create_sequence --appname wseq_sample --seq_name T --segments 2 \
		--rsc_fpops_est 1e9 --rsc_memory_bound 64e9 "$TRASH_DIRECTORY/init/state_out" >>setup.log 2>&1 &&
	test_sql --delimiter=// "$WSEQ_DB_NAME" -e "create trigger t_fails before update on sequence
		for each row if NEW.name = \"T\" and NEW.first_unsent_seqno <> OLD.first_unsent_seqno then
			signal sqlstate \"45000\" set message_text = \"injected failure\"; end if" &&
	MEM=128e9 req 0 cpid-t 1000 >r14 && test "$(rpc r14 reply14)" = 200 &&
	test_grep -v "<name>T_b0_s1_0</name>" reply14 &&
	test_grep "sending work failed, nothing sent: .*injected failure" "$SLOG" &&
	test "$(q "select server_state from result where name=\"T_b0_s1_0\"")" = 1 &&
	test "$(q "select concat(hostid, \" \", first_unsent_seqno) from sequence where name=\"T\"")" = "0 1" &&
	test_sql "$WSEQ_DB_NAME" -e "drop trigger t_fails" &&
	MEM=128e9 req "$(hostid_of reply14)" cpid-t 1000 >r15 && test "$(rpc r15 reply15)" = 200 &&
	test_grep "<name>T_b0_s1_0</name>" reply15 &&
	test "$(q "select server_state from result where name=\"T_b0_s1_0\"")" = 4
'

test_expect_success 'when sending fails, the reports of the same RPC stand: it runs again without sending' '
	for i in 7 8; do echo "--wu_name j$i --min_quorum 1 --target_nresults 1 --rsc_fpops_est 1e9 $TRASH_DIRECTORY/in"; done |
		test_project bin/create_work --appname wseq_sample --stdin >>setup.log 2>&1 &&
	test_project bin/transitioner --one_pass >>setup.log 2>&1 &&
	req "$(cat A)" cpid-a 1 >r16a && test "$(rpc r16a reply16a)" = 200 &&
	sent reply16a >held && test_line_count = 1 held && job=$(cat held) &&
	test_sql --delimiter=// "$WSEQ_DB_NAME" -e "create trigger claim_fails before update on result
		for each row if NEW.server_state = 4 and OLD.server_state = 2 then
			signal sqlstate \"45000\" set message_text = \"injected claim failure\"; end if" &&
	req "$(cat A)" cpid-a 1000 "$(report $job)" >r16 && test "$(rpc r16 reply16)" = 200 &&
	test_grep "<result_ack>" reply16 && test_grep "<name>$job</name>" reply16 &&
	test "$(sent reply16 | wc -l)" = 0 &&
	test "$(state_of $job)" = "5 1" &&
	other=$(test "$job" = j7_0 && echo j8_0 || echo j7_0) &&
	test "$(state_of $other)" = "2 0" &&
	test_grep "sending work failed, nothing sent: .*injected claim failure" "$SLOG" &&
	test_sql "$WSEQ_DB_NAME" -e "drop trigger claim_fails" &&
	req "$(cat A)" cpid-a 1000 >r17 && test "$(rpc r17 reply17)" = 200 &&
	test_grep "<name>$other</name>" reply17
'

# rep NAME CPU EXIT STDERR: a report with its own figures
rep() {
	printf '<result>\n    <name>%s</name>\n    <final_cpu_time>%s</final_cpu_time>\n' "$1" "$2"
	printf '    <exit_status>%s</exit_status>\n    <state>5</state>\n' "$3"
	printf '<stderr_out>\n<![CDATA[\n%s\n]]>\n</stderr_out>\n</result>\n' "$4"
}

test_expect_success 'one RPC reporting many: each report lands in its own row; a name given twice, another host'"'"'s and an unknown one change nothing' '
	for i in 9 10 11 12; do echo "--wu_name j$i --min_quorum 1 --target_nresults 1 --rsc_fpops_est 1e9 $TRASH_DIRECTORY/in"; done |
		test_project bin/create_work --appname wseq_sample --stdin >>setup.log 2>&1 &&
	test_project bin/transitioner --one_pass >>setup.log 2>&1 &&
	# enough seconds for the four whatever host A'"'"'s measured speed makes each job
	req "$(cat A)" cpid-a 100000 >r18 && test "$(rpc r18 reply18)" = 200 &&
	sent reply18 >many && test_line_count = 4 many &&
	b_held=$(for j in $(cat B.sent); do test "$(state_of $j)" = "4 0" && echo $j; done | head -n 1) &&
	test -n "$b_held" &&
	set -- $(cat many) &&
	req "$(cat A)" cpid-a 0 "$(rep $1 11 0 one; rep $2 22 0 two; rep $3 33 1 three; rep $2 99 1 again;
		rep $b_held 44 0 stolen; rep nosuch2 55 0 none)" >r19 &&
	test "$(rpc r19 reply19)" = 200 &&
	for n in $1 $2 $3 $b_held nosuch2; do test_grep "<name>$n</name>" reply19 || return 1; done &&
	test "$(q "select concat(server_state, \" \", outcome, \" \", cpu_time, \" \", exit_status) from result where name=\"$1\"")" = "5 1 11 0" &&
	test "$(q "select concat(server_state, \" \", outcome, \" \", cpu_time, \" \", exit_status) from result where name=\"$2\"")" = "5 1 22 0" &&
	test "$(q "select concat(server_state, \" \", outcome, \" \", cpu_time, \" \", exit_status) from result where name=\"$3\"")" = "5 3 33 1" &&
	test "$(q "select stderr_out like \"%two%\" and stderr_out not like \"%again%\" from result where name=\"$2\"")" = 1 &&
	test "$(q "select stderr_out like \"%three%\" from result where name=\"$3\"")" = 1 &&
	test "$(state_of $4)" = "4 0" &&
	test "$(state_of $b_held)" = "4 0" &&
	test_grep "result $2 reported again (or not in progress); ignored" "$SLOG"
'

test_expect_success 'the sanitizers saw nothing in the scheduler' '
	test_grep -v "runtime error\|AddressSanitizer\|LeakSanitizer" "$SB/apache/logs/error.log"
'

test_done
