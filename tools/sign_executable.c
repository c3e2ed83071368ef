/*
 * sign_executable FILE PRIVATE_KEY: print the <file_signature> text for FILE
 * (BOINC's tool of the same name and usage). The private key is the PEM file
 * made by crypt_prog -genkey; see doc/sign_executable.md.
 */
#include "common.h"
#include "crypt_rsa.h"
#include "log.h"
#include "tool.h"

static const char usage[] =
	"usage: sign_executable FILE PRIVATE_KEY\n"
	"\n"
	"Print the code signature of FILE (hex lines and a \".\" line) as BOINC\n"
	"clients check it: the RSA private-key operation, PKCS#1 v1.5 type-1\n"
	"padding, over FILE's MD5 in hex. PRIVATE_KEY is a PEM RSA key of at\n"
	"most 1024 bits (crypt_prog -genkey).\n";

static int run(struct tool_ctx *ctx)
{
	struct sbuf sig = SBUF_INIT(CRYPT_TEXT_MAX);
	int ret;

	ret = crypt_sign_file(ctx->argv[1], ctx->argv[0], &sig);
	if (ret == 0 && fputs(sbuf_str(&sig), stdout) == EOF)
		ret = log_error("cannot write the signature: %s", strerror(errno));
	sbuf_release(&sig);
	return ret;
}

static const struct tool_spec sign_executable_spec = {
	.name = "sign_executable",
	.usage = usage,
	.flags = TOOL_NO_PROJECT_DIR,
	.min_args = 2,
	.max_args = 2,
	.run = run,
};

int main(int argc, char **argv)
{
	return tool_main(&sign_executable_spec, argc, argv);
}
