#!/bin/sh
test_description='every fuzz target replays its corpus (the tests inputs and every input a fuzzer once failed on) without a sanitizer report or a failed property'
. "$WSEQ_SRCDIR/test/test-lib.sh"

# Scratch directories the targets make (the upload handler's) go here.
TMPDIR=$TRASH_DIRECTORY
export TMPDIR

# In a --enable-fuzz build the targets are libFuzzer binaries: -runs=0 makes
# them run the corpus and stop. replay.c's main() ignores the flag.
for corpus in "$WSEQ_SRCDIR"/test/fuzz/corpus/*/; do
	t=$(basename "$corpus")
	test_expect_success "fuzz_$t replays test/fuzz/corpus/$t" "
		test -n \"\$(ls '$corpus')\" &&
		'$WSEQ_BUILDDIR/test/fuzz/fuzz_$t' -runs=0 '$corpus' >out.$t 2>&1 ||
		{ cat out.$t; return 1; }
	"
done

test_done
