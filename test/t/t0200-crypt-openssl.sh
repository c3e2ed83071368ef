#!/bin/sh
# Code signing checked independently with the openssl CLI: signatures made
# by sign_executable recover to the file's md5 under plain PKCS#1 type-1
# padding, openssl's own signatures verify with crypt_prog, and the BOINC key
# text holds openssl's modulus.
test_description='code signing agrees with openssl pkeyutl'
. "$WSEQ_SRCDIR/test/test-lib.sh"

# expect_exit CODE CMD...: CMD must exit with exactly CODE (crypt_prog
# -verify: 1 invalid, 2 error).
expect_exit() {
	want=$1; shift
	"$@"; rc=$?
	test "$rc" = "$want" && return 0
	echo "expect_exit: '$*' exited $rc, expected $want" >&2
	return 1
}

# Signature text (hex lines, "." line) to raw bytes, as the client reads it.
sig_to_bin() {
	sed -e '/^\.$/d' "$1" | xxd -r -p >"$2"
}

test_expect_success 'crypt_prog -genkey writes the three key files' '
	crypt_prog -genkey 1024 private.pem public.txt public.pem &&
	test -s private.pem && test -s public.txt && test -s public.pem &&
	test "$(stat -c %a private.pem)" = 600 &&
	openssl rsa -in private.pem -noout -check >check.out 2>&1 &&
	test_grep "RSA key ok" check.out
'

test_expect_success 'crypt_prog -genkey refuses 2048 bits and existing files' '
	test_must_fail crypt_prog -genkey 2048 big.pem big.txt 2>err &&
	test_grep "2048" err &&
	test ! -e big.pem && test ! -e big.txt &&
	cp private.pem before.pem &&
	test_must_fail crypt_prog -genkey 1024 private.pem other.txt 2>err &&
	test_grep "private.pem" err &&
	test_cmp before.pem private.pem && test ! -e other.txt
'

test_expect_success 'BOINC key text modulus is the one openssl sees' '
	openssl rsa -in private.pem -noout -modulus | sed -e "s/^Modulus=//" |
		tr A-F a-f >modulus.expect &&
	sed -n -e "2,5p" public.txt | tr -d "\n" >modulus.actual &&
	echo >>modulus.actual &&
	test_cmp modulus.expect modulus.actual &&
	# exponent 65537, left-padded with zeros to 128 bytes
	test "$(sed -n -e "6,9p" public.txt | tr -d "\n")" = "$(printf "%0250d" 0)010001" &&
	test "$(sed -n 1p public.txt)" = 1024 &&
	test "$(sed -n 10p public.txt)" = . &&
	test "$(wc -l <public.txt)" = 10
'

test_expect_success 'openssl recovers the md5 hex from a sign_executable signature' '
	head -c 100000 /dev/urandom >app &&
	sign_executable app private.pem >app.sig &&
	test "$(tail -n 1 app.sig)" = . &&
	test "$(wc -l <app.sig)" = 5 &&
	sig_to_bin app.sig app.sig.bin &&
	test "$(wc -c <app.sig.bin)" = 128 &&
	openssl pkeyutl -verifyrecover -pubin -inkey public.pem \
		-pkeyopt rsa_padding_mode:pkcs1 -in app.sig.bin -out recovered &&
	md5sum app | cut -c1-32 | tr -d "\n" >expect &&
	test_cmp expect recovered
'

test_expect_success 'sign_executable and crypt_prog -sign print the same' '
	crypt_prog -sign app private.pem >app.sig2 &&
	test_cmp app.sig app.sig2
'

test_expect_success 'a signature made by openssl pkeyutl verifies with crypt_prog' '
	printf "%s" "$(md5sum app | cut -c1-32)" |
		openssl pkeyutl -sign -inkey private.pem | xxd -p -c 32 >ossl.sig &&
	echo . >>ossl.sig &&
	test_cmp app.sig ossl.sig &&
	crypt_prog -verify app ossl.sig public.txt >out &&
	test_grep "signature valid" out &&
	crypt_prog -verify app ossl.sig public.pem >out &&
	test_grep "signature valid" out
'

test_expect_success 'crypt_prog -verify rejects a changed file and a damaged signature' '
	cp app app2 && printf x >>app2 &&
	expect_exit 1 crypt_prog -verify app2 app.sig public.txt >out &&
	test_grep "signature invalid" out &&
	awk "NR == 1 { c = substr(\$0, 1, 1); \$0 = (c == \"0\" ? \"1\" : \"0\") substr(\$0, 2) } 1" \
		app.sig >bad.sig &&
	! test_cmp app.sig bad.sig >/dev/null &&
	expect_exit 1 crypt_prog -verify app bad.sig public.txt >out &&
	test_grep "signature invalid" out
'

test_expect_success 'a standard PKCS#1 signature with DigestInfo (openssl dgst -sign) is invalid' '
	openssl dgst -md5 -sign private.pem -out dgst.bin app &&
	xxd -p -c 32 dgst.bin >dgst.sig && echo . >>dgst.sig &&
	expect_exit 1 crypt_prog -verify app dgst.sig public.txt
'

test_expect_success 'sign_executable errors name the bad argument' '
	test_must_fail sign_executable missing private.pem 2>err &&
	test_grep "missing" err && test "$(wc -l <err)" = 1 &&
	test_must_fail sign_executable app nokey.pem 2>err &&
	test_grep "nokey.pem" err && test "$(wc -l <err)" = 1 &&
	test_must_fail sign_executable app public.pem 2>err &&
	test_grep "public.pem" err &&
	test_must_fail sign_executable app 2>err &&
	test_grep "usage" err &&
	sign_executable --help >out && test_grep "usage: sign_executable FILE PRIVATE_KEY" out
'

test_done
