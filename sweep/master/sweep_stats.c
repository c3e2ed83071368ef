/*
 * `sweep stats` and the end of `sweep run` (sweep_run.h): a session's
 * figures from its store.
 */
#include "sweep_run.h"
#include "fileutil.h"
#include "log.h"
#include "sbuf.h"
#include "sweep_params.h"
#include "sweep_session.h"
#include "sweep_spec.h"

int sweep_print_stats(struct sweep_store *store, const char *sid, const char *dir, FILE *fp)
{
	struct sweep_stats st;
	struct sbuf err = SBUF_INIT(4096), hosts = SBUF_INIT(1 << 20);
	char *path = dir ? xasprintf("%s/hosts", dir) : NULL;
	size_t i;

	if (sweep_session_stats(store, sid, true, &st, &err) < 0) {
		log_error("%s", sbuf_str(&err));
		sbuf_release(&err);
		free(path);
		return -1;
	}
	fprintf(fp, "session %s: %zu tasks, %zu done, %zu running, %zu waiting, %zu failed\n",
		sid, st.total, st.done, st.running, st.waiting, st.failed);
	fprintf(fp, "\nhosts:\n");
	fprintf(fp, "  %-32s %7s %7s %7s %7s %10s\n", "host", "done", "failed", "invalid", "lost",
		"time (s)");
	for (i = 0; i < st.nhosts; i++)
		fprintf(fp, "  %-32s %7zu %7zu %7zu %7zu %10.1f\n", st.hosts[i].host, st.hosts[i].done,
			st.hosts[i].failed, st.hosts[i].invalid, st.hosts[i].lost,
			st.hosts[i].seconds);
	if (path && read_file(path, 1 << 20, &hosts) == 0 && hosts.len) {
		char *line = hosts.buf, *nl;
		bool head = false;

		for (; line && *line; line = nl ? nl + 1 : NULL) {
			char *tab1, *tab2;

			nl = strchr(line, '\n');
			if (nl)
				*nl = 0;
			tab1 = strchr(line, '\t');
			tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
			if (!tab2)
				continue;
			*tab1 = *tab2 = 0;
			if (strcmp(tab1 + 1, "unreachable") && strcmp(tab1 + 1, "copy failed") &&
			    strcmp(tab1 + 1, "client failed"))
				continue;
			if (!head)
				fprintf(fp, "\nhosts not used:\n");
			head = true;
			fprintf(fp, "  %s: %s: %s\n", line, tab1 + 1, tab2 + 1);
		}
	}
	if (st.nfailed_sets) {
		struct sweep_params p = { 0 };
		struct sweep_spec spec = { 0 };
		bool have = sweep_session_load(store, sid, NULL, &spec, &p, &err) == 0;

		fprintf(fp, "\nfailed parameter sets:\n");
		for (i = 0; i < st.nfailed_sets; i++) {
			size_t row = st.failed_sets[i].row, k;
			struct sbuf v = SBUF_INIT(1 << 20);

			for (k = 0; have && row >= 1 && row <= p.nrows && k < p.nnames; k++) {
				sbuf_addf(&v, "%s%s=", k ? " " : " (", p.names[k]);
				sweep_params_quote(p.rows[row - 1].values[k], &v);
			}
			fprintf(fp, "  set %zu%s%s: %s\n", row, sbuf_str(&v), v.len ? ")" : "",
				st.failed_sets[i].why ? st.failed_sets[i].why
						      : "handed out too often without an answer");
			sbuf_release(&v);
		}
		sweep_params_release(&p);
		sweep_spec_release(&spec);
	}
	sweep_stats_release(&st);
	sbuf_release(&err);
	sbuf_release(&hosts);
	free(path);
	return 0;
}
