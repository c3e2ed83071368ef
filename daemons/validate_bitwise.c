/* The default comparison: the same number of output files, each byte-identical. */
#include "validate.h"

static int bitwise_compare(const struct vresult *a, const struct vresult *b, const char *arg,
			   const char *project_dir)
{
	size_t i;

	(void)arg;
	(void)project_dir;
	if (a->nfiles != b->nfiles)
		return VALIDATE_DIFFERENT;
	for (i = 0; i < a->nfiles; i++) {
		if (a->files[i].nbytes != b->files[i].nbytes ||
		    strcmp(a->files[i].md5, b->files[i].md5) != 0)
			return VALIDATE_DIFFERENT;
	}
	return VALIDATE_EQUIVALENT;
}

const struct validate_plugin validate_bitwise = { "bitwise", bitwise_compare, NULL };
