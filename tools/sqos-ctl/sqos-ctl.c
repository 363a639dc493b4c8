// SPDX-License-Identifier: GPL-2.0
/*
 * sqos-ctl - MS-SQOS Storage QoS control requests on a file of an SMB3
 * mount, and a timed O_DIRECT load on the same handle.
 *
 *   sqos-ctl [-p] [-q] FILE STEP [STEP...]
 *
 * The steps run in order on one open of FILE (Documentation/sqos.rst,
 * "sqos-ctl", has the full usage). With our cifs build each request goes out
 * on that open's own SMB2 handle (CIFS_IOC_SQOS_CONTROL), so a load after
 * "flow" runs in the flow; with any other cifs (or -p) it goes through
 * cifs's FSCTL pass-through (CIFS_QUERY_INFO), which opens and closes a
 * handle of its own around each request: control and status only.
 *
 * Exit status: 0 every request got STATUS_SUCCESS and every load ran;
 * 1 a request failed (its NTSTATUS is printed); 2 usage or local error.
 */

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <smbdirect/sqos_ioctl.h>

#define FSCTL_STORAGE_QOS_CONTROL	0x00090350
#define SQOS_VERSION			0x0100
#define REQ_FIXED			112
#define RSP_SIZE			88
#define NAME_MAX_BYTES			0x200
#define ARRAY_SIZE(a)			(sizeof(a) / sizeof((a)[0]))

#define OPT_SET_FLOW	0x01
#define OPT_SET_POLICY	0x02
#define OPT_PROBE	0x04
#define OPT_STATUS	0x08
#define OPT_UPDATE	0x10

/* cifs's FSCTL pass-through (fs/smb/client/cifs_ioctl.h) */
#define PASSTHRU_FSCTL	0x00000001
struct smb_query_info {
	uint32_t info_type;
	uint32_t file_info_class;
	uint32_t additional_information;
	uint32_t flags;
	uint32_t input_buffer_length;
	uint32_t output_buffer_length;
};

#define CIFS_QUERY_INFO	_IOWR(0xCF, 7, struct smb_query_info)

struct request {
	uint32_t options;
	uint16_t version;
	uint8_t flow[16], policy[16], initiator[16];
	uint64_t limit, reservation;
	uint64_t io, norm, lat, lower;
	char name[256], node[256];
	int name_off;		/* -1: right after the fixed part */
	uint32_t max_out;
};

static const struct {
	uint32_t st;
	const char *name;
} nt_names[] = {
	{ 0x00000000, "STATUS_SUCCESS" },
	{ 0xC000000D, "STATUS_INVALID_PARAMETER" },
	{ 0xC0000010, "STATUS_INVALID_DEVICE_REQUEST" },
	{ 0xC0000059, "STATUS_REVISION_MISMATCH" },
	{ 0xC0000225, "STATUS_NOT_FOUND" },
	{ 0xC000009A, "STATUS_INSUFFICIENT_RESOURCES" },
	{ 0xC00000BB, "STATUS_NOT_SUPPORTED" },
	{ 0xC0000128, "STATUS_FILE_CLOSED" },
	{ 0xC0000008, "STATUS_INVALID_HANDLE" },
	{ 0xC0000022, "STATUS_ACCESS_DENIED" },
	{ 0xC0000023, "STATUS_BUFFER_TOO_SMALL" },
};

static const char * const flow_status_names[] = {
	"Ok", "InsufficientThroughput", "UnknownPolicyId", "(3)",
	"ConfigurationMismatch", "NotAvailable",
};

static bool opt_passthrough, opt_quiet;
static int fd = -1;
static const char *path;

static void help(void)
{
	fprintf(stderr,
		"usage: sqos-ctl [-p] [-q] FILE STEP [STEP...]\n"
		"requests (STORAGE_QOS_CONTROL_REQUEST options):\n"
		"  flow GUID                    SET_LOGICAL_FLOW_ID\n"
		"  policy GUID [LIMIT [RESV]]   SET_POLICY\n"
		"  probe GUID [LIMIT [RESV]]    PROBE_POLICY\n"
		"  status                       GET_STATUS\n"
		"  update IO NORM LAT LOWER     UPDATE_COUNTERS with these increments\n"
		"  +                            join the next request to this one\n"
		"fields of the next request:\n"
		"  initiator GUID | name STR | node STR | version N | name-offset N |\n"
		"  max-out N\n"
		"other steps:\n"
		"  load read|write SECONDS [BS [DEPTH]]  O_DIRECT load on this handle\n"
		"  sleep SECONDS\n"
		"  -p: always use cifs's FSCTL pass-through; -q: less output\n");
	exit(2);
}

static const char *nt_name(uint32_t st)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nt_names); i++)
		if (nt_names[i].st == st)
			return nt_names[i].name;
	return "STATUS_(unknown)";
}

/* Microsoft GUID layout: the first three fields little-endian */
static int parse_guid(const char *s, uint8_t g[16])
{
	unsigned int v[16];
	int n;

	if (strlen(s) != 36)
		return -1;
	n = sscanf(s, "%2x%2x%2x%2x-%2x%2x-%2x%2x-%2x%2x-%2x%2x%2x%2x%2x%2x",
		   &v[3], &v[2], &v[1], &v[0], &v[5], &v[4], &v[7], &v[6],
		   &v[8], &v[9], &v[10], &v[11], &v[12], &v[13], &v[14], &v[15]);
	if (n != 16)
		return -1;
	for (n = 0; n < 16; n++)
		g[n] = v[n];
	return 0;
}

static void format_guid(const uint8_t *g, char *s)
{
	sprintf(s, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6],
		g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

static uint64_t parse_u64(const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || !*s || *end || *s == '-') {
		fprintf(stderr, "sqos-ctl: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

/* ASCII to UTF-16LE; returns the byte length */
static size_t put_utf16(uint8_t *dst, const char *s)
{
	size_t i, n = strlen(s);

	for (i = 0; i < n; i++) {
		dst[2 * i] = (uint8_t)s[i];
		dst[2 * i + 1] = 0;
	}
	return 2 * n;
}

static void put16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/* STORAGE_QOS_CONTROL_REQUEST (MS-SQOS 2.2.2.2); returns its size */
static size_t encode(const struct request *r, uint8_t *buf)
{
	size_t off = REQ_FIXED, nlen, nnlen;

	memset(buf, 0, REQ_FIXED + 2 * NAME_MAX_BYTES);
	put16(buf, r->version);
	put32(buf + 4, r->options);
	memcpy(buf + 8, r->flow, 16);
	memcpy(buf + 24, r->policy, 16);
	memcpy(buf + 40, r->initiator, 16);
	put64(buf + 56, r->limit);
	put64(buf + 64, r->reservation);
	nlen = put_utf16(buf + off, r->name);
	put16(buf + 72, nlen ? (r->name_off >= 0 ? (size_t)r->name_off : off) : 0);
	put16(buf + 74, nlen);
	off += nlen;
	nnlen = put_utf16(buf + off, r->node);
	put16(buf + 76, nnlen ? off : 0);
	put16(buf + 78, nnlen);
	off += nnlen;
	put64(buf + 80, r->io);
	put64(buf + 88, r->norm);
	put64(buf + 96, r->lat);
	put64(buf + 104, r->lower);
	return off;
}

static void print_response(const uint8_t *o, uint32_t len)
{
	char f[37], p[37], i[37];
	uint32_t st;

	if (len < RSP_SIZE) {
		printf("response: %u bytes (too short to decode)\n", len);
		return;
	}
	format_guid(o + 8, f);
	format_guid(o + 24, p);
	format_guid(o + 40, i);
	st = get32(o + 60);
	printf("response: version=0x%04x flow=%s policy=%s initiator=%s\n",
	       o[0] | o[1] << 8, f, p, i);
	printf("response: ttl_ms=%u status=%u (%s) max_rate=%llu min_rate=%llu base_io_size=%u\n",
	       get32(o + 56), st, st < 6 ? flow_status_names[st] : "(unknown)",
	       (unsigned long long)get64(o + 64),
	       (unsigned long long)get64(o + 72), get32(o + 80));
}

/* NTSTATUS the pass-through's errno stands for (cifs's smb2maperror.c) */
static uint32_t errno_to_nt(int e)
{
	switch (e) {
	case EINVAL:
		return 0xC000000D;
	case EIO:
		return 0xC0000059;
	case ENOENT:
		return 0xC0000225;
	case EOPNOTSUPP:
		return 0xC00000BB;
	case EAGAIN:
		return 0xC000009A;
	default:
		return 0xFFFFFFFF;
	}
}

static int send_passthrough(const uint8_t *in, size_t in_len, uint32_t max_out,
			    uint8_t *out, uint32_t *out_len, uint32_t *nt)
{
	size_t sz = in_len > max_out ? in_len : max_out;
	struct smb_query_info *qi = calloc(1, sizeof(*qi) + sz);

	if (!qi)
		return -ENOMEM;
	qi->info_type = FSCTL_STORAGE_QOS_CONTROL;
	qi->flags = PASSTHRU_FSCTL;
	/* cifs sends output_buffer_length bytes of the buffer as input */
	qi->output_buffer_length = in_len;
	qi->input_buffer_length = max_out;
	memcpy(qi + 1, in, in_len);
	*out_len = 0;
	if (ioctl(fd, CIFS_QUERY_INFO, qi) < 0) {
		int e = errno;

		free(qi);
		if (e == ENOTTY || e == EPERM || e == EFAULT || e == ENOMEM)
			return -e;
		*nt = errno_to_nt(e);
		printf("passthrough: errno %d (%s): the server's NTSTATUS maps to it\n",
		       e, strerror(e));
		return 0;
	}
	*nt = 0;
	*out_len = qi->input_buffer_length < max_out ?
		   qi->input_buffer_length : max_out;
	memcpy(out, qi + 1, *out_len);
	free(qi);
	return 0;
}

static int run_request(struct request *r)
{
	static uint8_t in[REQ_FIXED + 2 * NAME_MAX_BYTES];
	static uint8_t out[CIFS_SQOS_MAX_OUT];
	struct cifs_sqos_control c;
	uint32_t out_len = 0, nt = 0;
	size_t len = encode(r, in);
	char g[37];
	int ret;

	if (!opt_passthrough) {
		memset(&c, 0, sizeof(c));
		c.in_ptr = (uintptr_t)in;
		c.out_ptr = (uintptr_t)out;
		c.in_len = len;
		c.max_out = r->max_out;
		if (ioctl(fd, CIFS_IOC_SQOS_CONTROL, &c) == 0) {
			out_len = c.out_len;
			nt = c.ntstatus;
			goto answered;
		}
		if (errno != ENOTTY) {
			fprintf(stderr, "sqos-ctl: CIFS_IOC_SQOS_CONTROL: %s\n",
				strerror(errno));
			return 2;
		}
		if (!opt_quiet)
			printf("note: no CIFS_IOC_SQOS_CONTROL (stock cifs?): %s\n",
			       "using the FSCTL pass-through");
		opt_passthrough = true;
	}
	ret = send_passthrough(in, len, r->max_out, out, &out_len, &nt);
	if (ret) {
		fprintf(stderr, "sqos-ctl: FSCTL pass-through: %s\n",
			strerror(-ret));
		return 2;
	}
answered:
	printf("request: options=0x%02x size=%zu max_out=%u via=%s\n",
	       r->options, len, r->max_out,
	       opt_passthrough ? "passthrough" : "handle");
	printf("ntstatus: 0x%08x %s\n", nt, nt_name(nt));
	if (out_len)
		print_response(out, out_len);
	if (!opt_passthrough && !opt_quiet) {
		format_guid(c.flow_id, g);
		printf("handle: tracked=%d throttled=%d bound=%d flow=%s",
		       !!(c.flags & CIFS_SQOS_TRACKED),
		       !!(c.flags & CIFS_SQOS_THROTTLED),
		       !!(c.flags & CIFS_SQOS_BOUND), g);
		printf(" max_rate=%llu base_io_size=%u timer_ms=%d\n",
		       (unsigned long long)c.max_rate, c.base_io_size,
		       c.timer_ms == CIFS_SQOS_TIMER_NEVER ? -1 : (int)c.timer_ms);
	}
	return nt ? 1 : 0;
}

/* ---- load ---- */

struct load {
	bool write;
	size_t bs;
	off_t span;
	double end;
	uint64_t ios;
	uint64_t retried;
	int err;
	pthread_mutex_t lock;
	off_t next;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *load_worker(void *arg)
{
	struct load *l = arg;
	void *buf;
	ssize_t n;
	off_t off;

	if (posix_memalign(&buf, 4096, l->bs)) {
		l->err = ENOMEM;
		return NULL;
	}
	memset(buf, 0x5a, l->bs);
	while (now_s() < l->end) {
		pthread_mutex_lock(&l->lock);
		off = l->next;
		l->next = (l->next + l->bs) % l->span;
		pthread_mutex_unlock(&l->lock);
		n = l->write ? pwrite(fd, buf, l->bs, off) :
			       pread(fd, buf, l->bs, off);
		/*
		 * cifs fails an I/O with EAGAIN when it reconnects under it:
		 * the same I/O again, on the handle cifs reopens.
		 */
		while (n < 0 && (errno == EAGAIN || errno == EINTR) &&
		       now_s() < l->end) {
			pthread_mutex_lock(&l->lock);
			l->retried++;
			pthread_mutex_unlock(&l->lock);
			usleep(10000);
			n = l->write ? pwrite(fd, buf, l->bs, off) :
				       pread(fd, buf, l->bs, off);
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;	/* the time is up */
		pthread_mutex_lock(&l->lock);
		if (n != (ssize_t)l->bs && !l->err)
			l->err = n < 0 ? errno : EIO;
		if (n == (ssize_t)l->bs)
			l->ios++;
		pthread_mutex_unlock(&l->lock);
		if (n != (ssize_t)l->bs)
			break;
	}
	free(buf);
	return NULL;
}

static int run_load(bool write, double secs, size_t bs, int depth)
{
	pthread_t th[64];
	struct load l = { .write = write, .bs = bs };
	struct stat st;
	double t0, t;
	int i;

	if (depth < 1 || depth > 64 || !bs || bs % 4096) {
		fprintf(stderr, "sqos-ctl: load: depth 1..64, BS a multiple of 4096\n");
		return 2;
	}
	if (fstat(fd, &st) < 0)
		return 2;
	l.span = st.st_size / bs * bs;
	if (l.span < (off_t)bs) {
		if (!write) {
			fprintf(stderr, "sqos-ctl: load: %s is smaller than %zu bytes\n",
				path, bs);
			return 2;
		}
		l.span = 16 * bs;
	}
	pthread_mutex_init(&l.lock, NULL);
	t0 = now_s();
	l.end = t0 + secs;
	for (i = 0; i < depth; i++)
		if (pthread_create(&th[i], NULL, load_worker, &l)) {
			l.end = 0;
			depth = i;
			l.err = EAGAIN;
		}
	for (i = 0; i < depth; i++)
		pthread_join(th[i], NULL);
	t = now_s() - t0;
	printf("load: %s bs=%zu depth=%d ios=%llu seconds=%.2f iops=%.1f MiB/s=%.2f",
	       write ? "write" : "read", bs, depth,
	       (unsigned long long)l.ios, t, l.ios / t,
	       l.ios * (double)bs / t / 1048576);
	if (l.retried)
		printf(" retried=%llu", (unsigned long long)l.retried);
	printf("\n");
	if (l.err) {
		fprintf(stderr, "sqos-ctl: load: %s\n", strerror(l.err));
		return 2;
	}
	return 0;
}

/*
 * A directory is opened read-only and listed once: cifs gives the open its
 * SMB2 handle only then, so that the requests reach cifs's ioctl with a
 * handle behind them. Our cifs refuses them (EISDIR: only the opens of
 * regular files join a flow).
 */
static int open_dir(const char *p)
{
	char buf[4096];
	int d = open(p, O_RDONLY | O_DIRECTORY);

	if (d >= 0 && syscall(SYS_getdents64, d, buf, sizeof(buf)) < 0) {
		int e = errno;

		close(d);
		errno = e;
		return -1;
	}
	return d;
}

static void reset(struct request *r)
{
	memset(r, 0, sizeof(*r));
	r->version = SQOS_VERSION;
	r->name_off = -1;
	r->max_out = RSP_SIZE;
}

static const char *arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		help();
	return argv[++*i];
}

static void guid_arg(int argc, char **argv, int *i, uint8_t g[16])
{
	const char *s = arg(argc, argv, i);

	if (parse_guid(s, g)) {
		fprintf(stderr, "sqos-ctl: bad GUID '%s'\n", s);
		exit(2);
	}
}

/* Optional numeric arguments after a command */
static bool num_next(int argc, char **argv, int i)
{
	return i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9';
}

int main(int argc, char **argv)
{
	struct request r;
	bool pending = false, join = false;
	struct stat st;
	int i, rc = 0, ret, opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "+pqh")) != -1) {
		switch (opt) {
		case 'p':
			opt_passthrough = true;
			break;
		case 'q':
			opt_quiet = true;
			break;
		default:
			help();
		}
	}
	if (argc - optind < 2)
		help();
	path = argv[optind];
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		fd = open_dir(path);
	} else {
		fd = open(path, O_RDWR | O_DIRECT);
		if (fd < 0)
			fd = open(path, O_RDONLY | O_DIRECT);
	}
	if (fd < 0) {
		fprintf(stderr, "sqos-ctl: %s: %s\n", path, strerror(errno));
		return 2;
	}
	reset(&r);
	for (i = optind + 1; i < argc; i++) {
		const char *w = argv[i];

		if (pending && !join && strcmp(w, "+")) {
			ret = run_request(&r);
			if (ret == 2)
				return 2;
			rc |= ret;
			reset(&r);
			pending = false;
		}
		join = false;
		if (!strcmp(w, "+")) {
			if (!pending)
				help();
			join = true;
		} else if (!strcmp(w, "flow")) {
			guid_arg(argc, argv, &i, r.flow);
			r.options |= OPT_SET_FLOW;
			pending = true;
		} else if (!strcmp(w, "policy") || !strcmp(w, "probe")) {
			guid_arg(argc, argv, &i, r.policy);
			r.options |= w[1] == 'o' ? OPT_SET_POLICY : OPT_PROBE;
			if (num_next(argc, argv, i))
				r.limit = parse_u64(argv[++i]);
			if (num_next(argc, argv, i))
				r.reservation = parse_u64(argv[++i]);
			pending = true;
		} else if (!strcmp(w, "status")) {
			r.options |= OPT_STATUS;
			pending = true;
		} else if (!strcmp(w, "update")) {
			r.io = parse_u64(arg(argc, argv, &i));
			r.norm = parse_u64(arg(argc, argv, &i));
			r.lat = parse_u64(arg(argc, argv, &i));
			r.lower = parse_u64(arg(argc, argv, &i));
			r.options |= OPT_UPDATE;
			pending = true;
		} else if (!strcmp(w, "initiator")) {
			guid_arg(argc, argv, &i, r.initiator);
			join = true;
		} else if (!strcmp(w, "name") || !strcmp(w, "node")) {
			const char *s = arg(argc, argv, &i);

			if (strlen(s) > 255) {
				fprintf(stderr, "sqos-ctl: name too long\n");
				return 2;
			}
			snprintf(w[1] == 'a' ? r.name : r.node, sizeof(r.name),
				 "%s", s);
			join = true;
		} else if (!strcmp(w, "version")) {
			r.version = parse_u64(arg(argc, argv, &i));
			join = true;
		} else if (!strcmp(w, "name-offset")) {
			r.name_off = parse_u64(arg(argc, argv, &i)) & 0xffff;
			join = true;
		} else if (!strcmp(w, "max-out")) {
			r.max_out = parse_u64(arg(argc, argv, &i));
			if (r.max_out > CIFS_SQOS_MAX_OUT)
				help();
			join = true;
		} else if (!strcmp(w, "load")) {
			const char *kind = arg(argc, argv, &i);
			double secs = strtod(arg(argc, argv, &i), NULL);
			size_t bs = 8192;
			int depth = 8;

			if (strcmp(kind, "read") && strcmp(kind, "write"))
				help();
			if (num_next(argc, argv, i))
				bs = parse_u64(argv[++i]);
			if (num_next(argc, argv, i))
				depth = parse_u64(argv[++i]);
			ret = run_load(kind[0] == 'w', secs, bs, depth);
			if (ret)
				return ret;
		} else if (!strcmp(w, "sleep")) {
			double s = strtod(arg(argc, argv, &i), NULL);

			usleep((useconds_t)(s * 1e6));
		} else {
			fprintf(stderr, "sqos-ctl: unknown step '%s'\n", w);
			help();
		}
	}
	if (pending) {
		ret = run_request(&r);
		if (ret == 2)
			return 2;
		rc |= ret;
	}
	close(fd);
	return rc;
}
