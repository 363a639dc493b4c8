// SPDX-License-Identifier: GPL-2.0
/*
 * A small JSON writer for smbdctl --json: objects and arrays, strings,
 * integers and booleans, two spaces of indentation per level and one value
 * per line, so that scripts can use a JSON parser and tests can use grep.
 */

#include <string.h>

#include "smbdctl.h"

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
}

static void json_string(struct json *j, const char *s)
{
	const unsigned char *p;

	fputc('"', j->f);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", j->f);
			break;
		case '\\':
			fputs("\\\\", j->f);
			break;
		case '\n':
			fputs("\\n", j->f);
			break;
		case '\t':
			fputs("\\t", j->f);
			break;
		default:
			if (*p < 0x20)
				fprintf(j->f, "\\u%04x", *p);
			else
				fputc(*p, j->f);
		}
	}
	fputc('"', j->f);
}

/* Comma, newline and indentation before a value; its key if in an object. */
static void json_prefix(struct json *j, const char *key)
{
	int i;

	if (j->depth > 0) {
		fputs(j->first[j->depth] ? "\n" : ",\n", j->f);
		for (i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	j->first[j->depth] = false;
	if (key) {
		json_string(j, key);
		fputs(": ", j->f);
	}
}

static void json_open(struct json *j, const char *key, char c)
{
	json_prefix(j, key);
	fputc(c, j->f);
	if (j->depth < (int)ARRAY_SIZE(j->first) - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void json_close(struct json *j, char c)
{
	int i;
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty) {
		fputc('\n', j->f);
		for (i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	fputc(c, j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
}

void json_obj_begin(struct json *j, const char *key)
{
	json_open(j, key, '{');
}

void json_obj_end(struct json *j)
{
	json_close(j, '}');
}

void json_arr_begin(struct json *j, const char *key)
{
	json_open(j, key, '[');
}

void json_arr_end(struct json *j)
{
	json_close(j, ']');
}

void json_str(struct json *j, const char *key, const char *val)
{
	json_prefix(j, key);
	if (val)
		json_string(j, val);
	else
		fputs("null", j->f);
}

void json_num(struct json *j, const char *key, long long val)
{
	json_prefix(j, key);
	fprintf(j->f, "%lld", val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	json_prefix(j, key);
	fputs(val ? "true" : "false", j->f);
}

/* An integer as a number, anything else as a string. */
void json_auto(struct json *j, const char *key, const char *val)
{
	if (val && is_integer(val)) {
		json_prefix(j, key);
		fputs(val, j->f);
	} else {
		json_str(j, key, val);
	}
}

/* Every pair of @kl as a member of a new object @key. */
void json_kvlist(struct json *j, const char *key, const struct kvlist *kl)
{
	size_t i;

	json_obj_begin(j, key);
	for (i = 0; i < kl->n; i++)
		json_auto(j, kl->v[i].key, kl->v[i].val);
	json_obj_end(j);
}
