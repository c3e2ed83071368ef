#!/bin/sh
test_description='wseq_wrapper under a real BOINC client runs a shell script and a C program never linked with BOINC: outputs with unforeseen names come back zipped, suspend/resume/abort reach their whole process group, a failing task fails the job with its exit status, and a restarted job skips the task it finished'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"
# Uploaded files stay where the upload handler put them.
sed -i '/<cmd>file_deleter/d' "$PROJECT_DIR/config.xml"
platform=x86_64-pc-linux-gnu
CLIENT=$TRASH_DIRECTORY/clientA

# Task 1: a shell script. It counts its runs, writes outputs with random
# names (one in a directory), and, told "wait:TOKEN", keeps a child running
# and waits for ../../release_TOKEN; told "fail", exits 3.
cat >wtask.sh <<'EOF'
#!/bin/sh
echo "args: $*"
[ "$1" = "first task" ] || exit 90
n=$(cat count1 2>/dev/null || echo 0)
echo $((n + 1)) >count1
suffix=$(od -An -tx4 -N4 /dev/urandom | tr -d ' ')
echo "script output $WTEST_VAR" >"res_$suffix.txt"
mkdir "resdir_$suffix" && echo inner >"resdir_$suffix/inner.txt"
echo 0.5 >frac
echo "script ran" >>model.state
case $2 in
fail) exit 3 ;;
wait:*)
	sleep 3600 &
	while [ ! -e "../../release_${2#wait:}" ]; do sleep 0.2; done ;;
esac
exit 0
EOF

# Task 2: a C program, never linked with BOINC; "cwait:TOKEN" makes it wait likewise.
cat >wtask.c <<'EOF'
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char name[128], rel[256];
	int n = 0;
	FILE *f = fopen("count2", "r");
	if (f) { if (fscanf(f, "%d", &n) != 1) n = 0; fclose(f); }
	f = fopen("count2", "w"); fprintf(f, "%d\n", n + 1); fclose(f);
	snprintf(name, sizeof(name), "out_%ld_%d.dat", (long)time(NULL), (int)getpid());
	f = fopen(name, "w"); fprintf(f, "C output for %s\n", mode); fclose(f);
	if (!strncmp(mode, "cwait:", 6)) {
		snprintf(rel, sizeof(rel), "../../release_%s", mode + 6);
		while (access(rel, F_OK) != 0)
			usleep(200000);
	}
	return 0;
}
EOF

cat >job.xml <<'EOF'
<job_desc>
    <task>
        <application>wtask_sh</application>
        <command_line>'first task'</command_line>
        <append_cmdline_args/>
        <stdout_filename>task1.out</stdout_filename>
        <setenv>WTEST_VAR=hello world</setenv>
        <fraction_done_filename>frac</fraction_done_filename>
    </task>
    <task>
        <application>wtask_c</application>
        <append_cmdline_args/>
    </task>
    <zip_output>
        <filename>res_*</filename>
        <filename>resdir_*</filename>
        <filename>out_*</filename>
        <filename>count*</filename>
    </zip_output>
    <state_file><name>model.state</name><in>state_in</in><out>state_out</out></state_file>
</job_desc>
EOF

test_expect_success 'a wrapper app version registers: wseq_wrapper, job.xml and two programs' '
	vdir="$PROJECT_DIR/apps/wrapjob/wrapjob_1.00_$platform" &&
	mkdir -p "$vdir" &&
	cp "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_wrapper" "$vdir/wseq_wrapper_1.00" &&
	cp job.xml "$vdir/wrapjob_job_1.00.xml" &&
	cp wtask.sh "$vdir/wtask_1.00.sh" &&
	cc -o "$vdir/wtask_c_1.00" wtask.c &&
	cat >"$vdir/version.xml" <<-EOT &&
	<version>
	    <file><physical_name>wseq_wrapper_1.00</physical_name><main_program/></file>
	    <file><physical_name>wrapjob_job_1.00.xml</physical_name><logical_name>job.xml</logical_name></file>
	    <file><physical_name>wtask_1.00.sh</physical_name><logical_name>wtask_sh</logical_name></file>
	    <file><physical_name>wtask_c_1.00</physical_name><logical_name>wtask_c</logical_name></file>
	    <is_wrapper/>
	</version>
	EOT
	cat >"$PROJECT_DIR/project.xml" <<-EOT &&
	<boinc>
	  <app><name>wrapjob</name><user_friendly_name>wrapped job</user_friendly_name></app>
	  <platform><name>$platform</name><user_friendly_name>Linux x86_64</user_friendly_name></platform>
	</boinc>
	EOT
	cat >"$PROJECT_DIR/templates/wrapjob_in" <<-EOT &&
	<input_template>
	    <file_info><number>0</number></file_info>
	    <workunit>
	        <file_ref><file_number>0</file_number><open_name>state_in</open_name></file_ref>
	        <rsc_fpops_est>1e9</rsc_fpops_est>
	        <rsc_fpops_bound>1e15</rsc_fpops_bound>
	        <rsc_memory_bound>100000000</rsc_memory_bound>
	        <rsc_disk_bound>100000000</rsc_disk_bound>
	        <delay_bound>3600</delay_bound>
	    </workunit>
	</input_template>
	EOT
	cat >"$PROJECT_DIR/templates/wrapjob_out" <<-EOT &&
	<output_template>
	    <file_info>
	        <name><OUTFILE_0/></name>
	        <generated_locally/>
	        <upload_when_present/>
	        <max_nbytes>1000000</max_nbytes>
	        <url><UPLOAD_URL/></url>
	    </file_info>
	    <file_info>
	        <name><OUTFILE_1/></name>
	        <generated_locally/>
	        <upload_when_present/>
	        <max_nbytes>100000</max_nbytes>
	        <url><UPLOAD_URL/></url>
	    </file_info>
	    <result>
	        <file_ref><file_name><OUTFILE_0/></file_name><open_name>wseq_outputs.zip</open_name></file_ref>
	        <file_ref><file_name><OUTFILE_1/></file_name><open_name>state_out</open_name></file_ref>
	    </result>
	</output_template>
	EOT
	test_project bin/xadd >setup.log 2>&1 &&
	test_project bin/update_versions >>setup.log 2>&1 &&
	test "$(test_sql_value "select count(*) from app_version")" = 1 &&
	test_sql_value "select xml_doc from app_version" >av.xml &&
	test_grep "<is_wrapper/>" av.xml &&
	test_grep "<open_name>job.xml</open_name>" av.xml &&
	test_project bin/start
'

result_of() {
	test_sql_value "select r.name from result r join workunit w on w.id=r.workunitid where w.name='$1' order by r.id limit 1"
}
reported() {
	test "$(test_sql_value "select count(*) from result r join workunit w on w.id=r.workunitid where w.name='$1' and r.server_state=5")" = 1
}
both_reported() { reported job_zip && reported job_fail; }

test_expect_success 'a client runs a job that succeeds and one whose first task fails' '
	echo input >in_file &&
	test_project bin/create_work --appname wrapjob --wu_name job_zip --min_quorum 1 --target_nresults 1 \
		--command_line plain "$TRASH_DIRECTORY/in_file" &&
	test_project bin/create_work --appname wrapjob --wu_name job_fail --min_quorum 1 --target_nresults 1 --max_error_results 1 \
		--command_line fail "$TRASH_DIRECTORY/in_file" &&
	test_boinc_client_up clientA &&
	test_boinc_attach clientA "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_boinc_poll clientA "$PROJECT_URL" 120 both_reported || {
		test_sql "$WSEQ_DB_NAME" -e "select name, server_state, outcome, exit_status from result" >&2
		tail -n 40 "$CLIENT/client.log" >&2
		return 1
	}
'

test_expect_success 'the failing task makes the result a computation error with its exit status' '
	test "$(test_sql_value "select concat(outcome, \" \", exit_status) from result where name=\"$(result_of job_fail)\"")" = "3 3"
'

assimilated() {
	test -s "$PROJECT_DIR/results/job_zip/wseq_outputs.zip"
}

test_expect_success 'the zip of outputs reaches the upload directory and is assimilated' '
	test "$(test_sql_value "select outcome from result where name=\"$(result_of job_zip)\"")" = 1 &&
	find "$PROJECT_DIR/upload" -type f -name "$(result_of job_zip)_0" >uploaded &&
	test_line_count = 1 uploaded &&
	test_wait_for 60 assimilated &&
	cmp "$(cat uploaded)" "$PROJECT_DIR/results/job_zip/wseq_outputs.zip"
'

test_expect_success 'zip_unpack gives exactly the new files that match, with their content' '
	wseq_test unzip "$(cat uploaded)" unpacked &&
	(cd unpacked && find . -type f | sed -e "s|^\./||" | sort) >files &&
	sed -e "s/_[0-9a-f]*\.txt$/_X.txt/" -e "s|^resdir_[0-9a-f]*/|resdir_X/|" \
		-e "s/^out_[0-9_]*\.dat$/out_Y.dat/" files >names &&
	cat >expect <<-EOF &&
	count1
	count2
	out_Y.dat
	res_X.txt
	resdir_X/inner.txt
	EOF
	test_cmp expect names &&
	echo "script output hello world" >expect &&
	test_cmp expect unpacked/res_*.txt &&
	echo "C output for plain" >expect &&
	test_cmp expect unpacked/out_*.dat &&
	echo inner >expect &&
	test_cmp expect unpacked/resdir_*/inner.txt &&
	echo 1 >expect &&
	test_cmp expect unpacked/count1 &&
	unzip -l "$(cat uploaded)" >listing &&
	! grep -e "job.xml\|wtask\|stderr.txt\|task1.out\|frac\|wrapper_checkpoint\|wseq_wrapper_files\|state" listing
'

test_expect_success 'the state file went in from state_in and came out as state_out' '
	printf "input\nscript ran\n" >expect &&
	test_cmp expect "$PROJECT_DIR/results/job_zip/state_out"
'

# The states of the processes of a process group, one a line.
group_states() {
	for p in $(pgrep -g "$1"); do
		sed -e "s/^.*) //" -e "s/ .*//" "/proc/$p/stat" 2>/dev/null
	done
}
all_stopped() {
	s=$(group_states "$1") && test -n "$s" && ! echo "$s" | grep -qv T
}
none_stopped() {
	s=$(group_states "$1") && test -n "$s" && ! echo "$s" | grep -q T
}
group_gone() {
	test -z "$(pgrep -g "$1")"
}

test_expect_success 'a job that waits runs: its script and the child it started' '
	test_project bin/create_work --appname wrapjob --wu_name job_susp --min_quorum 1 --target_nresults 1 \
		--command_line wait:susp1 "$TRASH_DIRECTORY/in_file" &&
	test_boinc_poll clientA "$PROJECT_URL" 120 pgrep -f "first task wait:susp1" &&
	pg=$(pgrep -f "first task wait:susp1") &&
	echo "$pg" >pg &&
	test_wait_for 20 pgrep -g "$pg" -f "sleep 3600" &&
	wrapper=$(ps -o ppid= -p "$pg" | tr -d " ") &&
	echo "$wrapper" >wrapper &&
	grep -q wseq_wrapper "/proc/$wrapper/cmdline"
'

test_expect_success 'suspend stops every process of the task group, not the wrapper' '
	test_boinccmd clientA --task "$PROJECT_URL" "$(result_of job_susp)" suspend &&
	test_wait_for 30 all_stopped "$(cat pg)" &&
	test "$(sed -e "s/^.*) //" -e "s/ .*//" "/proc/$(cat wrapper)/stat")" != T
'

test_expect_success 'resume lets them all run again' '
	test_boinccmd clientA --task "$PROJECT_URL" "$(result_of job_susp)" resume &&
	test_wait_for 30 none_stopped "$(cat pg)"
'

test_expect_success 'abort leaves no process behind' '
	test_boinccmd clientA --task "$PROJECT_URL" "$(result_of job_susp)" abort &&
	test_wait_for 60 group_gone "$(cat pg)" &&
	test_wait_for 60 test_pid_gone "$(cat wrapper)" &&
	! pgrep -f "wait:susp1"
'

test_expect_success 'a job is killed with its client after its first task: nothing survives' '
	test_project bin/create_work --appname wrapjob --wu_name job_ckpt --min_quorum 1 --target_nresults 1 \
		--command_line cwait:ck1 "$TRASH_DIRECTORY/in_file" &&
	test_boinc_poll clientA "$PROJECT_URL" 120 pgrep -f "wtask_c.* cwait:ck1" &&
	c=$(pgrep -f "wtask_c.* cwait:ck1") &&
	wrapper=$(ps -o ppid= -p "$c" | tr -d " ") &&
	slot=$(readlink "/proc/$c/cwd") &&
	test "$(cat "$slot/count1")" = 1 &&
	test_grep "^1 " "$slot/wrapper_checkpoint.txt" &&
	kill -9 "$(cat "$CLIENT/client.pid")" &&
	test_wait_for 60 test_pid_gone "$wrapper" &&
	test_wait_for 30 group_gone "$c" &&
	! pgrep -f "cwait:ck1" &&
	test_boinc_client_kill clientA
'

ckpt_done() {
	reported job_ckpt && test -s "$PROJECT_DIR/results/job_ckpt/wseq_outputs.zip"
}

test_expect_success 'the restarted client reruns only the unfinished task' '
	test_boinc_client_up clientA &&
	test_wait_for 120 pgrep -f "wtask_c.* cwait:ck1" &&
	touch "$CLIENT/release_ck1" &&
	test_boinc_poll clientA "$PROJECT_URL" 120 ckpt_done &&
	test "$(test_sql_value "select outcome from result where name=\"$(result_of job_ckpt)\"")" = 1 &&
	wseq_test unzip "$PROJECT_DIR/results/job_ckpt/wseq_outputs.zip" ckpt &&
	echo 1 >expect && test_cmp expect ckpt/count1 &&
	echo 2 >expect && test_cmp expect ckpt/count2 &&
	ls ckpt/out_*.dat >outs && test_line_count = 2 outs &&
	printf "input\nscript ran\n" >expect &&
	test_cmp expect "$PROJECT_DIR/results/job_ckpt/state_out"
'

test_expect_success 'the client logged no other job errors' '
	! grep -i "missing signature\|Output file .* absent" "$CLIENT/client.log" | grep -v job_fail
'

test_done
