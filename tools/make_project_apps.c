/*
 * make_project's bundled apps: the sample app and the wrapper for the
 * admin's own program, copied into apps/, their templates installed, and
 * registered with the project's own xadd and update_versions.
 */
#include "make_project.h"
#include "fileutil.h"
#include "log.h"

#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

/* The BOINC platform of this machine, for the sample app's version directory. */
static const char *boinc_platform(void)
{
	struct utsname u;

	if (uname(&u) < 0)
		return NULL;
	if (!strcmp(u.machine, "x86_64"))
		return "x86_64-pc-linux-gnu";
	if (!strcmp(u.machine, "aarch64"))
		return "aarch64-unknown-linux-gnu";
	if (!strcmp(u.machine, "i686") || !strcmp(u.machine, "i386"))
		return "i686-pc-linux-gnu";
	return NULL;
}

/* Run the project's bin/PROG in its directory, as an admin would; 0 if it exits 0. */
static int run_project_program(struct project *p, const char *prog)
{
	char *path = xasprintf("%s/bin/%s", p->root, prog);
	pid_t pid = fork();
	int status = -1;

	if (pid == 0) {
		if (chdir(p->root) == 0)
			execl(path, prog, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	free(path);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return log_error("%s did not succeed (see its messages above)", prog);
	return 0;
}

/*
 * The apps make_project can install, each as version 1.00 for this machine's
 * platform from libexec/apps/, with its templates from the data directory:
 * --test_app the sample app; --exec_app wseq_exec, wseq_wrapper with the job
 * file that runs a job's own executable.
 */
struct bundled_app {
	const char *name, *friendly, *program;
	const char *job_file;   /* a template installed as the version's job.xml, or NULL */
	bool any_executable;
};

static const struct bundled_app sample_app = { "wseq_sample", "wseq sample", "wseq_sample",
					       NULL, false };
static const struct bundled_app exec_app = { "wseq_exec", "your own program", "wseq_wrapper",
					     "wseq_exec_job.xml", true };

static int install_template(struct project *p, const char *t, const char *to_rel)
{
	char *from = xasprintf("templates/%s", t), *f = mkp_data_file(from);
	char *to = xasprintf("%s/%s", p->root, to_rel);
	int rc = copy_file(f, to, 0644);

	free(from);
	free(f);
	free(to);
	return rc;
}

/* One app's version directory and templates; its <app> into project.xml's text b. */
static int install_bundled(struct project *p, const struct bundled_app *a, const char *platform,
			   struct sbuf *b)
{
	char *vdir = xasprintf("apps/%s/%s_1.00_%s", a->name, a->name, platform);
	char *d = mkp_path_in(p, vdir), *src = xasprintf("%s/apps/%s", p->libexec, a->program);
	char *main_name = xasprintf("%s_1.00_%s", a->program, platform);
	char *dst = xasprintf("%s/%s", d, main_name), *t = NULL;
	struct sbuf v = SBUF_INIT(1 << 12);
	int rc = mkdir_p(d, 0755);

	if (rc == 0)
		rc = copy_file(src, dst, 0755);
	for (int i = 0; rc == 0 && i < 2; i++) {
		free(t);
		t = xasprintf("%s_%s", a->name, i ? "out" : "in");
		char *rel = xasprintf("templates/%s", t);

		rc = install_template(p, t, rel);
		free(rel);
	}
	if (rc == 0 && a->job_file) {
		/* physical names never change: the job file is named for its version */
		char *jf = xasprintf("%s/%s_job_1.00.xml", vdir, a->name);

		rc = install_template(p, a->job_file, jf);
		free(jf);
		sbuf_addf(&v, "<version>\n  <file><physical_name>%s</physical_name><main_program/>"
			      "</file>\n  <file><physical_name>%s_job_1.00.xml</physical_name>"
			      "<logical_name>job.xml</logical_name></file>\n  <is_wrapper/>\n"
			      "</version>\n", main_name, a->name);
		free(vdir);
		vdir = xasprintf("apps/%s/%s_1.00_%s/version.xml", a->name, a->name, platform);
		if (rc == 0)
			rc = mkp_write_text(p, vdir, &v, 0644);
	}
	sbuf_addf(b, "  <app><name>%s</name><user_friendly_name>%s</user_friendly_name>%s</app>\n",
		  a->name, a->friendly, a->any_executable ? "<any_executable>1</any_executable>" : "");
	sbuf_release(&v);
	free(t);
	free(vdir);
	free(d);
	free(src);
	free(main_name);
	free(dst);
	return rc;
}

/*
 * --test_app and --exec_app: the apps, a project.xml naming them and this
 * platform, registered and signed by the project's own xadd and update_versions.
 */
int mkp_install_apps(struct project *p)
{
	const char *platform = boinc_platform();
	struct sbuf b = SBUF_INIT(1 << 12);
	int rc = 0;

	if (!platform)
		return log_error("--test_app, --exec_app: no BOINC platform known for this machine");
	sbuf_addstr(&b, "<boinc>\n");
	if (p->o->test_app)
		rc = install_bundled(p, &sample_app, platform, &b);
	if (rc == 0 && p->o->exec_app)
		rc = install_bundled(p, &exec_app, platform, &b);
	sbuf_addf(&b, "  <platform><name>%s</name><user_friendly_name>%s</user_friendly_name>"
		      "</platform>\n</boinc>\n", platform, platform);
	if (rc == 0)
		rc = mkp_write_text(p, "project.xml", &b, 0644);
	if (rc == 0 && !p->o->no_db)
		rc = run_project_program(p, "xadd");
	if (rc == 0 && !p->o->no_db)
		rc = run_project_program(p, "update_versions");
	sbuf_release(&b);
	return rc;
}
