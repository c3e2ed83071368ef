# Two connections to a fresh database, driven line by line: wseq_test db serve
# behind fifos, "a CMD REPLY" and "b CMD REPLY" send a command to one and
# expect its reply ("-" to only send). Sourced by the wseq_test db serve tests
# after test-lib.sh, with WSEQ_DB_NAME set.

test_mariadb_up

wseq_test db create "$WSEQ_SRCDIR/db/schema.sql" 2>create.log || {
	cat create.log; exit 1
}

mkfifo a_in a_out b_in b_out
wseq_test db serve <a_in >a_out 2>a.log &
a_pid=$!
wseq_test db serve <b_in >b_out 2>b.log &
b_pid=$!
test_atexit "kill $a_pid $b_pid"
exec 3>a_in 4<a_out 5>b_in 6<b_out

# get FD: one reply line; a hung tool fails the test instead of hanging it
get() {
	timeout "$(test_patience 20)" sh -c 'IFS= read -r l && printf "%s\n" "$l"' <&$1
}
# a CMD / b CMD: send, expect the reply (or "-" to only send)
a() { echo "$1" >&3 && { [ "$2" = - ] || test "$(get 4)" = "$2"; }; }
b() { echo "$1" >&5 && { [ "$2" = - ] || test "$(get 6)" = "$2"; }; }
