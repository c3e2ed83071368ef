#!/bin/sh
test_description='sweep --halt soon,fail=N stops handing out after N failed sets and lets the running ones finish; --halt now,fail=N drops the running ones too; sweep resume goes on after a halt'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wsht
. "$WSEQ_SRCDIR/test/t/lib-sweep-slaves.sh"
sweep_slaves_up 1
U=$SSHD_SLAVE_USERS

# make_sweep DIR ROWS JOBS: ROWS sets over the one slave, JOBS at once, each
# handed out once (MaxTotal=1). The worker "./worker N MODE": while the file
# DIR.fail exists, mode fail exits 3 after 7 s (longer than the project's
# transitioner may take to mark the set failed: it sleeps 5 s when idle, and
# the master looks once a second); mode long sleeps 120 s; else it prints n=N.
make_sweep() {
	mkdir -p "$1" && cp "$DATA/check.sh" "$1/" &&
	cat >"$1/worker.sh" <<-WORKER &&
	#!/bin/sh
	case "\$2" in
	long) sleep 120 ;;
	fail) [ -e "$TRASH_DIRECTORY/$1.fail" ] && { sleep 7; echo failing >&2; exit 3; } ;;
	esac
	echo "n=\$1"
	printf x >bin.dat
	WORKER
	chmod 755 "$1/worker.sh" &&
	sweep_spec 300 "$3" | sed "s/^MaxTotal=.*/MaxTotal=1/" >"$1/spec" &&
	cp "$D/cluster" "$1/cluster"
}

RUN="sweep --sandbox $SB --ssh-config $D/ssh_config --progress lines"

test_expect_success 'sweep --halt soon,fail=3: at most 3 failed sets and the one running, then exit 3' '
	make_sweep s1 20 1 &&
	{ echo "n | mode"; for i in $(seq 1 20); do echo "$i | fail"; done; } >s1/params &&
	: >s1.fail &&
	(cd s1 && $RUN --halt soon,fail=3 --joblog ../s1.joblog run spec >stats 2>run.log;
	 echo $? >rc) &&
	test "$(cat s1/rc)" = 3 &&
	grep "sweep: [34] sets failed: halting soon (--halt soon,fail=3)" s1/run.log &&
	runs=$(($(wc -l <s1.joblog) - 1)) &&
	test "$runs" -ge 3 && test "$runs" -le 4 && echo "$runs" >s1.runs &&
	test "$(awk -F "\t" "NR > 1 && \$7 != 3" s1.joblog | wc -l)" = 0 &&
	grep "^session [0-9a-f]*: 20 tasks, 0 done, 0 running, 1[67] waiting, [34] failed$" s1/stats
'

test_expect_success 'sweep resume after a halt hands out tasks again and completes the rest' '
	rm s1.fail &&
	sid=$(sed -n "s/^session \([0-9a-f]*\):.*/\1/p" s1/stats) &&
	(cd s1 && $RUN --joblog ../s1.joblog resume "$sid" >stats2 2>resume.log; echo $? >rc2) &&
	test "$(cat s1/rc2)" = 4 &&
	# the sets that ran before the halt failed (the last one may have been
	# marked failed only after the first run ended), the rest are done
	failed=$(cat s1.runs) &&
	grep "^session $sid: 20 tasks, $((20 - failed)) done, 0 running, 0 waiting, $failed failed$" s1/stats2
'

test_expect_success 'sweep --halt now,fail=1: the running task is dropped at once, no worker left' '
	make_sweep s2 3 2 &&
	printf "n | mode\n1 | long\n2 | fail\n3 | long\n" >s2/params &&
	: >s2.fail &&
	start=$(date +%s) &&
	(cd s2 && $RUN --halt now,fail=1 run spec >stats 2>run.log; echo $? >rc) &&
	test "$(cat s2/rc)" = 3 &&
	test $(($(date +%s) - start)) -lt 60 &&
	grep "sweep: 1 sets failed: halting now" s2/run.log &&
	grep "^session [0-9a-f]*: 3 tasks, 0 done, .* 1 failed$" s2/stats &&
	test_wait_for 30 sh -c "! pgrep -u $U -f \"worker [0-9]\"" &&
	grep -q "the master says it is done or expired (205): dropping it" \
		"$D/home/$U/.wseq-sweep/client.log"
'

test_expect_success 'a bad --halt is a usage error' '
	{ sweep --halt later,fail=3 run s1/spec 2>err; test $? = 2; } &&
	grep -- "--halt is now|soon,fail=N" err
'

test_done
