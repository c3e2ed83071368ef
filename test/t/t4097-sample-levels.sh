#!/bin/sh
test_description='wseq_sample --levels by hand: the segment from the inputs'"'"' names, a full state every F-th segment, a small delta, any restart combination, hostile inputs refused'
. "$WSEQ_SRCDIR/test/test-lib.sh"

APP="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
FLAGS="--levels 3 --steps 10 --words 4096"
FULL_BYTES=$((11 + 16 + 8 * 4096))

# seg FULL_IN DELTA_IN OUT: run one segment in the current directory as a
# client's slot has it, the logical names link files to physical ones.
seg() {
	printf "<soft_link>%s</soft_link>" "$1" >full_in &&
	printf "<soft_link>%s</soft_link>" "$2" >delta_in &&
	printf "<soft_link>%s_state</soft_link>" "$3" >full_out &&
	printf "<soft_link>%s_state1</soft_link>" "$3" >delta_out &&
	printf "<soft_link>%s_answer</soft_link>" "$3" >answer &&
	rm -f stderr.txt && "$APP" $FLAGS
}

# A 64-bit word, little-endian (N < 65536): the delta file's header fields and pairs.
u64() {
	printf "$(printf "\\%03o\\%03o" $(($1 % 256)) $(($1 / 256)))\0\0\0\0\0\0"
}

# run K: the uninterrupted run of segments 1..K on branch 0
run() {
	k=1
	while [ $k -le "$1" ]; do
		seg S_b0_s$((k - 1))_state S_b0_s$((k - 1))_state1 S_b0_s$k || return 1
		k=$((k + 1))
	done
}

test_expect_success '--init writes the initial full state and an empty delta' '
	mkdir run && (cd run && "$APP" $FLAGS --init && mv full_out S_b0_s0_state &&
		mv delta_out S_b0_s0_state1) &&
	test "$(wc -c <run/S_b0_s0_state)" = $FULL_BYTES &&
	test "$(wc -c <run/S_b0_s0_state1)" = 43
'

test_expect_success 'seven segments: full anew at 3 and 6 only, carried between; the delta small' '
	(cd run && run 7) &&
	test_grep "segment 7 from the full state of segment 6 and the delta of segment 6" run/stderr.txt &&
	cmp run/S_b0_s0_state run/S_b0_s2_state &&
	! cmp -s run/S_b0_s2_state run/S_b0_s3_state &&
	cmp run/S_b0_s3_state run/S_b0_s5_state &&
	! cmp -s run/S_b0_s5_state run/S_b0_s6_state &&
	test "$(wc -c <run/S_b0_s3_state1)" = 43 && test "$(wc -c <run/S_b0_s6_state1)" = 43 &&
	d1=$(wc -c <run/S_b0_s1_state1) && d2=$(wc -c <run/S_b0_s2_state1) &&
	test $d1 -gt 43 && test $d2 -gt $d1 && test $d2 -lt $((FULL_BYTES / 50))
'

test_expect_success 'a relocated segment 6 from full_3 + delta_5 gives what the uninterrupted run gave' '
	mkdir reloc && cp run/S_b0_s3_state run/S_b0_s5_state1 reloc/ &&
	(cd reloc && seg S_b0_s3_state S_b0_s5_state1 S_b1_s6 &&
		test_grep "segment 6 from the full state of segment 3 and the delta of segment 5" stderr.txt) &&
	cmp reloc/S_b1_s6_state run/S_b0_s6_state && cmp reloc/S_b1_s6_state1 run/S_b0_s6_state1 &&
	test_cmp reloc/S_b1_s6_answer run/S_b0_s6_answer
'

test_expect_success 'any F computes what --state --sparse computes' '
	mkdir one && cp run/S_b0_s0_state run/S_b0_s0_state1 one/ &&
	(cd one && FLAGS="--levels 1 --steps 10 --words 4096" && run 7) &&
	test_cmp one/S_b0_s7_answer run/S_b0_s7_answer &&
	mkdir single && cp run/S_b0_s0_state single/state_in &&
	(cd single && "$APP" --state --sparse --steps 70) &&
	test_cmp single/answer run/S_b0_s7_answer
'

test_expect_success 'refused: a delta of another full state, a damaged delta, an input with no segment in its name' '
	mkdir bad && cp run/S_b0_s3_state run/S_b0_s2_state1 run/S_b0_s5_state1 bad/ &&
	(cd bad && test_must_fail seg S_b0_s3_state S_b0_s2_state1 S_b1_s4 &&
		test_grep "not relative to full_in" stderr.txt &&
		head -c 60 S_b0_s5_state1 >S_b0_s4_state1 &&
		test_must_fail seg S_b0_s3_state S_b0_s4_state1 S_b1_s5 &&
		test_grep "damaged" stderr.txt &&
		{ printf "WSEQDELTA1\n" && u64 30 && u64 35 && u64 4096 && u64 1 && u64 4096 && u64 7; } \
			>S_b0_s6_state1 &&
		test_must_fail seg S_b0_s3_state S_b0_s6_state1 S_b1_s7 &&
		test_grep "damaged" stderr.txt &&
		cp S_b0_s3_state plain && test_must_fail seg plain S_b0_s5_state1 S_b1_s6 &&
		test_grep "cannot tell the segment of plain" stderr.txt) &&
	test -z "$(find bad -name "S_b1_*")"
'

test_expect_success '--help names --levels; a bad --levels is a usage error' '
	"$APP" --help >help && test_grep "levels F" help &&
	{ "$APP" --levels -1; test $? = 2; } && { "$APP" --levels 1000001; test $? = 2; }
'

test_done
