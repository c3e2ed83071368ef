/*
 * sign_executable FILE PRIVATE_KEY: print the <file_signature> text for FILE
 * (BOINC's tool of the same name and usage). The private key is the PEM file
 * made by crypt_prog -genkey; see doc/sign_executable.md.
 */
#include "common.h"
#include "crypt_rsa.h"
#include "log.h"

static const char usage[] =
	"usage: sign_executable FILE PRIVATE_KEY\n"
	"\n"
	"Print the code signature of FILE (hex lines and a \".\" line) as BOINC\n"
	"clients check it: the RSA private-key operation, PKCS#1 v1.5 type-1\n"
	"padding, over FILE's MD5 in hex. PRIVATE_KEY is a PEM RSA key of at\n"
	"most 1024 bits (crypt_prog -genkey).\n";

int main(int argc, char **argv)
{
	struct sbuf sig = SBUF_INIT(CRYPT_TEXT_MAX);
	int ret;

	log_init("sign_executable", NULL);
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc != 3) {
		fputs("usage: sign_executable FILE PRIVATE_KEY (--help for more)\n", stderr);
		return 1;
	}
	ret = crypt_sign_file(argv[2], argv[1], &sig);
	if (ret == 0 && fputs(sbuf_str(&sig), stdout) == EOF)
		ret = log_error("cannot write the signature: %s", strerror(errno));
	sbuf_free(&sig);
	if (ret == 0 && fflush(stdout) != 0)
		ret = log_error("cannot write the signature: %s", strerror(errno));
	return ret == 0 ? 0 : 1;
}
