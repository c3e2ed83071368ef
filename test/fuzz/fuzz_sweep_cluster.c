/*
 * The sweep cluster file (sweep/proto/sweep_cluster.c): the hosts the master
 * deploys sweep_client to with ssh, one "user@host:port" a line. The names
 * end up on ssh's command line, so the parser must refuse anything ssh
 * could read as an option. Property: every host, formatted
 * (sweep_host_format) and parsed again, is the same host, and none starts
 * with '-'.
 */
#include "fuzz.h"
#include "sweep_cluster.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sweep_cluster c, d;
	struct sbuf out = SBUF_INIT(SWEEP_CLUSTER_MAX), err = SBUF_INIT(4096);
	size_t i;

	fuzz_setup();
	if (sweep_cluster_parse("hosts", (const char *)data, size, &c, &err) == 0) {
		for (i = 0; i < c.n; i++) {
			FUZZ_CHECK(c.hosts[i].host && c.hosts[i].host[0] && c.hosts[i].host[0] != '-');
			FUZZ_CHECK(!c.hosts[i].user || (c.hosts[i].user[0] && c.hosts[i].user[0] != '-'));
			FUZZ_CHECK(c.hosts[i].port > 0 && c.hosts[i].port < 65536);
			FUZZ_CHECK(sweep_host_format(&c.hosts[i], &out) == 0);
			FUZZ_CHECK(sbuf_addch(&out, '\n') == 0);
		}
		FUZZ_CHECK(sweep_cluster_parse("formatted", out.buf, out.len, &d, &err) == 0);
		FUZZ_CHECK(d.n == c.n);
		for (i = 0; i < c.n; i++) {
			FUZZ_CHECK(!strcmp(c.hosts[i].host, d.hosts[i].host));
			FUZZ_CHECK(c.hosts[i].port == d.hosts[i].port);
			FUZZ_CHECK(!c.hosts[i].user == !d.hosts[i].user);
			FUZZ_CHECK(!c.hosts[i].user || !strcmp(c.hosts[i].user, d.hosts[i].user));
		}
		sweep_cluster_release(&d);
	} else {
		FUZZ_CHECK(err.len > 0);
	}
	sweep_cluster_release(&c);
	sbuf_release(&out);
	sbuf_release(&err);
	return 0;
}
