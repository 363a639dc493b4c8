/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sqos_kunit_util.h - helpers shared by the sqos server KUnit suites: a
 * private sqos_server driven by a fake clock, and request builders.
 *
 * Locking: each test owns its server; the fake clock is a plain variable
 * read by the server under its own locks from the test's thread only.
 */
#ifndef _SQOS_KUNIT_UTIL_H
#define _SQOS_KUNIT_UTIL_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/string.h>
#include "sqos_internal.h"
#include "sqos_test_vectors.h"

struct sqt_clock {
	u64 now;
};

static inline u64 sqt_clock_read(void *priv)
{
	return ((struct sqt_clock *)priv)->now;
}

KUNIT_DEFINE_ACTION_WRAPPER(sqt_server_destroy_action, sqos_server_destroy,
			    struct sqos_server *);
KUNIT_DEFINE_ACTION_WRAPPER(sqt_open_release_action, sqos_open_release,
			    struct sqos_open *);

/*
 * A server of its own for @test, on a fake clock that starts at 1 s,
 * destroyed when the test ends (after its opens: actions run last-in
 * first-out).
 */
static inline struct sqos_server *sqt_server(struct kunit *test,
					     struct sqt_clock *clk)
{
	struct sqos_server *srv = sqos_server_create();
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, srv);
	clk->now = NSEC_PER_SEC;
	srv->clock = sqt_clock_read;
	srv->clock_priv = clk;
	ret = kunit_add_action_or_reset(test, sqt_server_destroy_action, srv);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return srv;
}

/* An open released when the test ends, or earlier by sqt_release(). */
static inline struct sqos_open *sqt_open(struct kunit *test,
					 struct sqos_server *srv)
{
	struct sqos_open *o = sqos_server_open_alloc(srv, GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, o);
	ret = kunit_add_action_or_reset(test, sqt_open_release_action, o);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return o;
}

static inline void sqt_release(struct kunit *test, struct sqos_open *o)
{
	kunit_release_action(test, sqt_open_release_action, o);
}

/* A valid request with @options and the example GUIDs, no policy. */
static inline struct sqos_request sqt_req(u32 options)
{
	struct sqos_request r = {
		.version = SQOS_PROTOCOL_VERSION_1_0,
		.options = options,
		.flow_id = SQT_FLOW_ID,
		.initiator_id = SQT_INITIATOR_ID,
	};

	return r;
}

struct sqt_result {
	u32 status;
	u32 out_len;
	u8 out[SQOS_RESPONSE_SIZE + 8];
};

/*
 * Encode @r into a buffer of @in_len bytes (at least 112; the bytes after
 * the fixed part are @fill) and run sqos_control() with @max_out.
 */
static inline u32 sqt_ctl_fill(struct kunit *test, struct sqos_open *o,
			       const struct sqos_request *r, u32 in_len,
			       u32 max_out, u8 fill, struct sqt_result *res)
{
	u8 *buf = kunit_kmalloc(test, in_len ? in_len : 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, fill, in_len);
	if (in_len >= SQOS_REQUEST_FIXED_SIZE)
		KUNIT_ASSERT_EQ(test, sqos_request_encode(r, buf, in_len),
				SQOS_REQUEST_FIXED_SIZE);
	memset(res, 0xa5, sizeof(*res));
	res->status = sqos_control(o, buf, in_len, res->out,
				   min_t(u32, max_out, sizeof(res->out)),
				   &res->out_len);
	return res->status;
}

static inline u32 sqt_ctl(struct kunit *test, struct sqos_open *o,
			  const struct sqos_request *r, u32 max_out,
			  struct sqt_result *res)
{
	return sqt_ctl_fill(test, o, r, SQOS_REQUEST_FIXED_SIZE, max_out, 0,
			    res);
}

/* The flow an open is associated with (test thread only, no race). */
static inline struct sqos_flow *sqt_flow(struct sqos_open *o)
{
	return rcu_access_pointer(o->flow);
}

static inline struct sqos_flow *sqt_find(struct sqos_server *srv,
					 const guid_t *id)
{
	struct sqos_flow *f;
	int bkt;

	hash_for_each(srv->flows, bkt, f, node)
		if (guid_equal(&f->id, id))
			return f;
	return NULL;
}

static inline guid_t sqt_guid(u32 n)
{
	return GUID_INIT(n, 0x1111, 0x2222, 0x33, 0x44, 0x55, 0x66, 0x77,
			 0x88, 0x99, 0xaa);
}

#endif /* _SQOS_KUNIT_UTIL_H */
