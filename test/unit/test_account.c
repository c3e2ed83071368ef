/*
 * Unit tests for account passwords (lib/passwd.c) and the account checks
 * every door shares (backend/account.c): addresses, names, preferences.
 */
#include "unit.h"
#include "account.h"
#include "passwd.h"

static void test_hash_as_the_client_computes_it(void **state)
{
	char h[PASSWD_HASH_HEX + 1];

	/* seen on the wire from the real 7.20 client (boinc-account-rpc.md section 6) */
	passwd_hash_of("s3cret&Pw", "Alice@Example.org", h);
	assert_string_equal(h, "c6e39104155e35cf76c9865597804534");
	assert_true(passwd_hash_ok(h));
	assert_false(passwd_hash_ok("c6e39104155e35cf76c9865597804534x"));
	assert_false(passwd_hash_ok("c6e39104155e35cf76c98655978045"));
	assert_false(passwd_hash_ok("g6e39104155e35cf76c9865597804534"));
}

static void test_store_and_verify(void **state)
{
	const char *h = "c6e39104155e35cf76c9865597804534";
	char a[PASSWD_STORED_MAX], b[PASSWD_STORED_MAX];

	assert_int_equal(passwd_store(h, a), 0);
	assert_int_equal(passwd_store(h, b), 0);
	/* yescrypt, salted: the same password twice is stored twice differently */
	assert_memory_equal(a, "$y$", 3);
	assert_string_not_equal(a, b);
	assert_null(strstr(a, h));
	assert_true(passwd_verify(h, a));
	assert_true(passwd_verify(h, b));
	assert_true(passwd_verify("C6E39104155E35CF76C9865597804534", a));
	assert_false(passwd_verify("c6e39104155e35cf76c9865597804535", a));
	assert_false(passwd_verify(h, ""));
	assert_false(passwd_verify(h, NULL));
	/* a legacy raw md5 in the column is never a match */
	assert_false(passwd_verify(h, h));
	a[strlen(a) - 1] = a[strlen(a) - 1] == 'A' ? 'B' : 'A';
	assert_false(passwd_verify(h, a));
	assert_int_not_equal(passwd_store("nothex", a), 0);
}

static void test_email_checks(void **state)
{
	static const char *const good[] = { "a@b.org", "first.last+tag@sub.example.co.uk",
					    "Alice@Example.org" };
	static const char *const bad[] = { "", "no-at-sign", "@example.org", "a@b", "a@@b.org",
					   "a b@example.org", "a@example.", "a@.org", "a@b..org",
					   "a@b.org\n", "<a>@b.org", "a@b@c.org" };
	struct account_error e;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		assert_int_equal(account_check_email(good[i], &e), ACCT_OK);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(account_check_email(bad[i], &e), ACCT_ERR_BAD_EMAIL);
		assert_int_equal(e.num, ACCT_ERR_BAD_EMAIL);
	}
}

static void test_name_checks(void **state)
{
	struct account_error e;
	char big[300];

	assert_int_equal(account_check_name("Alice A", "name", &e), ACCT_OK);
	assert_int_equal(account_check_name("<script>alert(1)</script>", "name", &e), ACCT_OK);
	assert_int_equal(account_check_name("Zoë", "name", &e), ACCT_OK);
	assert_int_equal(account_check_name("", "name", &e), ACCT_ERR_BAD_USER_NAME);
	assert_int_equal(account_check_name(" Bob", "name", &e), ACCT_ERR_BAD_USER_NAME);
	assert_int_equal(account_check_name("Bob\t", "name", &e), ACCT_ERR_BAD_USER_NAME);
	assert_int_equal(account_check_name("12345", "name", &e), ACCT_ERR_BAD_USER_NAME);
	assert_int_equal(account_check_name("a\001b", "name", &e), ACCT_ERR_BAD_USER_NAME);
	assert_int_equal(account_check_name("\xff\xfe", "name", &e), ACCT_ERR_BAD_USER_NAME);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(account_check_name(big, "name", &e), ACCT_ERR_BAD_USER_NAME);
}

static void test_email_key_lowercases(void **state)
{
	char *k = account_lowercase("Alice@EXAMPLE.Org");

	assert_string_equal(k, "alice@example.org");
	free(k);
}

static void test_prefs_checks(void **state)
{
	static const char *const bad[] = {
		"<!DOCTYPE x [<!ENTITY e \"boom\">]><global_preferences>&e;</global_preferences>",
		"<!DOCTYPE global_preferences SYSTEM \"file:///etc/passwd\"><global_preferences/>",
		"<?xml version=\"1.0\"?><global_preferences/>",
		"<global_preferences/><!-- after -->",
		"<!-- before --><global_preferences/>",
		"<?pi x?><global_preferences/>",
		"<global_preferences>", "text only", "",
	};
	struct account_error e;
	char *big = xmalloc(ACCOUNT_PREFS_MAX + 64);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(account_check_prefs(bad[i], "global_prefs", &e), ACCT_ERR_XML_PARSE);
		assert_non_null(strstr(e.msg, "global_prefs"));
	}
	assert_int_equal(account_check_prefs("<global_preferences><a>1</a><!-- in -->"
					     "</global_preferences>", "p", &e), ACCT_OK);
	assert_int_equal(account_check_prefs(" \n<project_preferences/>\n", "p", &e), ACCT_OK);
	snprintf(big, ACCOUNT_PREFS_MAX + 64, "<p>%0*d</p>", (int)ACCOUNT_PREFS_MAX, 0);
	assert_int_equal(account_check_prefs(big, "p", &e), ACCT_ERR_XML_PARSE);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_as_the_client_computes_it),
		cmocka_unit_test(test_store_and_verify),
		cmocka_unit_test(test_email_checks),
		cmocka_unit_test(test_name_checks),
		cmocka_unit_test(test_email_key_lowercases),
		cmocka_unit_test(test_prefs_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
