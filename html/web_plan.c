/*
 * The project's plan classes for the pages (web_plan.h). A FastCGI process
 * serves many requests: the file is read once and again only when its
 * modification time or size changes, so server_status costs one stat().
 */
#include "web_plan.h"
#include "config.h"
#include "log.h"

#include <sys/stat.h>

static struct plan_classes cache;
static bool cached;
static struct stat cache_st;

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_size == b->st_size && a->st_ino == b->st_ino;
}

const struct plan_classes *web_plan_classes(const struct web_ctx *c)
{
	struct sbuf err = SBUF_INIT(4096);
	struct stat st;
	char *path;

	if (!c->cfg || !c->cfg->project_dir)
		return &cache;          /* zeroed: no classes */
	path = xasprintf("%s/%s", c->cfg->project_dir, PLAN_CLASS_FILE);
	if (stat(path, &st) < 0)
		memset(&st, 0, sizeof(st));
	if (!cached || !same_file(&st, &cache_st)) {
		plan_classes_release(&cache);
		memset(&cache, 0, sizeof(cache));
		if (plan_classes_read(path, &cache, NULL, &err) < 0) {
			log_error("the pages take plan_class_spec.xml as no classes: %s", sbuf_str(&err));
			plan_classes_release(&cache);
			memset(&cache, 0, sizeof(cache));
		}
		cache_st = st;
		cached = true;
	}
	free(path);
	sbuf_release(&err);
	return &cache;
}

const char *web_plan_resource(const struct plan_classes *pcs, const char *name,
			      const struct plan_class **pc, enum web_plan_state *state)
{
	const struct plan_class *found = name && *name ? plan_class_find(pcs, name) : NULL;

	if (pc)
		*pc = found;
	if (state)
		*state = !name || !*name ? WEB_PLAN_NONE : found ? WEB_PLAN_DEFINED : WEB_PLAN_UNDEFINED;
	return found ? plan_class_resource(found) : "CPU";
}
