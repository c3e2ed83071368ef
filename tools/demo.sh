#!/bin/bash
# The main job, in one command on a fresh Debian machine: install what is
# needed, build wseq, bring up a private demo project (MariaDB, Apache, the
# project and its daemons) on loopback, register the sample BOINC app, and
# let two real BOINC clients run a batch of jobs with quorum 2 while the
# progress is shown. At the end it says where to look.
#
#   sudo tools/demo.sh [DIR]        (default DIR: ./demo)
#   tools/wseq_sandbox down DIR     stops the project (the clients stop at the end)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/demo}
build="$top/_build"
njobs=8

"$top/tools/install-deps.sh"
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

batch=demo_$(date +%s)
echo "== creating $njobs jobs with quorum 2 (bin/create_work --stdin)"
mkdir -p "$dir/inputs"
for i in $(seq 1 "$njobs"); do
	echo "demo input $i $(date +%N)" >"$dir/inputs/${batch}_$i"
	echo "--wu_name ${batch}_$i $dir/inputs/${batch}_$i"
done | bin/create_work --appname wseq_sample --min_quorum 2 --target_nresults 2 --stdin

echo "== two BOINC clients attach to $PROJECT_URL"
for c in client1 client2; do
	wseq_client up "$dir/$c"
	wseq_client attach "$dir/$c" "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" >/dev/null
done
trap 'for c in client1 client2; do wseq_client down "$dir/$c"; done' EXIT

start=$(date +%s)
while :; do
	done_=$(sql "select count(*) from workunit where name like '${batch}%' and assimilate_state=2")
	running=$(sql "select count(*) from result r join workunit w on w.id=r.workunitid where w.name like '${batch}%' and r.server_state=4")
	valid=$(sql "select count(*) from result r join workunit w on w.id=r.workunitid where w.name like '${batch}%' and r.validate_state=1")
	printf '\r   %3ds: %d/%d jobs done, %d results in progress, %d validated' \
		$(( $(date +%s) - start )) "$done_" "$njobs" "$running" "$valid"
	[ "$done_" = "$njobs" ] && break
	if [ $(( $(date +%s) - start )) -gt 600 ]; then
		echo; echo "demo: the jobs did not finish in 10 minutes; see $PROJECT_DIR/log and $dir/client1/client.log" >&2
		exit 1
	fi
	sleep 2
done
echo
echo
echo "== done: every job computed by both clients, validated and assimilated"
sql "select w.name, r.name, r.hostid, r.validate_state from workunit w join result r on r.workunitid=w.id where w.name like '${batch}%' order by w.id, r.id" |
	awk '{ printf "   %-22s %-24s host %s %s\n", $1, $2, $3, ($4 == 1 ? "valid" : "not valid") }'
echo
echo "Where to look:"
echo "  outputs:   $PROJECT_DIR/results/${batch}_1/out ..."
echo "  logs:      $PROJECT_DIR/log/ (scheduler.log, transitioner.log, ...), $dir/client1/client.log"
echo "  daemons:   cd $PROJECT_DIR && bin/status"
echo "  settings:  wseq_sandbox env $dir"
echo "  stop:      $top/tools/wseq_sandbox down $dir"
