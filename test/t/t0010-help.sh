#!/bin/sh
test_description='every installed program answers --help, and its reference in doc/ covers its options'
. "$WSEQ_SRCDIR/test/test-lib.sh"

programs=$(for f in "$WSEQ_BUILDDIR"/stage/bin/* "$WSEQ_BUILDDIR"/stage/libexec/*; do
	[ -f "$f" ] && [ -x "$f" ] && basename "$f"
done | sort -u)

test_expect_success 'the build staged the programs' '
	test -n "$programs" &&
	echo "$programs" | grep -x make_project && echo "$programs" | grep -x wseq_sandbox &&
	echo "$programs" | grep -x wseq_ctl
'

for p in $programs; do
	test_expect_success "$p --help prints its usage and exits 0" "
		$p --help >help.$p 2>err.$p &&
		test -s help.$p &&
		grep -i usage help.$p
	"
	doc="$WSEQ_SRCDIR/doc/$p.md"
	if [ -f "$doc" ]; then
		test_expect_success "doc/$p.md names every option of $p --help" "
			$p --help | grep -o -e '--[a-z][a-z_-]*' | sort -u >opts.$p &&
			while read -r o; do
				grep -q -e \"\$o\" '$doc' || { echo \"\$o missing from $doc\"; return 1; }
			done <opts.$p
		"
	fi
done

# The README's two commands run as root: asked for help they answer as
# anyone; run by another user on a machine without sudo they say so.
for cmd in sandbox/demo.sh test/run-all.sh; do
	test_expect_success "$cmd --help answers without root" "
		bash '$WSEQ_SRCDIR/$cmd' --help >help.out 2>&1 &&
		grep -q '$cmd' help.out
	"
done

# (becoming another user needs root: a suite run without it, --no-install, skips this)
if [ "$(id -u)" != 0 ]; then
	test_skip 'not root and no sudo: the README commands ask for root, exit 1' 'not root'
else
test_expect_success 'not root and no sudo: the README commands ask for root, exit 1' '
	mkdir -p nosudo && chmod 755 nosudo "$TRASH_DIRECTORY" &&
	for p in bash id dirname; do ln -sf "$(command -v $p)" nosudo/$p || return 1; done &&
	for cmd in sandbox/demo.sh test/run-all.sh; do
		{ setpriv --reuid=65534 --regid=65534 --clear-groups \
			env -i PATH="$TRASH_DIRECTORY/nosudo" \
			bash "$WSEQ_SRCDIR/$cmd" >out 2>&1; rc=$?; } &&
		test $rc = 1 && test_grep "run this as root" out || return 1
	done &&
	# with --no-install the suite runs as anyone: an unknown option is its own answer
	{ setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -i PATH="$TRASH_DIRECTORY/nosudo" \
		bash "$WSEQ_SRCDIR/test/run-all.sh" --no-install --bogus >out 2>&1; rc=$?; } &&
	test $rc = 2 && test_grep "unknown option --bogus" out
'
fi

# The tools on the skeleton (lib/tool.h, doc/tools.md): one usage error, one line, exit 2.
skeleton_tools="account boinc_gahp cancel_jobs create_sequence crypt_prog db_check db_dump db_upgrade
	extend_sequence mail_users make_project seq_status sign_executable sweep update_stats
	update_versions wseq_config wseq_ctl wseq_sim wseq_submit xadd"

for p in $skeleton_tools; do
	test_expect_success "$p: an unknown option is one line on stderr, exit 2, nothing on stdout" "
		$p --no_such_option </dev/null >out.$p 2>err.$p; test \$? = 2 &&
		test_line_count = 1 err.$p && grep -e '--no_such_option' err.$p &&
		grep -e 'see --help' err.$p && ! test -s out.$p
	"
done

test_expect_success 'a dash in an option name is read as an underscore' '
	sweep --max-starts=x status s 2>err; test $? = 2 &&
	test_grep "max_starts needs a whole number" err &&
	sweep --max_starts=x status s 2>err; test $? = 2 &&
	test_grep "max_starts needs a whole number" err
'

test_expect_success 'subcommands: a missing or unknown one, or a wrong count, is a usage error' '
	account 2>e1; test $? = 2 && test_grep "a command is needed" e1 &&
	account frob 2>e2; test $? = 2 && test_grep "unknown command .frob." e2 &&
	crypt_prog -sign onlyone 2>e3; test $? = 2 && test_grep "too few arguments for -sign" e3 &&
	sign_executable a 2>e4; test $? = 2 && test_grep "usage: sign_executable FILE PRIVATE_KEY" e4
'

test_expect_success 'TOOL CMD --help is the command usage line and the options' '
	account create --help >out && test_grep "^usage: account create  *--email A" out &&
	test_grep -v "^usage: account COMMAND" out && test_grep -v "^  lookup " out &&
	test_grep "project_dir DIR" out &&
	account --help >out && test_grep "^  lookup " out
'

test_expect_success 'a command with its own option table; options after its argument, -- ends them' '
	wseq_submit help wait >out && test_grep "^usage: wseq_submit wait \[OPTIONS\] BATCH" out &&
	test_grep "poll SECONDS" out && test_grep -v "lease DAYS" out &&
	wseq_submit submit --help >out && test_grep "lease DAYS" out &&
	test_grep "^Submit the jobs of FILE" out &&
	{ wseq_submit status 2>err; test $? = 2; } && test_grep "too few arguments for status" err &&
	{ wseq_submit status a b 2>err; test $? = 2; } && test_grep "too many arguments for status" err &&
	{ wseq_submit status --poll 3 B 2>err; test $? = 2; } && test_grep "unknown option --poll" err &&
	{ wseq_submit status B --nope 2>err; test $? = 2; } && test_grep "unknown option --nope" err &&
	test_line_count = 1 err &&
	{ wseq_submit status B --project http://127.0.0.1:9/ --auth_file "$TRASH_DIRECTORY/none" 2>err
	  test $? = 1; } && test_grep "cannot read the authenticator file $TRASH_DIRECTORY/none" err &&
	{ wseq_submit status --project http://127.0.0.1:9/ --auth_file "$TRASH_DIRECTORY/none" -- --jobs \
		2>err; test $? = 1; } && test_grep "is not a batch name" err && grep -q -e "--jobs" err
'

# The serving programs (serve/serve.h serve_program()): no arguments; --help is the
# usage on stdout, exit 0; anything else the usage on stderr, exit 2.
for f in "$WSEQ_BUILDDIR"/stage/libexec/cgi-bin/*; do
	p=${f##*/}
	test_expect_success "cgi-bin/$p: --help exits 0, an argument is a usage error (exit 2)" "
		'$f' --help >out.$p 2>err.$p && test_grep '^usage: ' out.$p && ! test -s err.$p &&
		{ '$f' extra >out2.$p 2>err2.$p; test \$? = 2; } &&
		test_grep '^usage: ' err2.$p && ! test -s out2.$p
	"
done

test_done
