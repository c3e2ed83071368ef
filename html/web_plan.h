/*
 * The project's plan classes as the pages see them (web_plan.c): the
 * project's plan_class_spec.xml read with the scheduler's reader
 * (sched/plan_class.h), kept between requests of a FastCGI process and
 * read again when the file changes, and the resource a version runs on.
 */
#ifndef WSEQ_WEB_PLAN_H
#define WSEQ_WEB_PLAN_H

#include "web.h"
#include "plan_class.h"

/*
 * The project's classes (none when the file is missing; a file that is
 * not XML is logged and counts as none). Valid until the next call.
 */
const struct plan_classes *web_plan_classes(const struct web_ctx *c);

/* How a version of class name stands: no class, a class of the file, or one it does not define. */
enum web_plan_state { WEB_PLAN_NONE, WEB_PLAN_DEFINED, WEB_PLAN_UNDEFINED };

/*
 * The resource a version of class name runs on -- "CPU" without a class or
 * with one the file does not define (server_status counts those as CPU),
 * else plan_class_resource() -- and, if pc is not NULL, its class (NULL
 * unless defined).
 */
const char *web_plan_resource(const struct plan_classes *pcs, const char *name,
			      const struct plan_class **pc, enum web_plan_state *state);

#endif
