#!/bin/sh
test_description='state levels: a template with full every 6 and delta every 2 -- its errors, what each segment uploads, the restart point the scheduler keeps and the relocation from the finest level (delta_8 + full_6)'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"

create() {
	test_project bin/create_sequence --appname wseq_sample --segments 12 --answer_every 1 \
		--state_upload_every 6 --rsc_fpops_est 1e9 --max_result_time 3600 \
		--command_line "--state --aux" "$@"
}
inits="$TRASH_DIRECTORY/init/state_out $TRASH_DIRECTORY/init/aux"
state() { printf "<state><open_name_in>%s_in</open_name_in><open_name_out>%s_out</open_name_out>%s</state>\n" "$1" "$1" "$2"; }
level() { printf "<level><name>%s</name><upload_every>%s</upload_every></level>\n" "$1" "$2"; }
# template NAME LINES...: templates/NAME, one line each
template() {
	f="$PROJECT_DIR/templates/$1" && shift &&
	{ echo "<sequence_template>" && for l in "$@"; do echo "$l"; done &&
	  echo "<answer><open_name>answer</open_name></answer>" && echo "</sequence_template>"; } >"$f"
}
# xml_of QUERY: a document from the database, its newlines as they are
xml_of() { test_sql "$WSEQ_DB_NAME" --raw -e "$1"; }
no_sequence() { test "$(test_sql_value "select count(*) from sequence where name=\"$1\"")" = 0; }

test_expect_success 'set up: the sample app, two initial states, a template full every 6 / delta every 2' '
	test_setup_sample_app &&
	mkdir init && (cd init && "$APP" --state --init --words 256 2>/dev/null) && echo aux >init/aux &&
	template lv "$(level full 6)" "$(level delta 2)" "$(state state "<level>full</level>")" \
		"$(state aux "<level>delta</level>")"
'

# refused NAME WANT LINES...: a template NAME of these lines is refused by
# create_sequence with WANT in its error, and no sequence is made.
refused() {
	name=$1 want=$2 && shift 2 && template "$name" "$@" &&
	test_must_fail create --seq_name "$name" --seq_template "templates/$name" $inits 2>err &&
	test_grep "$want" err && no_sequence "$name"
}

test_expect_success 'template errors: each refused with its line, no sequence created' '
	refused nonest "templates/nonest:5: state periods do not nest: level \"full\" (every 6, line 2) and level \"delta\" (every 4, line 3)" \
		"$(level full 6)" "$(level delta 4)" "$(state state "<level>full</level>")" \
		"$(state aux "<level>delta</level>")" &&
	refused nonest2 "templates/nonest2:3: state periods do not nest: the state at line 2 (every 4) and the state at line 3 (every 6)" \
		"$(state state "<upload_every>4</upload_every>")" "$(state aux "<upload_every>6</upload_every>")" &&
	refused unused "templates/unused:3: level \"delta\" is a level with no state" \
		"$(level full 6)" "$(level delta 2)" "$(state state "<level>full</level>")" "$(state aux "")" &&
	refused undeclared "templates/undeclared:3: a <state> names level \"delta\", which no <level> declares" \
		"$(state state "")" "$(state aux "<level>delta</level>")" &&
	refused both "templates/both:3: a <state> has a <level> or an <upload_every>, not both" \
		"$(level full 6)" "$(state state "<level>full</level><upload_every>2</upload_every>")" \
		"$(state aux "")" &&
	refused dup "templates/dup:3: level \"full\" is declared twice (first at line 2)" \
		"$(level full 6)" "$(level full 2)" "$(state state "<level>full</level>")" "$(state aux "")" &&
	for bad in 0 -2 2.5 1e7 abc; do
		refused lvbad "templates/lvbad:2: a <level> needs a <name>" "$(level full $bad)" \
			"$(state state "<level>full</level>")" "$(state aux "")" &&
		refused stbad "templates/stbad:2: a <state>'"'"'s <upload_every> is a whole number" \
			"$(state state "<upload_every>$bad</upload_every>")" "$(state aux "")" || return 1
	done
'

test_expect_success 'a state with no level takes --state_upload_every: refused when that does not nest' '
	template withm "$(level full 6)" "$(state state "<level>full</level>")" "$(state aux "")" &&
	test_must_fail create --seq_name M4 --seq_template templates/withm --state_upload_every 4 \
		$inits 2>err &&
	test_grep "M4: --state_upload_every 4 (the states with no level of their own) does not nest with the template'"'"'s levels \"full\" every 6" err &&
	no_sequence M4 &&
	create --seq_name M3 --seq_template templates/withm --state_upload_every 3 $inits &&
	test "$(test_sql_value "select group_concat(seqno order by seqno) from seq_file where name like \"M3\\_b0\\_s%\\_state1\" and upload=1 and seqno>0")" = "3,6,9,12" &&
	test_sql "$WSEQ_DB_NAME" -e "update sequence set state=1 where name=\"M3\""
'

uploads() {
	test_sql_value "select group_concat(seqno order by seqno) from seq_file where seq_id=(select id from sequence where name=\"L\") and name like \"%\\_$1\" and upload=1 and seqno>0"
}
# file_info NAME FILE: the <file_info> of NAME in FILE
file_info() { sed -n "/<name>$1<\/name>/,/<\/file_info>/p" "$2"; }

test_expect_success 'full every 6 / delta every 2 over 12 segments: exactly those uploads, per file' '
	create --seq_name L --seq_template templates/lv $inits &&
	test "$(uploads state)" = "6,12" &&
	test "$(uploads state1)" = "2,4,6,8,10,12" &&
	test "$(uploads answer)" = "1,2,3,4,5,6,7,8,9,10,11,12" &&
	xml_of "select xml_doc_in from result where name=\"L_b0_s6_0\"" >r6 &&
	file_info L_b0_s6_state r6 | grep "<url>.*file_upload_handler</url>" &&
	file_info L_b0_s6_state1 r6 | grep "<url>.*file_upload_handler</url>" &&
	xml_of "select xml_doc_in from result where name=\"L_b0_s4_0\"" >r4 &&
	! file_info L_b0_s4_state r4 | grep "<url>" &&
	file_info L_b0_s4_state1 r4 | grep "<url>.*file_upload_handler</url>" &&
	xml_of "select xml_doc from workunit where name=\"L_b0_s5\"" >w5 &&
	! file_info L_b0_s4_state w5 | grep "<url>" &&
	file_info L_b0_s4_state1 w5 | grep "<url>.*file_upload_handler</url>" &&
	grep -A2 "<file_name>L_b0_s4_state1</file_name>" w5 >ref5 &&
	test_grep "<open_name>aux_in</open_name>" ref5 && test_grep -v "<copy_file/>" ref5 &&
	xml_of "select xml_doc from workunit where name=\"L_b0_s7\"" >w7 &&
	test "$(file_info "L_b0_s6_state1*" w7 | grep -c "<url>.*file_upload_handler</url>")" = 2
'

# put NAME: an output NAME in the upload hierarchy; its <file_info> for a report.
put() {
	path=$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload "$1") &&
	echo "$1 computed" >"$path" &&
	printf "<file_info><name>%s</name><nbytes>%s</nbytes><md5_cksum>%s</md5_cksum></file_info>\n" \
		"$1" "$(wc -c <"$path")" "$(md5sum "$path" | cut -d" " -f1)"
}
# lost NAME: the <file_info> of an output NAME the client says it uploaded, which never arrived
lost() {
	printf "<file_info><name>%s</name><nbytes>100</nbytes><md5_cksum>%s</md5_cksum></file_info>\n" \
		"$1" 0123456789abcdef0123456789abcdef
}
# report SEQ HOST K OUTPUTS...: host HOST (cpid h<HOST>, its id in file HOST)
# reports segment K of SEQ done with OUTPUTS (put, or lost:SUFFIX)
report() {
	seq=$1 host=$2 k=$3 && shift 3 &&
	{ for f in "$@"; do
		case $f in
		lost:*) lost "${seq}_b0_s${k}_${f#lost:}" ;;
		*) put "${seq}_b0_s${k}_$f" || return 1 ;;
		esac
	  done; } >files &&
	CPID=h$host sched_request "$(cat $host)" 2 ${seq}_b0_s${k}_state 1 ${seq}_b0_s${k}_state1 1 >r &&
	sed -i "s|</scheduler_request>|<result><name>${seq}_b0_s${k}_0</name><state>5</state><exit_status>0</exit_status><final_elapsed_time>1</final_elapsed_time>\n$(tr -d "\n" <files)</result>\n</scheduler_request>|" r &&
	sched_rpc r reply && test_grep "<result_ack>" reply
}
last_state() { test_sql_value "select last_state_seqno from sequence where name=\"$1\""; }

test_expect_success 'the scheduler: each finest-level upload is a restart point, a segment with none is not' '
	CPID=hA sched_request 0 >r && sched_rpc r reply && sched_reply_hostid reply >A &&
	test "$(sched_reply_jobs reply | tr "\n" " ")" = "L_b0_s1_0 L_b0_s2_0 " &&
	report L A 1 answer && test "$(last_state L)" = 0 &&
	report L A 2 answer state1 && test "$(last_state L)" = 2 &&
	report L A 3 answer && report L A 4 answer state1 && test "$(last_state L)" = 4 &&
	report L A 5 answer && report L A 6 answer state1 state && test "$(last_state L)" = 6 &&
	report L A 7 answer && report L A 8 answer state1 && test "$(last_state L)" = 8 &&
	report L A 9 answer && test "$(last_state L)" = 8
'

test_expect_success 'a full state that never arrived: neither its segment nor a later delta is a restart point' '
	create --seq_name L2 --seq_template templates/lv $inits &&
	CPID=hB sched_request 0 >r && sched_rpc r reply && sched_reply_hostid reply >B &&
	test "$(sched_reply_jobs reply | tr "\n" " ")" = "L2_b0_s1_0 L2_b0_s2_0 " &&
	for k in 1 2 3 4 5; do
		report L2 B $k answer $(test $((k % 2)) = 0 && echo state1) || return 1
	done &&
	test "$(last_state L2)" = 4 &&
	report L2 B 6 answer state1 lost:state && test "$(last_state L2)" = 4 &&
	test "$(test_sql_value "select uploaded from seq_file where name=\"L2_b0_s6_state\"")" = 0 &&
	report L2 B 7 answer && report L2 B 8 answer state1 && test "$(last_state L2)" = 4 &&
	test "$(test_sql_value "select uploaded from seq_file where name=\"L2_b0_s8_state1\"")" = 1
'

test_expect_success 'a state its segment does not upload is not taken (full_10); full_12 makes 12 a restart point again' '
	report L2 B 9 answer && report L2 B 10 answer state1 state &&
	test "$(test_sql_value "select uploaded from seq_file where name=\"L2_b0_s10_state\"")" = 0 &&
	test "$(last_state L2)" = 4 &&
	report L2 B 11 answer && report L2 B 12 answer state1 state &&
	test "$(test_sql_value "select concat(state, \" \", last_state_seqno) from sequence where name=\"L2\"")" = "1 12"
'

relocated() {
	test "$(test_sql_value "select concat(branch, \" \", hostid, \" \", first_unsent_seqno) from sequence where name=\"L\"")" = "1 0 9"
}

test_expect_success 'host A lost after segment 9: the new branch starts at 9 from delta_8 + full_6' '
	test "$(test_sql_value "select server_state from result where name=\"L_b0_s10_0\"")" = 4 &&
	(cd "$PROJECT_DIR" && WSEQ_TIME_OFFSET=100000 bin/transitioner --one_pass) &&
	test "$(test_sql_value "select need_relocate from sequence where name=\"L\"")" = 1 &&
	test_project bin/relocator --one_pass -d 2 2>relocator.err &&
	relocated &&
	test_grep "sequence L: relocating (a segment missed its deadline): branch 1 from segment 9 (inputs L_b0_s6_state, L_b0_s8_state1)" relocator.err &&
	xml_of "select xml_doc from workunit where name=\"L_b1_s9\"" >w9 &&
	file_info L_b0_s6_state w9 | grep "<url>.*download/.*/L_b0_s6_state</url>" &&
	file_info L_b0_s8_state1 w9 | grep "<url>.*download/.*/L_b0_s8_state1</url>" &&
	grep -A1 "<file_name>L_b0_s6_state</file_name>" w9 | grep "<open_name>state_in</open_name>" &&
	grep -A1 "<file_name>L_b0_s8_state1</file_name>" w9 | grep "<open_name>aux_in</open_name>" &&
	xml_of "select xml_doc_in from result where name=\"L_b1_s9_0\"" >r9 &&
	! file_info L_b1_s9_state r9 | grep "<url>" && ! file_info L_b1_s9_state1 r9 | grep "<url>" &&
	test_project bin/db_check
'

test_expect_success 'db_check follows the levels: without full_6 the new branch has nothing to start from' '
	test_sql "$WSEQ_DB_NAME" -e "update seq_file set uploaded=0 where name=\"L_b0_s6_state\"" &&
	test_must_fail test_project bin/db_check >check &&
	test_grep "no host holds it and the states after segment 8, which segment 9 starts from, are not on the server" check &&
	test_sql "$WSEQ_DB_NAME" -e "update seq_file set uploaded=1 where name=\"L_b0_s6_state\"" &&
	test_project bin/db_check
'

# A state reported uploaded that never arrived makes its segment invalid
# (the validator finds the output missing): the sequence goes back to the
# latest restart point before it, by the same rule -- 4: full from the
# initial state (segment 0), delta from segment 4.
validated_to() { test "$(test_sql_value "select first_unvalidated_seqno from sequence where name=\"L3\"")" = "$1"; }
test_expect_success 'the validator: full_6 missing makes 6 invalid; L3 restarts at 5 from full_0 + delta_4' '
	test_sql "$WSEQ_DB_NAME" -e "update sequence set state=1 where name=\"L\"" &&
	create --seq_name L3 --seq_template templates/lv $inits &&
	CPID=hC sched_request 0 >r && sched_rpc r reply && sched_reply_hostid reply >C &&
	test "$(sched_reply_jobs reply | tr "\n" " ")" = "L3_b0_s1_0 L3_b0_s2_0 " &&
	for k in 1 2 3 4 5 6 7 8; do
		case $k in
		6) report L3 C 6 answer state1 lost:state ;;
		*) report L3 C $k answer $(test $((k % 2)) = 0 && echo state1) ;;
		esac || return 1
	done &&
	test "$(last_state L3)" = 4 &&
	test_project bin/transitioner --one_pass 2>/dev/null &&
	test_project bin/validator --one_pass 2>validator.err &&
	test_grep "L3_b0_s6_0.* invalid" validator.err && validated_to 6 &&
	test "$(test_sql_value "select concat(need_relocate, \" \", last_state_seqno) from sequence where name=\"L3\"")" = "2 4" &&
	test_project bin/relocator --one_pass -d 2 2>relocator3.err &&
	test_grep "sequence L3: relocating (a segment failed or was invalid, or the host lost the state): branch 1 from segment 5 (inputs L3_b0_s0_state, L3_b0_s4_state1)" relocator3.err &&
	test_project bin/db_check
'

test_done
