/* sup_env.c: what an observed program finds in its environment (doc/observe.md): the variables
 * that load the observation library into it and name the run it belongs to; and, for a process
 * the library is not in, why. */
#include "sup_impl.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/observe_env.h"
#include "gputop/rng.h"

/* Whether a library's path can go into the lists as it is. LD_PRELOAD splits at ' ' and ':'
 * (glibc; musl at any white space and ':'), OPENCL_LAYERS at ':' (the Khronos loader and
 * ocl-icd alike), and the dynamic linker expands '$' tokens ($ORIGIN, $LIB, $PLATFORM) in a
 * name from either. */
static bool path_plain(const char *p)
{
	for (; *p; p++)
		if (*p == ':' || *p == '$' || isspace((unsigned char)*p))
			return false;
	return true;
}

/* A descriptor on the library, for a path that cannot go into a list: the programs reach it as
 * /proc/<supervisor pid>/fd/<fd>, a name without separators that ld.so and the OpenCL loaders
 * open like any other (the kernel resolves it to the library while the supervisor lives). One
 * for the process's life, opened the first time it is needed; O_PATH and close-on-exec, so no
 * program inherits it. */
static int lib_fd = -1;
static char lib_fd_of[PATH_MAX];

static void lib_fd_open(const char *lib)
{
	if (path_plain(lib) || (lib_fd >= 0 && strcmp(lib_fd_of, lib) == 0))
		return;
	if (lib_fd >= 0)
		close(lib_fd);
	lib_fd = open(lib, O_PATH | O_CLOEXEC);
	str_copy(lib_fd_of, sizeof(lib_fd_of), lib);
}

/* The name the lists give the library, in out (n bytes): its path where that holds no
 * separator, else /proc/<supervisor pid>/fd/<fd>. Where no descriptor could be had, the path
 * goes as it is, and sup_env_unobserved says that the list cut it. */
static void lib_entry(const struct gd_sup *sup, char *out, size_t n)
{
	const char *lib = sup->c.observe_lib;
	if (path_plain(lib) || lib_fd < 0 || strcmp(lib_fd_of, lib) != 0)
		str_copy(out, n, lib);
	else
		snprintf(out, n, "/proc/%d/fd/%d", (int)sup->self, lib_fd);
}

/* NAME=VALUE, or NAME=VALUE:OLD where the variable is a list the program already has. */
static void set_var(struct gd_sup *sup, int *n, const char *name, const char *value, bool list)
{
	const char *old = list ? getenv(name) : NULL;
	snprintf(sup->envbuf[*n], sizeof(sup->envbuf[*n]), "%s=%s%s%s", name, value, old && *old ? ":" : "",
	         old && *old ? old : "");
	sup->env[*n] = sup->envbuf[*n];
	++*n;
}

/* What an observed program finds in its environment: how to load the library, the run it belongs
 * to (this supervisor and the token in its segments' names) and the profiling policy. */
void sup_env_build(struct gd_sup *sup)
{
	const struct gd_sup_config *c = &sup->c;
	int n = 0;
	char v[64], lib[PATH_MAX];
	sup->token = rng_entropy() | 1; /* never 0: the library takes 0 for "no token" */
	snprintf(v, sizeof(v), GD_OBS_ENV_RUN_FMT, (int)sup->self, (unsigned long long)sup->token);
	set_var(sup, &n, GD_OBS_ENV_RUN, v, false);
	set_var(sup, &n, GD_OBS_ENV_PROFILE,
	        gd_profile_names[c->work.profile < GD_PROF_COUNT ? c->work.profile : GD_PROF_SAMPLED], false);
	if (c->work.sample_every) {
		snprintf(v, sizeof(v), "%u", (unsigned)c->work.sample_every);
		set_var(sup, &n, GD_OBS_ENV_EVERY, v, false);
	}
	lib_fd_open(c->observe_lib);
	lib_entry(sup, lib, sizeof(lib));
	if (c->via != GD_VIA_PRELOAD)
		set_var(sup, &n, "OPENCL_LAYERS", lib, true);
	if (c->via != GD_VIA_LAYER)
		set_var(sup, &n, "LD_PRELOAD", lib, true);
	sup->env[n] = NULL;
}

/* ---- why the library is not in a process ---- */

/* What a process's memory map says. */
struct maps_facts {
	bool any;     /* a line at all (a zombie has none) */
	bool lib;     /* the library is mapped */
	bool libc;    /* a C library is: the dynamic linker has done its preloading */
	char cl[512]; /* a libOpenCL it has mapped, or "" */
};

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* One line of /proc/PID/maps into f ("start-end perms offset maj:min inode   path"): the file
 * it maps is the library when its device and inode are the library's (or, where a file system
 * gives maps other numbers, its path is the one we gave). */
static void maps_line(const char *line, const struct stat *lib, const char *libpath, struct maps_facts *f)
{
	const char *p = line;
	char *e;
	f->any = true;
	for (int i = 0; i < 3 && p; i++)
		p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL;
	if (!p)
		return;
	unsigned long maj = strtoul(p, &e, 16), min = *e == ':' ? strtoul(e + 1, &e, 16) : 0;
	unsigned long ino = strtoul(e, &e, 10);
	const char *path = e + strspn(e, " ");
	if (*path != '/')
		return;
	const char *base = strrchr(path, '/') + 1;
	if ((makedev(maj, min) == lib->st_dev && ino == lib->st_ino) || strcmp(path, libpath) == 0)
		f->lib = true;
	if (!strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5))
		f->libc = true;
	if (!strncmp(base, "libOpenCL.so", 12) && !f->cl[0])
		str_copy(f->cl, sizeof(f->cl), path);
}

/* Reads /proc/pid/maps into f: 0, or -1 with errno. */
static int maps_scan(pid_t pid, const struct stat *lib, const char *libpath, struct maps_facts *f)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	*f = (struct maps_facts){ 0 };
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return -1;
	while ((len = getline(&line, &cap, fp)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		maps_line(line, lib, libpath, f);
	}
	free(line);
	fclose(fp);
	return 0;
}

/* Whether pid still runs this executable: a child of ours between fork and exec. */
static bool exe_is_ours(pid_t pid)
{
	char path[64];
	struct stat a, b;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return stat(path, &a) == 0 && stat("/proc/self/exe", &b) == 0 && same_file(&a, &b);
}

/* Whether pid runs with privileges its user does not have (real and effective or saved ids
 * differ), from /proc/pid/status, which anyone can read: what makes the kernel hide its map and
 * the dynamic linker ignore LD_PRELOAD. */
static bool privileged(pid_t pid)
{
	char path[64], line[256], *e;
	bool priv = false;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, "Uid:", 4) != 0 && strncmp(line, "Gid:", 4) != 0)
			continue;
		unsigned long real = strtoul(line + 4, &e, 10), eff = strtoul(e, &e, 10);
		unsigned long saved = strtoul(e, &e, 10);
		priv |= real != eff || real != saved;
	}
	fclose(fp);
	return priv;
}

/* The ELF class and machine of a file: false where it cannot be read or is not ELF. */
static bool elf_kind(const char *path, unsigned char *cls, unsigned *machine)
{
	Elf64_Ehdr h; /* e_ident, e_type and e_machine sit alike in both classes */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t got = read(fd, &h, 20);
	close(fd);
	if (got != 20 || memcmp(h.e_ident, ELFMAG, SELFMAG) != 0)
		return false;
	*cls = h.e_ident[EI_CLASS];
	*machine = h.e_machine;
	return true;
}

/* Why a program of another class or machine than the library's cannot load it, or "". */
static void arch_why(pid_t pid, const char *libpath, char *why, size_t n)
{
	char path[64];
	unsigned char pc, lc;
	unsigned pm, lm;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (!elf_kind(path, &pc, &pm) || !elf_kind(libpath, &lc, &lm))
		return;
	if (pc != lc)
		snprintf(why, n, "a %d-bit program; the library is %d-bit", pc == ELFCLASS32 ? 32 : 64,
		         lc == ELFCLASS32 ? 32 : 64);
	else if (pm != lm)
		snprintf(why, n, "a program for another machine (ELF machine %u; the library's is %u)", pm,
		         lm);
}

/* AT_SECURE and AT_BASE from /proc/pid/auxv (a program of the library's class): false where it
 * cannot be read. A program without an interpreter (AT_BASE 0) is statically linked. */
static bool auxv_of(pid_t pid, bool *secure, bool *interp)
{
	char path[64];
	unsigned long v[2];
	bool found = false;
	*secure = *interp = false;
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return false;
	while (fread(v, sizeof(v), 1, fp) == 1 && v[0] != AT_NULL) {
		found = true;
		if (v[0] == AT_SECURE)
			*secure = v[1] != 0;
		else if (v[0] == AT_BASE)
			*interp = v[1] != 0;
	}
	fclose(fp);
	return found;
}

/* What a list variable in a process's environment says of the library. */
enum env_state { ENV_UNKNOWN, ENV_HAS, ENV_DROPPED, ENV_CUT };

/* Whether the list value (split at ':', and at white space for LD_PRELOAD) names the library by
 * the name we gave it (or its path): compared as text, so that no name a program chose is ever
 * looked up. ENV_CUT: its path is there, cut at a separator. */
static enum env_state list_names(const char *value, bool space, const char *entry, const char *libpath)
{
	size_t el = strlen(entry), pl = strlen(libpath);
	for (const char *p = value; *p;) {
		size_t len = 0;
		while (p[len] && p[len] != ':' && !(space && isspace((unsigned char)p[len])))
			len++;
		if ((len == el && !strncmp(p, entry, el)) || (len == pl && !strncmp(p, libpath, pl)))
			return ENV_HAS;
		p += len + (p[len] != '\0');
	}
	return strstr(value, libpath) ? ENV_CUT : ENV_DROPPED;
}

/* What pid's environment at its exec (/proc/pid/environ) says of the library in variable name. */
static enum env_state env_state_of(pid_t pid, const char *name, const char *entry, const char *libpath)
{
	char path[64], *var = NULL;
	size_t cap = 0, nlen = strlen(name);
	ssize_t len;
	enum env_state s = ENV_DROPPED;
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return ENV_UNKNOWN;
	while ((len = getdelim(&var, &cap, '\0', fp)) > 0)
		if ((size_t)len > nlen && !strncmp(var, name, nlen) && var[nlen] == '=') {
			s = list_names(var + nlen + 1, !strcmp(name, "LD_PRELOAD"), entry, libpath);
			break;
		}
	free(var);
	fclose(fp);
	return s;
}

/* Whether a loader's file holds the layer entry point's name: one that has none ignores
 * OPENCL_LAYERS (as NVIDIA's CUDA-toolkit loader does). */
static bool loader_takes_layers(const char *path)
{
	static const char want[] = "clInitLayer";
	const size_t wl = sizeof(want) - 1;
	char buf[65536];
	size_t keep = 0, got;
	bool found = false;
	FILE *fp = fopen(path, "re");
	if (!fp)
		return true; /* cannot be told */
	while (!found && (got = fread(buf + keep, 1, sizeof(buf) - keep, fp)) > 0) {
		size_t have = keep + got;
		found = memmem(buf, have, want, wl) != NULL;
		keep = have < wl - 1 ? have : wl - 1; /* a name across two reads is found in the next */
		memmove(buf, buf + have - keep, keep);
	}
	fclose(fp);
	return found;
}

/* Why LD_PRELOAD left the library out of pid (map m, environment's LD_PRELOAD pre), or "" where
 * that cannot be told yet: before the dynamic linker has loaded the C library. */
static void preload_why(pid_t pid, const struct maps_facts *m, enum env_state pre, char *why, size_t n)
{
	bool secure, interp;
	bool aux = auxv_of(pid, &secure, &interp);
	if (aux && secure)
		snprintf(why, n, "secure execution (setuid/setgid): LD_PRELOAD ignored");
	else if (aux && !interp)
		snprintf(why, n, "statically linked");
	else if (pre == ENV_CUT)
		snprintf(why, n, "LD_PRELOAD cut the library's path at its space, ':' or '$'");
	else if (pre == ENV_DROPPED)
		snprintf(why, n, "its environment dropped LD_PRELOAD");
	else if (pre == ENV_HAS && m->libc)
		snprintf(why, n,
		         "the dynamic linker did not preload it (its message, if any, is in the "
		         "program's output)");
}

/* Why the OpenCL loader left the library out of a process (map m, environment's OPENCL_LAYERS
 * lay), or "": a loader loads its layers at the program's first OpenCL call, so a library not
 * yet there says nothing by itself. */
static void layer_why(const struct maps_facts *m, enum env_state lay, char *why, size_t n)
{
	if (lay == ENV_CUT)
		snprintf(why, n, "OPENCL_LAYERS cut the library's path at its ':'");
	else if (lay == ENV_DROPPED)
		snprintf(why, n, "its environment dropped OPENCL_LAYERS");
	else if (m->cl[0] && !loader_takes_layers(m->cl))
		snprintf(why, n, "its OpenCL loader ignores OPENCL_LAYERS (%s)", m->cl);
}

void sup_env_unobserved(const struct gd_sup *sup, pid_t pid, char *why, size_t n)
{
	const struct gd_sup_config *c = &sup->c;
	struct maps_facts m;
	struct stat lib;
	char entry[PATH_MAX];
	why[0] = '\0';
	if (!c->command || !c->observe_lib || stat(c->observe_lib, &lib) != 0)
		return;
	if (maps_scan(pid, &lib, c->observe_lib, &m) != 0) {
		/* the kernel hides the map of a process that gained privileges at its exec */
		if ((errno == EACCES || errno == EPERM) && c->via != GD_VIA_LAYER && privileged(pid))
			snprintf(why, n, "secure execution (setuid/setgid): LD_PRELOAD ignored");
		return;
	}
	if (m.lib || !m.any || exe_is_ours(pid))
		return; /* loaded; a zombie; or not yet exec'd */
	arch_why(pid, c->observe_lib, why, n);
	if (why[0])
		return;
	lib_entry(sup, entry, sizeof(entry));
	enum env_state pre =
	    c->via == GD_VIA_LAYER ? ENV_UNKNOWN : env_state_of(pid, "LD_PRELOAD", entry, c->observe_lib);
	enum env_state lay = c->via == GD_VIA_PRELOAD
	                         ? ENV_UNKNOWN
	                         : env_state_of(pid, "OPENCL_LAYERS", entry, c->observe_lib);
	if (pre == ENV_DROPPED && lay == ENV_DROPPED)
		snprintf(why, n, "its environment dropped LD_PRELOAD and OPENCL_LAYERS");
	else if (c->via != GD_VIA_LAYER)
		preload_why(pid, &m, pre, why, n);
	else
		layer_why(&m, lay, why, n);
}
