/* config.c: the dashboard's settings that stay from one run to the next: the config file's
 * place, reading it (libinih) and writing it as htop writes its htoprc, a new file renamed
 * over the old one. The file, its keys and what happens to a faulty one are in the man page
 * (FILES) and doc/dashboard.md. */
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ui.h"

#define CONFIG_MAX_BYTES 65536 /* a settings file is a few lines: more is not one */
#define SECTION          "dashboard"

static const char *const colour_names[GD_COLOUR_COUNT] = { "auto", "never", "always" };

void dashboard_settings_default(struct gd_dash_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->sort = 0; /* by id, as started */
	s->sort_desc = ui_col_desc(0);
	for (int i = 0; i < UI_NCOLS; i++)
		s->cols[s->ncols++] = i;
	s->cols[s->ncols++] = GD_DASH_BAR;
	s->colour = GD_COLOUR_AUTO;
	s->mouse = true;
}

void dashboard_config_path(char *buf, size_t n)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	buf[0] = '\0';
	if (xdg && xdg[0] == '/') { /* the XDG rule: a relative path is ignored */
		snprintf(buf, n, "%s/" GD_NAME "/config", xdg);
		return;
	}
	if (!home || home[0] != '/') {
		const struct passwd *pw = getpwuid(getuid());
		home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
	}
	if (home)
		snprintf(buf, n, "%s/.config/" GD_NAME "/config", home);
}

/* ---- reading ---- */

struct reader {
	struct gd_dash_settings s;
	double lo, hi; /* the interval's bounds */
	char why[160]; /* the first fault, in words */
	bool in_section;
};

__attribute__((format(printf, 2, 3))) static int fault(struct reader *r, const char *fmt, ...)
{
	if (!r->why[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->why, sizeof(r->why), fmt, ap);
		va_end(ap);
		text_clean(r->why); /* it echoes what the file holds: one line, whatever that was */
	}
	return 0;
}

/* A name of the table's columns, or breakdown: its index, GD_DASH_BAR, or -2. */
static int column_of(const char *name)
{
	if (strcmp(name, "breakdown") == 0)
		return GD_DASH_BAR;
	int i = ui_col_find(name);
	return i >= 0 ? i : -2;
}

/* columns = NAME NAME ...: the shown ones in their order, each once, spaces or commas apart. */
static int read_columns(struct reader *r, const char *value)
{
	char names[512];
	str_copy(names, sizeof(names), value);
	r->s.ncols = 0;
	for (char *save = NULL, *t = strtok_r(names, " ,\t", &save); t; t = strtok_r(NULL, " ,\t", &save)) {
		int c = column_of(t);
		if (c == -2)
			return fault(r, "unknown column '%.40s'", t);
		for (int k = 0; k < r->s.ncols; k++)
			if (r->s.cols[k] == c)
				return fault(r, "column '%.40s' listed twice", t);
		r->s.cols[r->s.ncols++] = c; /* each once: no more than GD_DASH_COLS_MAX */
	}
	return 1;
}

static int read_interval(struct reader *r, const char *value)
{
	char *end;
	errno = 0;
	double v = strtod(value, &end);
	if (!value[0] || *end || errno || !isfinite(v) || strspn(value, "0123456789.eE+-") != strlen(value))
		return fault(r, "interval '%.40s' is not a number of seconds", value);
	if (v < r->lo || v > r->hi)
		return fault(r, "interval %.40s is out of range (%g..%g seconds)", value, r->lo, r->hi);
	r->s.interval = v;
	return 1;
}

static int read_choice(struct reader *r, const char *name, const char *value, const char *const *names, int n,
                       int *out)
{
	for (int i = 0; i < n; i++)
		if (strcmp(value, names[i]) == 0) {
			*out = i;
			return 1;
		}
	char list[64] = "";
	for (int i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", names[i]);
	return fault(r, "%s '%.40s' is not one of %s", name, value, list);
}

static int on_pair(void *user, const char *section, const char *name, const char *value)
{
	static const char *const orders[] = { "ascending", "descending" }, *const onoff[] = { "off", "on" };
	struct reader *r = user;
	if (r->why[0])
		return 0; /* only the first fault is told */
	if (strcmp(section, SECTION) != 0)
		return fault(r, "'%.40s' outside the [" SECTION "] section", name);
	if (strcmp(name, "sort") == 0) {
		int c = ui_col_find(value);
		if (c < 0)
			return fault(r, "sort: unknown column '%.40s'", value);
		r->s.sort = c;
		return 1;
	}
	if (strcmp(name, "sort_order") == 0) {
		int desc = 0;
		int ok = read_choice(r, name, value, orders, 2, &desc);
		r->s.sort_desc = desc;
		return ok;
	}
	if (strcmp(name, "interval") == 0)
		return read_interval(r, value);
	if (strcmp(name, "columns") == 0)
		return read_columns(r, value);
	if (strcmp(name, "colour") == 0 || strcmp(name, "color") == 0) {
		int c = GD_COLOUR_AUTO;
		int ok = read_choice(r, name, value, colour_names, GD_COLOUR_COUNT, &c);
		r->s.colour = (enum gd_colour)c;
		return ok;
	}
	if (strcmp(name, "mouse") == 0) {
		int on = 1;
		int ok = read_choice(r, name, value, onoff, 2, &on);
		r->s.mouse = on;
		return ok;
	}
	return fault(r, "unknown key '%.40s'", name);
}

/* The longest line libinih reads whole: its line buffer holds the line, a '\r', the '\n' and
 * the '\0' (ini.h). A longer line is cut there and its rest read as a line of its own, so text
 * at the end of a comment would become a setting and every later line number would be off. */
#define CONFIG_MAX_LINE (INI_MAX_LINE - 3)

/* Reads path whole into a new NUL-terminated buffer (its length in *len) without ever waiting
 * on it (a FIFO would block): a regular file of a settings file's size. Returns the buffer, or
 * NULL with errno (ENOENT: no file) or why set. */
static char *load_config(const char *path, size_t *len, char *why, size_t n)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		errno = e;
		return NULL;
	}
	char *buf = NULL;
	ssize_t got = 0;
	*len = 0;
	if (S_ISREG(st.st_mode) && st.st_size <= CONFIG_MAX_BYTES) {
		buf = xmalloc(CONFIG_MAX_BYTES + 2);
		/* Up to one byte past the limit: a file that grew since fstat is too large too. */
		while (*len <= CONFIG_MAX_BYTES &&
		       ((got = read(fd, buf + *len, CONFIG_MAX_BYTES + 1 - *len)) > 0 ||
		        (got < 0 && errno == EINTR)))
			*len += got > 0 ? (size_t)got : 0;
	}
	int e = errno;
	close(fd);
	if (buf && got == 0 && *len <= CONFIG_MAX_BYTES) {
		buf[*len] = '\0';
		return buf;
	}
	snprintf(why, n, "%s",
	         !S_ISREG(st.st_mode) ? "not a regular file"
	         : got < 0            ? strerror(e)
	                              : "too large for a settings file");
	free(buf);
	errno = EINVAL;
	return NULL;
}

/* The first line of text (len bytes) that the parser would not see as the file holds it: one
 * longer than CONFIG_MAX_LINE (a '\r' before its '\n' aside), or one holding a NUL byte
 * (the parser would stop there). Its number, with the fault in r, or 0. */
static int check_lines(struct reader *r, const char *text, size_t len)
{
	int line = 1;
	for (size_t start = 0; start < len; line++) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len, n = end - start;
		if (n && text[end - 1] == '\r')
			n--;
		if (memchr(text + start, '\0', end - start)) {
			fault(r, "holds a NUL byte");
			return line;
		}
		if (n > CONFIG_MAX_LINE) {
			fault(r, "longer than %d bytes, the most a line may hold", CONFIG_MAX_LINE);
			return line;
		}
		start = end + 1;
	}
	return 0;
}

int dashboard_settings_read(const char *path, double interval_min, double interval_max,
                            struct gd_dash_settings *s, char *err, size_t errlen)
{
	struct reader r = { .lo = interval_min, .hi = interval_max };
	dashboard_settings_default(&r.s);
	dashboard_settings_default(s);
	err[0] = '\0';
	size_t len = 0;
	char *text = load_config(path, &len, r.why, sizeof(r.why));
	if (!text && errno == ENOENT)
		return 0;
	if (!text) {
		snprintf(err, errlen, "%s: %s; not used (defaults)", path,
		         r.why[0] ? r.why : strerror(errno));
		return -1;
	}
	/* The bytes checked are the bytes parsed: the file is read once. */
	int line = check_lines(&r, text, len);
	if (line == 0)
		line = ini_parse_string(text, on_pair, &r); /* a key not in the file keeps its default */
	free(text);
	if (line != 0) {
		snprintf(err, errlen, "%s:%d: %s; not used (defaults), left as it is", path, line,
		         r.why[0] ? r.why : "not KEY = VALUE or [SECTION]");
		return -1;
	}
	*s = r.s;
	return 1;
}

/* ---- writing ---- */

/* Makes every missing directory of path's directories (mode 0700, as ~/.config is). */
static int make_dirs(const char *path)
{
	char dir[4096];
	str_copy(dir, sizeof(dir), path);
	for (char *p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

static void put_settings(FILE *f, const struct gd_dash_settings *s)
{
	fprintf(f, "# " GD_NAME ": the dashboard's settings, written when it ends (man " GD_NAME
	           ", FILES).\n[" SECTION "]\n");
	fprintf(f, "sort = %s\n", ui_col(s->sort)->name);
	fprintf(f, "sort_order = %s\n", s->sort_desc ? "descending" : "ascending");
	if (s->interval > 0)
		fprintf(f, "interval = %g\n", s->interval);
	fprintf(f, "columns =");
	for (int k = 0; k < s->ncols; k++)
		fprintf(f, " %s", s->cols[k] == GD_DASH_BAR ? "breakdown" : ui_col(s->cols[k])->name);
	fprintf(f, "\ncolour = %s\n", colour_names[s->colour]);
	fprintf(f, "mouse = %s\n", s->mouse ? "on" : "off");
}

int dashboard_settings_write(const char *path, const struct gd_dash_settings *s, char *err, size_t errlen)
{
	char tmp[4096 + 16];
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	int fd = make_dirs(path) ? -1 : mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot save the settings in %s: %s", path, strerror(errno));
		return -1;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		snprintf(err, errlen, "cannot save the settings in %s: %s", path, strerror(errno));
		return -1;
	}
	put_settings(f, s);
	/* Complete on disk before it takes the old file's name: a crash leaves one or the other. */
	bool ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
	int saved = ok ? 0 : errno;
	if (fclose(f) != 0 && ok) {
		ok = false;
		saved = errno;
	}
	if (ok && rename(tmp, path) == 0)
		return 0;
	if (ok)
		saved = errno;
	unlink(tmp);
	snprintf(err, errlen, "cannot save the settings in %s: %s", path, strerror(saved));
	return -1;
}
