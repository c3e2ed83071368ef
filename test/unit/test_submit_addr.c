/*
 * Unit tests for the addresses a job's remote or semilocal input may come
 * from (submit/submit_inputs.c, submit_addr_public): public ones only --
 * never loopback, private, link-local, shared, documentation or multicast
 * space, in IPv4, IPv6 or an IPv6 form of IPv4.
 */
#include "unit.h"
#include "submit_int.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

static bool public(const char *text)
{
	struct sockaddr_in v4 = { .sin_family = AF_INET };
	struct sockaddr_in6 v6 = { .sin6_family = AF_INET6 };

	if (inet_pton(AF_INET, text, &v4.sin_addr) == 1)
		return submit_addr_public((const struct sockaddr *)(const void *)&v4);
	assert_int_equal(inet_pton(AF_INET6, text, &v6.sin6_addr), 1);
	return submit_addr_public((const struct sockaddr *)(const void *)&v6);
}

static void test_ipv4(void **state)
{
	static const char *const refused[] = {
		"0.0.0.0", "10.0.0.1", "10.255.255.255", "100.64.0.1", "100.127.255.254",
		"127.0.0.1", "127.1.2.3", "169.254.169.254", "172.16.0.1", "172.31.255.255",
		"192.0.0.8", "192.0.2.1", "192.168.1.1", "198.18.0.1", "198.19.255.255",
		"198.51.100.7", "203.0.113.9", "224.0.0.1", "239.255.255.250", "240.0.0.1",
		"255.255.255.255",
	};
	static const char *const allowed[] = {
		"1.1.1.1", "8.8.8.8", "100.63.255.255", "100.128.0.1", "172.15.255.255",
		"172.32.0.1", "192.0.43.10", "192.169.0.1", "198.17.0.1", "198.20.0.1",
		"223.255.255.254",
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(refused); i++)
		if (public(refused[i]))
			fail_msg("%s counted as public", refused[i]);
	for (i = 0; i < ARRAY_SIZE(allowed); i++)
		if (!public(allowed[i]))
			fail_msg("%s counted as not public", allowed[i]);
}

static void test_ipv6(void **state)
{
	static const char *const refused[] = {
		"::", "::1", "fe80::1", "febf::1", "fec0::1", "fc00::1", "fd12:3456::1",
		"ff02::1", "2001:db8::1", "64:ff9b::7f00:1", "2002:7f00:1::1", "100::1",
		"::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254", "::127.0.0.1",
	};
	static const char *const allowed[] = {
		"2606:4700:4700::1111", "2a00:1450:4001::1", "::ffff:8.8.8.8", "2001:4860::8888",
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(refused); i++)
		if (public(refused[i]))
			fail_msg("%s counted as public", refused[i]);
	for (i = 0; i < ARRAY_SIZE(allowed); i++)
		if (!public(allowed[i]))
			fail_msg("%s counted as not public", allowed[i]);
}

static void test_other_families(void **state)
{
	struct sockaddr sa = { .sa_family = AF_UNIX };

	(void)state;
	assert_false(submit_addr_public(&sa));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_other_families),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
