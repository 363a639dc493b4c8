// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: smbdx_dev_limits_compute(), the device-attribute -> usable-limits
 * rules, with each threshold probed on both sides. Pure: no device needed.
 */

#include <kunit/test.h>
#include <smbdirect/ns.h>
#include <rdma/ib_verbs.h>

#include "devlimits.h"

MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));

/* A device like rxe: every threshold comfortably met. */
static void good_attr(struct ib_device_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	a->max_send_sge = 32;
	a->max_recv_sge = 32;
	a->max_sge_rd = 32;
	a->max_fast_reg_page_list_len = 512;
	a->max_qp_wr = 1024;
	a->max_cqe = 4096;
	a->max_qp_rd_atom = 128;
	a->max_qp_init_rd_atom = 128;
}

/* Which attribute a verdict case changes from good_attr(). */
enum attr_field {
	F_NONE,
	F_CAP_FLAGS,
	F_FRWR_LEN,
	F_SEND_SGE,
	F_RECV_SGE,
	F_QP_WR,
	F_CQE,
	F_IRD,
	F_ORD,
	F_RD_ATOM,	/* both IRD and ORD */
	F_ALL_ZERO,
};

struct limits_case {
	const char *name;
	enum attr_field field;
	int value;
	enum smbdx_dev_verdict verdict;
};

static void set_attr(struct ib_device_attr *a, enum attr_field field, int value)
{
	switch (field) {
	case F_NONE:
		break;
	case F_CAP_FLAGS:
		a->device_cap_flags = value;
		break;
	case F_FRWR_LEN:
		a->max_fast_reg_page_list_len = value;
		break;
	case F_SEND_SGE:
		a->max_send_sge = value;
		break;
	case F_RECV_SGE:
		a->max_recv_sge = value;
		break;
	case F_QP_WR:
		a->max_qp_wr = value;
		break;
	case F_CQE:
		a->max_cqe = value;
		break;
	case F_IRD:
		a->max_qp_rd_atom = value;
		break;
	case F_ORD:
		a->max_qp_init_rd_atom = value;
		break;
	case F_RD_ATOM:
		a->max_qp_rd_atom = value;
		a->max_qp_init_rd_atom = value;
		break;
	case F_ALL_ZERO:
		memset(a, 0, sizeof(*a));
		break;
	}
}

/* Each threshold on both sides; with everything bad, the first rule wins. */
static const struct limits_case limits_cases[] = {
	{ "rxe-like", F_NONE, 0, SMBDX_DEV_OK },
	{ "no-mem-mgt-ext", F_CAP_FLAGS, 0, SMBDX_DEV_NO_FRWR },
	{ "frwr-len-0", F_FRWR_LEN, 0, SMBDX_DEV_NO_FRWR },
	{ "frwr-len-1", F_FRWR_LEN, 1, SMBDX_DEV_OK },
	{ "send-sge-1", F_SEND_SGE, SMBDX_MIN_SEND_SGE - 1, SMBDX_DEV_FEW_SEND_SGE },
	{ "send-sge-2", F_SEND_SGE, SMBDX_MIN_SEND_SGE, SMBDX_DEV_OK },
	{ "send-sge-negative", F_SEND_SGE, -1, SMBDX_DEV_FEW_SEND_SGE },
	{ "recv-sge-0", F_RECV_SGE, SMBDX_MIN_RECV_SGE - 1, SMBDX_DEV_FEW_RECV_SGE },
	{ "recv-sge-1", F_RECV_SGE, SMBDX_MIN_RECV_SGE, SMBDX_DEV_OK },
	{ "qp-wr-31", F_QP_WR, SMBDX_MIN_QP_WR - 1, SMBDX_DEV_SMALL_QP },
	{ "qp-wr-32", F_QP_WR, SMBDX_MIN_QP_WR, SMBDX_DEV_OK },
	{ "cqe-31", F_CQE, SMBDX_MIN_QP_WR - 1, SMBDX_DEV_SMALL_QP },
	{ "cqe-32", F_CQE, SMBDX_MIN_QP_WR, SMBDX_DEV_OK },
	{ "ird-0", F_IRD, 0, SMBDX_DEV_NO_RDMA_READ },
	{ "ord-0", F_ORD, 0, SMBDX_DEV_NO_RDMA_READ },
	{ "ird-ord-1", F_RD_ATOM, 1, SMBDX_DEV_OK },
	{ "all-zero", F_ALL_ZERO, 0, SMBDX_DEV_NO_FRWR },
};

static void limits_case_desc(const struct limits_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(limits, limits_cases, limits_case_desc);

static void devlimits_verdict(struct kunit *test)
{
	const struct limits_case *c = test->param_value;
	struct smbdx_dev_limits l;
	struct ib_device_attr a;

	good_attr(&a);
	set_attr(&a, c->field, c->value);
	KUNIT_EXPECT_EQ(test, smbdx_dev_limits_compute(&a, false, &l), c->verdict);
	KUNIT_EXPECT_EQ(test, l.verdict, c->verdict);
	KUNIT_EXPECT_STRNEQ(test, smbdx_dev_verdict_str(l.verdict), "unknown");
}

struct clamp_case {
	const char *name;
	int raw;
	u32 max;
	u32 want;
};

static const struct clamp_case sge_cases[] = {
	{ "sge-negative", -5, SMBDX_MAX_SGE, 0 },
	{ "sge-0", 0, SMBDX_MAX_SGE, 0 },
	{ "sge-below-max", SMBDX_MAX_SGE - 1, SMBDX_MAX_SGE, SMBDX_MAX_SGE - 1 },
	{ "sge-at-max", SMBDX_MAX_SGE, SMBDX_MAX_SGE, SMBDX_MAX_SGE },
	{ "sge-above-max", SMBDX_MAX_SGE + 1, SMBDX_MAX_SGE, SMBDX_MAX_SGE },
	{ "sge-int-max", INT_MAX, SMBDX_MAX_SGE, SMBDX_MAX_SGE },
};

static void clamp_case_desc(const struct clamp_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sge, sge_cases, clamp_case_desc);

static void devlimits_sge_clamp(struct kunit *test)
{
	const struct clamp_case *c = test->param_value;
	struct smbdx_dev_limits l;
	struct ib_device_attr a;

	good_attr(&a);
	a.max_send_sge = c->raw;
	a.max_recv_sge = c->raw;
	a.max_sge_rd = c->raw;
	smbdx_dev_limits_compute(&a, false, &l);
	KUNIT_EXPECT_EQ(test, l.max_send_sge, c->want);
	KUNIT_EXPECT_EQ(test, l.max_recv_sge, c->want);
	KUNIT_EXPECT_EQ(test, l.max_sge_rd, c->want);
}

static const struct clamp_case rd_atom_cases[] = {
	{ "rd-atom-negative", -1, SMBDX_MAX_RD_ATOM, 0 },
	{ "rd-atom-1", 1, SMBDX_MAX_RD_ATOM, 1 },
	{ "rd-atom-254", 254, SMBDX_MAX_RD_ATOM, 254 },
	{ "rd-atom-255", 255, SMBDX_MAX_RD_ATOM, 255 },
	{ "rd-atom-256", 256, SMBDX_MAX_RD_ATOM, 255 },
	{ "rd-atom-65536", 65536, SMBDX_MAX_RD_ATOM, 255 },
};

KUNIT_ARRAY_PARAM(rd_atom, rd_atom_cases, clamp_case_desc);

static void devlimits_ird_ord_clamp(struct kunit *test)
{
	const struct clamp_case *c = test->param_value;
	struct smbdx_dev_limits l;
	struct ib_device_attr a;

	good_attr(&a);
	a.max_qp_rd_atom = c->raw;
	a.max_qp_init_rd_atom = c->raw;
	smbdx_dev_limits_compute(&a, false, &l);
	KUNIT_EXPECT_EQ(test, (u32)l.ird, c->want);
	KUNIT_EXPECT_EQ(test, (u32)l.ord, c->want);
}

static const struct clamp_case frwr_cases[] = {
	{ "frwr-1", 1, SMBDX_FRWR_MAX_DEPTH, 1 },
	{ "frwr-below-max", SMBDX_FRWR_MAX_DEPTH - 1, SMBDX_FRWR_MAX_DEPTH,
	  SMBDX_FRWR_MAX_DEPTH - 1 },
	{ "frwr-at-max", SMBDX_FRWR_MAX_DEPTH, SMBDX_FRWR_MAX_DEPTH, SMBDX_FRWR_MAX_DEPTH },
	{ "frwr-above-max", SMBDX_FRWR_MAX_DEPTH + 1, SMBDX_FRWR_MAX_DEPTH,
	  SMBDX_FRWR_MAX_DEPTH },
};

KUNIT_ARRAY_PARAM(frwr, frwr_cases, clamp_case_desc);

static void devlimits_frwr_depth(struct kunit *test)
{
	const struct clamp_case *c = test->param_value;
	struct smbdx_dev_limits l;
	struct ib_device_attr a;

	good_attr(&a);
	a.max_fast_reg_page_list_len = c->raw;
	smbdx_dev_limits_compute(&a, false, &l);
	KUNIT_EXPECT_EQ(test, l.frwr_depth, c->want);

	/* Without the capability flag the length is ignored. */
	a.device_cap_flags = 0;
	smbdx_dev_limits_compute(&a, false, &l);
	KUNIT_EXPECT_EQ(test, l.frwr_depth, 0U);
}

struct reg_len_case {
	const char *name;
	u32 page_list_len;	/* the device's max_fast_reg_page_list_len */
	enum attr_field broken;	/* F_NONE, or what makes the device unusable */
	u32 want;		/* bytes, 4 KiB pages */
};

static const struct reg_len_case reg_len_cases[] = {
	/* rxe allows 512: 1 MiB at any offset in its first page */
	{ "rxe-512", 512, F_NONE, 1048576 },
	/* siw allows 256: one page less */
	{ "siw-256", 256, F_NONE, 1044480 },
	{ "at-max", SMBDX_FRWR_MAX_DEPTH, F_NONE, (SMBDX_FRWR_MAX_DEPTH - 1) * 4096 },
	{ "two-pages", 2, F_NONE, 4096 },
	{ "one-page", 1, F_NONE, 0 },
	{ "no-frwr", 512, F_CAP_FLAGS, 0 },
	{ "unusable", 512, F_ORD, 0 },
};

static void reg_len_case_desc(const struct reg_len_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(reg_len, reg_len_cases, reg_len_case_desc);

/*
 * smbdx_dev_reg_len(): what one MR surely covers; 257 pages make 1 MiB
 * whatever the buffer's offset in its first page, and an unusable device
 * offers nothing.
 */
static void devlimits_reg_len(struct kunit *test)
{
	const struct reg_len_case *c = test->param_value;
	struct smbdx_dev_limits l;
	struct ib_device_attr a;

	good_attr(&a);
	a.max_fast_reg_page_list_len = c->page_list_len;
	set_attr(&a, c->broken, 0);
	smbdx_dev_limits_compute(&a, false, &l);
	KUNIT_EXPECT_EQ(test, smbdx_dev_reg_len(&l, 4096), c->want);
	if (c->want)
		KUNIT_EXPECT_EQ(test, smbdx_dev_reg_len(&l, 65536),
				c->want / 4096 * 65536);
}

struct rw_wrs_case {
	const char *name;
	bool iwarp;
	int send_sge;		/* the device's max_send_sge */
	int sge_rd;		/* its max_sge_rd */
	u32 pages;
	u32 want;
};

static const struct rw_wrs_case rw_wrs_cases[] = {
	/* rxe: 32 SGEs clamped to 16; a 1 MiB chunk anywhere is 257 pages */
	{ "rxe-257", false, 32, 32, 257, 17 },
	/* siw: Writes in lists of 6, Reads through an MR */
	{ "siw-257", true, 6, 1, 257, 43 },
	/* the same device on IB: every Read one page */
	{ "one-sge-rd-ib", false, 6, 1, 257, 257 },
	{ "iwarp-small-chunk", true, 6, 1, 2, 4 },
	{ "ib-small-chunk", false, 16, 16, 16, 4 },
	{ "ib-reads-bound", false, 16, 2, 20, 10 },
	{ "min-sge", true, 2, 1, 257, 129 },
};

static void rw_wrs_case_desc(const struct rw_wrs_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rw_wrs, rw_wrs_cases, rw_wrs_case_desc);

/*
 * smbdx_dev_rw_wrs(): the send queue entries of one RDMA read/write
 * chunk. A Read on iWARP goes through an MR and takes a few; sized for
 * siw's one SGE per Read, a chunk counted 257 and siw's queues four times
 * what they need.
 */
static void devlimits_rw_wrs(struct kunit *test)
{
	const struct rw_wrs_case *c = test->param_value;
	struct smbdx_dev_limits l;
	struct ib_device_attr a;

	good_attr(&a);
	a.max_send_sge = c->send_sge;
	a.max_sge_rd = c->sge_rd;
	smbdx_dev_limits_compute(&a, c->iwarp, &l);
	KUNIT_EXPECT_EQ(test, l.rw_read_mr, c->iwarp);
	KUNIT_EXPECT_EQ(test, smbdx_dev_rw_wrs(&l, c->pages), c->want);
}

/* The transport decides the port and the quirks the rest of smbdirect uses. */
static void devlimits_port_by_transport(struct kunit *test)
{
	struct smbdx_dev_limits l;
	struct ib_device_attr a;

	good_attr(&a);
	smbdx_dev_limits_compute(&a, false, &l);
	KUNIT_EXPECT_EQ(test, l.port, 445);
	KUNIT_EXPECT_FALSE(test, l.iwarp);
	KUNIT_EXPECT_FALSE(test, l.ird_ord_private_data);
	KUNIT_EXPECT_TRUE(test, l.est_by_data);
	KUNIT_EXPECT_FALSE(test, l.rw_write_mr);
	KUNIT_EXPECT_EQ(test, l.mr_max_entries, l.frwr_depth);
	KUNIT_EXPECT_FALSE(test, l.err_before_disconnect);
	smbdx_dev_limits_compute(&a, true, &l);
	KUNIT_EXPECT_EQ(test, l.port, 5445);
	KUNIT_EXPECT_TRUE(test, l.iwarp);
	KUNIT_EXPECT_TRUE(test, l.ird_ord_private_data);
	KUNIT_EXPECT_FALSE(test, l.est_by_data);
	KUNIT_EXPECT_TRUE(test, l.rw_write_mr);
	KUNIT_EXPECT_EQ(test, l.mr_max_entries, l.frwr_depth);
	KUNIT_EXPECT_TRUE(test, l.err_before_disconnect);
}

static struct kunit_case devlimits_cases[] = {
	KUNIT_CASE_PARAM(devlimits_verdict, limits_gen_params),
	KUNIT_CASE_PARAM(devlimits_sge_clamp, sge_gen_params),
	KUNIT_CASE_PARAM(devlimits_ird_ord_clamp, rd_atom_gen_params),
	KUNIT_CASE_PARAM(devlimits_frwr_depth, frwr_gen_params),
	KUNIT_CASE_PARAM(devlimits_reg_len, reg_len_gen_params),
	KUNIT_CASE_PARAM(devlimits_rw_wrs, rw_wrs_gen_params),
	KUNIT_CASE(devlimits_port_by_transport),
	{}
};

static struct kunit_suite devlimits_suite = {
	.name = "smbdirect_devlimits",
	.test_cases = devlimits_cases,
};

kunit_test_suite(devlimits_suite);

MODULE_DESCRIPTION("KUnit tests for smbdirect device limits");
MODULE_LICENSE("GPL");
