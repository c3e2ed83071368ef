#!/bin/sh
test_description='the file deleter deletes superseded state versions, never one a restart point needs, killed at random with the relocator'
. "$WSEQ_SRCDIR/test/test-lib.sh"

# Sequences of two state levels -- "full" uploaded every 6th segment,
# "delta" every 3rd -- and an answer, advanced by hand (the uploads are
# rows and files, as the scheduler and the upload handler leave them):
# even sequences are validated up to their last state (K = last_state_seqno),
# odd ones lag two segments behind (K = last_state_seqno - 2, so the delta
# before the last is still needed, and full_12 while K < 18). Some are relocated along the way, one
# ends. After every kill: every version a row says is on the server is on
# disk, and every version a restart point needs is on the server.
test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-ops.sh"
N=10 M=3 LEN=24 FULL=6 DELTA=3

rand() {
	echo $(( $1 + $(od -An -tu2 -N2 /dev/urandom | tr -d " ") % ($2 - $1 + 1) ))
}

upath() {
	test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload "$1"
}

# Every active sequence on branch 0 finishes M more segments: the files
# each segment uploads (its seq_file rows say which) uploaded; results over,
# workunits assimilated -- but q6's from segment 9 on, held back.
advance() {
	test_sql "$WSEQ_DB_NAME" -e "
		update sequence set last_state_seqno=least(last_state_seqno+$M, $LEN),
			first_unsent_seqno=last_state_seqno+1,
			first_unvalidated_seqno=last_state_seqno+1-2*(id%2), hostid=999
		where branch=0 and need_relocate=0 and state=0;" &&
	test_sql_value "select f.name from seq_file f join sequence s on s.id=f.seq_id
		where f.branch=0 and s.branch=0 and f.uploaded=0 and f.file_delete_state=0
		and f.seqno>0 and f.seqno<=s.last_state_seqno and f.upload=1" >new &&
	while read -r name; do
		path=$(upath "$name") && echo "$name" >"$path" || return 1
	done <new &&
	test_sql "$WSEQ_DB_NAME" -e "
		update seq_file f join sequence s on s.id=f.seq_id set f.uploaded=1,
			f.upload_time=unix_timestamp()
		where f.branch=0 and s.branch=0 and f.uploaded=0 and f.file_delete_state=0
		and f.seqno>0 and f.seqno<=s.last_state_seqno and f.upload=1;
		update result r join workunit w on w.id=r.workunitid join sequence s on s.id=w.seq_id
		set r.server_state=5, r.outcome=1, r.hostid=999,
			r.sent_time=unix_timestamp()-12000+600*w.seqno,
			r.received_time=unix_timestamp()-12000+600*w.seqno+500
		where w.branch=0 and s.branch=0 and w.seqno<=s.last_state_seqno and r.server_state=1;
		update workunit w join sequence s on s.id=w.seq_id set w.assimilate_state=2
		where w.branch=0 and s.branch=0 and w.seqno<=s.last_state_seqno
		and not (s.name=\"q6\" and w.seqno>=9);"
}

# The versions of the state files that stay, by the test's own count: for
# each file the latest from a segment <= K and every later one.
expected_states() {
	test_sql_value "select name, last_state_seqno, first_unvalidated_seqno from sequence" |
	while read -r q lss fu; do
		k=$lss
		[ $((fu - 1)) -lt "$k" ] && k=$((fu - 1))
		for f in "state $FULL" "state1 $DELTA"; do
			set -- $f
			s=$((k / $2 * $2))
			[ "$s" -eq 0 ] && s=$2
			while [ "$s" -le "$lss" ]; do
				echo "${q}_b0_s${s}_$1"
				s=$((s + $2))
			done
		done
	done | sort
}

uploaded_states() {
	test_sql_value "select name from seq_file where kind=1 and uploaded=1 and seqno>0" | sort
}

on_disk() {
	find "$PROJECT_DIR/upload" -type f | sed 's,.*/,,' | sort
}

# Nothing a restart needs is gone, and no row says uploaded of a missing file.
check_kept() {
	expected_states >need &&
	uploaded_states >up &&
	on_disk >disk &&
	comm -23 need up >lost && comm -23 up disk >missing &&
	test_sql_value "select name from seq_file where kind=2 and uploaded=1" | sort >answers &&
	comm -23 answers disk >lost_answers &&
	if test -s lost || test -s missing || test -s lost_answers; then
		echo "needed but not uploaded:"; cat lost
		echo "uploaded but not on disk:"; cat missing
		echo "answers lost:"; cat lost_answers
		return 1
	fi
}

# The relocator and the file deleter together, three times: killed at
# their hooks (a random one of the file deleter's, the relocator's before
# its commit), the second and third time also with -9 at a random moment;
# then restarted and run to the end. hook_kills counts the file deleter's
# deaths at a hook.
run_killed() {
	for k in 1 2 3; do
		(cd "$PROJECT_DIR" && WSEQ_TEST_FILE_DELETER_KILL=$(rand 1 8) \
			exec bin/file_deleter --until_idle -d 2 2>>"$TRASH_DIRECTORY/fd.err") &
		fd=$!
		if [ "$(rand 0 1)" = 1 ]; then
			(cd "$PROJECT_DIR" && WSEQ_TEST_RELOCATOR_KILL=1 \
				exec bin/relocator --until_idle -d 2 2>>"$TRASH_DIRECTORY/rl.err") &
		else
			(cd "$PROJECT_DIR" && exec bin/relocator --until_idle -d 2 \
				2>>"$TRASH_DIRECTORY/rl.err") &
		fi
		rl=$!
		if [ $k -gt 1 ]; then
			sleep "0.$(rand 0 40)"
			kill -9 $fd $rl 2>/dev/null
		fi
		wait $fd
		[ $? = 137 ] && [ $k = 1 ] && echo >>"$TRASH_DIRECTORY/hook_kills"
		wait $rl
		check_kept || return 1
	done
	test_project bin/relocator --until_idle -d 2 2>>rl.err &&
	test_project bin/file_deleter --until_idle -d 2 2>>fd.err &&
	check_kept &&
	test "$(test_sql_value "select count(*) from seq_file where file_delete_state=1")" = 0
}

test_expect_success "$N sequences of two levels, full every $FULL segments, delta every $DELTA" '
	test_setup_sample_app &&
	cat >"$PROJECT_DIR/templates/keep_layout" <<-EOF &&
	<sequence_template>
	  <level><name>full</name><upload_every>$FULL</upload_every></level>
	  <level><name>delta</name><upload_every>$DELTA</upload_every></level>
	  <state><open_name_in>full_in</open_name_in><open_name_out>full_out</open_name_out>
	    <level>full</level></state>
	  <state><open_name_in>delta_in</open_name_in><open_name_out>delta_out</open_name_out>
	    <level>delta</level></state>
	  <answer><open_name>answer</open_name></answer>
	</sequence_template>
	EOF
	echo full >full0 && echo delta >delta0 &&
	for i in $(seq 1 $N); do
		test_project bin/create_sequence --appname wseq_sample --seq_name q$i \
			--segments $LEN --state_upload_every $M --seq_template templates/keep_layout \
			--rsc_fpops_est 1e9 "$TRASH_DIRECTORY/full0" "$TRASH_DIRECTORY/delta0" \
			>/dev/null || return 1
	done &&
	test "$(test_sql_value "select count(*) from seq_file where kind=1 and seqno=0 and uploaded=1")" = $((2 * N))
'

test_expect_success 'rounds of progress, relocations, an end, with the daemons killed at random' '
	for round in 1 2 3 4 5 6; do
		advance || return 1
		case $round in
		2) test_sql "$WSEQ_DB_NAME" -e "update sequence set need_relocate=1 where name in (\"q1\", \"q2\")" ;;
		4) test_sql "$WSEQ_DB_NAME" -e "update sequence set need_relocate=1 where name=\"q3\"" ;;
		6) test_sql "$WSEQ_DB_NAME" -e "update sequence set state=1, hostid=0 where name=\"q$N\"" ;;
		esac || return 1
		run_killed || return 1
		test_project bin/db_check >check || { cat check; return 1; }
	done &&
	test "$(wc -l <hook_kills)" -ge 4
'

test_expect_success 'a version stays until its segment is assimilated (the assimilator copies it)' '
	test_sql_value "select seqno from seq_file where name like \"q6_b0%_state\" and uploaded=1 order by seqno" >full &&
	printf "0\n6\n12\n18\n" >expect && test_cmp expect full &&
	test_sql_value "select seqno from seq_file where name like \"q6_b0%_state1\" and uploaded=1 order by seqno" >delta &&
	printf "0\n6\n9\n12\n15\n18\n" >expect && test_cmp expect delta &&
	test_sql "$WSEQ_DB_NAME" -e "update workunit set assimilate_state=2 where name like \"q6_b0_s%\" and seqno<=18" &&
	test_project bin/file_deleter --one_pass -d 2 2>>fd.err &&
	test "$(test_sql_value "select group_concat(seqno order by seqno) from seq_file where name like \"q6_b0%\" and kind=1 and uploaded=1")" = "0,0,18,18"
'

test_expect_success 'superseded versions are gone: rows DONE, files removed' '
	expected_states >need && uploaded_states >up && test_cmp need up &&
	test "$(test_sql_value "select group_concat(seqno order by seqno) from seq_file where kind=1 and uploaded=0 and file_delete_state=2 and name like \"q4_b0%_state\"")" = "6,12" &&
	test "$(test_sql_value "select group_concat(seqno order by seqno) from seq_file where kind=1 and uploaded=0 and file_delete_state=2 and name like \"q4_b0%_state1\"")" = "3,6,9,12,15" &&
	for name in q4_b0_s12_state q4_b0_s15_state1 q5_b0_s6_state q5_b0_s12_state1; do
		test ! -e "$(upath $name)" || return 1
	done &&
	for name in q4_b0_s18_state q4_b0_s18_state1 q5_b0_s12_state q5_b0_s18_state \
		q5_b0_s15_state1 q5_b0_s18_state1; do
		test -e "$(upath $name)" || return 1
	done
'

test_expect_success 'the initial states and every answer stay' '
	test "$(test_sql_value "select count(*) from seq_file where kind=1 and seqno=0 and uploaded=1 and file_delete_state=0")" = $((2 * N)) &&
	test "$(test_sql_value "select count(*) from seq_file where kind=2 and file_delete_state<>0")" = 0 &&
	test_sql_value "select name from seq_file where kind=2 and uploaded=1" | sort >answers &&
	on_disk >disk && comm -23 answers disk >lost && test ! -s lost
'

test_expect_success 'the relocated sequences restarted from their last states, which stay' '
	test "$(test_sql_value "select concat(name, \" \", branch, \" \", first_unsent_seqno) from sequence where name in (\"q1\", \"q2\", \"q3\") order by name")" = "q1 1 7
q2 1 7
q3 1 13" &&
	test_sql_value "select xml_doc from workunit where name=\"q3_b1_s13\"" >w13 &&
	grep "<name>q3_b0_s12_state</name>" w13 && grep "<name>q3_b0_s12_state1</name>" w13 &&
	test -e "$(upath q3_b0_s12_state1)" && test -e "$(upath q3_b0_s6_state)" &&
	test ! -e "$(upath q3_b0_s6_state1)"
'

test_expect_success 'an ended sequence keeps its final states only' '
	test "$(test_sql_value "select group_concat(seqno order by seqno) from seq_file f join sequence s on s.id=f.seq_id where s.name=\"q$N\" and f.kind=1 and f.uploaded=1")" = "0,0,18,18"
'

test_expect_success 'seq_status shows each level: period, last version on the server, the one a restart reads' '
	test_project bin/seq_status q5 >q5 &&
	grep "^  restart point 18; state versions older than those a restart after 16 reads are deleted\$" q5 &&
	grep "^    full         every 6    on the server up to segment 18    restart reads 18\$" q5 &&
	grep "^    delta        every 3    on the server up to segment 18    restart reads 18\$" q5 &&
	test_project bin/seq_status q3 >q3 &&
	grep "^  restart point 12;" q3 &&
	grep "^    delta        every 3    on the server up to segment 12    restart reads 12\$" q3
'

test_expect_success 'the ops timeline marks each level'"'"'s uploads with its own shape, deleted ones hollow' '
	test "$(signin jar)" = 303 &&
	curl -sS -b jar -o q5.html "${OPS}seq?name=q5" &&
	test "$(grep -c "<path class=\"mark state l0\" data-level=\"full\"" q5.html)" = 2 &&
	test "$(grep -c "<path class=\"mark state l1\" data-level=\"delta\"" q5.html)" = 2 &&
	test "$(grep -c "<path class=\"mark state l0 gone\" data-level=\"full\"" q5.html)" = 1 &&
	test "$(grep -c "<path class=\"mark state l1 gone\" data-level=\"delta\"" q5.html)" = 4 &&
	grep "<title>segment 15: delta uploaded</title>" q5.html &&
	grep "<title>segment 12: full uploaded</title>" q5.html &&
	grep "<title>segment 6: full uploaded, since deleted as superseded</title>" q5.html &&
	grep "<text class=\"level\" [^>]*>full every 6</text>" q5.html &&
	grep "<text class=\"level\" [^>]*>delta every 3</text>" q5.html &&
	grep "<th>State levels</th><td>full every 6, delta every 3; restart point: segment 18, versions older than those a restart after 16 reads are deleted</td>" q5.html
'

test_expect_success 'Chromium: the timeline of q5 with its level marks' '
	ops admin login "$ADMIN_AUTHENTICATOR" "seq?name=q5" >login.out &&
	ops admin shot "seq?name=q5" keep-q5 "svg#timeline path.mark.state" \
		"svg#timeline path.mark.state.gone" "svg#timeline text.level" >shot.out &&
	grep "^svg#timeline path.mark.state: 12\$" shot.out &&
	grep "^svg#timeline path.mark.state.gone: 6\$" shot.out &&
	grep "^svg#timeline text.level: 2\$" shot.out &&
	test -s web/keep-q5.png
'

test_expect_success 'db_check is clean' '
	test_project bin/db_check
'

test_expect_success 'db_check names a needed version whose file is gone, or whose row is not uploaded' '
	path=$(upath q4_b0_s18_state1) && mv "$path" "$path.away" &&
	test_must_fail test_project bin/db_check >check &&
	grep "^sequence q4: state version q4_b0_s18_state1 is uploaded but its file is gone" check &&
	mv "$path.away" "$path" &&
	test_sql "$WSEQ_DB_NAME" -e "update seq_file set uploaded=0 where name=\"q5_b0_s15_state1\"" &&
	test_must_fail test_project bin/db_check >check &&
	grep "^sequence q5: state file 1: no version from segments 15..16 is on the server" check &&
	test "$(grep -c "^sequence" check)" = 1 &&
	test_sql "$WSEQ_DB_NAME" -e "update seq_file set uploaded=1 where name=\"q5_b0_s15_state1\"" &&
	test_project bin/db_check
'

test_done
