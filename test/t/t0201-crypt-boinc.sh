#!/bin/sh
# The real BOINC 7.20 client library judges our signatures: a helper linked
# with libboinc_crypt runs check_file_signature2 (what the client calls for
# every app file) on sign_executable's output and our BOINC key text.
# Skipped where libboinc-app-dev or g++ is missing.
test_description='code signatures pass BOINC 7.20 check_file_signature2'
. "$WSEQ_SRCDIR/test/test-lib.sh"

if test -f /usr/include/boinc/crypt.h && command -v g++ >/dev/null 2>&1 &&
   g++ -I/usr/include/boinc -o boinc_check "$WSEQ_SRCDIR/test/data/crypt/boinc_check.cpp" \
	-lboinc_crypt -lboinc -lcrypto >build.log 2>&1
then
	have_boinc=yes
else
	have_boinc=
fi

boinc_expect() {
	if test -z "$have_boinc"; then
		test_skip "$1" "BOINC 7.20 client library (libboinc-app-dev) or g++ not available"
	else
		test_expect_success "$@"
	fi
}

test_expect_success 'a 1024-bit key pair and a signed app file' '
	crypt_prog -genkey 1024 private.pem public.txt &&
	head -c 300000 /dev/urandom >app &&
	sign_executable app private.pem >app.sig
'

boinc_expect 'BOINC accepts the signature with our key text' '
	./boinc_check app app.sig public.txt >out &&
	test "$(cat out)" = valid
'

boinc_expect 'BOINC rejects the signature for a changed file' '
	cp app app2 && printf x >>app2 &&
	! ./boinc_check app2 app.sig public.txt >out &&
	test "$(cat out)" = invalid
'

boinc_expect 'BOINC rejects the signature under another key' '
	crypt_prog -genkey 1024 other.pem other.txt &&
	! ./boinc_check app app.sig other.txt >out &&
	test "$(cat out)" != valid
'

boinc_expect 'BOINC accepts a key text built from the <code_sign_key> element as sent' '
	crypt_prog -pubkey private.pem >again.txt &&
	test_cmp public.txt again.txt &&
	./boinc_check app app.sig again.txt
'

boinc_expect 'BOINC accepts a 512-bit key signature too' '
	crypt_prog -genkey 512 small.pem small.txt &&
	sign_executable app small.pem >small.sig &&
	test "$(wc -l <small.sig)" = 3 &&
	./boinc_check app small.sig small.txt
'

test_done
