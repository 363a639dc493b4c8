// SPDX-License-Identifier: GPL-2.0
/*
 * Reading smbdirect's debugfs files. Every file is text: "key value" lines
 * (stats, params, credits, mr, counters, errors) or lines of a name followed
 * by "key=value" tokens (devices, connections, listeners), as
 * Documentation/admin-guide.rst describes them.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "smbdctl.h"

void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		fprintf(stderr, "smbdctl: out of memory\n");
		exit(2);
	}
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = xmalloc(n);

	memcpy(p, s, n);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fprintf(stderr, "smbdctl: out of memory\n");
		exit(2);
	}
	return s;
}

/**
 * read_text() - the whole of a (debugfs) file
 * @path: file to read
 *
 * Return: a NUL-terminated copy to free(), or NULL with errno set.
 */
char *read_text(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf;
	FILE *f;
	size_t n;

	f = fopen(path, "r");
	if (!f)
		return NULL;
	buf = xmalloc(cap + 1);
	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			if (!buf) {
				fprintf(stderr, "smbdctl: out of memory\n");
				exit(2);
			}
		}
	}
	if (ferror(f)) {
		int err = errno;

		fclose(f);
		free(buf);
		errno = err;
		return NULL;
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

void kv_add(struct kvlist *kl, const char *key, const char *val)
{
	if (kl->n == kl->cap) {
		kl->cap = kl->cap ? kl->cap * 2 : 16;
		kl->v = realloc(kl->v, kl->cap * sizeof(*kl->v));
		if (!kl->v) {
			fprintf(stderr, "smbdctl: out of memory\n");
			exit(2);
		}
	}
	kl->v[kl->n].key = xstrdup(key);
	kl->v[kl->n].val = xstrdup(val);
	kl->n++;
}

/**
 * kv_read_lines() - read a file of "key value" lines
 * @path: the file
 * @kl: gets every pair before a "# errors by cause" line
 * @errors: gets the pairs after it (stats), or NULL to keep them in @kl
 *
 * Other lines starting with '#' are skipped.
 *
 * Return: 0, or -1 with errno set when the file cannot be read.
 */
int kv_read_lines(const char *path, struct kvlist *kl, struct kvlist *errors)
{
	struct kvlist *cur = kl;
	char *text, *line, *save = NULL, *sp;

	text = read_text(path);
	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#') {
			if (errors && strstr(line, "errors by cause"))
				cur = errors;
			continue;
		}
		sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		kv_add(cur, line, sp + 1);
	}
	free(text);
	return 0;
}

/**
 * kv_parse_pairs() - split a line of "key=value" tokens
 * @line: the line (modified); a first token without '=' is stored under
 *	the key "name"
 * @kl: gets the pairs in order
 */
void kv_parse_pairs(char *line, struct kvlist *kl)
{
	char *tok, *save = NULL, *eq;
	bool first = true;

	for (tok = strtok_r(line, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		eq = strchr(tok, '=');
		if (!eq) {
			if (first)
				kv_add(kl, "name", tok);
			first = false;
			continue;
		}
		first = false;
		*eq = '\0';
		kv_add(kl, tok, eq + 1);
	}
}

const char *kv_get(const struct kvlist *kl, const char *key)
{
	size_t i;

	for (i = 0; i < kl->n; i++)
		if (!strcmp(kl->v[i].key, key))
			return kl->v[i].val;
	return NULL;
}

/* A missing or non-numeric value reads as 0. */
long long kv_num(const struct kvlist *kl, const char *key)
{
	const char *v = kv_get(kl, key);

	return v ? strtoll(v, NULL, 0) : 0;
}

bool is_integer(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s || (*s == '0' && s[1]))
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

void kv_free(struct kvlist *kl)
{
	size_t i;

	for (i = 0; i < kl->n; i++) {
		free(kl->v[i].key);
		free(kl->v[i].val);
	}
	free(kl->v);
	memset(kl, 0, sizeof(*kl));
}
