/*
 * Where the sweep endpoints are: a base URL to which the protocol's own
 * paths (/config, /ping, /worker, /task, /complete, /failed) are appended.
 * The sweep design (doc/seeds.md) asks at the server's root (http://master/task); a wseq project
 * serves them under its own URL, <cgi_url>sweep (http://host/p_cgi/sweep/task),
 * so that projects sharing one web server never answer for each other.
 * The master builds the URL it hands its clients; sweep_client checks the
 * one it is given.
 */
#ifndef WSEQ_SWEEP_URL_H
#define WSEQ_SWEEP_URL_H

#include "common.h"
#include "sbuf.h"

/* The program name of the endpoints under a project's cgi_url. */
#define SWEEP_CGI_NAME "sweep"

/*
 * http://HOST:PORT followed by path: "" or NULL for the server's root (the
 * seed's form), else a path such as "/p_cgi/sweep", its trailing '/'s
 * dropped. An IPv6 address gets brackets. Never NULL; free() it.
 */
char *sweep_base_url(const char *host, const char *port, const char *path);

/*
 * The endpoints' path in a project whose cgi_url is given: the path of
 * cgi_url followed by "sweep" ("http://h/p_cgi/" -> "/p_cgi/sweep"). free() it.
 */
char *sweep_endpoint_path(const char *cgi_url);

/*
 * Check a base URL given on a command line: http:// or https://, a host
 * (a name, an IPv4 address or a bracketed IPv6 one), an optional port and
 * path, and nothing else: no user, query, fragment, blank or control
 * character. *out gets it without its trailing '/'s ("http://h:8080/" is the
 * root, "http://h:8080"). 0, or -1 with why in err.
 */
int sweep_check_base_url(const char *url, char **out, struct sbuf *err);

#endif
