// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: smbd_dev_limits_compute(), the device-attribute -> usable-limits
 * rules, with each threshold probed on both sides. Pure: no device needed.
 */

#include <kunit/test.h>
#include <rdma/ib_verbs.h>

#include "devlimits.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

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

struct limits_case {
	const char *name;
	void (*tweak)(struct ib_device_attr *a);
	enum smbd_dev_verdict verdict;
};

static void t_none(struct ib_device_attr *a) { }
static void t_no_mgt(struct ib_device_attr *a) { a->device_cap_flags = 0; }
static void t_fr0(struct ib_device_attr *a) { a->max_fast_reg_page_list_len = 0; }
static void t_fr1(struct ib_device_attr *a) { a->max_fast_reg_page_list_len = 1; }
static void t_ssge1(struct ib_device_attr *a) { a->max_send_sge = 1; }
static void t_ssge2(struct ib_device_attr *a) { a->max_send_sge = 2; }
static void t_ssge_neg(struct ib_device_attr *a) { a->max_send_sge = -1; }
static void t_rsge0(struct ib_device_attr *a) { a->max_recv_sge = 0; }
static void t_rsge1(struct ib_device_attr *a) { a->max_recv_sge = 1; }
static void t_wr31(struct ib_device_attr *a) { a->max_qp_wr = SMBD_MIN_QP_WR - 1; }
static void t_wr32(struct ib_device_attr *a) { a->max_qp_wr = SMBD_MIN_QP_WR; }
static void t_cqe31(struct ib_device_attr *a) { a->max_cqe = SMBD_MIN_QP_WR - 1; }
static void t_cqe32(struct ib_device_attr *a) { a->max_cqe = SMBD_MIN_QP_WR; }
static void t_ird0(struct ib_device_attr *a) { a->max_qp_rd_atom = 0; }
static void t_ord0(struct ib_device_attr *a) { a->max_qp_init_rd_atom = 0; }
static void t_ird1(struct ib_device_attr *a)
{
	a->max_qp_rd_atom = 1;
	a->max_qp_init_rd_atom = 1;
}

/* The first failing rule wins, in the documented order. */
static void t_all_bad(struct ib_device_attr *a)
{
	memset(a, 0, sizeof(*a));
}

static const struct limits_case limits_cases[] = {
	{ "rxe-like", t_none, SMBD_DEV_OK },
	{ "no-mem-mgt-ext", t_no_mgt, SMBD_DEV_NO_FRWR },
	{ "frwr-len-0", t_fr0, SMBD_DEV_NO_FRWR },
	{ "frwr-len-1", t_fr1, SMBD_DEV_OK },
	{ "send-sge-1", t_ssge1, SMBD_DEV_FEW_SEND_SGE },
	{ "send-sge-2", t_ssge2, SMBD_DEV_OK },
	{ "send-sge-negative", t_ssge_neg, SMBD_DEV_FEW_SEND_SGE },
	{ "recv-sge-0", t_rsge0, SMBD_DEV_FEW_RECV_SGE },
	{ "recv-sge-1", t_rsge1, SMBD_DEV_OK },
	{ "qp-wr-31", t_wr31, SMBD_DEV_SMALL_QP },
	{ "qp-wr-32", t_wr32, SMBD_DEV_OK },
	{ "cqe-31", t_cqe31, SMBD_DEV_SMALL_QP },
	{ "cqe-32", t_cqe32, SMBD_DEV_OK },
	{ "ird-0", t_ird0, SMBD_DEV_NO_RDMA_READ },
	{ "ord-0", t_ord0, SMBD_DEV_NO_RDMA_READ },
	{ "ird-ord-1", t_ird1, SMBD_DEV_OK },
	{ "all-zero", t_all_bad, SMBD_DEV_NO_FRWR },
};

static void limits_case_desc(const struct limits_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(limits, limits_cases, limits_case_desc);

static void devlimits_verdict(struct kunit *test)
{
	const struct limits_case *c = test->param_value;
	struct smbd_dev_limits l;
	struct ib_device_attr a;

	good_attr(&a);
	c->tweak(&a);
	KUNIT_EXPECT_EQ(test, smbd_dev_limits_compute(&a, false, &l), c->verdict);
	KUNIT_EXPECT_EQ(test, l.verdict, c->verdict);
	KUNIT_EXPECT_STRNEQ(test, smbd_dev_verdict_str(l.verdict), "unknown");
}

struct clamp_case {
	const char *name;
	int raw;
	u32 max;
	u32 want;
};

static const struct clamp_case sge_cases[] = {
	{ "sge-negative", -5, SMBD_MAX_SGE, 0 },
	{ "sge-0", 0, SMBD_MAX_SGE, 0 },
	{ "sge-below-max", SMBD_MAX_SGE - 1, SMBD_MAX_SGE, SMBD_MAX_SGE - 1 },
	{ "sge-at-max", SMBD_MAX_SGE, SMBD_MAX_SGE, SMBD_MAX_SGE },
	{ "sge-above-max", SMBD_MAX_SGE + 1, SMBD_MAX_SGE, SMBD_MAX_SGE },
	{ "sge-int-max", INT_MAX, SMBD_MAX_SGE, SMBD_MAX_SGE },
};

static void clamp_case_desc(const struct clamp_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sge, sge_cases, clamp_case_desc);

static void devlimits_sge_clamp(struct kunit *test)
{
	const struct clamp_case *c = test->param_value;
	struct smbd_dev_limits l;
	struct ib_device_attr a;

	good_attr(&a);
	a.max_send_sge = c->raw;
	a.max_recv_sge = c->raw;
	a.max_sge_rd = c->raw;
	smbd_dev_limits_compute(&a, false, &l);
	KUNIT_EXPECT_EQ(test, l.max_send_sge, c->want);
	KUNIT_EXPECT_EQ(test, l.max_recv_sge, c->want);
	KUNIT_EXPECT_EQ(test, l.max_sge_rd, c->want);
}

static const struct clamp_case rd_atom_cases[] = {
	{ "rd-atom-negative", -1, SMBD_MAX_RD_ATOM, 0 },
	{ "rd-atom-1", 1, SMBD_MAX_RD_ATOM, 1 },
	{ "rd-atom-254", 254, SMBD_MAX_RD_ATOM, 254 },
	{ "rd-atom-255", 255, SMBD_MAX_RD_ATOM, 255 },
	{ "rd-atom-256", 256, SMBD_MAX_RD_ATOM, 255 },
	{ "rd-atom-65536", 65536, SMBD_MAX_RD_ATOM, 255 },
};

KUNIT_ARRAY_PARAM(rd_atom, rd_atom_cases, clamp_case_desc);

static void devlimits_ird_ord_clamp(struct kunit *test)
{
	const struct clamp_case *c = test->param_value;
	struct smbd_dev_limits l;
	struct ib_device_attr a;

	good_attr(&a);
	a.max_qp_rd_atom = c->raw;
	a.max_qp_init_rd_atom = c->raw;
	smbd_dev_limits_compute(&a, false, &l);
	KUNIT_EXPECT_EQ(test, (u32)l.ird, c->want);
	KUNIT_EXPECT_EQ(test, (u32)l.ord, c->want);
}

static const struct clamp_case frwr_cases[] = {
	{ "frwr-1", 1, SMBD_FRWR_MAX_DEPTH, 1 },
	{ "frwr-below-max", SMBD_FRWR_MAX_DEPTH - 1, SMBD_FRWR_MAX_DEPTH,
	  SMBD_FRWR_MAX_DEPTH - 1 },
	{ "frwr-at-max", SMBD_FRWR_MAX_DEPTH, SMBD_FRWR_MAX_DEPTH, SMBD_FRWR_MAX_DEPTH },
	{ "frwr-above-max", SMBD_FRWR_MAX_DEPTH + 1, SMBD_FRWR_MAX_DEPTH,
	  SMBD_FRWR_MAX_DEPTH },
};

KUNIT_ARRAY_PARAM(frwr, frwr_cases, clamp_case_desc);

static void devlimits_frwr_depth(struct kunit *test)
{
	const struct clamp_case *c = test->param_value;
	struct smbd_dev_limits l;
	struct ib_device_attr a;

	good_attr(&a);
	a.max_fast_reg_page_list_len = c->raw;
	smbd_dev_limits_compute(&a, false, &l);
	KUNIT_EXPECT_EQ(test, l.frwr_depth, c->want);

	/* Without the capability flag the length is ignored. */
	a.device_cap_flags = 0;
	smbd_dev_limits_compute(&a, false, &l);
	KUNIT_EXPECT_EQ(test, l.frwr_depth, 0U);
}

static void devlimits_port_by_transport(struct kunit *test)
{
	struct smbd_dev_limits l;
	struct ib_device_attr a;

	good_attr(&a);
	smbd_dev_limits_compute(&a, false, &l);
	KUNIT_EXPECT_EQ(test, l.port, 445);
	KUNIT_EXPECT_FALSE(test, l.iwarp);
	smbd_dev_limits_compute(&a, true, &l);
	KUNIT_EXPECT_EQ(test, l.port, 5445);
	KUNIT_EXPECT_TRUE(test, l.iwarp);
}

static struct kunit_case devlimits_cases[] = {
	KUNIT_CASE_PARAM(devlimits_verdict, limits_gen_params),
	KUNIT_CASE_PARAM(devlimits_sge_clamp, sge_gen_params),
	KUNIT_CASE_PARAM(devlimits_ird_ord_clamp, rd_atom_gen_params),
	KUNIT_CASE_PARAM(devlimits_frwr_depth, frwr_gen_params),
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
