/*
 * wseq_test unzip: zip_unpack() (lib/unzip.c) for shell tests, as the
 * server side unpacks a host's zip of outputs.
 *
 *   wseq_test unzip ZIP DEST [MAX_BYTES [MAX_ENTRIES]]   (defaults 100 MB, 10000)
 */
#include "common.h"
#include "log.h"
#include "unzip.h"
#include "wseq_test.h"

int wseq_test_unzip(int argc, char **argv)
{
	struct sbuf err = SBUF_INIT(4096);
	long max_bytes = 100L << 20, max_entries = 10000;
	int rc;

	if (argc < 3 || argc > 5 || (argc > 3 && (parse_long(argv[3], &max_bytes) || max_bytes < 0)) ||
	    (argc > 4 && (parse_long(argv[4], &max_entries) || max_entries < 0))) {
		fprintf(stderr, "usage: wseq_test unzip ZIP DEST [MAX_BYTES [MAX_ENTRIES]]\n");
		return 2;
	}
	rc = zip_unpack(argv[1], argv[2], (size_t)max_bytes, (size_t)max_entries, &err);
	if (rc < 0)
		log_error("%s", sbuf_str(&err));
	sbuf_release(&err);
	return rc < 0 ? 1 : 0;
}
