#!/bin/sh
test_description='the sweep_client bundle (issue 31, item 2 and bug 4): make builds sweep_client with its libraries and loader; sweep run deploys it to a machine that has nothing but a kernel and a shell (an sshd chrooted into a root holding dash and its C library) and every set is done there on the bundle'"'"'s libraries alone; a client that needs libraries the machine lacks is reported with the loader'"'"'s own message; DeleteClient removes the whole bundle'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-sshd.sh"

SSHD_SLAVE_PREFIX=wsbundle
D="$TRASH_DIRECTORY/ssh"
SB="$TRASH_DIRECTORY/sb"
ROOT="$TRASH_DIRECTORY/bare"
UB=${SSHD_SLAVE_PREFIX}bare
BUNDLE="$WSEQ_LIBEXECDIR/sweep-client/x86_64-pc-linux-gnu"
test_atexit "sshd_slaves_down '$D'"
test_atexit "wseq_sandbox down '$SB' 2>/dev/null"

# The bare machine's root: /bin/sh (dash) and the C library it loads, /dev/null,
# /proc, the user's home at its usual path; none of the client's libraries.
# Its sshd runs in a mount namespace of its own, where ROOT/proc is mounted
# (gone with it), and chroots every session into ROOT.
make_root() {
	mkdir -p "$ROOT/bin" "$ROOT/dev" "$ROOT/proc" &&
	cp -L /bin/dash "$ROOT/bin/sh" &&
	for lib in $(ldd /bin/dash | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		mkdir -p "$ROOT${lib%/*}" && cp -L "$lib" "$ROOT$lib" || return 1
	done &&
	mknod -m 666 "$ROOT/dev/null" c 1 3 &&
	cat >"$TRASH_DIRECTORY/bare-sshd" <<-EOF &&
	#!/bin/sh
	exec unshare -m sh -c 'mount -t proc proc "\$0/proc" && exec /usr/sbin/sshd -o ChrootDirectory="\$0" "\$@"' "$ROOT" "\$@"
	EOF
	chmod 755 "$TRASH_DIRECTORY/bare-sshd"
}

{
	sshd_slaves_up "$D" 1 && FULL="${SSHD_SLAVE_PREFIX}1@127.0.0.1:$SSHD_SLAVE_PORTS" &&
	make_root &&
	SSHD_BIN="$TRASH_DIRECTORY/bare-sshd" &&
	sshd_start_ "$D" bare "$UB" "$D/id_ed25519.pub" && BARE="$UB@127.0.0.1:$_port" &&
	SSHD_BIN=/usr/sbin/sshd &&
	mkdir -p "$ROOT$D/home/$UB" && chown "$UB:" "$ROOT$D/home/$UB" &&
	sshd_verify_ "$D" bare "$UB" "$_port"
} >"$TRASH_DIRECTORY/sshd-up.log" 2>&1 || {
	say "the machines did not come up:"; sed 's/^/#   /' "$TRASH_DIRECTORY/sshd-up.log"; exit 1
}
BARE_HOME="$ROOT$D/home/$UB"
PORT=$(sshd_free_port_) || exit 1

# make_sweep DIR ROWS DELETE HOST...: a sweep of ROWS sets over the HOSTs, whose
# worker (builtins of sh only) prints its set and the files its client maps.
make_sweep() {
	_dir=$1 _rows=$2 _del=$3
	shift 3
	mkdir -p "$_dir" &&
	cat >"$_dir/worker.sh" <<-\EOF &&
	#!/bin/sh
	echo "n=$1"
	while read -r a b c d e f; do
		[ -z "$f" ] || echo "map $f"
	done </proc/$PPID/maps
	EOF
	cat >"$_dir/spec" <<-EOF &&
	Parameters=params
	Cluster=cluster
	CommandLine=./worker \$n
	Timeout=60
	MaxAssign=1
	MaxTotal=2
	Collect=blocks
	Output=out.txt
	DeleteWorker=No
	DeleteClient=$_del
	Ping=1
	Jobs=1
	Server=127.0.0.1:$PORT

	[Worker]
	Platform=x86_64-pc-linux-gnu
	File=worker.sh

	[Result]
	Name=out
	File=stdout
	EOF
	printf '%s\n' "$@" >"$_dir/cluster" &&
	seq 1 "$_rows" | sed '1i n' >"$_dir/params"
}

RUN="sweep --sandbox $SB --ssh-config $D/ssh_config --progress lines --verbose --keep_server"

done_by() {
	awk -v h="$2" '$1 == h { print $2 }' "$1/stats"
}

test_expect_success 'make builds the bundle: sweep_client, every library ldd names, the loader, start' '
	test -x "$BUNDLE/start" && cmp "$BUNDLE/sweep_client" "$WSEQ_BUILDDIR/sweep/client/sweep_client" &&
	ldd "$WSEQ_BUILDDIR/sweep/client/sweep_client" >ldd.out &&
	awk "\$2 == \"=>\" { print \$1 }" ldd.out >libs && test -s libs &&
	while read -r lib; do test -f "$BUNDLE/lib/$lib" || return 1; done <libs &&
	test -x "$BUNDLE/ld-linux-x86-64.so.2" &&
	env -i PATH=/nonexistent LD_LIBRARY_PATH=/nonexistent "$BUNDLE/start" --version >version &&
	grep "^sweep_client (wseq .*) platform x86_64-pc-linux-gnu$" version
'

test_expect_success 'the bare machine has a shell, and none of the client'"'"'s libraries' '
	ssh -F "$D/ssh_config" -p "${BARE##*:}" "$UB@127.0.0.1" "echo \$HOME; cd /lib/x86_64-linux-gnu && echo *" \
		</dev/null >bare.out &&
	echo "$D/home/$UB" >expect && echo libc.so.6 >>expect &&
	test_cmp expect bare.out
'

test_expect_success 'sweep run on the bare machine: the bundle deployed, every set done on its libraries only' '
	make_sweep s1 4 No "$BARE" &&
	(cd s1 && $RUN run spec >stats 2>run.log) &&
	grep "4 tasks, 4 done" s1/stats &&
	test "$(done_by s1 "$BARE")" = 4 &&
	b=$(cd "$BARE_HOME/.wseq-sweep" && echo sweep_client-*) &&
	diff -r "$BARE_HOME/.wseq-sweep/$b" "$BUNDLE" &&
	# what the client had mapped: files of its bundle, nothing else
	sed -n "s/^map //p" s1/out.txt | grep "^/" | sort -u >maps &&
	grep "/.wseq-sweep/$b/lib/libcurl.so.4\$" maps &&
	grep "/.wseq-sweep/$b/lib/libc.so.6\$" maps &&
	! grep -v "^$D/home/$UB/.wseq-sweep/$b/" maps
'

test_expect_success 'copies left half made beside the bundle are removed by the client once a day old' '
	r="$BARE_HOME/.wseq-sweep" &&
	b=$(cd "$r" && echo sweep_client-*) &&
	mkdir -p "$r/.$b.tmp-0123456789abcdef/lib" "$r/.$b.tmp-fedcba9876543210" &&
	chown -R "$UB:" "$r/.$b.tmp-0123456789abcdef" "$r/.$b.tmp-fedcba9876543210" &&
	touch -d "2 days ago" "$r/.$b.tmp-0123456789abcdef" &&
	make_sweep s1b 1 No "$BARE" &&
	(cd s1b && $RUN run spec >stats 2>run.log) &&
	grep "1 tasks, 1 done" s1b/stats &&
	! grep "copying the client" s1b/run.log &&
	test ! -e "$r/.$b.tmp-0123456789abcdef" &&
	test -d "$r/.$b.tmp-fedcba9876543210" &&
	grep "removed $D/home/$UB/.wseq-sweep/.$b.tmp-0123456789abcdef, a copy of a client left half made" \
		"$r/client.log"
'

test_expect_success 'a client needing libraries the machine lacks: the statistics give the loader'"'"'s message' '
	mkdir plain && cp "$WSEQ_BUILDDIR/sweep/client/sweep_client" plain/ &&
	printf "#!/bin/sh\nexec \"\${0%%/*}/sweep_client\" \"\$@\"\n" >plain/start &&
	chmod 755 plain/start &&
	make_sweep s2 4 No "$FULL" "$BARE" &&
	(cd s2 && $RUN --client "$TRASH_DIRECTORY/plain" run spec >stats 2>run.log) &&
	grep "4 tasks, 4 done" s2/stats &&
	test "$(done_by s2 "$FULL")" = 4 &&
	grep "^  $BARE: client failed: exit 127: the host cannot start the client (.*/sweep_client: error while loading shared libraries: lib[^:]*: cannot open shared object file: No such file or directory)\$" s2/stats &&
	! grep "missing" s2/stats &&
	# given up at once: starting again cannot help
	test "$(grep -c "host $BARE: starting the client" s2/run.log)" = 2
'

test_expect_success 'DeleteClient=Yes: the client removes its whole bundle at the end' '
	h="$D/home/${SSHD_SLAVE_PREFIX}1/.wseq-sweep" &&
	ls -a "$h" | grep sweep_client- >before &&
	make_sweep s3 2 Yes "$FULL" &&
	(cd s3 && $RUN run spec >stats 2>run.log) &&
	grep "2 tasks, 2 done" s3/stats &&
	grep "host $FULL: copying the client" s3/run.log &&
	sed -n "s/.* deleted the client'"'"'s bundle //p" "$h/client.log" >deleted &&
	test_line_count = 1 deleted &&
	case $(cat deleted) in "$h"/sweep_client-*) ;; *) false ;; esac &&
	test ! -e "$(cat deleted)" &&
	ls -a "$h" | grep sweep_client- >after &&
	test_cmp before after
'

test_expect_success 'what a host says is untrusted: control characters reach neither the statistics nor the hosts file' '
	mkdir evil &&
	printf "#!/bin/sh\nprintf \"evil \\\\033]0;title\\\\007\\\\tend\\\\n\" >&2\nexit 127\n" >evil/start &&
	chmod 755 evil/start && cat evil/start &&
	make_sweep s4 2 No "$FULL" &&
	(cd s4 && $RUN --client "$TRASH_DIRECTORY/evil" run spec >stats 2>run.log; echo $? >rc) &&
	test "$(cat s4/rc)" = 5 &&
	grep "^  $FULL: client failed: exit 127: the host cannot start the client (evil ?\]0;title??end)\$" s4/stats &&
	! grep -q "$(printf "\033")" s4/stats s4/run.log &&
	sid=$(sed -n "s/^session \([0-9a-f]*\):.*/\1/p" s4/stats) &&
	awk -F "\t" "NF != 3 { exit 1 }" "$SB/project/sweep/$sid/hosts"
'

test_done
