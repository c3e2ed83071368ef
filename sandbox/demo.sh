#!/bin/bash
# The main job, in one command on a fresh Debian machine: install what is
# needed, build wseq, bring up a private demo project (MariaDB, Apache, the
# project and its daemons) on loopback, register the sample BOINC app, and
# run a work sequence with two state levels (a full state uploaded every 4th
# segment, a small delta every segment) on two real BOINC clients: the
# sequence starts on the first client, which is killed after a few segments;
# when the segment it held misses its deadline the relocator moves the
# sequence, from the latest delta and the full state it builds on, to the
# second client, which completes it. Progress is shown as it goes; at the
# end the final state is checked against one uninterrupted local run, and it
# says where to look.
#
#   sandbox/demo.sh [DIR]             (default DIR: ./demo; as root: in a root
#                                   shell as it is, else under sudo)
#   sandbox/wseq_sandbox down DIR     stops the project (the clients stop at the end)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in -h | --help) sed -n '2,/^set /{/^#/p}' "$0"; exit 0 ;; esac
. "$top/sandbox/as-root.sh" "$0" "$@"
dir=${1:-$top/demo}
build="$top/_build"
nseg=8          # segments
steps=400      # steps a segment, 25 ms each: about 10 s
deadline=90    # seconds a segment may stay out (delay_bound): two queued on a busy host fit

"$top/sandbox/install-deps.sh"
if [ ! -x "$build/tools/make_project" ]; then
	echo "demo: building wseq in $build" >&2
	(cd "$top" && ./autogen.sh >/dev/null 2>&1)
	mkdir -p "$build"
	(cd "$build" && ../configure >/dev/null && make -j2 >/dev/null)
else
	make -C "$build" -j2 >/dev/null
fi
export WSEQ_LIBEXECDIR="$build/stage/libexec" WSEQ_DATADIR="$build/stage/share"
PATH="$build/stage/bin:$PATH"

# An earlier demo's project has the programs and schema of the build that made
# it: start afresh (the sandbox's services are kept, the demo's parts remade).
if [ -f "$dir/project/config.xml" ]; then
	echo "demo: $dir holds an earlier demo; stopping it and making its project again" >&2
	wseq_sandbox down "$dir" >/dev/null 2>&1 || :
	rm -rf "$dir/project" "$dir/client1" "$dir/client2" "$dir/init" "$dir/local"
fi
wseq_sandbox up "$dir" --no-daemons
eval "$(wseq_sandbox env "$dir")"
sql() { mariadb --socket="$WSEQ_DB_SOCKET" -u"$WSEQ_DB_USER" -p"$WSEQ_DB_PASSWD" -N "$WSEQ_DB_NAME" -e "$1"; }
cd "$PROJECT_DIR"
# Daemons that look for work every second: a demo should not wait.
sed -i 's|\(<cmd>[a-z_]*\) -d 2</cmd>|\1 -d 2 --sleep 1</cmd>|' config.xml
bin/start

platform=x86_64-pc-linux-gnu
if [ "$(sql "select count(*) from app")" = 0 ]; then
	echo "== registering the sample app (project.xml, bin/xadd, bin/update_versions)"
	cat >project.xml <<EOT
<boinc>
  <app><name>wseq_sample</name><user_friendly_name>wseq sample</user_friendly_name></app>
  <platform><name>$platform</name><user_friendly_name>Linux x86_64</user_friendly_name></platform>
</boinc>
EOT
	mkdir -p "apps/wseq_sample/wseq_sample_1.00_$platform"
	cp "$WSEQ_LIBEXECDIR/apps/wseq_sample" "apps/wseq_sample/wseq_sample_1.00_$platform/wseq_sample_1.00_$platform"
	cp "$WSEQ_DATADIR"/../../apps/templates/wseq_sample_* templates/ 2>/dev/null ||
		cp "$top"/apps/templates/wseq_sample_* templates/
	bin/xadd && bin/update_versions
fi

seq=traj_$(date +%s)
echo "== creating work sequence $seq: $nseg segments, an answer uploaded every segment,"
echo "   two state levels: the full state every 4th, a delta of what changed since every"
echo "   segment (templates/demo_levels, bin/create_sequence)"
cat >templates/demo_levels <<EOT
<sequence_template>
  <level><name>full</name><upload_every>4</upload_every></level>
  <level><name>delta</name><upload_every>1</upload_every></level>
  <state><open_name_in>full_in</open_name_in><open_name_out>full_out</open_name_out>
         <level>full</level></state>
  <state><open_name_in>delta_in</open_name_in><open_name_out>delta_out</open_name_out>
         <level>delta</level></state>
  <answer><open_name>answer</open_name></answer>
</sequence_template>
EOT
mkdir -p "$dir/init"
(cd "$dir/init" && "$WSEQ_LIBEXECDIR/apps/wseq_sample" --levels 4 --init --words 4096 2>/dev/null)
bin/create_sequence --appname wseq_sample --seq_name "$seq" --segments "$nseg" \
	--seq_template templates/demo_levels --answer_every 1 --rsc_fpops_est 1e9 \
	--max_result_time 30 --delay_bound "$deadline" \
	--command_line "--levels 4 --steps $steps --step_ms 25" "$dir/init/full_out" "$dir/init/delta_out"

seq_head() { sql "select concat_ws(' ', hostid, branch, first_unsent_seqno - 1, first_unvalidated_seqno - 1, last_state_seqno, state, nrelocations) from sequence where name='$seq'"; }
show() {
	read -r host branch sent valid laststate state nrel <<<"$(seq_head)"
	printf '\r   %3ds: host %-3s branch %s  sent %d, done %d of %d, restart point %d, relocations %d   ' \
		$(( $(date +%s) - start )) "${host/#0/-}" "$branch" "$sent" "$valid" "$nseg" "$laststate" "$nrel"
}
nudge=           # clients to make ask for work every few seconds while waiting
wait_until() {          # wait_until SECONDS WHAT CONDITION...
	local limit=$1 what=$2 n=0 c
	shift 2
	while ! "$@"; do
		show
		if [ $(( $(date +%s) - start )) -gt "$limit" ]; then
			echo; echo "demo: $what did not happen in time; see $PROJECT_DIR/log and $dir/client*/client.log" >&2
			# the commonest cause: a client with less free disk than a segment needs
			sql "select concat('demo: host ', id, ' reported ', round(d_free / 1e6), ' MB of free disk') from host" >&2
			grep -h "needs .* MB of disk" "$PROJECT_DIR"/log/* 2>/dev/null | tail -n 1 >&2
			exit 1
		fi
		if [ $((++n % 5)) = 0 ]; then
			for c in $nudge; do wseq_client update "$dir/$c" "$PROJECT_URL" >/dev/null 2>&1; done
		fi
		sleep 1
	done
	show
	echo
}
assigned() { [ "$(sql "select hostid from sequence where name='$seq'")" != 0 ]; }
done_through() { [ "$(sql "select count(*) from result where name='${seq}_b0_s$1_0' and outcome=1")" = 1 ]; }
relocated() { [ "$(sql "select branch from sequence where name='$seq'")" = 1 ]; }
ended() { [ "$(sql "select state from sequence where name='$seq'")" != 0 ]; }

trap 'for c in client1 client2; do wseq_client down "$dir/$c" 2>/dev/null; done' EXIT
start=$(date +%s)
echo "== client1 attaches to $PROJECT_URL and gets the sequence"
wseq_client up "$dir/client1"
wseq_client attach "$dir/client1" "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" >/dev/null
wait_until 120 "assigning the sequence" assigned
echo "== client2 attaches too (it has no sequence: one a host)"
wseq_client up "$dir/client2"
wseq_client attach "$dir/client2" "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" >/dev/null
wait_until 300 "segment 5" done_through 5
echo "== client1 is killed after segment 5; the segment it was running will miss its"
echo "   ${deadline}s deadline, and the relocator moves the sequence to client2 from the"
echo "   latest delta on the server and the full state of segment 4"
wseq_client kill "$dir/client1"
# client2 asked for work while it had none to get, so it waits minutes before
# asking again; the demo presses its Update button every few seconds instead.
nudge=client2
wait_until 400 "the relocation" relocated
first=$(sql "select min(seqno) from workunit where name like '${seq}\\_b1\\_%'")
inputs=$(sql "select xml_doc from workunit where name='${seq}_b1_s$first'" |
	grep -o "<file_name>[^<]*</file_name>" | sed 's/<[^>]*>//g' | paste -sd+ | sed 's/+/ + /')
echo "== relocated: a new branch 1 starts at segment $first and reads $inputs"
echo "   (one state level, every 4th segment, would have restarted at segment 5)"
wait_until 600 "the end of the sequence" ended
echo
state=$(sql "select state from sequence where name='$seq'")
[ "$state" = 1 ] || { echo "demo: the sequence ended in error (bin/seq_status $seq)" >&2; exit 1; }
final=$(find "$PROJECT_DIR/upload" -name "${seq}_b1_s${nseg}_state")
# the same computation in one run, with one state file (the full state's format)
mkdir -p "$dir/local" && cp "$dir/init/full_out" "$dir/local/state_in"
(cd "$dir/local" && "$WSEQ_LIBEXECDIR/apps/wseq_sample" --state --sparse --steps $((steps * nseg)) 2>/dev/null)
if cmp -s "$final" "$dir/local/state_out"; then
	echo "== done: the final state equals one uninterrupted local run of all $nseg segments"
else
	echo "demo: the final state differs from a local run ($final, $dir/local/state_out)" >&2
	exit 1
fi
echo
bin/seq_status "$seq" | sed 's/^/   /'
echo
echo "Where to look:"
echo "  the web site:  $PROJECT_URL (home page, join, teams, server status; its text is"
echo "                 $PROJECT_DIR/home_page.html)"
echo "  the sequence:  cd $PROJECT_DIR && bin/seq_status $seq   (bin/seq_status --all: every sequence)"
echo "  outputs:       $PROJECT_DIR/results/ (answers and states, by segment), $final"
echo "  logs:          $PROJECT_DIR/log/ (scheduler.log, relocator.log, ...), $dir/client*/client.log"
echo "  daemons:       cd $PROJECT_DIR && bin/status"
echo "  settings:      wseq_sandbox env $dir"
echo "  stop:          $top/sandbox/wseq_sandbox down $dir"
