/*
 * Unit tests for the worker specification (sweep/proto/sweep_spec.c) and for
 * placeholder expansion and command-line splitting (sweep/proto/sweep_expand.c).
 */
#include "test_sweep_util.h"
#include "sweep_spec.h"

#include <sys/stat.h>

static const char full_spec[] =
	"# a comment\n"
	"CommandLine=./worker -a $alpha -b ${beta} --label \"$label\" # not a comment\n"
	"Timeout=60\n"
	"MaxAssign=2          # copies of a task out at once\n"
	"MaxTotal=4\n"
	"Validate=./check.sh $alpha\n"
	"Collect=blocks\n"
	"Output=results.txt\n"
	"DeleteWorker=Yes\n"
	"DeleteClient=no\n"
	"Ping=0\n"
	"Server=127.0.0.1:8080\n"
	"Parameters=params\n"
	"Cluster=hosts\n"
	"\n"
	"[Worker]   # linux\n"
	"Platform=x86_64-pc-linux-gnu\n"
	"File=bin/worker\n"
	"[Worker]\n"
	"Platform=aarch64-unknown-linux-gnu\n"
	"File=bin/worker-arm\n"
	"[Input]\n"
	"File=deck.in\n"
	"Content=alpha = $alpha\n"
	"Content=  beta = ${beta} # kept, costs $$5\n"
	"[Input]\n"
	"File=stdin\n"
	"Parameter=label\n"
	"[Result]\n"
	"Name=out\n"
	"File=stdout\n"
	"[Result]\n"
	"Name=log\n"
	"File=logs/worker.log\n";

static int parse(const char *text, struct sweep_spec *s, struct sbuf *err)
{
	sbuf_reset(err);
	return sweep_spec_parse("spec", text, strlen(text), s, err);
}

static void expect_error(const char *text, const char *want)
{
	struct sweep_spec s;
	struct sbuf err = SBUF_INIT(4096);

	if (parse(text, &s, &err) != -1)
		fail_msg("parsed, but should fail with %s:\n%s", want, text);
	assert_err(&err, want);
	assert_null(s.command_line);
	assert_null(s.workers);
	sbuf_release(&err);
}

static struct sweep_params make_params(void)
{
	struct sweep_params p;
	struct sbuf err = SBUF_INIT(4096);
	const char *text = "alpha|beta|label\n0.5|7|\"two words\"\n1|$x|\"it's \"\"q\"\"\"\n";

	assert_int_equal(sweep_params_parse("params", text, strlen(text), &p, &err), 0);
	sbuf_release(&err);
	return p;
}

static void test_full(void **state)
{
	struct sweep_spec s;
	struct sbuf err = SBUF_INIT(4096);

	(void)state;
	if (sweep_spec_parse("dir/sub/spec", full_spec, strlen(full_spec), &s, &err) < 0)
		fail_msg("%s", sbuf_str(&err));
	assert_string_equal(s.dir, "dir/sub");
	assert_string_equal(s.command_line,
			    "./worker -a $alpha -b ${beta} --label \"$label\" # not a comment");
	assert_int_equal(s.command_line_line, 2);
	assert_int_equal(s.timeout, 60);
	assert_int_equal(s.max_assign, 2);
	assert_int_equal(s.max_total, 4);
	assert_string_equal(s.validate, "./check.sh $alpha");
	assert_int_equal(s.collect, SWEEP_COLLECT_BLOCKS);
	assert_string_equal(s.output, "results.txt");
	assert_true(s.delete_worker);
	assert_false(s.delete_client);
	assert_int_equal(s.ping, 0);
	assert_string_equal(s.server_host, "127.0.0.1");
	assert_int_equal(s.server_port, 8080);
	assert_string_equal(s.parameters, "params");
	assert_string_equal(s.cluster, "hosts");
	assert_string_equal(s.worker_name, "worker");
	assert_int_equal(s.nworkers, 2);
	assert_string_equal(s.workers[1].platform, "aarch64-unknown-linux-gnu");
	assert_string_equal(s.workers[1].file, "bin/worker-arm");
	assert_int_equal(s.workers[1].line, 19);
	assert_string_equal(sweep_spec_worker_for(&s, "x86_64-pc-linux-gnu")->file, "bin/worker");
	assert_null(sweep_spec_worker_for(&s, "windows_x86_64"));
	assert_int_equal(s.ninputs, 2);
	assert_string_equal(s.inputs[0].file, "deck.in");
	assert_int_equal(s.inputs[0].ncontent, 2);
	assert_string_equal(s.inputs[0].content[1].text, "  beta = ${beta} # kept, costs $$5");
	assert_int_equal(s.inputs[0].content[1].line, 25);
	assert_string_equal(s.inputs[1].file, "stdin");
	assert_string_equal(s.inputs[1].parameter, "label");
	assert_int_equal(s.nresults, 2);
	assert_string_equal(s.results[0].name, "out");
	assert_string_equal(s.results[0].file, "stdout");
	assert_string_equal(s.results[1].file, "logs/worker.log");
	sweep_spec_release(&s);
	sbuf_release(&err);
}

static void test_defaults(void **state)
{
	struct sweep_spec s;
	struct sbuf err = SBUF_INIT(4096);
	const char *text = "CommandLine=/opt/sim/run.sh $x\n[Worker]\nPlatform=p\nFile=f\n"
			   "[Result]\nName=r\nFile=stdout\n";

	(void)state;
	assert_int_equal(sweep_spec_parse("runs/sim.spec", text, strlen(text), &s, &err), 0);
	assert_int_equal(s.timeout, 3600);
	assert_int_equal(s.max_assign, 1);
	assert_int_equal(s.max_total, 3);
	assert_null(s.validate);
	assert_int_equal(s.collect, SWEEP_COLLECT_PLAIN);
	assert_string_equal(s.output, "sim.out");
	assert_false(s.delete_worker);
	assert_false(s.delete_client);
	assert_int_equal(s.ping, 10);
	assert_string_equal(s.server_host, "0.0.0.0");
	assert_int_equal(s.server_port, 0);
	assert_null(s.server_name);
	assert_string_equal(s.worker_name, "run.sh");
	assert_null(s.parameters);
	sweep_spec_release(&s);

	text = "CommandLine=python3 sim.py\nWorkerName=sim.py\nServer=:8081\n[Worker]\nPlatform=p\n"
	       "File=f\n[Result]\nName=r\nFile=stdout\n";
	assert_int_equal(parse(text, &s, &err), 0);
	assert_string_equal(s.worker_name, "sim.py");
	assert_string_equal(s.server_host, "0.0.0.0");
	assert_int_equal(s.server_port, 8081);
	assert_string_equal(s.output, "spec.out");
	sweep_spec_release(&s);
	sbuf_release(&err);
}

#define TAIL "[Worker]\nPlatform=p\nFile=f\n[Result]\nName=r\nFile=stdout\n"

static void test_errors(void **state)
{
	(void)state;
	expect_error("CommandLine=w\nTimout=5\n" TAIL, "spec:2: unknown key 'Timout'");
	expect_error("CommandLine=w\n" TAIL "Timeout=5\n",
		     "spec:8: Timeout is not allowed in [Result] (it belongs before the first section)");
	expect_error("CommandLine=w\n[Input]\nPlatform=x\n",
		     "spec:3: Platform is not allowed in [Input] (it belongs in [Worker])");
	expect_error("CommandLine=w\n[Inputs]\n", "spec:2: unknown section [Inputs] (known: [Worker], [Input], [Result])");
	expect_error("CommandLine=w\n[input]\n", "spec:2: unknown section [input] (known: [Worker], [Input], [Result])");
	expect_error("CommandLine=w\n[Worker\n", "spec:2: no ']' after '['");
	expect_error("CommandLine=w\n[Worker] x\n", "spec:2: text after the section header");
	expect_error("commandline=w\n", "spec:1: unknown key 'commandline'");
	expect_error("Timeout=5\n" TAIL, "spec: no CommandLine");
	expect_error("CommandLine=w\n[Worker]\nPlatform=p\nFile=f\n", "spec: no [Result] section");
	expect_error("CommandLine=w\n[Result]\nName=r\nFile=stdout\n", "spec: no [Worker] section");
	expect_error("CommandLine=w\nTimeout=soon\n" TAIL,
		     "spec:2: Timeout must be a whole number from 1 to 31536000, not 'soon'");
	expect_error("CommandLine=w\nTimeout=0\n" TAIL,
		     "spec:2: Timeout must be a whole number from 1 to 31536000, not '0'");
	expect_error("CommandLine=w\nPing=-1\n" TAIL,
		     "spec:2: Ping must be a whole number from 0 to 86400, not '-1'");
	expect_error("CommandLine=w\nDeleteWorker=Maybe\n" TAIL,
		     "spec:2: DeleteWorker must be Yes or No, not 'Maybe'");
	expect_error("CommandLine=w\nDeleteClient=1\n" TAIL,
		     "spec:2: DeleteClient must be Yes or No, not '1'");
	expect_error("CommandLine=w\nCollect=zip\n" TAIL,
		     "spec:2: Collect must be plain, blocks or tag, not 'zip'");
	expect_error("CommandLine=w\nTimeout=5\nTimeout=6\n" TAIL,
		     "spec:3: duplicate Timeout (first at line 2)");
	expect_error("CommandLine=w\nMaxAssign=3\nMaxTotal=2\n" TAIL,
		     "spec: MaxTotal 2 is less than MaxAssign 3");
	expect_error("CommandLine=w\nServer=host:http\n" TAIL, "spec:2: Server: bad port 'http'");
	expect_error("CommandLine=w\nServer=a:b:1\n" TAIL,
		     "spec:2: Server: bad address 'a:b:1' (host:port, or [address]:port for IPv6)");
	expect_error("CommandLine=w\nOutput=   # nothing\n" TAIL, "spec:2: Output has no value");
	expect_error("CommandLine=\n" TAIL, "spec:1: CommandLine has no value");
	expect_error("CommandLine=w\njust words\n", "spec:2: expected Key=Value or [Section], not 'just words'");
	expect_error("CommandLine=w 'open\n" TAIL, "spec:1: CommandLine: a ' without its closing '");
	expect_error("CommandLine=w $\n" TAIL,
		     "spec:1: CommandLine: '$' not followed by a parameter name (write $$ for a '$')");
	expect_error("CommandLine=w\nValidate=v ${a\n" TAIL, "spec:2: Validate: '${' without a closing '}'");
	expect_error("CommandLine=w\n[Worker]\nPlatform=p\n[Result]\nName=r\nFile=stdout\n",
		     "spec:2: [Worker] without File");
	expect_error("CommandLine=w\n[Worker]\nFile=f\n", "spec:2: [Worker] without Platform");
	expect_error("CommandLine=w\n[Worker]\nPlatform=p\nFile=f\n[Worker]\nPlatform=p\nFile=g\n[Result]\n",
		     "spec:5: a second [Worker] for p (the first at line 2)");
	expect_error("CommandLine=w\n[Input]\nFile=x\n" TAIL, "spec:2: [Input] for 'x' needs Parameter=, Content= or Source=");
	expect_error("CommandLine=w\n[Input]\nFile=x\nSource=a\nParameter=p\n" TAIL,
		     "spec:2: [Input] for 'x' takes one of Parameter=, Content= and Source=");
	expect_error("CommandLine=w\n[Input]\nFile=x\nSource=\n" TAIL,
		     "spec:4: Source has no value");
	expect_error("CommandLine=w\n[Input]\nFile=x\nParameter=a\nContent=b\n" TAIL,
		     "spec:2: [Input] for 'x' takes one of Parameter=, Content= and Source=");
	expect_error("CommandLine=w\n[Input]\nParameter=a\n" TAIL, "spec:2: [Input] without File");
	expect_error("CommandLine=w\n[Input]\nFile=../x\nParameter=a\n" TAIL,
		     "spec:2: [Input] File '../x' must be a relative name without '..'");
	expect_error("CommandLine=w\n[Input]\nFile=/etc/passwd\nParameter=a\n" TAIL,
		     "spec:2: [Input] File '/etc/passwd' must be a relative name without '..'");
	expect_error("CommandLine=w\n[Input]\nFile=x\nParameter=a\n[Input]\nFile=x\nContent=c\n" TAIL,
		     "spec:5: a second [Input] for 'x' (the first at line 2)");
	expect_error("CommandLine=w\n[Input]\nFile=x\nContent=ok\nContent=cost $-5\n" TAIL,
		     "spec:5: Content: '$' not followed by a parameter name (write $$ for a '$')");
	expect_error("CommandLine=w\n[Worker]\nPlatform=p\nFile=f\n[Result]\nName=r\nFile=stdout\n[Result]\nName=r\nFile=x\n",
		     "spec:8: a second [Result] called 'r' (the first at line 5)");
	expect_error("CommandLine=w\n[Worker]\nPlatform=p\nFile=f\n[Result]\nName=r\n",
		     "spec:5: [Result] 'r' without File");
	expect_error("CommandLine=w\n[Worker]\nPlatform=p\nFile=f\n[Result]\nName=a b\nFile=stdout\n",
		     "spec:5: bad result Name 'a b' (letters, digits, _ . -)");
	expect_error("CommandLine=w\n[Worker]\nPlatform=p\nFile=f\n[Result]\nName=r\nFile=../out\n",
		     "spec:5: [Result] File '../out' must be a relative name without '..'");
}

static void test_check_params(void **state)
{
	struct sweep_spec s;
	struct sweep_params p = make_params();
	struct sbuf err = SBUF_INIT(4096);
	const char *text;

	(void)state;
	assert_int_equal(parse(full_spec, &s, &err), 0);
	assert_int_equal(sweep_spec_check_params(&s, &p, &err), 0);
	sweep_spec_release(&s);

	text = "\nCommandLine=w -g $gamma\n" TAIL;
	assert_int_equal(parse(text, &s, &err), 0);
	assert_int_equal(sweep_spec_check_params(&s, &p, &err), -1);
	assert_err(&err, "spec:2: CommandLine: unknown parameter $gamma (the parameter file has alpha, beta, label)");
	sweep_spec_release(&s);

	text = "CommandLine=w\nValidate=check \"${alpha}x${zeta}\"\n" TAIL;
	assert_int_equal(parse(text, &s, &err), 0);
	sbuf_reset(&err);
	assert_int_equal(sweep_spec_check_params(&s, &p, &err), -1);
	assert_err(&err, "spec:2: Validate: unknown parameter $zeta (the parameter file has alpha, beta, label)");
	sweep_spec_release(&s);

	text = "CommandLine=w\n[Input]\nFile=in\nContent=a=$alpha\nContent=b=$Beta\n" TAIL;
	assert_int_equal(parse(text, &s, &err), 0);
	sbuf_reset(&err);
	assert_int_equal(sweep_spec_check_params(&s, &p, &err), -1);
	assert_err(&err, "spec:5: Content: unknown parameter $Beta (the parameter file has alpha, beta, label)");
	sweep_spec_release(&s);

	text = "CommandLine=w\n\n[Input]\nFile=in\nParameter=delta\n" TAIL;
	assert_int_equal(parse(text, &s, &err), 0);
	sbuf_reset(&err);
	assert_int_equal(sweep_spec_check_params(&s, &p, &err), -1);
	assert_err(&err, "spec:3: [Input] for 'in': no parameter 'delta' (the parameter file has alpha, beta, label)");
	sweep_spec_release(&s);
	sweep_params_release(&p);
	sbuf_release(&err);
}

static void check_argv(const char *pattern, const struct sweep_params *p, size_t row,
		       const char *const *want, size_t n)
{
	struct sweep_argv a;
	struct sbuf err = SBUF_INIT(4096);
	size_t i;

	if (sweep_spec_command(pattern, p, row, &a, &err) < 0)
		fail_msg("%s: %s", pattern, sbuf_str(&err));
	assert_int_equal(a.n, n);
	for (i = 0; i < n; i++)
		assert_string_equal(a.v[i], want[i]);
	assert_null(a.v[n]);
	sweep_argv_release(&a);
	sbuf_release(&err);
}

static void test_expand_argv(void **state)
{
	struct sweep_params p = make_params();
	static const char *const w1[] = { "./worker", "-a", "0.5", "-b", "7", "--label", "two words" };
	static const char *const w2[] = { "./worker", "-a", "1", "-b", "$x", "--label", "it's \"q\"" };
	static const char *const w3[] = { "w", "two words", "x=0.5,y=7", "$alpha", "cost$5", "a b",
					  "\"$", "", "0.5$" };
	static const char *const w4[] = { "w", "it's \"q\"", "x=1,y=$x", "$alpha", "cost$5", "a b",
					  "\"$", "", "1$" };
	const char *pat = "  w\t$label x=${alpha},y=$beta '$alpha' cost$$5 a\\ b \"\\\"\\$\" \"\" \"$alpha$$\"  ";

	(void)state;
	check_argv("./worker -a $alpha -b ${beta} --label $label", &p, 0, w1, ARRAY_SIZE(w1));
	check_argv("./worker -a $alpha -b ${beta} --label $label", &p, 1, w2, ARRAY_SIZE(w2));
	check_argv(pat, &p, 0, w3, ARRAY_SIZE(w3));
	check_argv(pat, &p, 1, w4, ARRAY_SIZE(w4));
	sweep_params_release(&p);
}

/* GNU parallel's {#} and {name}; any other brace is plain text, and quotes keep them literal. */
static void test_expand_braces(void **state)
{
	struct sweep_params p = make_params();
	static const char *const w1[] = { "w", "1", "0.5", "-o", "out.1.7", "{gamma}", "{}", "{",
					  "{#}", "x two words", "{x" };
	static const char *const w2[] = { "w", "2", "1", "-o", "out.2.$x", "{gamma}", "{}", "{",
					  "{#}", "x it's \"q\"", "{x" };
	const char *pat = "w {#} {alpha} -o out.{#}.{beta} {gamma} {} { '{#}' \"x {label}\" {x";
	struct sweep_vars vars = { p.names, p.rows[0].values, p.nnames, 3 };
	struct sbuf err = SBUF_INIT(4096), out = SBUF_INIT(4096);

	(void)state;
	check_argv(pat, &p, 0, w1, ARRAY_SIZE(w1));
	check_argv(pat, &p, 1, w2, ARRAY_SIZE(w2));
	assert_int_equal(sweep_expand_text("set {#}: {alpha}/{beta} {} {nope} {", &vars, &out, &err), 0);
	assert_string_equal(sbuf_str(&out), "set 3: 0.5/7 {} {nope} {");
	/* without a set number {#} is plain text (the client's split) */
	vars.seq = 0;
	sbuf_reset(&out);
	assert_int_equal(sweep_expand_text("{#}", &vars, &out, &err), 0);
	assert_string_equal(sbuf_str(&out), "{#}");
	sweep_params_release(&p);
	sbuf_release(&err);
	sbuf_release(&out);
}

/* [Input] Source=: the master's file, read with the spec, sent as it is to every set. */
static void test_source(void **state)
{
	char dir[] = "/tmp/test_sweep_spec.XXXXXX", *spec, *src, *nul;
	struct sweep_spec s;
	struct sweep_params p = make_params();
	struct sbuf err = SBUF_INIT(4096), out = SBUF_INIT(4096);
	const char *text = "CommandLine=w\n[Input]\nFile=fixed.dat\nSource=data/fixed.dat\n" TAIL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	spec = xasprintf("%s/spec", dir);
	src = xasprintf("%s/data/fixed.dat", dir);
	nul = xasprintf("%s/data", dir);
	assert_int_equal(mkdir(nul, 0700), 0);
	assert_int_equal(write_file_atomic(spec, text, strlen(text), 0600), 0);
	/* missing: the spec reads, its sources do not */
	assert_int_equal(sweep_spec_read(spec, &s, &err), 0);
	assert_int_equal(sweep_spec_load_sources(&s, &err), -1);
	assert_non_null(strstr(sbuf_str(&err), "spec:2: [Input] for 'fixed.dat': "));
	sweep_spec_release(&s);
	/* as it is, line ends and all; the same for every set */
	assert_int_equal(write_file_atomic(src, "a $alpha {#}\r\nno newline", 24, 0600), 0);
	sbuf_reset(&err);
	assert_int_equal(sweep_spec_read(spec, &s, &err), 0);
	assert_int_equal(sweep_spec_load_sources(&s, &err), 0);
	assert_int_equal(sweep_spec_input_content(&s.inputs[0], &p, 1, &out, &err), 0);
	assert_int_equal(out.len, 24);
	assert_memory_equal(out.buf, "a $alpha {#}\r\nno newline", 24);
	sweep_spec_release(&s);
	/* a NUL byte cannot be in a task body */
	assert_int_equal(write_file_atomic(src, "a\0b", 3, 0600), 0);
	sbuf_reset(&err);
	assert_int_equal(sweep_spec_read(spec, &s, &err), 0);
	assert_int_equal(sweep_spec_load_sources(&s, &err), -1);
	assert_non_null(strstr(sbuf_str(&err), "holds a NUL byte"));
	sweep_spec_release(&s);
	/* not loaded (a look at an old session, the fuzzer): not sent */
	sbuf_reset(&err);
	sbuf_reset(&out);
	assert_int_equal(sweep_spec_parse("spec", text, strlen(text), &s, &err), 0);
	assert_int_equal(sweep_spec_input_content(&s.inputs[0], &p, 0, &out, &err), -1);
	sweep_spec_release(&s);
	remove_tree(dir);
	free(spec);
	free(src);
	free(nul);
	sweep_params_release(&p);
	sbuf_release(&err);
	sbuf_release(&out);
}

static void test_expand_errors(void **state)
{
	struct sweep_params p = make_params();
	struct sweep_vars vars = { p.names, p.rows[0].values, p.nnames, 1 };
	struct sweep_argv a;
	struct sbuf err = SBUF_INIT(4096), out = SBUF_INIT(4096);

	(void)state;
	assert_int_equal(sweep_expand_argv("w \"open", &vars, &a, &err), -1);
	assert_err(&err, "a \" without its closing \"");
	assert_null(a.v);
	sbuf_reset(&err);
	assert_int_equal(sweep_expand_argv("w trailing\\", &vars, &a, &err), -1);
	assert_err(&err, "a '\\' at the end of the command line");
	sbuf_reset(&err);
	assert_int_equal(sweep_expand_argv("   ", &vars, &a, &err), -1);
	assert_err(&err, "empty command line");
	sbuf_reset(&err);
	assert_int_equal(sweep_expand_argv("w ${a-b}", &vars, &a, &err), -1);
	assert_err(&err, "bad parameter name '${a-b}'");
	sbuf_reset(&err);
	assert_int_equal(sweep_expand_text("x=$nope", &vars, &out, &err), -1);
	assert_err(&err, "unknown parameter $nope");
	sbuf_reset(&err);
	sbuf_reset(&out);
	assert_int_equal(sweep_expand_text("a=$alpha ${beta}$label $$ '$alpha'", &vars, &out, &err), 0);
	assert_string_equal(sbuf_str(&out), "a=0.5 7two words $ '0.5'");
	sweep_params_release(&p);
	sbuf_release(&err);
	sbuf_release(&out);
}

/* A command line joined by the master splits back into the same argv in the client. */
static void test_join_round_trip(void **state)
{
	static const char *const words[] = {
		"./worker", "plain", "two words", "", "it's", "'", "\"", "$HOME", "$$", "a\\b",
		"\\", "tab\there", "semi;colon", "|pipe", "> out", "*", "~", "x=1,y=2", "#hash",
		"${x}", "-",
	};
	struct sbuf line = SBUF_INIT(1 << 16), err = SBUF_INIT(4096);
	struct sweep_argv a;
	size_t i;

	(void)state;
	assert_int_equal(sweep_argv_join((char *const *)words, ARRAY_SIZE(words), &line), 0);
	if (sweep_expand_argv(sbuf_str(&line), NULL, &a, &err) < 0)
		fail_msg("%s: %s", sbuf_str(&line), sbuf_str(&err));
	assert_int_equal(a.n, ARRAY_SIZE(words));
	for (i = 0; i < a.n; i++)
		assert_string_equal(a.v[i], words[i]);
	sweep_argv_release(&a);
	/* Plain words stay readable. */
	sbuf_reset(&line);
	assert_int_equal(sweep_argv_join((char *const *)words, 2, &line), 0);
	assert_string_equal(sbuf_str(&line), "./worker plain");
	{
		const char *nl[] = { "a\nb" };

		assert_int_equal(sweep_argv_join((char *const *)nl, 1, &line), -1);
	}
	sbuf_release(&line);
	sbuf_release(&err);
}

static void test_input_content(void **state)
{
	struct sweep_spec s;
	struct sweep_params p = make_params();
	struct sbuf err = SBUF_INIT(4096), out = SBUF_INIT(4096);

	(void)state;
	assert_int_equal(parse(full_spec, &s, &err), 0);
	assert_int_equal(sweep_spec_input_content(&s.inputs[0], &p, 0, &out, &err), 0);
	assert_string_equal(sbuf_str(&out), "alpha = 0.5\n  beta = 7 # kept, costs $5\n");
	sbuf_reset(&out);
	assert_int_equal(sweep_spec_input_content(&s.inputs[1], &p, 1, &out, &err), 0);
	assert_string_equal(sbuf_str(&out), "it's \"q\"\n");
	sweep_spec_release(&s);
	sweep_params_release(&p);
	sbuf_release(&err);
	sbuf_release(&out);
}

static void test_doc_examples(void **state)
{
	struct doc_block *b, *pb;
	size_t n = doc_blocks("doc/sweep-formats.md", "spec", &b), i;
	size_t np = doc_blocks("doc/sweep-formats.md", "params", &pb);
	struct sbuf err = SBUF_INIT(4096);
	struct sweep_spec s;
	struct sweep_params p;
	const char *src = getenv("WSEQ_SRCDIR");
	char *path;

	(void)state;
	assert_true(n >= 2);
	assert_true(np >= 1);
	/* The first params block is the complete example's parameter file. */
	assert_int_equal(sweep_params_parse("params", pb[0].text, strlen(pb[0].text), &p, &err), 0);
	for (i = 0; i < n; i++) {
		if (parse(b[i].text, &s, &err) < 0)
			fail_msg("doc/sweep-formats.md:%d: %s", b[i].line, sbuf_str(&err));
		if (i == 0 && sweep_spec_check_params(&s, &p, &err) < 0)
			fail_msg("doc/sweep-formats.md:%d: %s", b[i].line, sbuf_str(&err));
		sweep_spec_release(&s);
	}
	sweep_params_release(&p);
	doc_blocks_free(b, n);
	doc_blocks_free(pb, np);

	/* The example files in test/data/sweep agree with each other. */
	path = xasprintf("%s/test/data/sweep/params", src ? src : "..");
	assert_int_equal(sweep_params_read(path, &p, &err), 0);
	free(path);
	path = xasprintf("%s/test/data/sweep/demo.spec", src ? src : "..");
	if (sweep_spec_read(path, &s, &err) < 0)
		fail_msg("%s", sbuf_str(&err));
	if (sweep_spec_check_params(&s, &p, &err) < 0)
		fail_msg("%s", sbuf_str(&err));
	sweep_spec_release(&s);
	sweep_params_release(&p);
	free(path);
	sbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_check_params),
		cmocka_unit_test(test_expand_argv),
		cmocka_unit_test(test_expand_errors),
		cmocka_unit_test(test_expand_braces),
		cmocka_unit_test(test_source),
		cmocka_unit_test(test_join_round_trip),
		cmocka_unit_test(test_input_content),
		cmocka_unit_test(test_doc_examples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
