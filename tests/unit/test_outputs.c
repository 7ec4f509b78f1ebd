/* test_outputs.c: the run's output files: two outputs on one file are refused (the same name,
 * another name of the same file, a symbolic link, standard output twice) and leave no file
 * behind and every existing file as it was; an unopenable path is refused the same way; every
 * output is created 0644 less the umask; existing files are truncated only once all is well;
 * a file that is only replaced (--prom-file) is checked against the others but never opened,
 * created or truncated; closed standard descriptors are reopened on /dev/null. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gputop/outputs.h"
#include "tap.h"

static char dir[] = "/tmp/gputop-decode-test-outputs.XXXXXX";

static const char *at(const char *name)
{
	static char paths[4][256];
	static int next;
	char *p = paths[next++ % 4];
	snprintf(p, 256, "%s/%s", dir, name);
	return p;
}

static void write_file(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The file's text is exactly text. */
static int holds(const char *name, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(at(name), "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strcmp(buf, text) == 0;
}

static int exists(const char *name)
{
	return access(at(name), F_OK) == 0;
}

/* Opens a log and a trace; 0 or -1 with the message in err. Closes what it opened. */
static int open_two(const char *log, const char *trace, char *err, size_t errlen)
{
	struct gd_output out[2] = { { .what = "--output", .path = log },
		                    { .what = "--trace", .path = trace } };
	int rc = outputs_open(out, 2, err, errlen);
	for (int i = 0; rc == 0 && i < 2; i++)
		if (out[i].own)
			close(out[i].fd);
	return rc;
}

static void refused(const char *log, const char *trace, const char *mentions, const char *what)
{
	char err[512] = "";
	int rc = open_two(log, trace, err, sizeof(err));
	if (!tap_ok(rc == -1 && strstr(err, mentions) && !strchr(err, '\n'), "refused: %s", what))
		printf("#   rc %d, message: %s\n", rc, err);
}

static void test_shared(void)
{
	refused(at("a"), at("a"), "--trace: '", "the same name twice");
	tap_ok(!exists("a"), "  and nothing is created");
	refused(at("a"), at("./a"), "is the same file as --output", "two names of one new file");
	tap_ok(!exists("a"), "  and the file it created is removed");
	write_file("old", "old text");
	refused(at("old"), at("./old"), "is the same file as --output", "two names of one existing file");
	tap_ok(holds("old", "old text"), "  and the existing file is untouched");
	if (symlink("old", at("link")) == 0)
		refused(at("link"), at("old"), "is the same file as --output",
		        "a symbolic link to the other");
	else
		tap_ok(0, "symlink");
	tap_ok(holds("old", "old text"), "  and the existing file is untouched");
	refused("-", "-", "'-' is the same file as --output", "standard output twice");
	char err[512] = "";
	tap_ok(open_two("/dev/null", "/dev/null", err, sizeof(err)) == 0, "/dev/null may take both (%s)",
	       err);
}

static void test_unopenable(void)
{
	write_file("old", "old text");
	refused(at("new"), "/nonexistent/gputop-decode/t.json",
	        "--trace: cannot open '/nonexistent/gputop-decode", "an unopenable trace");
	tap_ok(!exists("new"), "  and the log it created first is removed");
	refused(at("old"), "/nonexistent/gputop-decode/t.json", "cannot open",
	        "an unopenable trace after an existing log");
	tap_ok(holds("old", "old text"), "  and the existing log is not truncated");
	refused(dir, at("new"), "--output: cannot open", "a directory");
	tap_ok(!exists("new"), "  and nothing is created");
}

/* A log, then a file that is only replaced (as main.c lists --prom-file, last); 0 or -1 with the
 * message in err. Closes what it opened; *prom_fd gets the replaced entry's descriptor. */
static int open_replaced(const char *log, const char *prom, int *prom_fd, char *err, size_t errlen)
{
	struct gd_output out[2] = { { .what = "--output", .path = log },
		                    { .what = "--prom-file", .path = prom, .replaced = true } };
	int rc = outputs_open(out, 2, err, errlen);
	*prom_fd = out[1].fd;
	for (int i = 0; rc == 0 && i < 2; i++)
		if (out[i].own)
			close(out[i].fd);
	return rc;
}

static void refused_replaced(const char *log, const char *prom, const char *what)
{
	char err[512] = "", mentions[300];
	int fd;
	snprintf(mentions, sizeof(mentions), "--prom-file: '%s' is the same file as --output", prom);
	int rc = open_replaced(log, prom, &fd, err, sizeof(err));
	if (!tap_ok(rc == -1 && strstr(err, mentions) && !strchr(err, '\n'), "refused: %s", what))
		printf("#   rc %d, message: %s\n", rc, err);
}

static void test_replaced(void)
{
	unlink(at("log"));
	refused_replaced(at("log"), at("log"), "a replaced file named as the log");
	tap_ok(!exists("log"), "  and nothing is created");
	refused_replaced(at("log"), at("./log"), "a replaced file that is another name of the log to create");
	tap_ok(!exists("log"), "  and the log it created is removed");
	write_file("old", "old text");
	refused_replaced(at("old"), at("./old"), "a replaced file that is another name of the existing log");
	tap_ok(holds("old", "old text"), "  and the existing log is untouched");
	unlink(at("link"));
	if (symlink("old", at("link")) == 0)
		refused_replaced(at("old"), at("link"), "a replaced file that is a symbolic link to the log");
	else
		tap_ok(0, "symlink");

	char err[512] = "";
	int fd = 0;
	unlink(at("m.prom"));
	int rc = open_replaced(at("log"), at("m.prom"), &fd, err, sizeof(err));
	if (!tap_ok(rc == 0 && fd == -1 && !exists("m.prom") && exists("log"),
	            "a replaced file that does not exist yet is fine: not opened, not created; the log is"))
		printf("#   rc %d (%s), fd %d\n", rc, err, fd);
	write_file("m.prom", "old metrics");
	write_file("log", "previous run");
	rc = open_replaced(at("log"), at("m.prom"), &fd, err, sizeof(err));
	tap_ok(rc == 0 && fd == -1 && holds("m.prom", "old metrics") && holds("log", ""),
	       "an existing replaced file is left as it is (the log is truncated)");
	unlink(at("m.prom"));
	unlink(at("log"));
	unlink(at("link"));
}

/* Both outputs are created 0644 less the umask, and an existing file is truncated. */
static void test_created_alike(void)
{
	static const mode_t masks[] = { 0, 022, 077 };
	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		unlink(at("log"));
		unlink(at("trace"));
		mode_t old = umask(masks[i]);
		char err[512] = "";
		int rc = open_two(at("log"), at("trace"), err, sizeof(err));
		umask(old);
		struct stat a, b;
		int ok = rc == 0 && stat(at("log"), &a) == 0 && stat(at("trace"), &b) == 0;
		if (!tap_ok(ok && (a.st_mode & 0777) == (0644 & ~masks[i]) &&
		                (b.st_mode & 0777) == (0644 & ~masks[i]),
		            "umask %03o: both outputs are created %03o", (unsigned)masks[i],
		            (unsigned)(0644 & ~masks[i])))
			printf("#   rc %d (%s), modes %03o %03o\n", rc, err,
			       ok ? (unsigned)(a.st_mode & 0777) : 0, ok ? (unsigned)(b.st_mode & 0777) : 0);
	}
	write_file("log", "previous run");
	char err[512] = "";
	int rc = open_two(at("log"), at("trace"), err, sizeof(err));
	tap_ok(rc == 0 && holds("log", ""), "an existing output is truncated once every check passed");
	struct gd_output out[1] = { { .what = "--output", .path = at("log") } };
	rc = outputs_open(out, 1, err, sizeof(err));
	tap_ok(rc == 0 && (fcntl(out[0].fd, F_GETFD) & FD_CLOEXEC), "outputs are close-on-exec");
	outputs_discard(out, 1);
	tap_ok(exists("log"), "discarding an existing file keeps it");
	unlink(at("log"));
	rc = outputs_open(out, 1, err, sizeof(err));
	outputs_discard(out, 1);
	tap_ok(rc == 0 && !exists("log"), "discarding a file created here removes it");
}

/* In a child: standard output and error closed, then reserved: both are /dev/null, and the next
 * file opened does not take their place. */
static void test_reserve_std(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		close(STDOUT_FILENO);
		close(STDERR_FILENO);
		outputs_reserve_std();
		struct stat st, null;
		int ok = fstat(STDOUT_FILENO, &st) == 0 && stat("/dev/null", &null) == 0 &&
		         st.st_rdev == null.st_rdev && fstat(STDERR_FILENO, &st) == 0 &&
		         st.st_rdev == null.st_rdev;
		int fd = open("/dev/null", O_RDONLY);
		_exit(ok && fd > STDERR_FILENO ? 0 : 1);
	}
	int status = -1;
	waitpid(pid, &status, 0);
	tap_ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "closed standard output and error are reopened on /dev/null");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_shared();
	test_unopenable();
	test_replaced();
	test_created_alike();
	test_reserve_std();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
