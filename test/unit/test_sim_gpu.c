/*
 * Unit tests for wseq_sim's GPU hosts (issue 28): a GPU version runs at
 * gpu_flops, so a GPU share shortens a sequence project by the ratio of the
 * speeds; a host's GPUs run side by side and max_sequences_per_gpu shares
 * one GPU between sequences; a sequence runs only on a host with a version
 * it can use, and relocates to a CPU host only if the app has a CPU version.
 */
#include "unit.h"
#include "sim_strategy.h"

#include <math.h>

/* hosts always on, never leaving, never wrong, every CPU speed 1, transfers instant */
static const char no_churn[] =
	"host_on_hours const 1000000\nhost_off_hours const 0.001\nhost_life_days none\n"
	"host_speed const 1\nhost_upload_mbps const 1000000\nhost_download_mbps const 1000000\n"
	"wrong_fraction 0\nstate_mb 0\nanswer_mb 0\nlength_days 20\nsegment_days 1\n"
	"horizon_days 400\n";

static void scenario(struct sim_scenario *sc, const char *a, const char *b)
{
	char err[256];

	sim_scenario_defaults(sc);
	if (sim_scenario_parse(sc, a, strlen(a), "test", err, sizeof(err)) != 0 ||
	    sim_scenario_parse(sc, b, strlen(b), "test", err, sizeof(err)) != 0)
		fail_msg("%s", err);
}

/* the seq strategy over sc: its decision log (free() it) and counters */
static char *run_logged(const struct sim_scenario *sc, struct sim_stats *out)
{
	char why[256] = "", *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_int_equal(sim_run_logged(sc, &sim_strategy_seq, fp, out, NULL, why, sizeof(why)), 0);
	fclose(fp);
	return buf;
}

static double makespan(const char *text, struct sim_stats *out)
{
	struct sim_scenario sc;

	scenario(&sc, no_churn, text);
	free(run_logged(&sc, out));
	assert_int_equal(out->unfinished, 0);
	return out->p90_days;
}

static void test_host_has_gpu_spreads_the_share(void **state)
{
	struct sim_scenario sc;
	long i, n = 0;

	(void)state;
	scenario(&sc, "", "hosts 1000\ngpu_share 0.3\n");
	for (i = 0; i < sc.hosts; i++)
		n += sim_host_has_gpu(&sc, i);
	assert_int_equal(n, 300);
	scenario(&sc, "", "gpu_share 0.5\n");
	assert_false(sim_host_has_gpu(&sc, 0));
	assert_true(sim_host_has_gpu(&sc, 1));
	scenario(&sc, "", "gpu_share 0\n");
	assert_false(sim_host_has_gpu(&sc, 1));
}

/*
 * 20 hosts, 20 sequences of 20 reference-CPU days: on CPUs of speed 1 they
 * take 20 days; on GPUs of 1e10 FLOPS (10 times the reference) 2 days.
 * Half the hosts with a GPU and a GPU-only app: 10 sequences at once, each
 * twice as long in the queue as on all GPUs -- 4 days.
 */
static void test_gpu_share_shortens_makespan(void **state)
{
	struct sim_stats cpu, gpu, half;
	double t_cpu, t_gpu, t_half;

	(void)state;
	t_cpu = makespan("hosts 20\nsequences 20\n", &cpu);
	t_gpu = makespan("hosts 20\nsequences 20\ngpu_share 1\ngpu_flops 1e10\n"
			 "app_versions gpu\n", &gpu);
	t_half = makespan("hosts 20\nsequences 20\ngpu_share 0.5\ngpu_flops 1e10\n"
			  "app_versions gpu\n", &half);
	assert_true(fabs(t_cpu - 20) < 0.01);
	assert_true(fabs(t_cpu / t_gpu - 10) < 0.01);
	assert_true(fabs(t_half - 4) < 0.01);
	/* the same work, none of it lost */
	assert_true(cpu.cpu_used == gpu.cpu_used && gpu.cpu_used == half.cpu_used);
	assert_true(gpu.cpu_wasted == 0 && gpu.relocations == 0);
}

/*
 * By default a host holds one sequence. With max_sequences_per_gpu 1 a host
 * with two GPUs holds two and runs them side by side, one a GPU; one GPU
 * holding two (max_sequences_per_gpu 2, a GPU-only app) runs their segments
 * in turn, each taking twice as long.
 */
static void test_gpus_per_host_and_sequences_per_gpu(void **state)
{
	struct sim_stats a, b, c;
	double one, two_gpus, two_seqs;

	(void)state;
	one = makespan("hosts 10\nsequences 10\ngpu_share 1\napp_versions gpu\n", &a);
	two_gpus = makespan("hosts 10\nsequences 20\ngpu_share 1\napp_versions gpu\n"
			    "gpus_per_host 2\nmax_sequences_per_gpu 1\n", &b);
	two_seqs = makespan("hosts 10\nsequences 20\ngpu_share 1\napp_versions gpu\n"
			    "max_sequences_per_gpu 2\n", &c);
	assert_true(fabs(one - 2) < 0.01);
	assert_true(fabs(two_gpus - one) < 0.01);
	assert_true(fabs(two_seqs - 2 * one) < 0.1);
}

/*
 * An app with both versions on hosts with a GPU, one sequence a CPU and one
 * a GPU: the first a host takes starts on its GPU (the fastest lane holding
 * none), the second on its CPU, so 20 hosts finish 40 sequences, 20 in 2
 * days on the GPUs and 20 in 20 days on the CPUs.
 */
static void test_cpu_and_gpu_side_by_side(void **state)
{
	struct sim_scenario sc;
	struct sim_stats out;
	double finish[40];
	char why[256] = "";
	int i, fast = 0;

	(void)state;
	scenario(&sc, no_churn, "hosts 20\nsequences 40\ngpu_share 1\napp_versions cpu gpu\n"
		 "max_sequences_per_cpu 1\nmax_sequences_per_gpu 1\n");
	assert_int_equal(sim_run_finish(&sc, &sim_strategy_seq, &out, finish, why, sizeof(why)), 0);
	assert_int_equal(out.finished, 40);
	for (i = 0; i < 40; i++) {
		assert_true(fabs(finish[i] - 2) < 0.01 || fabs(finish[i] - 20) < 0.01);
		fast += fabs(finish[i] - 2) < 0.01;
	}
	assert_int_equal(fast, 20);
}

/*
 * The hosts of every "sent" line of a decision log: those with a GPU into
 * *ngpu, the others into *ncpu; and how many sequences were sent to both.
 */
static long hosts_sent(const struct sim_scenario *sc, const char *log, long *ngpu, long *ncpu)
{
	unsigned char *kinds = xcalloc((size_t)sc->sequences + 1, 1);
	const char *p;
	long both = 0, i;

	*ngpu = *ncpu = 0;
	for (p = log; (p = strstr(p, "seq ")) != NULL; p++) {
		long seq, host;
		int seg, branch, n = 0;

		if (sscanf(p, "seq %ld branch %d seg %d host %ld sent%n", &seq, &branch, &seg, &host,
			   &n) != 4 || n == 0)
			continue;
		assert_true(seq >= 1 && seq <= sc->sequences && host >= 1 && host <= sc->hosts);
		if (sim_host_has_gpu(sc, host - 1)) {
			++*ngpu;
			kinds[seq] |= 1;
		} else {
			++*ncpu;
			kinds[seq] |= 2;
		}
	}
	for (i = 1; i <= sc->sequences; i++)
		both += kinds[i] == 3;
	free(kinds);
	return both;
}

/*
 * Hosts come and go (the default availability and lifetimes), 30 % have a
 * GPU. A GPU-only app's segments go to GPU hosts only, relocations too; with
 * a CPU version as well, sequences move between GPU and CPU hosts; a
 * CPU-only app never uses a GPU host's GPU (its CPU, at CPU speed, only).
 */
static void test_sequences_only_where_a_version_runs(void **state)
{
	struct sim_scenario sc;
	struct sim_stats out;
	long ngpu, ncpu, both;
	char *log;

	(void)state;
	scenario(&sc, "", "hosts 300\nsequences 100\nlength_days 10\nsegment_days 0.5\n"
		 "gpu_share 0.3\ngpu_flops 5e9\nstate_mb 1\nhorizon_days 120\napp_versions gpu\n");
	log = run_logged(&sc, &out);
	both = hosts_sent(&sc, log, &ngpu, &ncpu);
	assert_true(out.relocations >= 5);
	assert_true(ngpu > 1000);
	assert_int_equal(ncpu, 0);
	assert_int_equal(both, 0);
	free(log);

	scenario(&sc, "", "hosts 300\nsequences 100\nlength_days 10\nsegment_days 0.5\n"
		 "gpu_share 0.3\ngpu_flops 5e9\nstate_mb 1\nhorizon_days 120\n"
		 "app_versions cpu gpu\n");
	log = run_logged(&sc, &out);
	both = hosts_sent(&sc, log, &ngpu, &ncpu);
	assert_true(ngpu > 0 && ncpu > 0);
	assert_true(both > 0);
	free(log);
}

/*
 * Segments of 5 reference-CPU days, a deadline of 7 (max_result_time 3.5):
 * too long for a CPU of speed 1, half a day on a GPU. With both versions,
 * every sequence runs on the GPU hosts, none on a CPU (seq_policy_may_take
 * judges the time at the speed of the version the slot runs).
 */
static void test_max_result_time_at_the_version_speed(void **state)
{
	struct sim_scenario sc;
	struct sim_stats out;
	long ngpu, ncpu;
	char *log;

	(void)state;
	scenario(&sc, no_churn, "hosts 20\nsequences 10\nsegment_days 5\nsegment_deadline_days 7\n"
		 "gpu_share 0.5\napp_versions cpu gpu\n");
	log = run_logged(&sc, &out);
	hosts_sent(&sc, log, &ngpu, &ncpu);
	assert_int_equal(out.finished, 10);
	assert_int_equal(ncpu, 0);
	assert_int_equal(ngpu, 10 * 4);
	free(log);
}

/*
 * max_sequences_per_gpu without max_sequences_per_cpu: as the scheduler's
 * seq_policy_allowance, a host without a GPU may hold none, even of an app
 * with a CPU version; half the hosts have a GPU and take all 20 sequences,
 * 10 at a time.
 */
static void test_allowance_per_gpu_alone_keeps_cpu_hosts_out(void **state)
{
	struct sim_scenario sc;
	struct sim_stats out;
	long ngpu, ncpu;
	char *log;

	(void)state;
	scenario(&sc, no_churn, "hosts 20\nsequences 20\ngpu_share 0.5\napp_versions cpu gpu\n"
		 "max_sequences_per_gpu 1\n");
	log = run_logged(&sc, &out);
	hosts_sent(&sc, log, &ngpu, &ncpu);
	assert_int_equal(out.finished, 20);
	assert_int_equal(ncpu, 0);
	assert_int_equal(ngpu, 20 * 20);
	assert_true(fabs(out.p90_days - 4) < 0.01);
	free(log);
}

/*
 * A host holding two sequences (one a CPU, one a GPU) never holds two
 * members of one group (replicas 2): seq_policy_may_take sees what it holds.
 */
static void test_group_members_apart(void **state)
{
	struct sim_scenario sc;
	struct sim_stats out;
	long host[11] = { 0 }, seq, h;
	int seg, branch, n;
	char *log, *p;

	(void)state;
	scenario(&sc, no_churn, "hosts 10\nsequences 5\nreplicas 2\ngpu_share 1\n"
		 "app_versions cpu gpu\nmax_sequences_per_cpu 1\nmax_sequences_per_gpu 1\n");
	log = run_logged(&sc, &out);
	assert_int_equal(out.finished, 5);
	for (p = log; (p = strstr(p, "seq ")) != NULL; p++) {
		n = 0;
		if (sscanf(p, "seq %ld branch %d seg %d host %ld sent%n", &seq, &branch, &seg, &h, &n) == 4 &&
		    n > 0 && seg == 1)
			host[seq] = h;
	}
	for (seq = 1; seq <= 10; seq += 2) {
		assert_true(host[seq] > 0 && host[seq + 1] > 0);
		assert_true(host[seq] != host[seq + 1]);
	}
	free(log);
}

/* A GPU-only app and no GPU host: no segment is ever sent, nothing finishes. */
static void test_no_usable_host_nothing_runs(void **state)
{
	struct sim_scenario sc;
	struct sim_stats out;
	char *log;

	(void)state;
	scenario(&sc, no_churn, "hosts 10\nsequences 5\napp_versions gpu\nhorizon_days 30\n");
	log = run_logged(&sc, &out);
	assert_null(strstr(log, " sent"));
	assert_int_equal(out.finished, 0);
	assert_true(out.cpu_used == 0);
	free(log);
}

/* The same for the strategies of the shared queue: giant jobs run on GPUs at their speed. */
static void test_giant_on_gpus(void **state)
{
	struct sim_scenario sc;
	struct sim_stats cpu, gpu;
	char why[256] = "";

	(void)state;
	scenario(&sc, no_churn, "hosts 10\nsequences 10\ncomponent_deadline_days 100\n");
	assert_int_equal(sim_run(&sc, &sim_strategy_giant, &cpu, why, sizeof(why)), 0);
	scenario(&sc, no_churn, "hosts 10\nsequences 10\ncomponent_deadline_days 100\n"
		 "gpu_share 1\napp_versions gpu\n");
	assert_int_equal(sim_run(&sc, &sim_strategy_giant, &gpu, why, sizeof(why)), 0);
	assert_int_equal(cpu.finished, 10);
	assert_int_equal(gpu.finished, 10);
	assert_true(fabs(cpu.median_days / gpu.median_days - 10) < 0.01);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_has_gpu_spreads_the_share),
		cmocka_unit_test(test_gpu_share_shortens_makespan),
		cmocka_unit_test(test_gpus_per_host_and_sequences_per_gpu),
		cmocka_unit_test(test_cpu_and_gpu_side_by_side),
		cmocka_unit_test(test_sequences_only_where_a_version_runs),
		cmocka_unit_test(test_max_result_time_at_the_version_speed),
		cmocka_unit_test(test_allowance_per_gpu_alone_keeps_cpu_hosts_out),
		cmocka_unit_test(test_group_members_apart),
		cmocka_unit_test(test_no_usable_host_nothing_runs),
		cmocka_unit_test(test_giant_on_gpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
