/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smbdctl: the administrator's view of smbdirect.ko (Documentation/
 * admin-guide.rst, "smbdctl"). devices, connections and stats read the
 * module's read-only debugfs files; check asks the module, over its generic
 * netlink family, to connect to an address and negotiate.
 */
#ifndef SMBDCTL_H
#define SMBDCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define SMBDCTL_DEBUGFS	"/sys/kernel/debug/smbdirect"
#define SMBDCTL_SYSFS_IB	"/sys/class/infiniband"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* One "key value" or "key=value" item of a debugfs file. */
struct kv {
	char *key;
	char *val;
};

struct kvlist {
	struct kv *v;
	size_t n;
	size_t cap;
};

/* debugfs.c: reading and parsing the module's files */
char *read_text(const char *path);
int kv_read_lines(const char *path, struct kvlist *kl, struct kvlist *errors);
void kv_parse_pairs(char *line, struct kvlist *kl);
void kv_add(struct kvlist *kl, const char *key, const char *val);
const char *kv_get(const struct kvlist *kl, const char *key);
long long kv_num(const struct kvlist *kl, const char *key);
bool is_integer(const char *s);
void kv_free(struct kvlist *kl);
void *xmalloc(size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...);

/* json.c: a small JSON writer, one value per line */
struct json {
	FILE *f;
	int depth;
	bool first[32];
};

void json_init(struct json *j, FILE *f);
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *val);
void json_num(struct json *j, const char *key, long long val);
void json_bool(struct json *j, const char *key, bool val);
void json_auto(struct json *j, const char *key, const char *val);
void json_kvlist(struct json *j, const char *key, const struct kvlist *kl);

/* netlink.c: the "smbdirect" generic netlink family */
struct check_req {
	const char *addr;
	const char *src;
	unsigned int port;
	unsigned int timeout_ms;
};

struct check_res {
	int result;			/* 0 or a negative errno */
	struct kvlist attrs;		/* every attribute of the answer, by name */
};

int nl_check(const struct check_req *req, struct check_res *res, char *err,
	     size_t errlen);

extern const char *smbdctl_root;	/* debugfs directory (--debugfs) */
extern const char *smbdctl_sysfs_ib;	/* sysfs RDMA class (--sysfs) */

#endif /* SMBDCTL_H */
