/*
 * Inside make_project (make_project.c, make_project_apps.c): its options,
 * the project being made, and the helpers both files use.
 */
#ifndef WSEQ_MAKE_PROJECT_H
#define WSEQ_MAKE_PROJECT_H

#include "common.h"
#include "sbuf.h"

#include <sys/types.h>

struct options {
	char *project_root;     /* --project_dir (tool.h), made absolute */
	char *url_base;
	char *project_name;
	char *db_name;
	char *db_user;
	char *db_passwd;
	char *db_host;
	long db_port;
	char *db_socket;
	char *web_user;
	char *admin_email;
	long uldl_dir_fanout;
	bool delete_prev_inst;
	bool drop_db_first;
	bool no_db;
	bool test_app;
	bool exec_app;
	char *import_keys;
};

struct project {
	const struct options *o;
	const char *name;
	char *root;
	char *master_url;
	char *cgi_url;
	char *libexec;
};

/* rel inside the project directory (allocated). */
char *mkp_path_in(const struct project *p, const char *rel);
/* The text of b into the project's file rel with mode; 0 or -1 (logged). */
int mkp_write_text(struct project *p, const char *rel, const struct sbuf *b, mode_t mode);
/* The path of an installed data file (allocated). */
char *mkp_data_file(const char *name);
/* The bundled apps the options ask for (the sample app, the wrapper), registered. */
int mkp_install_apps(struct project *p);

#endif
