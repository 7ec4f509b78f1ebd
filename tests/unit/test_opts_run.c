/* test_opts_run.c: what the command line hands to the run's outputs, now that the outputs no
 * longer read the options: --listen's address (the Prometheus exporter takes it as it is) and
 * the run header's options object (the log carries it as it is): every option of the run's
 * use and no other, as given or as resolved, null where the run decides. */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "gputop/opts.h"
#include "tap.h"

/* ---- --listen ---- */

static int parse_listen(struct gd_opts *o, char *err, size_t errlen, const char *listen)
{
	/* a3 outlives the call: o->listen.text points into it. */
	static char a0[] = "gputop-decode", a1[] = "--headless", a2[] = "--listen", a3[128];
	snprintf(a3, sizeof(a3), "%s", listen);
	char *argv[] = { a0, a1, a2, a3, NULL };
	return opts_parse(4, argv, o, err, errlen);
}

static void test_listen(void)
{
	static const struct {
		const char *in;
		int family;
		const char *addr;
		unsigned port;
	} good[] = {
		{ "9400", AF_INET, "127.0.0.1", 9400 },   { ":0", AF_INET, "127.0.0.1", 0 },
		{ "0.0.0.0:80", AF_INET, "0.0.0.0", 80 }, { "10.1.2.3:65535", AF_INET, "10.1.2.3", 65535 },
		{ "[::1]:9400", AF_INET6, "::1", 9400 },  { "[::]:1", AF_INET6, "::", 1 },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct gd_opts o;
		char err[256], addr[64] = "";
		int rc = parse_listen(&o, err, sizeof(err), good[i].in);
		if (rc == 0)
			inet_ntop(o.listen.family, o.listen.addr, addr, sizeof(addr));
		if (!tap_ok(rc == 0 && o.listen.set && o.listen.family == good[i].family &&
		                strcmp(addr, good[i].addr) == 0 && o.listen.port == good[i].port,
		            "--listen %s: %s port %u", good[i].in, good[i].addr, good[i].port))
			printf("#   rc %d: %s; got %s %u\n", rc, err, addr, o.listen.port);
	}
	static const char *const bad[] = { "",           "::1:80",      "localhost:80", "1.2.3.4:65536",
		                           "1.2.3.4:",   "[::1]",       "[::1]9400",    "1.2.3:80",
		                           "1.2.3.4:-1", "1.2.3.4:+8",  "[]:80",        "80 ",
		                           "999999",     "[1.2.3.4]:80" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gd_opts o;
		char err[256];
		int rc = parse_listen(&o, err, sizeof(err), bad[i]);
		if (!tap_ok(rc == -1 && strncmp(err, "--listen: ", 10) == 0 && !strchr(err, '\n'),
		            "--listen '%s' is refused in one line naming --listen", bad[i]))
			printf("#   rc %d: %s\n", rc, err);
	}
	struct gd_opts o;
	char err[256];
	char a0[] = "gputop-decode", a1[] = "--headless";
	char *argv[] = { a0, a1, NULL };
	tap_ok(opts_parse(2, argv, &o, err, sizeof(err)) == 0 && !o.listen.set && !o.prom_file,
	       "without the options: no exporter asked for");
}

/* ---- the run header's options ---- */

/* The options object of the command line args (after the program name), as main.c resolves
 * the device and the element type; NULL when it does not parse. The caller frees it. */
static char *options_of(const char *const *args, int n)
{
	char *argv[32] = { "gputop-decode" }, err[256];
	struct gd_opts o;
	for (int i = 0; i < n; i++)
		argv[i + 1] = (char *)args[i];
	if (opts_parse(n + 1, argv, &o, err, sizeof(err)) != 0) {
		printf("#   %s\n", err);
		return NULL;
	}
	o.platform = 0;
	o.device = 1;
	o.dtype = GD_DT_F64;
	struct gd_text j = { 0 };
	opts_json(&o, &j);
	return j.p;
}

/* Every option of the use (and only those) is named in the object once. */
static bool names_every_option(const char *json, unsigned use)
{
	size_t n;
	const struct gd_optdef *t = opts_table(&n);
	if (!json || json[0] != '{')
		return false;
	for (size_t i = 0; i < n; i++) {
		char key[96];
		snprintf(key, sizeof(key), "\"%s\":", t[i].name);
		const char *at = strstr(json, key);
		bool want = (t[i].applies & use) != 0;
		if (want != (at != NULL) || (at && strstr(at + 1, key))) {
			printf("#   option %s: %s\n", t[i].name,
			       want ? "missing or twice" : "not of this use");
			return false;
		}
	}
	return true;
}

static void test_options(void)
{
	const char *headless[] = {
		"--headless", "-n", "2", "-s", "1000", "-o", "log.csv", "-m", "pipelined"
	};
	char *j = options_of(headless, 9);
	if (!tap_ok(
	        j && j[strlen(j) - 1] == '}' && strstr(j, "{\"procs\":2,") && strstr(j, "\"size\":1000,") &&
	            strstr(j, "\"output\":\"log.csv\"") &&
	            strstr(j, "\"mode\":\"pipelined\",\"queues\":8,") && strstr(j, "\"headless\":true") &&
	            strstr(j, "\"sample-every\":null") && strstr(j, "\"duration\":null") &&
	            strstr(j, "\"dtype\":\"f64\""),
	        "options as given (size, output), resolved (the mode's 8 queues, dtype), null where the run "
	        "decides"))
		printf("#   %s\n", j ? j : "(nothing)");
	tap_ok(names_every_option(j, GD_USE_HEADLESS), "every headless option, no other");
	tap_ok(j && strstr(j, "\"gen-threads\":null") && !strstr(j, "4294967295"),
	       "gen-threads not given nor yet resolved: null, never its -1 read as unsigned");
	tap_ok(j && strstr(j, "\"generator\":\"ziggurat\""), "pipelined: the generator is the ziggurat");
	free(j);

	/* The generator as resolved: the mode's own, or the one given; never auto. */
	static const struct {
		const char *args[4];
		int n;
		const char *want;
	} gens[] = {
		{ { "--headless" }, 1, "\"generator\":\"box-muller\"" },
		{ { "--headless", "--generator", "ziggurat" }, 3, "\"generator\":\"ziggurat\"" },
		{ { "--headless", "-m", "kernel-only" }, 3, "\"generator\":\"ziggurat\"" },
		{ { "--headless", "-m", "pipelined", "--generator=box-muller" },
		  4,
		  "\"generator\":\"box-muller\"" },
		{ { "--sweep", "1,2", "-o", "s.csv" }, 4, "\"generator\":\"box-muller\"" },
	};
	for (size_t i = 0; i < sizeof(gens) / sizeof(gens[0]); i++) {
		j = options_of(gens[i].args, gens[i].n);
		if (!tap_ok(j && strstr(j, gens[i].want) && !strstr(j, "auto"), "%s %s %s: %s",
		            gens[i].args[0], gens[i].n > 1 ? gens[i].args[1] : "",
		            gens[i].n > 2 ? gens[i].args[2] : "", gens[i].want))
			printf("#   %s\n", j ? j : "(nothing)");
		free(j);
	}

	const char *sweep[] = { "--sweep", "1,2x4", "--repeat", "3", "-m", "kernel-only", "-o", "s.csv" };
	j = options_of(sweep, 8);
	if (!tap_ok(j && strstr(j, "\"sweep\":\"1,2x4\"") && strstr(j, "\"repeat\":3") &&
	                strstr(j, "\"duration\":10,") && names_every_option(j, GD_USE_SWEEP),
	            "a sweep: every sweep option, the list as typed, --repeat, 10 s a step"))
		printf("#   %s\n", j ? j : "(nothing)");
	free(j);
}

int main(void)
{
	test_listen();
	test_options();
	return tap_done();
}
