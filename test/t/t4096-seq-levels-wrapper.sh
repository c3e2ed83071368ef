#!/bin/sh
test_description='a shell script under wseq_wrapper keeps a full state and a delta from the WSEQ_* variables, on real clients, across a relocation'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' "$PROJECT_DIR/config.xml"
platform=x86_64-pc-linux-gnu

# The model: a number, advanced by v = (3 v + k) mod 1000003 in segment k.
# full.dat holds it as of the last full point, delta.dat the difference
# since. Told by ../../block_K (in the client's directory), segment K
# blocks for good: the hook at which the test kills its client.
cat >lvl.sh <<'EOF'
#!/bin/sh
k=$WSEQ_SEGMENT
[ -n "$k" ] || { echo "no WSEQ_SEGMENT" >&2; exit 5; }
[ "$WSEQ_STATE0_NAME $WSEQ_STATE1_NAME $WSEQ_NSTATES" = "full.dat delta.dat 2" ] || exit 6
while [ -e "../../block_$k" ]; do sleep 1; done
full=$(cat full.dat) && delta=$(cat delta.dat) || exit 7
v=$(( (3 * (full + delta) + k) % 1000003 ))
[ "$WSEQ_STATE0_UPLOAD" = 1 ] && echo "$v" >full.dat
echo $(( v - $(cat full.dat) )) >delta.dat
echo "segment $k full_from $WSEQ_STATE0_FROM delta_from $WSEQ_STATE1_FROM" \
	"full_up $WSEQ_STATE0_UPLOAD delta_up $WSEQ_STATE1_UPLOAD level $WSEQ_STATE0_LEVEL value $v"
EOF

cat >job.xml <<'EOF'
<job_desc>
    <task><application>lvl_sh</application><stdout_filename>answer</stdout_filename></task>
    <state_file><name>full.dat</name><in>full_in</in><out>full_out</out>
        <level>full</level><upload_every>3</upload_every></state_file>
    <state_file><name>delta.dat</name><in>delta_in</in><out>delta_out</out>
        <level>delta</level><upload_every>1</upload_every></state_file>
</job_desc>
EOF

test_expect_success 'a wrapper app and a 6-segment sequence: full every 3, delta every segment' '
	test_project bin/start &&
	vdir="$PROJECT_DIR/apps/lvlwrap/lvlwrap_1.00_$platform" && mkdir -p "$vdir" &&
	cp "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_wrapper" "$vdir/wseq_wrapper_1.00" &&
	cp job.xml "$vdir/lvlwrap_job_1.00.xml" && cp lvl.sh "$vdir/lvl_1.00.sh" &&
	cat >"$vdir/version.xml" <<-EOT &&
	<version>
	    <file><physical_name>wseq_wrapper_1.00</physical_name><main_program/></file>
	    <file><physical_name>lvlwrap_job_1.00.xml</physical_name><logical_name>job.xml</logical_name></file>
	    <file><physical_name>lvl_1.00.sh</physical_name><logical_name>lvl_sh</logical_name></file>
	    <is_wrapper/>
	</version>
	EOT
	cat >"$PROJECT_DIR/project.xml" <<-EOT &&
	<boinc>
	  <app><name>lvlwrap</name><user_friendly_name>levels under the wrapper</user_friendly_name></app>
	  <platform><name>$platform</name><user_friendly_name>Linux x86_64</user_friendly_name></platform>
	</boinc>
	EOT
	(cd "$PROJECT_DIR" && bin/xadd && bin/update_versions) >setup.log 2>&1 &&
	cat >"$PROJECT_DIR/templates/lvlwrap_seq" <<-\EOT &&
	<sequence_template>
	  <state><open_name_in>full_in</open_name_in><open_name_out>full_out</open_name_out>
	    <upload_every>3</upload_every></state>
	  <state><open_name_in>delta_in</open_name_in><open_name_out>delta_out</open_name_out>
	    <upload_every>1</upload_every></state>
	  <answer><open_name>answer</open_name></answer>
	</sequence_template>
	EOT
	echo 1 >full0 && echo 0 >delta0 &&
	test_project bin/create_sequence --appname lvlwrap --seq_name W --segments 6 \
		--answer_every 1 --seq_template templates/lvlwrap_seq \
		--rsc_fpops_est 1e9 --max_result_time 3600 --delay_bound 60 \
		"$TRASH_DIRECTORY/full0" "$TRASH_DIRECTORY/delta0"
'

seg_done() { test_seg_done W "$1"; }
five_done_six_running() {
	seg_done 5 && grep -q "Starting task W_b0_s6_0" A/client.log
}
answer() {
	cat "$(find "$PROJECT_DIR/upload" -name "W_b$1_s$2_answer")"
}

test_expect_success 'client A runs 5 segments, told by WSEQ_* which segment and which level uploads' '
	mkdir -p A && : >A/block_6 &&
	test_boinc_client_up A &&
	test_boinc_attach A "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_wait_for 300 five_done_six_running &&
	pid=$(cat A/client.pid) &&
	test_boinc_client_kill A &&
	test_wait_for 10 test_pid_gone "$pid" &&
	answer 0 1 >a1 && test_grep "^segment 1 full_from 0 delta_from 0 full_up 0 delta_up 1 level full value " a1 &&
	answer 0 3 >a3 && test_grep "^segment 3 full_from 2 delta_from 2 full_up 1 delta_up 1 level full value " a3 &&
	answer 0 5 >a5 && test_grep "^segment 5 full_from 4 delta_from 4 full_up 0 delta_up 1 level full value " a5 &&
	test "$(cat "$(find "$PROJECT_DIR/upload" -name W_b0_s3_state)")" = "$(sed "s/.* value //" a3)" &&
	# (delta_3 may be gone already, superseded by delta_4: its row keeps its MD5)
	test "$(test_sql_value "select md5_cksum from seq_file where name=\"W_b0_s3_state1\"")" = \
		"$(echo 0 | md5sum | cut -d " " -f 1)" &&
	test -z "$(find "$PROJECT_DIR/upload" -name W_b0_s4_state)"
'

seq_ended() {
	test "$(test_sql_value "select state from sequence where name=\"W\"")" = 1
}

relocated() {
	test "$(test_sql_value "select concat(branch, \" \", hostid) from sequence where name=\"W\"")" = "1 0"
}

test_expect_success 'relocated, segment 6 on client B reads full of 3 and delta of 5; the values are right' '
	test_wait_for 300 relocated &&
	test_grep "sequence W: relocating .* from segment 6 (inputs W_b0_s3_state, W_b0_s5_state1)" \
		"$PROJECT_DIR/log/relocator.log" &&
	test_boinc_client_up B &&
	test_boinc_attach B "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_wait_for 300 seq_ended &&
	answer 1 6 >a6 &&
	test_grep "^segment 6 full_from 3 delta_from 5 full_up 1 delta_up 1 level full value " a6 &&
	v=1 && for k in 1 2 3 4 5 6; do v=$(( (3 * v + k) % 1000003 )); done &&
	test "$(sed "s/.* value //" a6)" = $v &&
	test_sql_value "select stderr_out from result where name=\"W_b1_s6_0\"" >err6 &&
	test_grep "segment 6 of a work sequence" err6
'

test_done
