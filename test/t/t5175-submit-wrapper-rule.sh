#!/bin/sh
test_description='a submitter with rights only to an admin-wrapped app cannot choose what wseq_wrapper runs: a command line --job_file in with a job file of their own as input is refused at submit with the reason, and a workunit forged in the database with it is not sent by the scheduler but cancelled, its reason logged; an ordinary job of the app still runs on a real BOINC client'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"
URL="${PROJECT_URL%/}/"
platform=x86_64-pc-linux-gnu
CLIENT=$TRASH_DIRECTORY/clientA

rpc() {
	curl -sS -F "request=<req.xml" "${URL}submit_rpc_handler.php" >out
}
req() {
	printf '%s\n' "$1" >req.xml
}
md5() {
	md5sum <"$1" | cut -c1-32
}
# submit BATCH JOB COMMAND_LINE SOURCE: one job of the wrapped app, by Mallory
submit() {
	req "<submit_batch><authenticator>$(cat mallory_key)</authenticator><batch><batch_name>$1</batch_name><app_name>wrapped</app_name><job><name>$2</name><command_line>$3</command_line><input_file><mode>local_staged</mode><source>$4</source></input_file></job></batch></submit_batch>" &&
	rpc
}
refused() {
	grep -q "<error_msg>$1" out || {
		echo "not refused with '$1':" >&2
		cat out >&2
		return 1
	}
}
made() {
	test_sql_value "select name from batch order by id; select name from workunit order by id"
}

# The admin's job file: the worker of the app version, with the job's arguments.
cat >job.xml <<'EOF2'
<job_desc>
    <task>
        <application>worker</application>
        <append_cmdline_args/>
    </task>
    <zip_output><filename>out.txt</filename></zip_output>
</job_desc>
EOF2
printf '#!/bin/sh\n{ echo "worker: $*"; cat in; } >out.txt\n' >worker.sh

# Mallory's: a job file that runs a shell, and the mark it leaves where it ran.
cat >evil.xml <<EOF2
<job_desc>
    <task>
        <application>/bin/sh</application>
        <command_line>-c 'touch $TRASH_DIRECTORY/PWNED'</command_line>
    </task>
</job_desc>
EOF2

test_expect_success 'setup: an admin-wrapped app; Mallory may submit to it only, not bring an executable; her job file uploaded' '
	vdir="$PROJECT_DIR/apps/wrapped/wrapped_1.00_$platform" &&
	mkdir -p "$vdir" &&
	cp "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_wrapper" "$vdir/wseq_wrapper_1.00" &&
	cp job.xml "$vdir/wrapped_job_1.00.xml" &&
	cp worker.sh "$vdir/wrapped_worker_1.00.sh" &&
	cat >"$vdir/version.xml" <<-EOT &&
	<version>
	    <file><physical_name>wseq_wrapper_1.00</physical_name><main_program/></file>
	    <file><physical_name>wrapped_job_1.00.xml</physical_name><logical_name>job.xml</logical_name></file>
	    <file><physical_name>wrapped_worker_1.00.sh</physical_name><logical_name>worker</logical_name></file>
	    <is_wrapper/>
	</version>
	EOT
	cat >"$PROJECT_DIR/project.xml" <<-EOT &&
	<boinc>
	  <app><name>wrapped</name><user_friendly_name>wrapped by the admin</user_friendly_name></app>
	  <platform><name>$platform</name><user_friendly_name>Linux x86_64</user_friendly_name></platform>
	</boinc>
	EOT
	cat >"$PROJECT_DIR/templates/wrapped_in" <<-EOT &&
	<input_template>
	    <file_info><number>0</number></file_info>
	    <workunit>
	        <file_ref><file_number>0</file_number><open_name>in</open_name><copy_file/></file_ref>
	        <min_quorum>1</min_quorum>
	        <target_nresults>1</target_nresults>
	        <rsc_fpops_est>1e9</rsc_fpops_est>
	        <delay_bound>3600</delay_bound>
	    </workunit>
	</input_template>
	EOT
	cat >"$PROJECT_DIR/templates/wrapped_out" <<-EOT &&
	<output_template>
	    <file_info>
	        <name><OUTFILE_0/></name>
	        <generated_locally/>
	        <upload_when_present/>
	        <max_nbytes>1000000</max_nbytes>
	        <url><UPLOAD_URL/></url>
	    </file_info>
	    <result>
	        <file_ref><file_name><OUTFILE_0/></file_name><open_name>wseq_outputs.zip</open_name></file_ref>
	    </result>
	</output_template>
	EOT
	test_project bin/xadd >setup.log 2>&1 &&
	test_project bin/update_versions >>setup.log 2>&1 &&
	printf "%s" "mallorys password" >pw &&
	test_project bin/account create --email mallory@example.org --name Mallory --password_file "$TRASH_DIRECTORY/pw" >mallory.out &&
	sed -n "s/^account_key //p" mallory.out >mallory_key && test -s mallory_key &&
	test_project bin/account grant --email mallory@example.org --submit_rights wrapped &&
	test "$(test_sql_value "select s.submit_all, s.any_executable from user_submit s join user u on u.id=s.user_id where u.email_addr=\"mallory@example.org\"")" = "0	0" &&
	me=$(md5 evil.xml) && echo "$me" >me &&
	req "<upload_files><authenticator>$(cat mallory_key)</authenticator><phys_name>$me.dat</phys_name></upload_files>" &&
	curl -sS -F "request=<req.xml" -F "file_0=@evil.xml" "${URL}job_file.php" | grep "<success/>" &&
	echo "hello from the input" >in.txt && mi=$(md5 in.txt) && echo "$mi" >mi &&
	req "<upload_files><authenticator>$(cat mallory_key)</authenticator><phys_name>$mi.txt</phys_name></upload_files>" &&
	curl -sS -F "request=<req.xml" -F "file_0=@in.txt" "${URL}job_file.php" | grep "<success/>"
'
ME=$(cat me 2>/dev/null)
MI=$(cat mi 2>/dev/null)

test_expect_success 'refused at submit: --job_file in the command line, however quoted, with her job file as input; nothing is made, the refusal logged' '
	made >before &&
	submit m1 mj1 "--job_file in" "$ME.dat" &&
	refused "job 0: its command line names the wrapper&apos;s option --job_file" &&
	submit m1 mj1 "x &quot;--job_&quot;file in" "$ME.dat" &&
	refused "job 0: its command line names the wrapper" &&
	submit m1 mj1 "x --job_file=in" "$ME.dat" &&
	refused "job 0: its command line names the wrapper" &&
	made >after && test_cmp before after &&
	test_grep "job 0 refused: its command line names the wrapper.s option --job_file" "$PROJECT_DIR/log/submit.log"
'

test_expect_success 'a sequence app'"'"'s job: the same refusal, nothing is made' '
	cat >"$PROJECT_DIR/project.xml" <<-EOT &&
	<boinc>
	  <app><name>wrapseq</name><user_friendly_name>a sequence app</user_friendly_name></app>
	</boinc>
	EOT
	cp "$WSEQ_SRCDIR/apps/templates/wseq_sample_in" "$PROJECT_DIR/templates/wrapseq_in" &&
	cp "$WSEQ_SRCDIR/apps/templates/wseq_sample_out" "$PROJECT_DIR/templates/wrapseq_out" &&
	printf "<sequence_app><segments>3</segments></sequence_app>\n" >"$PROJECT_DIR/templates/wrapseq_seq" &&
	test_project bin/xadd >>setup.log 2>&1 &&
	test_project bin/account grant --email mallory@example.org --submit_rights wrapseq &&
	made >before &&
	req "<submit_batch><authenticator>$(cat mallory_key)</authenticator><batch><batch_name>s1</batch_name><app_name>wrapseq</app_name><job><name>sj1</name><command_line>--job_file in</command_line><input_file><mode>local_staged</mode><source>$ME.dat</source></input_file></job></batch></submit_batch>" &&
	rpc && refused "job 0: its command line names the wrapper" &&
	test "$(test_sql_value "select count(*) from sequence")" = 0 &&
	made >after && test_cmp before after &&
	req "<submit_batch><authenticator>$(cat mallory_key)</authenticator><batch><batch_name>s2</batch_name><app_name>wrapseq</app_name><job><name>sj2</name><command_line>--steps 3</command_line><input_file><mode>local_staged</mode><source>$MI.txt</source></input_file></job></batch></submit_batch>" &&
	rpc && grep "<batch_id>" out &&
	test "$(test_sql_value "select count(*) from sequence where name=\"sj2\"")" = 1
'

test_expect_success 'an ordinary command line for the same app is accepted' '
	submit m2 mj2 "plain args" "$MI.txt" && grep "<batch_id>" out
'

forged_cancelled() {
	test "$(test_sql_value "select error_mask from workunit where name=\"forged\"")" = 16
}
ordinary_done() {
	test "$(test_sql_value "select count(*) from result r join workunit w on w.id=r.workunitid where w.name=\"mj2\" and r.server_state=5 and r.outcome=1")" = 1
}

ordinary_done_forged_cancelled() {
	ordinary_done && forged_cancelled
}
others_cancelled() {
	test "$(test_sql_value "select count(*) from workunit where name in (\"forged2\", \"forged3\") and error_mask=16")" = 2
}

test_expect_success 'a workunit forged in the database with --job_file in is not sent: cancelled, its reason logged; the ordinary job runs on a real client' '
	test_project bin/create_work --appname wrapped --wu_name forged --command_line "plain" "$TRASH_DIRECTORY/evil.xml" &&
	test_sql "$WSEQ_DB_NAME" -e "update workunit set xml_doc=replace(xml_doc, \"<command_line>plain</command_line>\", \"<command_line>--job_file in</command_line>\"), priority=10 where name=\"forged\"" &&
	test_sql_value "select xml_doc from workunit where name=\"forged\"" | grep -e "<command_line>--job_file in</command_line>" &&
	test_project bin/start &&
	test_boinc_client_up clientA &&
	test_boinc_attach clientA "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_boinc_poll clientA "$PROJECT_URL" 180 ordinary_done_forged_cancelled &&
	test "$(test_sql_value "select count(*) from result r join workunit w on w.id=r.workunitid where w.name=\"forged\" and r.sent_time>0")" = 0 &&
	test_grep "workunit forged ([0-9]*) not sent but cancelled: its command line names the wrapper.s option --job_file" "$PROJECT_DIR/log/scheduler.log" &&
	test ! -e PWNED
'

test_expect_success 'the ordinary job ran the app version'"'"'s worker with its arguments and input' '
	test_wait_for 60 test -s "$PROJECT_DIR/results/mj2/wseq_outputs.zip" &&
	unzip -p "$PROJECT_DIR/results/mj2/wseq_outputs.zip" out.txt >got &&
	printf "worker: plain args\nhello from the input\n" >expect &&
	test_cmp expect got
'

test_expect_success 'a workunit forged with an input opened as job.xml, or an input marked executable, is not sent either' '
	test_project bin/create_work --appname wrapped --wu_name forged2 "$TRASH_DIRECTORY/evil.xml" &&
	test_project bin/create_work --appname wrapped --wu_name forged3 "$TRASH_DIRECTORY/evil.xml" &&
	test_sql "$WSEQ_DB_NAME" -e "update workunit set xml_doc=replace(xml_doc, \"<open_name>in</open_name>\", \"<open_name>job.xml</open_name>\") where name=\"forged2\";
		update workunit set xml_doc=replace(xml_doc, \"</file_info>\", \"<executable/></file_info>\") where name=\"forged3\"" &&
	test_boinc_poll clientA "$PROJECT_URL" 120 others_cancelled &&
	test_grep "workunit forged2 ([0-9]*) not sent but cancelled: input file open name .job.xml. is the wrapper.s job file" "$PROJECT_DIR/log/scheduler.log" &&
	test_grep "workunit forged3 ([0-9]*) not sent but cancelled: input file .* is marked executable" "$PROJECT_DIR/log/scheduler.log" &&
	test "$(test_sql_value "select count(*) from result r join workunit w on w.id=r.workunitid where w.name like \"forged%\" and r.sent_time>0")" = 0 &&
	test ! -e PWNED
'

seq_cancelled() {
	test "$(test_sql_value "select state from sequence where name=\"sj2\"")" = 2
}

test_expect_success 'a sequence'"'"'s segment forged in the database with --job_file in is not sent: its sequence ends in error, the reason logged' '
	vdir="$PROJECT_DIR/apps/wrapseq/wrapseq_1.00_$platform" &&
	mkdir -p "$vdir" &&
	cp "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_wrapper" "$vdir/wrapseq_wrapper_1.00" &&
	cp job.xml "$vdir/wrapseq_job_1.00.xml" &&
	cp worker.sh "$vdir/wrapseq_worker_1.00.sh" &&
	cat >"$vdir/version.xml" <<-EOT &&
	<version>
	    <file><physical_name>wrapseq_wrapper_1.00</physical_name><main_program/></file>
	    <file><physical_name>wrapseq_job_1.00.xml</physical_name><logical_name>job.xml</logical_name></file>
	    <file><physical_name>wrapseq_worker_1.00.sh</physical_name><logical_name>worker</logical_name></file>
	    <is_wrapper/>
	</version>
	EOT
	test_project bin/update_versions >>setup.log 2>&1 &&
	test "$(test_sql_value "select count(*) from app_version v join app a on a.id=v.appid where a.name=\"wrapseq\"")" = 1 &&
	test_sql "$WSEQ_DB_NAME" -e "update workunit set xml_doc=replace(xml_doc, \"--steps 3\", \"--job_file in\") where name like \"sj2\\_b%\"" &&
	test_sql_value "select xml_doc from workunit where name like \"sj2\\_b%\"" | grep -e "--job_file in" &&
	test_boinc_poll clientA "$PROJECT_URL" 120 seq_cancelled &&
	test_grep "workunit sj2_b0_s1 ([0-9]*) not sent but cancelled: its command line names the wrapper.s option --job_file" "$PROJECT_DIR/log/scheduler.log" &&
	test "$(test_sql_value "select count(*) from result where name like \"sj2\\_b%\" and sent_time>0")" = 0 &&
	test ! -e PWNED
'

test_done
