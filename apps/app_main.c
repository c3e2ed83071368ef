/* The BOINC applications' skeleton; see app_main.h. */
#include "app_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int app_main(const struct app_spec *spec, int argc, char **argv)
{
	BOINC_OPTIONS opts;
	int rc = spec->args ? spec->args(argc, argv) : APP_RUN;

	if (rc != APP_RUN)
		return rc;
	if (spec->prepare && (rc = spec->prepare()) != 0)
		return rc;
	if (spec->options) {
		memset(&opts, 0, sizeof(opts));
		spec->options(&opts);
		rc = boinc_init_options(&opts);
	} else {
		rc = boinc_init();
	}
	if (rc != 0) {
		fprintf(stderr, "%s: the BOINC runtime did not start (%d)\n", spec->name, rc);
		return spec->init_failed;
	}
	app_finish(spec->run());
}

void app_finish(int status)
{
	if (!boinc_is_standalone())
		boinc_finish(status);
	exit(status);
}
