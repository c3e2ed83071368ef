/*
 * A volunteer's project preferences (user.project_prefs), in upstream
 * BOINC's XML (html/inc/prefs_project.inc): the default block at the top,
 * a <venue name="home|school|work"> block for each venue set apart.
 *
 *   <project_preferences>
 *     <resource_share>100</resource_share>
 *     <no_cpu>0</no_cpu> <no_cuda>1</no_cuda> <no_ati>..> <no_intel_gpu>..> <no_apple_gpu>..>
 *     <no_other_coproc>..> (wseq's own: other coprocessor types, such as cc_config.xml's)
 *     <allow_beta_work>0</allow_beta_work>
 *     <project_specific>
 *       <apps_selected><app_id>1</app_id>...</apps_selected>
 *       <allow_non_preferred_apps>1</allow_non_preferred_apps>
 *       ... the project's own text
 *     </project_specific>
 *     <venue name="work"> the same elements </venue>
 *   </project_preferences>
 *
 * The scheduler reads one venue's block per RPC (prefs_project_parse); the
 * web page and am_set_info check a whole document (prefs_project_check)
 * and the page writes one (prefs_project_write).
 */
#ifndef WSEQ_PREFS_H
#define WSEQ_PREFS_H

#include "common.h"
#include "sbuf.h"

#define PREFS_MAX_BYTES (64L << 10)     /* user.project_prefs: a TEXT column */
#define PREFS_MAX_APPS 256
#define PREFS_SPECIFIC_MAX 4096         /* the project's own text in one block */

/* The resources a volunteer may turn off (upstream's no_* switches). */
enum prefs_rsc {
	PREFS_CPU,
	PREFS_NVIDIA,   /* <no_cuda> */
	PREFS_ATI,      /* <no_ati> */
	PREFS_INTEL,    /* <no_intel_gpu> */
	PREFS_APPLE,    /* <no_apple_gpu> */
	PREFS_OTHER,    /* <no_other_coproc> (wseq's): a coprocessor of another type (cc_config.xml) */
	PREFS_NRSC
};

/* The element that turns resource r off: "no_cpu", "no_cuda", ... */
const char *prefs_rsc_tag(enum prefs_rsc r);
/* Its name on the page: "CPU", "NVIDIA GPU", ... */
const char *prefs_rsc_label(enum prefs_rsc r);

/* One venue's preferences. */
struct prefs_project {
	double resource_share;          /* < 0: not given (the project's default) */
	bool allow_beta;
	bool no_rsc[PREFS_NRSC];
	int64_t apps[PREFS_MAX_APPS];   /* selected apps; none: every app */
	size_t napps;
	bool allow_others;              /* <allow_non_preferred_apps>: others if the selected have none */
	char *specific;                 /* the project's own XML in <project_specific> (NULL: none) */
};

/* The venues a host may be in; "" is the default block. */
extern const char *const prefs_venues[];        /* "", "home", "school", "work", NULL */
bool prefs_venue_ok(const char *venue);

/* The defaults: every app, every resource, no beta work, the project's share. */
void prefs_project_init(struct prefs_project *p);
void prefs_project_release(struct prefs_project *p);

/*
 * The preferences of venue (NULL or "": the default) from a stored
 * document: the venue's block if there is one, else the default block (as
 * upstream's extract_venue). An empty document gives the defaults. 0, or
 * -1 with the reason in err (and p the defaults) if the document is not
 * well-formed preferences (prefs_project_check).
 */
int prefs_project_parse(const char *xml, const char *venue, struct prefs_project *p,
			struct sbuf *err);
/*
 * Every block of a stored document: v[0] the default, v[1..3] home, school,
 * work with have[i] telling whether the document has that venue's block
 * (else v[i] is the defaults; have[0] is true). 0, or -1 with the reason in err (then each v
 * is the defaults and no have[] set): as prefs_project_check.
 */
int prefs_project_parse_all(const char *xml, struct prefs_project v[4], bool have[4],
			    struct sbuf *err);
/*
 * Is xml preferences a volunteer may store: at most PREFS_MAX_BYTES, a
 * <project_preferences> root, numbers where numbers go (resource_share
 * 0..100000, flags 0 or 1, app ids positive, at most PREFS_MAX_APPS), venue
 * blocks named home, school or work, each at most once. 0, or -1 with the
 * first fault in err.
 */
int prefs_project_check(const char *xml, struct sbuf *err);

/* Is appid selected (every app is when none is)? */
bool prefs_project_selected(const struct prefs_project *p, int64_t appid);

/*
 * Write a document: the default block from venues[0], then one <venue>
 * block for each of home, school, work (venues[1..3]) that is not NULL.
 */
void prefs_project_write(struct sbuf *b, const struct prefs_project *const venues[4]);

/*
 * Computing preferences (user.global_prefs, upstream's <global_preferences>):
 * their <mod_time>, which decides between the copies of the client and of
 * each project -- the newest wins (0: none, or none readable).
 */
double prefs_global_mod_time(const char *xml);

/* A computing preference the web page offers (upstream's html/inc/prefs.inc names). */
struct prefs_global_field {
	const char *tag;        /* "max_ncpus_pct" */
	const char *label;      /* "Use at most this % of the CPUs" */
	double min, max, def;
	bool flag;              /* 0 or 1 (a checkbox) */
};
#define PREFS_GLOBAL_NFIELDS 16
extern const struct prefs_global_field prefs_global_fields[PREFS_GLOBAL_NFIELDS];

/* One venue's computing prefs: each field's value (the default where the document has none). */
struct prefs_global {
	double v[PREFS_GLOBAL_NFIELDS];
};

/*
 * Every block of stored computing prefs, as prefs_project_parse_all does
 * (v[0] the default block, have[i] for the venues that have one). Elements
 * not offered are not kept; a value out of its field's range is an error.
 */
int prefs_global_parse_all(const char *xml, struct prefs_global v[4], bool have[4],
			   struct sbuf *err);
/* A document with mod_time, the default block v[0] and each venue block not NULL. */
void prefs_global_write(struct sbuf *b, double mod_time, const struct prefs_global *const v[4]);

#endif
