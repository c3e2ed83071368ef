# Shared library for wseq's shell integration tests (git's t/test-lib.sh is
# the model). A test script sets test_description, sources this file, calls
# test_expect_success for each thing it proves, and ends with test_done.
# Output is TAP so automake's tap-driver counts every test.
#
# Each script runs in its own trash directory under the build tree; services
# it starts (private MariaDB, Apache, BOINC clients) are stopped at exit by
# the cleanups registered with test_atexit.

: "${WSEQ_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${WSEQ_BUILDDIR:=$WSEQ_SRCDIR}"
export WSEQ_SRCDIR WSEQ_BUILDDIR

this_test=$(basename "$0" .sh)
TRASH_DIRECTORY="$WSEQ_BUILDDIR/test/trash.$this_test"
rm -rf "$TRASH_DIRECTORY" || exit 1
mkdir -p "$TRASH_DIRECTORY" || exit 1
cd "$TRASH_DIRECTORY" || exit 1
# Apache runs CGI programs as www-data: the trash must be reachable by it.
chmod 755 "$TRASH_DIRECTORY"

# Programs under test come from the build tree, never from an installation:
# its stage/ (Makefile.am) holds every program by its installed name, as an
# installation would (the CGI programs in libexec/cgi-bin), whatever
# directory builds it; test/ the test tools.
PATH="$WSEQ_BUILDDIR/stage/bin:$WSEQ_BUILDDIR/stage/libexec:$WSEQ_BUILDDIR/stage/libexec/cgi-bin:$WSEQ_BUILDDIR/test:$PATH"
export PATH
WSEQ_LIBEXECDIR="$WSEQ_BUILDDIR/stage/libexec"
WSEQ_DATADIR="$WSEQ_BUILDDIR/stage/share"
export WSEQ_LIBEXECDIR WSEQ_DATADIR
unset WSEQ_TIME_OFFSET WSEQ_TIME_OFFSET_FILE

test_count=0
test_failures=0
test_skipped=0
# Each point's time and the script's are written to the log as TAP comments
# ("# 12 s", "# 95 s in all"), so where a run's time goes can be read there.
test_started_=$(date +%s)

say() { printf '# %s\n' "$*"; }

# Register a command run when the script exits (in reverse order), pass or
# fail. The list is a file, so a registration made inside a test body (which
# runs in a subshell) counts too.
test_atexit_file="$TRASH_DIRECTORY/.atexit"
: >"$test_atexit_file"
test_atexit() {
	printf '%s\n' "$1" >>"$test_atexit_file"
}

test_run_atexit_() {
	set +e
	cd "$TRASH_DIRECTORY/.." 2>/dev/null
	tac "$test_atexit_file" 2>/dev/null | while IFS= read -r c; do
		[ -n "$c" ] && eval "$c" >/dev/null 2>&1
	done
	test_remove_trash_
}
trap 'test_run_atexit_' EXIT

# A script whose every point passed leaves no trash directory behind: a
# suite's trash (a MariaDB data directory, BOINC clients, sweep kits per
# script) would fill a CI machine's disk. Its services are stopped by now,
# so their last words (a LeakSanitizer report at exit) are in its logs: a
# trash holding a sanitizer report stays for test/run-all.sh to fail the run,
# and so does any failed or interrupted script's. WSEQ_KEEP_TRASH=1 keeps all.
# The pattern is run-all.sh's (text files only: sweep bundles carry libasan).
test_sanitizer_reports_() {
	grep -rlIE --exclude-dir=copy 'ERROR: (Address|Leak)Sanitizer|: runtime error: ' "$1" 2>/dev/null
}
test_remove_trash_() {
	[ "${test_passed_:-0}" = 1 ] && [ "${WSEQ_KEEP_TRASH:-0}" != 1 ] || return 0
	if test_sanitizer_reports_ "$TRASH_DIRECTORY" >/dev/null; then
		say "kept $TRASH_DIRECTORY: a sanitizer report is in it"
		return 0
	fi
	rm -rf "$TRASH_DIRECTORY" 2>/dev/null
}

# The body runs inside a function (in a subshell), so "return 1" ends it
# with a failure, as in git's test-lib.
test_run_body_() {
	eval "$1"
}

# test_expect_success 'what it proves' 'shell commands'
test_expect_success() {
	test_count=$((test_count + 1))
	out="$TRASH_DIRECTORY/.test-$test_count.out"
	t0_=$(date +%s)
	if ( test_run_body_ "$2" ) >"$out" 2>&1; then
		printf 'ok %d - %s\n' "$test_count" "$1"
		say "$(( $(date +%s) - t0_ )) s"
	else
		test_failures=$((test_failures + 1))
		printf 'not ok %d - %s\n' "$test_count" "$1"
		sed -e 's/^/#   /' <<-EOT
		$2
		EOT
		say "output:"
		sed -e 's/^/#   > /' "$out" | tail -n 60
		say "$(( $(date +%s) - t0_ )) s"
	fi
}

# Skip a test for a stated reason; counted as SKIP, never as passed.
test_skip() {
	test_count=$((test_count + 1))
	test_skipped=$((test_skipped + 1))
	printf 'ok %d - %s # SKIP %s\n' "$test_count" "$1" "$2"
}

test_done() {
	printf '1..%d\n' "$test_count"
	say "$(( $(date +%s) - test_started_ )) s in all"
	[ "$test_failures" -eq 0 ] || exit 1
	test_passed_=1
	exit 0
}

# --- assertions -----------------------------------------------------------

test_must_fail() {
	"$@"
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "test_must_fail: command succeeded: $*" >&2
		return 1
	elif [ $rc -gt 128 ] && [ $rc -le 192 ]; then
		echo "test_must_fail: command died of signal $((rc - 128)): $*" >&2
		return 1
	fi
	return 0
}

test_cmp() {
	diff -u "$1" "$2"
}

# test_grep [-v] PATTERN FILE: like grep, but shows the file when it fails.
test_grep() {
	if [ "$1" = "-v" ]; then
		shift
		if grep -e "$1" "$2" >/dev/null; then
			echo "test_grep: '$1' unexpectedly found in $2:" >&2
			cat "$2" >&2
			return 1
		fi
		return 0
	fi
	grep -e "$@" >/dev/null && return 0
	echo "test_grep: '$1' not found in $2:" >&2
	cat "$2" >&2 2>/dev/null
	return 1
}

test_line_count() {
	n=$(wc -l <"$3" | tr -d ' ')
	if ! test "$n" "$1" "$2"; then
		echo "test_line_count: $3 has $n lines, expected $1 $2" >&2
		cat "$3" >&2
		return 1
	fi
}

# Every wait below is for a condition; its bound is what a quiet machine needs
# at most, times WSEQ_TEST_PATIENCE (default 4): CI runs on a busy machine
# (load 5-9 seen), and a wait ends as soon as its condition holds, so the
# margin costs nothing when all is well.
test_patience() {
	echo $(( $1 * ${WSEQ_TEST_PATIENCE:-4} ))
}

# Wait up to $1 seconds (times the patience) for the command "$2..." to succeed.
test_wait_for() {
	t=$(test_patience "$1"); shift
	end=$(( $(date +%s) + t ))
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.2
	done
	return 0
}

# --- services ------------------------------------------------------------

# Start a private MariaDB (no Apache, no project) in $1 (default db) and
# load its settings (WSEQ_DB_SOCKET, WSEQ_DB_PORT, WSEQ_DB_USER,
# WSEQ_DB_PASSWD) into the environment; it is stopped at exit.
test_mariadb_up() {
	dir="$TRASH_DIRECTORY/${1:-db}"
	wseq_sandbox up --db-only "$dir" >"$dir.up.log" 2>&1 || {
		say "wseq_sandbox up --db-only failed:"
		sed -e 's/^/#   /' "$dir.up.log"
		return 1
	}
	test_atexit "wseq_sandbox down '$dir'"
	eval "$(wseq_sandbox env "$dir")"
}

# Run SQL against the private database of the current sandbox.
test_sql() {
	mariadb --socket="$WSEQ_DB_SOCKET" -u"$WSEQ_DB_USER" -p"$WSEQ_DB_PASSWD" \
		--batch --skip-column-names "$@"
}

# --- real BOINC clients ----------------------------------------------------

# Start a private BOINC client (sandbox/wseq_client) with its data in
# $TRASH_DIRECTORY/$1 (options of "wseq_client up" follow, e.g. --coproc);
# it is killed at exit (nothing reads it then, and a clean stop takes the
# client seconds).
test_boinc_client_up() {
	_bc=$1; shift
	test_atexit "wseq_client kill '$TRASH_DIRECTORY/$_bc'"
	wseq_client up "$TRASH_DIRECTORY/$_bc" "$@"
}

# boinccmd against the named client
test_boinccmd() {
	name=$1; shift
	wseq_client cmd "$TRASH_DIRECTORY/$name" "$@"
}

test_boinc_client_down() {
	wseq_client down "$TRASH_DIRECTORY/$1"
}

# Kill the client at once (no clean exit), and the jobs it runs.
test_boinc_client_kill() {
	wseq_client kill "$TRASH_DIRECTORY/$1"
}

test_boinc_attach() {
	wseq_client attach "$TRASH_DIRECTORY/$1" "$2" "$3"
}

test_boinc_update() {
	wseq_client update "$TRASH_DIRECTORY/$1" "$2"
}

# test_boinc_poll "CLIENT..." URL SECONDS CMD...: make the clients contact the
# project every few seconds until CMD succeeds; fails after SECONDS. (A client
# that asked for work and got none backs off for minutes before it asks again.)
test_boinc_poll() {
	_pc=$1 _pu=$2 _pt=$(test_patience "$3")
	shift 3
	_pend=$(( $(date +%s) + _pt ))
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$_pend" ] && return 1
		for _c in $_pc; do
			test_boinc_update "$_c" "$_pu" >/dev/null 2>&1
		done
		sleep 3
	done
	return 0
}

# --- a project with the sample app -----------------------------------------

# Start a sandbox in $TRASH_DIRECTORY/${1:-sb} (options for up follow) and
# load its settings (PROJECT_DIR, PROJECT_URL, WSEQ_DB_*, ADMIN_AUTHENTICATOR).
test_sandbox_up() {
	sbdir="$TRASH_DIRECTORY/${1:-sb}"
	shift
	test_atexit "wseq_sandbox down '$sbdir'"
	wseq_sandbox up "$sbdir" "$@" 2>"$sbdir.log" || {
		say "wseq_sandbox up failed:"
		sed -e 's/^/#   /' "$sbdir.log"
		return 1
	}
	eval "$(wseq_sandbox env "$sbdir")"
	WSEQ_PROJECT_DIR="$PROJECT_DIR"
	export WSEQ_PROJECT_DIR
	test_many_hosts_one_account
}

# Most tests run every client under the admin's account (lib-one-account.sh);
# a test of the per-account rules sets TEST_ACCOUNT_RULES=1 before
# test_sandbox_up to keep a real project's defaults.
. "$WSEQ_SRCDIR/test/lib-one-account.sh"
test_many_hosts_one_account() {
	[ "${TEST_ACCOUNT_RULES:-0}" = 1 ] || one_account_many_hosts "$PROJECT_DIR/config.xml"
}

# test_user NAME AUTH [submit]: an account NAME@example.com with
# authenticator AUTH in the sandbox's database; "submit" lets it submit to
# every app (user_submit.submit_all).
test_user() {
	test_sql "$WSEQ_DB_NAME" -e "insert into user (create_time, email_addr, name, authenticator,
			cross_project_id, passwd_hash)
			values (1, \"$1@example.com\", \"$1\", \"$2\", \"x\", \"x\")" &&
	if [ "${3:-}" = submit ]; then
		test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all)
			select id, 1 from user where authenticator=\"$2\""
	fi
}

# Register the sample BOINC app (wseq_sample 1.00 for x86_64 Linux, its
# standard templates) in $PROJECT_DIR with xadd and update_versions.
test_setup_sample_app() {
	platform=x86_64-pc-linux-gnu
	vdir="$PROJECT_DIR/apps/wseq_sample/wseq_sample_1.00_$platform"
	mkdir -p "$vdir" &&
	cp "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample" "$vdir/wseq_sample_1.00_$platform" &&
	cat >"$PROJECT_DIR/project.xml" <<-EOT &&
	<boinc>
	  <app><name>wseq_sample</name><user_friendly_name>wseq sample</user_friendly_name></app>
	  <platform><name>$platform</name><user_friendly_name>Linux x86_64</user_friendly_name></platform>
	</boinc>
	EOT
	cp "$WSEQ_SRCDIR/apps/templates/wseq_sample_in" "$WSEQ_SRCDIR/apps/templates/wseq_sample_out" \
		"$PROJECT_DIR/templates/" &&
	(cd "$PROJECT_DIR" && bin/xadd && bin/update_versions) >"$TRASH_DIRECTORY/setup_app.log" 2>&1
}

# Run a project program from the project directory.
test_project() {
	(cd "$PROJECT_DIR" && "$@")
}

# One value from the project database.
test_sql_value() {
	test_sql "$WSEQ_DB_NAME" -e "$1"
}

# test_seg_done SEQ K: has segment K of sequence SEQ's first branch been reported done?
test_seg_done() {
	test "$(test_sql_value "select count(*) from result where name=\"$1_b0_s$2_0\" and server_state=5 and outcome=1")" = 1
}

# Is process $1 gone (or a zombie, killed but not yet reaped by init)?
test_pid_gone() {
	state=$(sed -e 's/^.*) //' -e 's/ .*//' "/proc/$1/stat" 2>/dev/null)
	[ -z "$state" ] || [ "$state" = Z ] || [ "$state" = X ]
}
