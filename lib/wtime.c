/* The shiftable clock; see wtime.h. */
#include "wtime.h"

#include <sys/time.h>

static double offset;
static bool loaded;

static void load_offset(void)
{
	const char *s = getenv("WSEQ_TIME_OFFSET");
	const char *f = getenv("WSEQ_TIME_OFFSET_FILE");
	double v;

	loaded = true;
	if (s && parse_double(s, &v) == 0)
		offset += v;
	if (f && *f) {
		FILE *fp = fopen(f, "r");
		if (fp) {
			if (fscanf(fp, "%lf", &v) == 1)
				offset += v;
			fclose(fp);
		}
	}
}

double dnow(void)
{
	struct timeval tv;

	if (!loaded)
		load_offset();
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6 + offset;
}

time_t now(void)
{
	return (time_t)dnow();
}

void wtime_shift(double delta)
{
	if (!loaded)
		load_offset();
	offset += delta;
}

void wtime_reset(void)
{
	offset = 0;
	loaded = false;
}
