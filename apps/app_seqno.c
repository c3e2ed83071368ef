/* The segment a state file came from, by its name; see app_seqno.h. */
#include "app_seqno.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIGITS 9            /* a seqno fits a long */

long app_state_seqno(const char *path)
{
	const char *base = strrchr(path, '/'), *st = NULL, *q, *d;

	base = base ? base + 1 : path;
	for (q = base; (q = strstr(q, "_state")) != NULL; q++)
		st = q;
	if (!st || st[6 + strspn(st + 6, "0123456789")] != '\0')
		return -1;
	for (d = st; d > base && isdigit((unsigned char)d[-1]); d--)
		;
	if (d == st || st - d > MAX_DIGITS || d - base < 2 || d[-1] != 's' || d[-2] != '_')
		return -1;
	return strtol(d, NULL, 10);
}
