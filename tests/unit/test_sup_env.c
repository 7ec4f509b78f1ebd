/* test_sup_env.c: the observed programs' environment and the reasons a process has no library.
 * A library path holding a space, a colon and a '$' goes into LD_PRELOAD and OPENCL_LAYERS as
 * /proc/<our pid>/fd/<fd>, which resolves to the library and which a program preloads; a plain
 * path goes in as it is. sup_env_unobserved says nothing of a process with the library, a
 * zombie, one gone, or one not yet exec'd; it names a statically linked program (ldconfig,
 * stopped at its exec), an environment without LD_PRELOAD or OPENCL_LAYERS, and a loader that
 * does not load layers, and (as root) a setuid program. The programs are /bin/sleep, always
 * killed and reaped. */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gputop/common.h"
#include "session/sup_impl.h"
#include "tap.h"

static char tmpdir[] = "/tmp/gputop-test-sup-env.XXXXXX";
static char odd[256]; /* a copy of the library in a directory with ' ', ':' and '$' */

/* Copies file from to to: 0, or -1. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t got;
	int in = open(from, O_RDONLY | O_CLOEXEC),
	    out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc = in >= 0 && out >= 0 ? 0 : -1;
	while (!rc && (got = read(in, buf, sizeof(buf))) > 0)
		rc = write(out, buf, (size_t)got) == got ? 0 : -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

/* The value of NAME= among sup's variables, or NULL. */
static const char *env_value(const struct gd_sup *sup, const char *name)
{
	size_t n = strlen(name);
	for (int i = 0; sup->env[i]; i++)
		if (!strncmp(sup->env[i], name, n) && sup->env[i][n] == '=')
			return sup->env[i] + n + 1;
	return NULL;
}

/* Starts path with env; traced: stopped at its exec (PTRACE_TRACEME). */
static pid_t start(const char *path, char *const env[], bool traced)
{
	pid_t pid = fork();
	if (pid == 0) {
		char *const argv[] = { (char *)path, "30", NULL };
		if (traced)
			ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execve(path, argv, env);
		_exit(127);
	}
	return pid;
}

static void end(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Whether pid's map holds a file whose path contains what. */
static bool mapped(pid_t pid, const char *what)
{
	char path[64], line[PATH_MAX + 128];
	bool found = false;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *fp = fopen(path, "re");
	while (fp && !found && fgets(line, sizeof(line), fp))
		found = strstr(line, what) != NULL;
	if (fp)
		fclose(fp);
	return found;
}

/* Whether pid runs exe: it has exec'd. */
static bool runs(pid_t pid, const char *exe)
{
	char path[64];
	struct stat a, b;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return stat(path, &a) == 0 && stat(exe, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Waits (up to 20 s: never a test of speed) until pid runs exe. */
static bool wait_exe(pid_t pid, const char *exe)
{
	for (int i = 0; i < 2000; i++) {
		if (runs(pid, exe))
			return true;
		usleep(10000);
	}
	return false;
}

/* Waits (up to 20 s) until pid has mapped a file named what. */
static bool wait_mapped_any(pid_t pid, const char *what)
{
	for (int i = 0; i < 2000; i++) {
		if (mapped(pid, what))
			return true;
		usleep(10000);
	}
	return false;
}

/* Waits until pid has exec'd sleep and mapped a file named what. */
static bool wait_mapped(pid_t pid, const char *what)
{
	return wait_exe(pid, "/bin/sleep") && wait_mapped_any(pid, what);
}

/* The reason for a sleep started with env once its C library is in (after its preloading). */
static void reason_of_sleep(const struct gd_sup *sup, char *const env[], char *why, size_t n)
{
	pid_t pid = start("/bin/sleep", env, false);
	why[0] = '\0';
	if (wait_mapped(pid, "/libc.so"))
		sup_env_unobserved(sup, pid, why, n);
	else
		str_copy(why, n, "(no C library mapped)");
	end(pid);
}

/* The path of a library the dynamic linker finds by name, or false. */
static bool lib_path(const char *name, char *out, size_t n)
{
	void *h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
	struct link_map *lm = NULL;
	bool ok = h && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm->l_name[0] == '/';
	if (ok)
		str_copy(out, n, lm->l_name);
	return ok;
}

static void test_env(struct gd_sup *sup, const char *plain)
{
	sup->c.via = GD_VIA_BOTH;
	sup->c.observe_lib = plain;
	sup_env_build(sup);
	tap_ok(env_value(sup, "LD_PRELOAD") && !strcmp(env_value(sup, "LD_PRELOAD"), plain) &&
	           env_value(sup, "OPENCL_LAYERS") && !strcmp(env_value(sup, "OPENCL_LAYERS"), plain),
	       "a plain path goes into LD_PRELOAD and OPENCL_LAYERS as it is");

	sup->c.observe_lib = odd;
	sup_env_build(sup);
	const char *pre = env_value(sup, "LD_PRELOAD"), *lay = env_value(sup, "OPENCL_LAYERS");
	int fd = -1;
	char want[64], *e = NULL;
	if (pre && !strncmp(pre, "/proc/", 6) && strstr(pre, "/fd/"))
		fd = (int)strtol(strstr(pre, "/fd/") + 4, &e, 10);
	tap_ok(fd >= 0 && e && !*e, "a path with ' ', ':' and '$': LD_PRELOAD=%s", pre ? pre : "(none)");
	snprintf(want, sizeof(want), "/proc/%d/fd/%d", (int)getpid(), fd);
	tap_ok(pre && !strcmp(pre, want) && lay && !strcmp(lay, want),
	       "... our pid's descriptor, in both lists (%s)", want);
	struct stat a, b;
	tap_ok(stat(want, &a) == 0 && stat(odd, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev,
	       "... which resolves to the library");
	tap_ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "... close-on-exec: no program inherits it");
	sup_env_build(sup);
	tap_ok(!strcmp(env_value(sup, "LD_PRELOAD"), want), "a second supervisor reuses the descriptor");
	setenv("LD_PRELOAD", "/x/other.so", 1);
	sup_env_build(sup);
	unsetenv("LD_PRELOAD");
	snprintf(want + strlen(want), sizeof(want) - strlen(want), ":/x/other.so");
	tap_ok(!strcmp(env_value(sup, "LD_PRELOAD"), want), "a program's own LD_PRELOAD follows ours (%s)",
	       env_value(sup, "LD_PRELOAD"));
}

static void test_preload(struct gd_sup *sup)
{
	char why[256];
	char *const none[] = { "PATH=/usr/bin:/bin", NULL };
	sup->c.via = GD_VIA_PRELOAD;
	sup_env_build(sup);
	pid_t pid = start("/bin/sleep", sup->env, false);
	bool in = wait_mapped(pid, "a b:c$LIB/libgputop-observe.so");
	tap_ok(in, "sleep preloads the library through /proc/<pid>/fd/<fd>");
	sup_env_unobserved(sup, pid, why, sizeof(why));
	tap_ok(in && !why[0], "... so no reason ('%s')", why);
	end(pid);
	sup_env_unobserved(sup, pid, why, sizeof(why));
	tap_ok(!why[0], "a process gone: no reason ('%s')", why);

	reason_of_sleep(sup, none, why, sizeof(why));
	tap_ok(!strcmp(why, "its environment dropped LD_PRELOAD"), "no LD_PRELOAD: '%s'", why);

	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	sup_env_unobserved(sup, pid, why, sizeof(why));
	tap_ok(!why[0], "a child not yet exec'd: no reason ('%s')", why);
	kill(pid, SIGKILL);
	siginfo_t si;
	waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
	sup_env_unobserved(sup, pid, why, sizeof(why));
	tap_ok(!why[0], "a zombie: no reason ('%s')", why);
	waitpid(pid, NULL, 0);

	const char *ldconfig = access("/sbin/ldconfig", X_OK) == 0 ? "/sbin/ldconfig" : NULL;
	int st = 0;
	pid = ldconfig ? start(ldconfig, sup->env, true) : -1;
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFSTOPPED(st)) {
		sup_env_unobserved(sup, pid, why, sizeof(why));
		tap_ok(!strcmp(why, "statically linked"), "ldconfig, stopped at its exec: '%s'", why);
		end(pid);
	} else {
		printf("ok %d # skip no /sbin/ldconfig to stop at its exec\n", ++tap_n);
	}
}

static void test_layer(struct gd_sup *sup)
{
	char why[256], real[PATH_MAX], fake[256], stub[PATH_MAX], var[PATH_MAX + 64];
	char *const none[] = { "PATH=/usr/bin:/bin", NULL };
	sup->c.via = GD_VIA_LAYER;
	sup_env_build(sup);
	reason_of_sleep(sup, sup->env, why, sizeof(why));
	tap_ok(!why[0], "layer, no OpenCL call yet: no reason ('%s')", why);
	reason_of_sleep(sup, none, why, sizeof(why));
	tap_ok(!strcmp(why, "its environment dropped OPENCL_LAYERS"), "layer, no OPENCL_LAYERS: '%s'", why);

	/* A program with a loader mapped: the real one takes layers; one without clInitLayer (a
	 * stub library under the loader's name) does not. */
	char layers[PATH_MAX + 16];
	snprintf(layers, sizeof(layers), "OPENCL_LAYERS=%s", env_value(sup, "OPENCL_LAYERS"));
	char *const env[] = { layers, var, NULL };
	if (lib_path("libOpenCL.so.1", real, sizeof(real))) {
		snprintf(var, sizeof(var), "LD_PRELOAD=%s", real);
		reason_of_sleep(sup, env, why, sizeof(why));
		tap_ok(!why[0], "layer, the ICD loader mapped (%s): no reason ('%s')", real, why);
	} else {
		printf("ok %d # skip no libOpenCL.so.1\n", ++tap_n);
	}
	snprintf(fake, sizeof(fake), "%s/libOpenCL.so.1", tmpdir);
	if (lib_path("libdl.so.2", stub, sizeof(stub)) && copy_file(stub, fake) == 0) {
		snprintf(var, sizeof(var), "LD_PRELOAD=%s", fake);
		reason_of_sleep(sup, env, why, sizeof(why));
		char want[PATH_MAX + 64];
		snprintf(want, sizeof(want), "its OpenCL loader ignores OPENCL_LAYERS (%s)", fake);
		tap_ok(!strcmp(why, want), "layer, a loader without layers: '%s'", why);
		unlink(fake);
	} else {
		printf("ok %d # skip no libdl.so.2 to stand for a loader\n", ++tap_n);
	}

	sup->c.via = GD_VIA_BOTH;
	sup_env_build(sup);
	reason_of_sleep(sup, none, why, sizeof(why));
	tap_ok(!strcmp(why, "its environment dropped LD_PRELOAD and OPENCL_LAYERS"), "both, neither: '%s'",
	       why);
}

/* As root: sleep made setuid root and started by uid 65534, whose LD_PRELOAD the dynamic linker
 * ignores. Root reads its auxv (AT_SECURE); a supervisor of uid 65534, to which the kernel
 * hides its map, reads its ids in /proc/PID/status. */
static void test_secure(struct gd_sup *sup)
{
	char suid[300], why[256] = "", asuser[256] = "";
	int fds[2];
	snprintf(suid, sizeof(suid), "%s/suid-sleep", tmpdir);
	if (geteuid() != 0 || copy_file("/bin/sleep", suid) != 0 || chmod(suid, 04755) != 0 ||
	    pipe(fds) != 0) {
		printf("ok %d # skip not root: no setuid program\nok %d # skip\n", tap_n + 1, tap_n + 2);
		tap_n += 2;
		unlink(suid);
		return;
	}
	sup->c.via = GD_VIA_PRELOAD;
	sup_env_build(sup);
	pid_t pid = fork();
	if (pid == 0) {
		char *const argv[] = { suid, "30", NULL };
		if (setresgid(65534, 65534, 65534) == 0 && setresuid(65534, 65534, 65534) == 0)
			execve(suid, argv, sup->env);
		_exit(127);
	}
	if (wait_exe(pid, suid) && wait_mapped_any(pid, "/libc.so")) {
		sup_env_unobserved(sup, pid, why, sizeof(why));
		pid_t checker = fork();
		if (checker == 0) {
			if (setresuid(65534, 65534, 65534) == 0)
				sup_env_unobserved(sup, pid, asuser, sizeof(asuser));
			_exit(write(fds[1], asuser, strlen(asuser)) < 0);
		}
		waitpid(checker, NULL, 0);
		ssize_t got = read(fds[0], asuser, sizeof(asuser) - 1);
		asuser[got > 0 ? got : 0] = '\0';
	}
	end(pid);
	close(fds[0]);
	close(fds[1]);
	unlink(suid);
	const char *want = "secure execution (setuid/setgid): LD_PRELOAD ignored";
	tap_ok(!strcmp(why, want), "a setuid program, seen by root (AT_SECURE): '%s'", why);
	tap_ok(!strcmp(asuser, want), "... seen by its user, its map hidden (ids in status): '%s'", asuser);
}

int main(void)
{
	char plain[PATH_MAX], dir[128];
	char *const command[] = { "/bin/sleep", NULL };
	unsetenv("LD_PRELOAD");
	unsetenv("OPENCL_LAYERS");
	if (!realpath("libgputop-observe.so", plain) || !mkdtemp(tmpdir)) {
		printf("not ok 1 - libgputop-observe.so (make) in the current directory, and a temporary "
		       "one\n1..1\n");
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/a b:c$LIB", tmpdir);
	snprintf(odd, sizeof(odd), "%s/libgputop-observe.so", dir);
	/* searchable by all: a supervisor of another uid looks at the library too */
	if (chmod(tmpdir, 0755) != 0 || mkdir(dir, 0755) != 0 || copy_file(plain, odd) != 0) {
		printf("not ok 1 - a copy of the library in '%s'\n1..1\n", dir);
		return 1;
	}
	struct gd_sup *sup = xcalloc(1, sizeof(*sup));
	sup->self = getpid();
	sup->c.command = command;
	test_env(sup, plain);
	test_preload(sup);
	test_layer(sup);
	test_secure(sup);
	free(sup);
	unlink(odd);
	rmdir(dir);
	rmdir(tmpdir);
	return tap_done();
}
