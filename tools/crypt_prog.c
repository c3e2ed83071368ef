/*
 * crypt_prog: code signing keys for admins and tests, after BOINC's tool of
 * the same name (-genkey, -sign, -sign_string, -verify). Exit status: 0 done
 * or valid, 1 invalid signature, 2 error. See doc/sign_executable.md.
 */
#include "common.h"
#include "crypt_rsa.h"
#include "log.h"
#include "tool.h"

static const char usage[] =
	"usage: crypt_prog -genkey BITS PRIVATE_KEY PUBLIC_KEY [PUBLIC_PEM]\n"
	"       crypt_prog -sign FILE PRIVATE_KEY\n"
	"       crypt_prog -sign_string STRING PRIVATE_KEY\n"
	"       crypt_prog -verify FILE SIGNATURE_FILE PUBLIC_KEY\n"
	"       crypt_prog -pubkey PRIVATE_KEY\n"
	"\n";

enum { EXIT_INVALID = 1, EXIT_ERROR = 2 };

static int crypt_prog_print(struct sbuf *text)
{
	int ret = 0;

	if (fputs(sbuf_str(text), stdout) == EOF || fflush(stdout) != 0)
		ret = log_error("cannot write to stdout: %s", strerror(errno));
	sbuf_release(text);
	return ret;
}

static int crypt_prog_genkey(struct tool_ctx *ctx)
{
	char **args = ctx->argv;
	int n = ctx->argc;
	long bits;

	if (parse_long(args[0], &bits) < 0 || bits < 1 || bits > INT_MAX)
		return log_error("-genkey: bad BITS '%s'", args[0]);
	return crypt_generate_keypair((int)bits, args[1], args[2], n > 3 ? args[3] : NULL);
}

static int crypt_prog_sign(char **args, bool is_string)
{
	struct sbuf sig = SBUF_INIT(CRYPT_TEXT_MAX);
	EVP_PKEY *key;
	int ret;

	if (crypt_load_private(args[1], &key) < 0)
		return -1;
	ret = is_string ? crypt_sign_string(key, args[0], &sig)
			: crypt_sign_file_key(key, args[0], &sig);
	EVP_PKEY_free(key);
	if (ret < 0) {
		sbuf_release(&sig);
		return -1;
	}
	return crypt_prog_print(&sig);
}

static int crypt_prog_pubkey(struct tool_ctx *ctx)
{
	const char *path = ctx->argv[0];
	struct sbuf text = SBUF_INIT(CRYPT_TEXT_MAX);
	EVP_PKEY *key;
	int ret;

	if (crypt_load_private(path, &key) < 0)
		return -1;
	ret = crypt_public_key_text(key, &text);
	EVP_PKEY_free(key);
	if (ret < 0) {
		sbuf_release(&text);
		return -1;
	}
	return crypt_prog_print(&text);
}

/* Returns 0 valid, 1 invalid, -1 error. */
static int crypt_prog_verify(struct tool_ctx *ctx)
{
	char **args = ctx->argv;
	struct sbuf sig = SBUF_INIT(CRYPT_TEXT_MAX);
	char buf[512];
	size_t r;
	int ret;
	FILE *f = fopen(args[1], "re");

	if (!f)
		return log_error("cannot open %s: %s", args[1], strerror(errno));
	while ((r = fread(buf, 1, sizeof(buf), f)) > 0 && sbuf_add(&sig, buf, r) == 0)
		;
	if (r > 0 || ferror(f)) {
		fclose(f);
		sbuf_release(&sig);
		return log_error("cannot read %s: not a signature file", args[1]);
	}
	fclose(f);
	ret = crypt_verify_file(args[2], args[0], sbuf_str(&sig));
	sbuf_release(&sig);
	if (ret >= 0)
		printf("signature %s\n", ret == 0 ? "valid" : "invalid");
	return ret;
}

static int crypt_prog_sign_file(struct tool_ctx *ctx)
{
	return crypt_prog_sign(ctx->argv, false);
}

static int crypt_prog_sign_string(struct tool_ctx *ctx)
{
	return crypt_prog_sign(ctx->argv, true);
}

static const struct tool_cmd commands[] = {
	{ "-genkey", crypt_prog_genkey,
	  "-genkey       make a key pair: PRIVATE_KEY as PEM (mode 0600), PUBLIC_KEY in\n"
	  "                BOINC's key text (<code_sign_key>), PUBLIC_PEM as PEM; BITS at\n"
	  "                most 1024; existing files are never overwritten", 3, 4, NULL },
	{ "-sign", crypt_prog_sign_file,
	  "-sign         print FILE's signature text (as sign_executable)", 2, 2, NULL },
	{ "-sign_string", crypt_prog_sign_string,
	  "-sign_string  print the signature of STRING's MD5 (<code_sign_key_signature>)", 2, 2, NULL },
	{ "-verify", crypt_prog_verify,
	  "-verify       check a signature as the BOINC client does; PUBLIC_KEY is\n"
	  "                BOINC key text or PEM; prints \"signature valid\" or\n"
	  "                \"signature invalid\" (exit 1)", 3, 3, NULL },
	{ "-pubkey", crypt_prog_pubkey,
	  "-pubkey       print the BOINC key text of PRIVATE_KEY's public half", 1, 1, NULL },
	{ NULL, NULL, NULL, 0, 0, NULL }
};

/* Exit status 2 for an error (as upstream's), 1 for an invalid signature. */
static int run(struct tool_ctx *ctx)
{
	int ret = ctx->cmd->fn(ctx);

	return ret < 0 ? EXIT_ERROR : ret == 0 ? 0 : EXIT_INVALID;
}

static const struct tool_spec crypt_prog_spec = {
	.name = "crypt_prog",
	.usage = usage,
	.flags = TOOL_NO_PROJECT_DIR,
	.cmds = commands,
	.run = run,
};

int main(int argc, char **argv)
{
	return tool_main(&crypt_prog_spec, argc, argv);
}
