/*
 * `sweep --dry-run run SPEC` (GNU parallel's --dry-run): print the command
 * line of every parameter set -- exactly what the clients would be given --
 * and run nothing: no project, no session, no ssh. With --resume-failed,
 * only the sets that run would make. See doc/sweep.md.
 */
#include "sweep_run.h"
#include "log.h"
#include "sweep_expand.h"
#include "sweep_joblog.h"
#include "sweep_params.h"
#include "sweep_session.h"
#include "sweep_spec.h"

/* The command line of row (from 0), printed on its own line. */
static int print_command(const struct sweep_spec *s, const struct sweep_params *p, size_t row,
			 struct sbuf *err)
{
	struct sweep_argv argv = { NULL, 0 };
	struct sbuf line = SBUF_INIT(1 << 20);
	int rc = sweep_spec_command(s->command_line, p, row, &argv, err);

	if (rc == 0 && sweep_argv_join(argv.v, argv.n, &line) < 0)
		rc = sbuf_fail(err, "set %zu: a value holds a line end", row + 1);
	if (rc == 0)
		printf("%s\n", sbuf_str(&line));
	sweep_argv_release(&argv);
	sbuf_release(&line);
	return rc;
}

int sweep_dry_run(const struct sweep_run_opts *o, const char *spec_path)
{
	struct sweep_spec s = { 0 };
	struct sweep_params p = { 0 };
	struct sbuf err = SBUF_INIT(4096);
	bool *ok = NULL;
	size_t nok = 0, i;
	int rc = sweep_spec_read(spec_path, &s, &err);

	if (rc == 0)
		rc = sweep_spec_load_sources(&s, &err);
	if (rc == 0)
		rc = sweep_session_params(&s, &p, &err);
	if (rc == 0)
		rc = sweep_spec_check_params(&s, &p, &err);
	if (rc == 0 && o->resume_failed)
		rc = sweep_joblog_read(o->joblog, &ok, &nok, &err);
	for (i = 0; rc == 0 && i < p.nrows; i++)
		if (i >= nok || !ok[i])
			rc = print_command(&s, &p, i, &err);
	if (rc < 0)
		log_error("%s", sbuf_str(&err));
	fflush(stdout);
	free(ok);
	sweep_params_release(&p);
	sweep_spec_release(&s);
	sbuf_release(&err);
	return rc < 0 ? SWEEP_EXIT_ERROR : SWEEP_EXIT_DONE;
}
