# The sweep tests' machines (t6130-t6157): sourced after test-lib.sh and
# lib-sshd.sh, with SSHD_SLAVE_PREFIX set (the slaves' user names are global:
# one prefix a script).
#
#   sweep_slaves_up N   N loopback sshd slaves in D (lib-sshd.sh: their users
#                       in SSHD_SLAVE_USERS, ports in SSHD_SLAVE_PORTS, D/cluster,
#                       D/ssh_config), stopped at exit; SB, a private project's
#                       directory for --sandbox runs, stopped at exit too; PORT,
#                       a free port for the master; DATA, test/data/sweep-run.
#                       Exits the script when the slaves do not come up.
#   sweep_spec TIMEOUT JOBS
#                       test/data/sweep-run's spec for them on stdout.

D="$TRASH_DIRECTORY/ssh"
SB="$TRASH_DIRECTORY/sb"
DATA="$WSEQ_SRCDIR/test/data/sweep-run"

sweep_slaves_up() {
	test_atexit "sshd_slaves_down '$D'"
	test_atexit "wseq_sandbox down '$SB' 2>/dev/null"
	sshd_slaves_up "$D" "$1" >"$TRASH_DIRECTORY/sshd-up.log" 2>&1 || {
		say "sshd_slaves_up failed:"; sed 's/^/#   /' "$TRASH_DIRECTORY/sshd-up.log"; exit 1
	}
	PORT=$(sshd_free_port_) || exit 1
}

sweep_spec() {
	sed -e "s/TIMEOUT/$1/" -e "s/PORT/$PORT/" -e "s/JOBS/$2/" "$DATA/spec.in"
}
