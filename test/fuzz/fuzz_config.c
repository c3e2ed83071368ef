/*
 * The project's config.xml (lib/config.c), through config_parse(): the
 * <config> settings of the project table and of a program's own table (the
 * scheduler's, which has integer and floating-point settings with bounds),
 * <daemons> and <tasks> with their periods. The file is the admin's, but
 * a typo must give an error naming the line, never a crash.
 */
#include "fuzz.h"
#include "config.h"
#include "scheduler.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct project_config c;
	struct sched_settings set;
	size_t i;

	fuzz_setup();
	if (config_parse(&c, "/project/config.xml", (const char *)data, size, sched_params, &set) == 0) {
		FUZZ_CHECK(c.master_url && c.db_name && c.project_dir);
		FUZZ_CHECK(c.master_url[strlen(c.master_url) - 1] == '/');
		FUZZ_CHECK(c.upload_dir && c.upload_dir[0] == '/');
		FUZZ_CHECK(c.uldl_dir_fanout >= 1 && c.uldl_dir_fanout <= 65536);
		for (i = 0; i < c.ntasks; i++)
			FUZZ_CHECK(c.tasks[i].period > 0);
		for (i = 0; i < c.ndaemons; i++)
			FUZZ_CHECK(c.daemons[i].cmd && *c.daemons[i].cmd);
	}
	config_release(&c);
	param_free(sched_params, &set);
	return 0;
}
