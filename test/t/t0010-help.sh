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

test_done
