#!/bin/sh
test_description='wseq_sim: same seed same output, the CSV, no churn, everyone leaving, the sequence hook, bad scenarios'
. "$WSEQ_SRCDIR/test/test-lib.sh"

sim="$WSEQ_BUILDDIR/sim/wseq_sim"
data="$WSEQ_SRCDIR/test/data/sim"

test_expect_success 'wseq_sim --help names its options' '
	"$sim" --help >help &&
	grep -e --csv help && grep -e --strategy help && grep -e --seed help
'

test_expect_success 'the same scenario and seed give byte-identical output' '
	"$sim" --csv a.csv "$data/small.txt" >a.out &&
	"$sim" --csv b.csv "$data/small.txt" >b.out &&
	cmp a.out b.out && cmp a.csv b.csv &&
	"$sim" --seed 8 --csv c.csv "$data/small.txt" >c.out &&
	! cmp -s a.csv c.csv
'

test_expect_success 'the CSV has a header and a row a strategy; seq says it is not available' '
	test $(wc -l <a.csv) = 4 &&
	head -1 a.csv | grep "^strategy,available,finished,unfinished,median_days,p90_days,bytes_up" &&
	grep "^giant,1," a.csv && grep "^chunk,1," a.csv && grep "^seq,0," a.csv &&
	grep "^seq .*not available in this build" a.out
'

test_expect_success 'no churn: both strategies finish everything, chunk uploads segments x state' '
	"$sim" --strategy giant,chunk --csv n.csv "$data/no-churn.txt" >n.out &&
	grep "^giant,1,10,0," n.csv &&
	# 10 components x 5 segments x 10 MB
	grep "^chunk,1,10,0,[0-9.]*,[0-9.]*,500000000,500000000," n.csv
'

test_expect_success 'everyone leaves: nothing finishes and wseq_sim says so' '
	"$sim" --strategy giant,chunk --csv l.csv "$data/all-leave.txt" >l.out &&
	grep "^giant,1,0,5,,," l.csv && grep "^chunk,1,0,5,,," l.csv &&
	grep "giant: no component finished within the horizon (20 days)" l.out &&
	grep "chunk: no component finished within the horizon (20 days)" l.out
'

test_expect_success 'a bad scenario is refused naming the line' '
	printf "hosts 10\nsegmnt_days 2\n" >bad.txt &&
	! "$sim" bad.txt 2>err &&
	grep "bad.txt:2: unknown key .segmnt_days." err &&
	! "$sim" --strategy giant,gigantic "$data/no-churn.txt" 2>err &&
	grep "unknown strategy" err
'

test_expect_success '--print_scenario writes a scenario that reads back the same' '
	"$sim" --print_scenario "$data/small.txt" >p1 &&
	"$sim" --print_scenario p1 >p2 &&
	cmp p1 p2 && grep "^replicas 2$" p1
'

test_done
