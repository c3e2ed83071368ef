/*
 * make_project's Apache configuration snippet (make_project_httpd.c).
 */
#ifndef WSEQ_MAKE_PROJECT_HTTPD_H
#define WSEQ_MAKE_PROJECT_HTTPD_H

#include "sbuf.h"

/* Append the snippet of project name, in directory root, served at url_base (ending in '/'). */
void make_project_httpd_conf(struct sbuf *b, const char *url_base, const char *name,
			     const char *root);

#endif
