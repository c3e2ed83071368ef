# test/t/lib-sshd.sh: "slave" hosts for the parameter sweep on this one
# machine -- real OpenSSH sshd instances on loopback ports, each with its own
# Unix user, host key and configuration, and one client key pair authorized
# on all of them. Sourced by tests (after test-lib.sh) and benchmarks. Runs
# as root (it adds users and starts sshd); it never touches /etc/ssh or the
# system's sshd. POSIX sh, bash-only features are optional.
#
#   sshd_slaves_up DIR N    N slaves: users ${SSHD_SLAVE_PREFIX}1..N (default
#                           prefix wseqslave), home DIR/home/USER (made fresh),
#                           one sshd each on 127.0.0.1:PORT. Makes
#                             DIR/id_ed25519{,.pub}  the client key (no passphrase)
#                             DIR/ssh_config         for ssh -F / scp -F: that key,
#                                                    DIR/known_hosts, BatchMode, ...
#                             DIR/known_hosts        the slaves' host keys
#                             DIR/cluster            one "USER@127.0.0.1:PORT" a line
#                             DIR/env                the variables below, for ". DIR/env"
#                             DIR/sshd-NAME.{conf,log,pid}, DIR/hostkey-NAME
#                           and exports SSHD_DIR, SSHD_SSH_CONFIG, SSHD_CLUSTER,
#                           SSHD_SLAVE_COUNT, SSHD_SLAVE_PORTS, SSHD_SLAVE_USERS
#                           (space-separated, in order). Every slave is checked
#                           with one "ssh ... true"; on a failure the sshd log is
#                           shown on stderr and it returns 1.
#   sshd_slave_noauth DIR   one more slave, user ${SSHD_SLAVE_PREFIX}na, whose
#                           authorized_keys does not hold the client key
#                           (ssh: "Permission denied (publickey)."); prints its
#                           cluster line. Call it after sshd_slaves_up.
#   sshd_closed_port        prints 127.0.0.1:PORT of a port nothing listens on.
#   sshd_slaves_down DIR    stops every sshd started from DIR (by its pid file,
#                           or its command line if DIR was removed; SIGTERM,
#                           then SIGKILL) and every process still running as one
#                           of DIR's users (what the master left behind). The
#                           users stay (the next sshd_slaves_up reuses them).
#
# The user names are global: two scripts that bring up slaves at the same time
# (make check -j) must use different SSHD_SLAVE_PREFIX values (at most 20
# characters: letters, digits, _). sshd_slaves_up refuses a user whose
# slave of another DIR is still running.

: "${SSHD_SLAVE_PREFIX:=wseqslave}"
SSHD_BIN=${SSHD_BIN:-/usr/sbin/sshd}

sshd_err_() { echo "lib-sshd: $*" >&2; }

# sshd_port_in_use_ PORT: does something accept connections on 127.0.0.1:PORT?
sshd_port_in_use_() {
	if [ -n "${BASH_VERSION:-}" ]; then
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
	else
		[ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]
	fi
}

# sshd_free_port_: a loopback port nothing listens on (as wseq_sandbox picks them)
sshd_free_port_() {
	wseq_sandbox free-port || { sshd_err_ "no free loopback port found"; return 1; }
}

sshd_closed_port() {
	_scp_p=$(sshd_free_port_) || return 1
	echo "127.0.0.1:$_scp_p"
}

# sshd_live_ PID: PID is a live process. A zombie is not: whoever is PID 1
# (in a container, not always an init that reaps at once) may leave the
# slaves' exited session processes as zombies for a while.
sshd_live_() {
	case $1 in '' | *[!0-9]*) return 1 ;; esac
	_sl_state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ -n "$_sl_state" ] && [ "$_sl_state" != Z ]
}

# sshd_pid_alive_ PIDFILE: the pid in PIDFILE is a live process
sshd_pid_alive_() {
	[ -s "$1" ] || return 1
	sshd_live_ "$(cat "$1" 2>/dev/null)"
}

# sshd_kill_pids_ PID...: SIGTERM, up to 5 s, then SIGKILL
sshd_kill_pids_() {
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null
	_skp_i=0
	while [ $_skp_i -lt 50 ]; do
		_skp_left=
		for _skp_p in "$@"; do
			sshd_live_ "$_skp_p" && _skp_left="$_skp_left $_skp_p"
		done
		[ -z "$_skp_left" ] && return 0
		sleep 0.1
		_skp_i=$((_skp_i + 1))
	done
	# shellcheck disable=SC2086
	kill -KILL $_skp_left 2>/dev/null
	return 0
}

# sshd_user_pids_ USER: the live processes running as USER (real or effective uid)
sshd_user_pids_() {
	id -u "$1" >/dev/null 2>&1 || return 0
	{ ps -o pid=,stat= -u "$1"; ps -o pid=,stat= -U "$1"; } 2>/dev/null |
		awk '$2 !~ /^Z/ { print $1 }' | sort -u
}

# sshd_check_env_ DIR: what is needed is here; DIR is made, absolute in $_sd
sshd_check_env_() {
	if [ "$(id -u)" != 0 ]; then
		sshd_err_ "must run as root (it adds users and starts sshd)"
		return 1
	fi
	for _sce_p in "$SSHD_BIN" ssh scp ssh-keygen useradd usermod runuser ps; do
		if ! command -v "$_sce_p" >/dev/null 2>&1; then
			sshd_err_ "$_sce_p not found; install it with: apt-get install openssh-server openssh-client passwd util-linux procps"
			return 1
		fi
	done
	case $SSHD_SLAVE_PREFIX in
	'' | [!a-z]* | *[!a-z0-9_]*) sshd_err_ "bad SSHD_SLAVE_PREFIX '$SSHD_SLAVE_PREFIX' (lower-case letters, digits, _)"; return 1 ;;
	esac
	[ ${#SSHD_SLAVE_PREFIX} -le 20 ] || { sshd_err_ "SSHD_SLAVE_PREFIX is longer than 20 characters"; return 1; }
	# sshd's privilege separation: its directory and user (the package makes the user)
	mkdir -p /run/sshd && chmod 0755 /run/sshd || return 1
	getent passwd sshd >/dev/null 2>&1 ||
		useradd --system --no-create-home --home-dir /run/sshd --shell /usr/sbin/nologin sshd || {
		sshd_err_ "no privilege separation user 'sshd'"; return 1; }
	mkdir -p "$1" || return 1
	_sd=$(cd "$1" && pwd) || return 1
}

# sshd_client_files_ DIR: the client key, ssh_config and an empty known_hosts (once per DIR)
sshd_client_files_() {
	if [ ! -s "$1/id_ed25519" ]; then
		rm -f "$1/id_ed25519" "$1/id_ed25519.pub"
		ssh-keygen -q -t ed25519 -N '' -C wseq-sweep-master -f "$1/id_ed25519" </dev/null || return 1
	fi
	[ -e "$1/known_hosts" ] || : >"$1/known_hosts"
	cat >"$1/ssh_config" <<-EOT
	# ssh -F $1/ssh_config: the sweep master's view of the loopback slaves
	Host *
	    IdentityFile $1/id_ed25519
	    IdentitiesOnly yes
	    IdentityAgent none
	    PreferredAuthentications publickey
	    PasswordAuthentication no
	    KbdInteractiveAuthentication no
	    UserKnownHostsFile $1/known_hosts
	    GlobalKnownHostsFile /dev/null
	    StrictHostKeyChecking accept-new
	    UpdateHostKeys no
	    HashKnownHosts no
	    LogLevel ERROR
	    BatchMode yes
	    ConnectTimeout 5
	    ServerAliveInterval 15
	    ServerAliveCountMax 4
	EOT
}

# sshd_user_ DIR USER: USER exists, shell /bin/sh, not locked, home DIR/home/USER fresh
sshd_user_() {
	_su_u=$2
	_su_home=$1/home/$_su_u
	if id -u "$_su_u" >/dev/null 2>&1; then
		_su_old=$(getent passwd "$_su_u" | cut -d: -f6)
		# the slave of another DIR still running with this user?
		case $_su_old in
		*/home/"$_su_u")
			_su_odir=${_su_old%/home/*}
			if [ "$_su_odir" != "$1" ]; then
				for _su_pf in "$_su_odir"/sshd-*.pid; do
					if sshd_pid_alive_ "$_su_pf" && grep -q "^$_su_u\$" "$_su_odir/users" 2>/dev/null; then
						sshd_err_ "user $_su_u is in use by the slaves of $_su_odir (sshd $(cat "$_su_pf") runs);" \
							"another script at the same time needs its own SSHD_SLAVE_PREFIX"
						return 1
					fi
				done
			fi ;;
		esac
		# what a former run left running as this user
		# shellcheck disable=SC2046
		sshd_kill_pids_ $(sshd_user_pids_ "$_su_u")
		usermod -d "$_su_home" -s /bin/sh -p '*' "$_su_u" || {
			sshd_err_ "usermod of $_su_u failed"; return 1; }
	else
		_su_g=-U
		getent group "$_su_u" >/dev/null 2>&1 && _su_g="-g $_su_u"
		_su_i=0
		# /etc/passwd may be locked for a moment by another useradd
		# shellcheck disable=SC2086
		until useradd -M -d "$_su_home" -s /bin/sh -p '*' $_su_g -c "wseq sweep test slave" "$_su_u"; do
			_su_i=$((_su_i + 1))
			[ $_su_i -lt 10 ] || { sshd_err_ "useradd $_su_u failed"; return 1; }
			sleep 0.5
		done
	fi
	# -p '*': with UsePAM no, sshd refuses an account whose password is
	# locked ("!", useradd's default), even for public keys.
	rm -rf "$_su_home" && mkdir -p "$_su_home/.ssh" || return 1
	chmod 755 "$_su_home" && chmod 700 "$_su_home/.ssh" &&
		chown -R "$_su_u:$(id -g "$_su_u")" "$_su_home" || return 1
	if ! runuser -u "$_su_u" -- sh -c 'cd "$1" && test -w .' sh "$_su_home" 2>/dev/null; then
		sshd_err_ "user $_su_u cannot use its home $_su_home (a directory above it is not searchable by others?)"
		return 1
	fi
	grep -qx "$_su_u" "$1/users" 2>/dev/null || echo "$_su_u" >>"$1/users"
}

# sshd_start_ DIR NAME USER PUBKEYFILE: the sshd of one slave; sets _port.
# Its authorized keys: PUBKEYFILE, as the user's ~/.ssh/authorized_keys.
sshd_start_() {
	_ss_d=$1 _ss_n=$2 _ss_u=$3
	_ss_home=$_ss_d/home/$_ss_u
	_ss_conf=$_ss_d/sshd-$_ss_n.conf _ss_log=$_ss_d/sshd-$_ss_n.log _ss_pid=$_ss_d/sshd-$_ss_n.pid
	_ss_key=$_ss_d/hostkey-$_ss_n
	sshd_user_ "$_ss_d" "$_ss_u" || return 1
	cp "$4" "$_ss_home/.ssh/authorized_keys" && chmod 600 "$_ss_home/.ssh/authorized_keys" &&
		chown "$_ss_u:$(id -g "$_ss_u")" "$_ss_home/.ssh/authorized_keys" || return 1
	rm -f "$_ss_key" "$_ss_key.pub"
	ssh-keygen -q -t ed25519 -N '' -C "wseq-slave-$_ss_n" -f "$_ss_key" </dev/null || return 1
	_ss_try=0
	while :; do
		_port=$(sshd_free_port_) || return 1
		cat >"$_ss_conf" <<-EOT
		# sshd of the test slave $_ss_n (lib-sshd.sh); not the system's sshd
		Port $_port
		ListenAddress 127.0.0.1
		HostKey $_ss_key
		PidFile $_ss_pid
		AuthorizedKeysFile .ssh/authorized_keys
		AuthorizedPrincipalsFile none
		PubkeyAuthentication yes
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		HostbasedAuthentication no
		UsePAM no
		PermitRootLogin no
		StrictModes no
		AllowUsers $_ss_u
		AllowTcpForwarding no
		X11Forwarding no
		PermitTunnel no
		PrintMotd no
		PrintLastLog no
		UseDNS no
		MaxStartups 100:30:200
		MaxSessions 100
		LoginGraceTime 30
		Subsystem sftp internal-sftp
		LogLevel VERBOSE
		EOT
		"$SSHD_BIN" -t -f "$_ss_conf" >"$_ss_log" 2>&1 || {
			sshd_err_ "sshd refuses $_ss_conf:"; cat "$_ss_log" >&2; return 1; }
		rm -f "$_ss_pid"
		: >"$_ss_log"
		# It daemonizes (double fork, to init), then binds, then writes PidFile.
		"$SSHD_BIN" -f "$_ss_conf" -E "$_ss_log" </dev/null >/dev/null 2>&1 || {
			sshd_err_ "sshd of slave $_ss_n did not start:"; cat "$_ss_log" >&2; return 1; }
		_ss_i=0
		while [ $_ss_i -lt 100 ]; do
			sshd_pid_alive_ "$_ss_pid" && sshd_port_in_use_ "$_port" && break
			grep -q "Cannot bind any address\|fatal" "$_ss_log" 2>/dev/null && break
			sleep 0.1
			_ss_i=$((_ss_i + 1))
		done
		sshd_pid_alive_ "$_ss_pid" && sshd_port_in_use_ "$_port" && break
		if grep -q "Address already in use" "$_ss_log" && [ $_ss_try -lt 5 ]; then
			_ss_try=$((_ss_try + 1))    # lost the port to someone else: another one
			continue
		fi
		sshd_err_ "sshd of slave $_ss_n ($_ss_conf) does not listen on 127.0.0.1:$_port; its log:"
		cat "$_ss_log" >&2
		return 1
	done
	# its host key, known in advance (also as localhost)
	sed -i "/^\[127\.0\.0\.1\]:${_port}[ ,]/d" "$_ss_d/known_hosts"
	echo "[127.0.0.1]:$_port,[localhost]:$_port $(cut -d' ' -f1,2 "$_ss_key.pub")" >>"$_ss_d/known_hosts"
}

# sshd_verify_ DIR NAME USER PORT: one ssh ... true; the logs on stderr if it fails
sshd_verify_() {
	if ! ssh -F "$1/ssh_config" -p "$4" "$3@127.0.0.1" true </dev/null >"$1/verify-$2.err" 2>&1; then
		sshd_err_ "ssh -F $1/ssh_config -p $4 $3@127.0.0.1 true failed:"
		cat "$1/verify-$2.err" >&2
		sshd_err_ "the sshd log $1/sshd-$2.log:"
		cat "$1/sshd-$2.log" >&2
		return 1
	fi
}

sshd_write_env_() {
	{
		echo "SSHD_DIR='$1'"
		echo "SSHD_SSH_CONFIG='$1/ssh_config'"
		echo "SSHD_CLUSTER='$1/cluster'"
		echo "SSHD_SLAVE_COUNT=$SSHD_SLAVE_COUNT"
		echo "SSHD_SLAVE_PORTS='$SSHD_SLAVE_PORTS'"
		echo "SSHD_SLAVE_USERS='$SSHD_SLAVE_USERS'"
		echo "export SSHD_DIR SSHD_SSH_CONFIG SSHD_CLUSTER SSHD_SLAVE_COUNT SSHD_SLAVE_PORTS SSHD_SLAVE_USERS"
	} >"$1/env"
}

sshd_slaves_up() {
	[ $# -eq 2 ] || { sshd_err_ "usage: sshd_slaves_up DIR N"; return 1; }
	case $2 in '' | *[!0-9]* | 0) sshd_err_ "sshd_slaves_up: bad N '$2'"; return 1 ;; esac
	sshd_check_env_ "$1" || return 1
	# slaves of an earlier call on DIR go first
	sshd_slaves_down "$_sd"
	rm -rf "${_sd:?}/home" "$_sd/cluster" "$_sd/known_hosts" "$_sd/users"
	sshd_client_files_ "$_sd" || return 1
	: >"$_sd/cluster"
	SSHD_SLAVE_PORTS= SSHD_SLAVE_USERS=
	_su_k=1
	while [ "$_su_k" -le "$2" ]; do
		sshd_start_ "$_sd" "$_su_k" "$SSHD_SLAVE_PREFIX$_su_k" "$_sd/id_ed25519.pub" || return 1
		echo "$SSHD_SLAVE_PREFIX$_su_k@127.0.0.1:$_port" >>"$_sd/cluster"
		SSHD_SLAVE_PORTS="${SSHD_SLAVE_PORTS:+$SSHD_SLAVE_PORTS }$_port"
		SSHD_SLAVE_USERS="${SSHD_SLAVE_USERS:+$SSHD_SLAVE_USERS }$SSHD_SLAVE_PREFIX$_su_k"
		_su_k=$((_su_k + 1))
	done
	_su_k=1
	for _su_p in $SSHD_SLAVE_PORTS; do
		sshd_verify_ "$_sd" "$_su_k" "$SSHD_SLAVE_PREFIX$_su_k" "$_su_p" || return 1
		_su_k=$((_su_k + 1))
	done
	SSHD_DIR=$_sd SSHD_SSH_CONFIG=$_sd/ssh_config SSHD_CLUSTER=$_sd/cluster SSHD_SLAVE_COUNT=$2
	export SSHD_DIR SSHD_SSH_CONFIG SSHD_CLUSTER SSHD_SLAVE_COUNT SSHD_SLAVE_PORTS SSHD_SLAVE_USERS
	sshd_write_env_ "$_sd"
}

sshd_slave_noauth() {
	[ $# -eq 1 ] || { sshd_err_ "usage: sshd_slave_noauth DIR"; return 1; }
	sshd_check_env_ "$1" || return 1
	sshd_client_files_ "$_sd" || return 1
	# a key of its own is authorized, the client's is not
	rm -f "$_sd/other_key" "$_sd/other_key.pub"
	ssh-keygen -q -t ed25519 -N '' -C not-the-master -f "$_sd/other_key" </dev/null || return 1
	sshd_start_ "$_sd" na "${SSHD_SLAVE_PREFIX}na" "$_sd/other_key.pub" >&2 || return 1
	echo "${SSHD_SLAVE_PREFIX}na@127.0.0.1:$_port"
}

sshd_slaves_down() {
	[ $# -eq 1 ] || { sshd_err_ "usage: sshd_slaves_down DIR"; return 1; }
	_sdn_d=$(cd "$1" 2>/dev/null && pwd) || _sdn_d=$1
	_sdn_pids=
	for _sdn_pf in "$_sdn_d"/sshd-*.pid; do
		[ -e "$_sdn_pf" ] || continue
		sshd_pid_alive_ "$_sdn_pf" && _sdn_pids="$_sdn_pids $(cat "$_sdn_pf")"
	done
	# and listeners whose pid file is gone (DIR removed while they ran)
	_sdn_pids="$_sdn_pids $(ps -eo pid=,args= 2>/dev/null | awk -v f="-f $_sdn_d/sshd-" '
		($2 == "sshd:" || $2 ~ /\/sshd$/) && index($0, f) { print $1 }')"
	# shellcheck disable=SC2086
	_sdn_pids=$(printf '%s\n' $_sdn_pids | sort -u)
	# shellcheck disable=SC2086
	sshd_kill_pids_ $_sdn_pids
	rm -f "$_sdn_d"/sshd-*.pid
	# then what runs as the slaves' users: sessions, clients the master left
	if [ -s "$_sdn_d/users" ]; then
		while IFS= read -r _sdn_u; do
			[ -n "$_sdn_u" ] || continue
			# shellcheck disable=SC2046
			sshd_kill_pids_ $(sshd_user_pids_ "$_sdn_u")
		done <"$_sdn_d/users"
	fi
	return 0
}
