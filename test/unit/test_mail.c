/* Unit tests for the mail module's message (lib/mail.c): headers built safely. */
#include "unit.h"
#include "mail.h"

static struct mail_msg msg(const char *name, const char *to, const char *subject)
{
	struct mail_msg m = { "smtp://127.0.0.1:1", "noreply@example.org", name, to, subject,
			      "line one\n.line with a dot\nline three" };
	return m;
}

static void test_format(void **state)
{
	struct mail_msg m = msg("Project X", "ann@example.org", "Your password");
	char *t = mail_format(&m, 1796000000);

	assert_non_null(t);
	assert_non_null(strstr(t, "Date: Mon, 30 Nov 2026 00:53:20 +0000\r\n"));
	assert_non_null(strstr(t, "\r\nMessage-ID: <1796000000."));
	assert_non_null(strstr(t, "@example.org>\r\nFrom: Project X <noreply@example.org>\r\n"
				  "To: <ann@example.org>\r\nSubject: Your password\r\n"));
	assert_non_null(strstr(t, "\r\n\r\nline one\r\n.line with a dot\r\nline three\r\n"));
	assert_null(strstr(t, "\n\n"));
	free(t);
}

static void test_header_injection_refused(void **state)
{
	struct mail_msg m = msg("Evil\r\nBcc: all@example.org", "ann@example.org", "Hi");

	assert_null(mail_format(&m, 1796000000));
	m = msg("Project", "ann@example.org", "Hi\nBcc: all@example.org");
	assert_null(mail_format(&m, 1796000000));
	m = msg("Project", "ann@example.org\r\nBcc: all@example.org", "Hi");
	assert_null(mail_format(&m, 1796000000));
	m = msg("Project", "ann@example.org>, <eve@example.org", "Hi");
	assert_null(mail_format(&m, 1796000000));
	m = msg("Project", "no-at-sign", "Hi");
	assert_null(mail_format(&m, 1796000000));
	m = msg("Tab\there", "ann@example.org", "Hi");
	assert_null(mail_format(&m, 1796000000));
}

static void test_addresses(void **state)
{
	assert_true(mail_addr_ok("a.b+c@example.org"));
	assert_false(mail_addr_ok("a b@example.org"));
	assert_false(mail_addr_ok("a@b@example.org"));
	assert_false(mail_addr_ok("@example.org"));
	assert_false(mail_addr_ok("a@"));
	assert_false(mail_addr_ok("<a@example.org>"));
	assert_false(mail_addr_ok(NULL));
}

static void test_utf8_subject_encoded(void **state)
{
	struct mail_msg m = msg("Projekt Å", "ann@example.org", "Ihr Passwort für X");
	char *t = mail_format(&m, 1796000000);

	assert_non_null(t);
	assert_non_null(strstr(t, "From: =?UTF-8?B?UHJvamVrdCDDhQ==?= <noreply@example.org>"));
	assert_non_null(strstr(t, "Subject: =?UTF-8?B?SWhyIFBhc3N3b3J0IGbDvHIgWA==?=\r\n"));
	free(t);
}

static void test_server_down(void **state)
{
	struct mail_msg m = msg("P", "ann@example.org", "Hi");

	/* port 1 of loopback: nothing listens, the send fails with a reason logged */
	assert_int_equal(mail_send(&m), -1);
	m.server = "http://example.org/";
	assert_int_equal(mail_send(&m), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_header_injection_refused),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_utf8_subject_encoded),
		cmocka_unit_test(test_server_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
