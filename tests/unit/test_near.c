/* test_near.c: did-you-mean: the nearest known name within two edits (one for a short
 * word), case ignored, never the word itself; and the parser's refusals that offer it for a
 * mistyped option, choice value or --fields name, one line each, while a word near nothing
 * keeps the plain refusal. */
#include <stdio.h>
#include <string.h>

#include "gputop/opts.h"
#include "gputop/near.h"
#include "tap.h"

static const char *near_of(const char *word, const char *const *names, size_t n)
{
	return gd_near(word, strlen(word), names, n);
}

static void test_near(void)
{
	static const char *const names[] = { "sweep", "size", "seed", NULL, "pipelined", "kernel-only" };
	const size_t n = sizeof(names) / sizeof(names[0]);
	static const struct {
		const char *word, *want; /* want NULL: nothing offered */
	} cases[] = {
		{ "sweeep", "sweep" },       /* one inserted */
		{ "swep", "sweep" },         /* one left out */
		{ "swepe", "sweep" },        /* two neighbours swapped: one edit */
		{ "sxeeq", "sweep" },        /* two replaced */
		{ "SEED", "seed" },          /* case alone */
		{ "pipelind", "pipelined" }, /* the NULL name skipped on the way */
		{ "kernelonly", "kernel-only" },
		{ "swxxxp", NULL }, /* three edits */
		{ "abc", NULL },    /* a short word: one edit at most */
		{ "siz", "size" },  /* ... which it is */
		{ "", NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = near_of(cases[i].word, names, n);
		tap_ok(cases[i].want ? got && strcmp(got, cases[i].want) == 0 : got == NULL,
		       "near '%s': %s (got %s)", cases[i].word, cases[i].want ? cases[i].want : "none",
		       got ? got : "none");
	}
	const char *got = gd_near("sweeepxx", 6, names, n);
	tap_ok(got && strcmp(got, "sweep") == 0, "only the len characters given count");
	tap_ok(gd_near("sweep", 5, names, 1) == NULL, "the word itself is no suggestion");
	tap_ok(near_of("seeds", names, n) == names[2] || near_of("seeds", names, n) == names[1],
	       "a tie gives one of the nearest");
}

static int parse_line(const char *line, char *err, size_t errlen)
{
	static char copy[512];
	char *argv[32];
	int argc = 0;
	struct gd_opts o;
	snprintf(copy, sizeof(copy), "%s", line);
	argv[argc++] = "gputop-decode";
	for (char *tok = strtok(copy, " "); tok && argc < 31; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return opts_parse(argc, argv, &o, err, errlen);
}

static void test_messages(void)
{
	static const struct {
		const char *args, *want;
	} cases[] = {
		{ "--sweeep 1", "--sweeep: unknown option (did you mean --sweep?)" },
		{ "--fomat=csv --headless", "--fomat: unknown option (did you mean --format?)" },
		{ "--headless --mode pipelind",
		  "--mode: unknown value 'pipelind' (did you mean pipelined?)" },
		{ "--headless --profile sampeld",
		  "--profile: unknown value 'sampeld' (did you mean sampled?)" },
		{ "--headless -f JSONL", "-f: unknown value 'JSONL' (did you mean jsonl?)" },
		{ "--headless --fields t_s,mbitt_s",
		  "--fields: unknown field 'mbitt_s' (did you mean mbit_s?)" },
		{ "--sweep 1 --fields procs,rat", "--fields: unknown field 'rat' (did you mean rate?)" },
		{ "--headless --fields itms_s", "--fields: unknown field 'itms_s' (did you mean items_s?)" },
		/* Near nothing: the plain refusal. */
		{ "--xyzzy", "--xyzzy: unknown option (see --help)" },
		{ "--headless --mode turbo",
		  "--mode: unknown value 'turbo' (expected seed, pipelined, kernel-only)" },
		{ "--headless --fields zzz",
		  "--fields: unknown field 'zzz' (the log rows' fields are in doc/fields.md)" },
		/* Internal options are never offered. */
		{ "--workr=x", "--workr: unknown option (see --help)" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[256] = "";
		int rc = parse_line(cases[i].args, err, sizeof(err));
		tap_ok(rc == -1 && strcmp(err, cases[i].want) == 0 && !strchr(err, '\n'),
		       "%s: \"%s\" (got \"%s\")", cases[i].args, cases[i].want, err);
	}
}

int main(void)
{
	test_near();
	test_messages();
	return tap_done();
}
