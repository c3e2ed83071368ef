#!/bin/sh
test_description='the scheduler CGI speaks the BOINC scheduler RPC; bad requests get the protocol'"'"'s own answers'
. "$WSEQ_SRCDIR/test/test-lib.sh"

SB="$TRASH_DIRECTORY/sb"
test_sandbox_up sb --no-daemons || exit 1
SCHED="${PROJECT_URL%wseq/}wseq_cgi/cgi"
PLATFORM=x86_64-pc-linux-gnu

# A small request for host $1 (0: new) with cpid $2 asking for $3 seconds of work.
request() {
	cat <<-EOT
	<scheduler_request>
	<authenticator>$ADMIN_AUTHENTICATOR</authenticator>
	<hostid>$1</hostid>
	<rpc_seqno>1</rpc_seqno>
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
	    <domain_name>testhost-$2</domain_name>
	    <p_ncpus>2</p_ncpus>
	    <p_fpops>1000000000</p_fpops>
	    <m_nbytes>${MEM:-8000000000}</m_nbytes>
	    <d_free>100000000000</d_free>
	    <os_name>Linux</os_name>
	</host_info>
	</scheduler_request>
	EOT
}

rpc() {
	curl -s -o "$2" -w "%{http_code}" --data-binary @"$1" "$SCHED"
}

report() {
	cat <<-EOT
	<result>
	    <name>$1</name>
	    <final_cpu_time>$2</final_cpu_time>
	    <exit_status>0</exit_status>
	    <state>5</state>
	</result>
	EOT
}

checksum() {
	test_sql "$WSEQ_DB_NAME" -e "checksum table host, result, workunit" | awk '{print $2}' | tr '\n' ' '
}

test_expect_success 'set up an app, a version and three jobs' '
	test_setup_sample_app &&
	for i in 1 2 3; do echo "input $i" >in$i; done &&
	(cd "$PROJECT_DIR" && for i in 1 2 3; do
		bin/create_work --appname wseq_sample --wu_name job$i --min_quorum 1 --target_nresults 1 \
			--rsc_fpops_est 1e9 --delay_bound 3600 "$TRASH_DIRECTORY/in$i" || exit 1
	done && bin/transitioner --one_pass) >>setup.log 2>&1 &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result where server_state=2")" = 3
'

test_expect_success 'a new host gets its host id, the code-signing key and one job' '
	request 0 cpid-a 1 >r1 &&
	test "$(rpc r1 reply1)" = 200 &&
	test_grep "^<hostid>[0-9]*</hostid>$" reply1 &&
	test_grep "^<code_sign_key>$" reply1 &&
	test "$(grep -c "^<result>$" reply1)" = 1 &&
	HOSTID=$(sed -n "s|^<hostid>\([0-9]*\)</hostid>$|\1|p" reply1) &&
	echo "$HOSTID" >hostid &&
	sed -n "/^<result>$/,/^<\/result>$/s|^    <name>\(.*\)</name>$|\1|p" reply1 >done_name &&
	test_line_count = 1 done_name
'

test_expect_success 'the job is complete: app, signed app file, input, output, absolute deadline' '
	test_grep "^<app>$" reply1 &&
	test_grep "<app_version>" reply1 &&
	test_grep "<file_signature>" reply1 &&
	test_grep "<executable/>" reply1 &&
	test_grep "<main_program/>" reply1 &&
	test_grep "<md5_cksum>" reply1 &&
	test_grep "<upload_when_present/>\|<url>.*file_upload_handler</url>" reply1 &&
	test_grep "<max_nbytes>" reply1 &&
	d=$(sed -n "s|.*<report_deadline>\([0-9]*\)</report_deadline>.*|\1|p" reply1) &&
	now=$(date +%s) && test "$d" -gt $((now + 3000)) && test "$d" -le $((now + 3601)) &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result where server_state=4 and hostid=$(cat hostid)")" = 1
'

# sig_of FILE: the text of the (one) <xml_signature> in FILE, on one line
sig_of() {
	tr -d " \n" <"$1" | sed -n "s|.*<xml_signature>\([^<]*\)</xml_signature>.*|\1|p"
}

# cert NAME MAX_NBYTES: the upload certificate the project's key makes for an output
cert() {
	crypt_prog -sign_string "<name>$1</name><max_nbytes>$2</max_nbytes>" \
		"$PROJECT_DIR/keys/upload_private" | tr -d " \n"
}

test_expect_success 'outputs are certified when their results are made; the reply carries that certificate' '
	for r in job2_0 job3_0; do
		test_sql "$WSEQ_DB_NAME" --raw -e "select xml_doc_in from result where name=\"$r\"" >doc.$r &&
		test "$(sig_of doc.$r)" = "$(cert ${r}_0 100000)" || return 1
	done &&
	test_sql "$WSEQ_DB_NAME" --raw -e "select xml_doc_in from result where name=\"$(cat done_name)\"" >doc.sent &&
	test -n "$(sig_of doc.sent)" &&
	test "$(sig_of reply1)" = "$(sig_of doc.sent)" &&
	test "$(grep -c "<xml_signature>" reply1)" = 1
'

test_expect_success 'the input file URL in the reply serves the input' '
	url=$(grep -o "<url>[^<]*download[^<]*</url>" reply1 | grep -v wseq_sample_1 | head -n 1 | sed "s|</*url>||g") &&
	curl -sf "$url" >fetched && grep "^input " fetched
'

test_expect_success 'a known host gets neither host id nor key again, and another job' '
	request "$(cat hostid)" cpid-a 1 "<code_sign_key>x</code_sign_key>" >r2 &&
	test "$(rpc r2 reply2)" = 200 &&
	test_grep -v "<hostid>" reply2 && test_grep -v "<code_sign_key>" reply2 &&
	test "$(grep -c "^<result>$" reply2)" = 1 &&
	sed -n "/^<result>$/,/^<\/result>$/s|^    <name>\(.*\)</name>$|\1|p" reply2 >sent_name
'

test_expect_success 'a second host gets the last job' '
	request 0 cpid-b 1 >r3 &&
	test "$(rpc r3 reply3)" = 200 &&
	sed -n "/^<result>$/,/^<\/result>$/s|^    <name>\(.*\)</name>$|\1|p" reply3 >other_name &&
	test_line_count = 1 other_name &&
	test "$(sed -n "s|^<hostid>\([0-9]*\)</hostid>$|\1|p" reply3)" != "$(cat hostid)"
'

test_expect_success 'the first host reports its first job: recorded and acknowledged' '
	request "$(cat hostid)" cpid-a 0 "<code_sign_key>x</code_sign_key>$(report "$(cat done_name)" 2)" >r4 &&
	test "$(rpc r4 reply4)" = 200 &&
	test_grep "<name>$(cat done_name)</name>" reply4 &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select concat(server_state, \" \", outcome) from result where name=\"$(cat done_name)\"")" = "5 1"
'

test_expect_success 'no work left: an empty reply, nothing sent' '
	request "$(cat hostid)" cpid-a 1000 "<code_sign_key>x</code_sign_key>" >r5 &&
	test "$(rpc r5 reply5)" = 200 &&
	test_grep -v "<result>" reply5
'

test_expect_success 'never two results of one workunit to one host' '
	(cd "$PROJECT_DIR" && bin/create_work --appname wseq_sample --wu_name twin --min_quorum 2 --target_nresults 2 \
		--rsc_fpops_est 1e9 "$TRASH_DIRECTORY/in1" && bin/transitioner --one_pass) >>setup.log 2>&1 &&
	request "$(cat hostid)" cpid-a 100000 "<code_sign_key>x</code_sign_key>" >r6 &&
	rpc r6 reply6 >/dev/null &&
	test "$(grep -c "^<result>$" reply6)" = 1 &&
	request "$(cat hostid)" cpid-a 100000 "<code_sign_key>x</code_sign_key>" >r7 &&
	rpc r7 reply7 >/dev/null &&
	test "$(grep -c "^<result>$" reply7)" = 0 &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from result r join workunit w on w.id=r.workunitid where w.name=\"twin\" and r.server_state=2")" = 1
'

test_expect_success 'a certificate the key does not verify (the key was replaced) is made again when sent' '
	(cd "$PROJECT_DIR" && bin/create_work --appname wseq_sample --wu_name rekey --min_quorum 1 \
		--target_nresults 1 --rsc_fpops_est 1e9 "$TRASH_DIRECTORY/in1" && bin/transitioner --one_pass) >>setup.log 2>&1 &&
	good=$(cert rekey_0_0 100000) &&
	test_sql "$WSEQ_DB_NAME" -e "update result set xml_doc_in=replace(xml_doc_in, \"$(echo "$good" | cut -c1-16)\", \"0123456789abcdef\") where name=\"rekey_0\"" &&
	test_sql "$WSEQ_DB_NAME" --raw -e "select xml_doc_in from result where name=\"rekey_0\"" >doc.rekey &&
	test "$(sig_of doc.rekey)" != "$good" &&
	request 0 cpid-rekey 100000 >r8 && test "$(rpc r8 reply8)" = 200 &&
	test_grep "<name>rekey_0</name>" reply8 &&
	sed -n "/<name>rekey_0_0<\/name>/,/<\/file_info>/p" reply8 >fi8 &&
	test "$(sig_of fi8)" = "$good"
'

test_expect_success 'a host with too little memory gets no job' '
	MEM=1000 request 0 cpid-c 100000 >r8 &&
	rpc r8 reply8 >/dev/null &&
	test "$(grep -c "^<result>$" reply8)" = 0
'

cp "$PROJECT_DIR/config.xml" config.orig
sed "s|</config>|<sched_max_request_bytes>100000</sched_max_request_bytes></config>|" config.orig >"$PROJECT_DIR/config.xml"

for case in "$WSEQ_SRCDIR"/test/data/sched/[0-9]*.txt; do
	name=$(basename "$case" .txt)
	test_expect_success "protocol case $name" '
		head -c 200000 /dev/zero | tr "\0" x >big.txt &&
		subst() {
			sed -e "s|@AUTH@|$ADMIN_AUTHENTICATOR|g" -e "s|@HOSTID@|$(cat hostid)|g" \
			    -e "s|@SENT@|$(cat sent_name)|g" -e "s|@OTHER@|$(cat other_name)|g" \
			    -e "s|@DONE@|$(cat done_name)|g" |
			awk -v keyfile="$PROJECT_DIR/keys/code_sign_public" -v bigfile=big.txt "
				BEGIN { while ((getline l < keyfile) > 0) key = key l \"\\n\"
					getline big < bigfile }
				{ gsub(/@KEY@/, key); gsub(/@BIG@/, big); print }"
		} &&
		sed -n "/^--- request$/,/^--- /p" "$case" | sed -e 1d -e "\$d" | subst >"$name.req" &&
		sed -n "/^--- expect$/,/^--- /p" "$case" | sed -e 1d -e "\$d" | subst >"$name.expect" &&
		sed -n "/^--- db$/,\$p" "$case" | sed -e 1d | subst >"$name.db" &&
		test -s "$name.req" && test -s "$name.expect" && test -s "$name.db" &&
		before=$(checksum) &&
		test "$(rpc "$name.req" "$name.reply")" = 200 &&
		while IFS= read -r pat; do
			case "$pat" in
			!*) test_grep -v "${pat#!}" "$name.reply" || return 1 ;;
			*) grep -E -e "$pat" "$name.reply" >/dev/null || { echo "missing: $pat"; cat "$name.reply"; return 1; } ;;
			esac
		done <"$name.expect" &&
		if test "$(head -n 1 "$name.db")" = unchanged; then
			test "$(checksum)" = "$before"
		else
			while IFS= read -r sql && IFS= read -r want; do
				got=$(test_sql "$WSEQ_DB_NAME" -e "$sql") &&
				test "= $got" = "$want" || { echo "$sql: got $got, want $want"; return 1; }
			done <"$name.db"
		fi
	'
done
cp config.orig "$PROJECT_DIR/config.xml"

test_expect_success 'every refused request was logged with the client address' '
	test_grep "bad request" "$PROJECT_DIR/log/scheduler.log" &&
	test_grep "unknown authenticator" "$PROJECT_DIR/log/scheduler.log" &&
	test_grep "127.0.0.1" "$PROJECT_DIR/log/scheduler.log" &&
	test_grep "which was not sent to it" "$PROJECT_DIR/log/scheduler.log" &&
	test_grep "reported again" "$PROJECT_DIR/log/scheduler.log"
'

test_expect_success 'with the database stopped, the reply says the project is down (not an HTTP error)' '
	pid=$(cat "$SB/mysql/mariadbd.pid") && kill "$pid" &&
	test_wait_for 30 sh -c "! kill -0 $pid 2>/dev/null" &&
	request "$(cat hostid)" cpid-a 1000 >r9 &&
	test "$(rpc r9 reply9)" = 200 &&
	test_grep "<project_is_down/>" reply9 &&
	test_grep "<request_delay>" reply9 &&
	wseq_sandbox up --no-daemons "$SB" 2>/dev/null &&
	rpc r9 reply10 >/dev/null && test_grep -v "project_is_down" reply10
'

test_done
