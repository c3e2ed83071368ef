#!/bin/sh
# The release names of doc/HACKING.md ("Names"), as git means them: a
# function that frees only what a struct holds is X_release (or X_clear),
# and X_free frees the struct too. This test reads every C file outside
# test/ and names a void X_free(struct x *p) whose body never frees p.
test_description='no X_free that frees only the contents: those are X_release'
. "$WSEQ_SRCDIR/test/test-lib.sh"

# misnamed DIR: "file: name" for each contents-only X_free under DIR.
misnamed() {
	python3 - "$1" <<-\PY
	import os, re, sys
	top = sys.argv[1]
	fn = re.compile(r"^(?:static\s+)?void\s+(\w+_free)\s*\(\s*(?:const\s+)?struct\s+\w+\s*\*\s*(\w+)\s*\)\s*\{(.*?)^\}", re.M | re.S)
	for root, dirs, files in os.walk(top):
	    dirs[:] = [d for d in dirs if d != "test" and not d.startswith((".", "_"))]
	    for f in sorted(files):
	        if f.endswith(".c"):
	            path = os.path.join(root, f)
	            for name, arg, body in fn.findall(open(path, errors="replace").read()):
	                if not re.search(r"\bfree\(\s*%s\s*\)" % re.escape(arg), body):
	                    print("%s: %s" % (os.path.relpath(path, top), name))
	PY
}

test_expect_success 'every X_free frees its struct; contents-only ones are X_release' '
	misnamed "$WSEQ_SRCDIR" >wrong &&
	test_line_count = 0 wrong
'

test_expect_success 'the check names a contents-only X_free, and passes X_free and X_release' '
	mkdir -p copy/lib &&
	cat >copy/lib/x.c <<-\EOF &&
	void thing_free(struct thing *t)
	{
		free(t->name);
	}
	void whole_free(struct whole *w)
	{
		free(w->name);
		free(w);
	}
	void thing_release(struct thing *t)
	{
		free(t->name);
	}
	EOF
	misnamed copy >wrong &&
	echo "lib/x.c: thing_free" >expect &&
	test_cmp expect wrong
'

test_done
