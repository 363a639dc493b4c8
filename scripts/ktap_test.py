#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of ktap.py, the judge of every VM run (make check).

Each case feeds a made-up results log and console log to the judge and
checks its counts, exit status and what it names.
"""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ktap  # noqa: E402

OK_CONSOLE = 'smbd-vm: userland started\n'


def judge(results, console, *extra):
    """Run ktap.py as make check does: (exit status, stdout, counts)."""
    with tempfile.TemporaryDirectory() as d:
        r = os.path.join(d, 'results.log')
        c = os.path.join(d, 'console.log')
        n = os.path.join(d, 'counts')
        with open(r, 'w') as f:
            f.write(results)
        with open(c, 'w') as f:
            f.write(console)
        p = subprocess.run([sys.executable, os.path.join(HERE, 'ktap.py'),
                            '--results', r, '--console', c, '--counts', n,
                            '--label', 't'] + list(extra),
                           capture_output=True, text=True)
        with open(n) as f:
            counts = tuple(int(x) for x in f.read().split())
    return p.returncode, p.stdout, counts


SUITE = '''KTAP version 1
1..1
    KTAP version 1
    # Subtest: s
    1..3
    ok 1 a
        KTAP version 1
        # Subtest: b
        ok 1 p0
        not ok 2 p1
    not ok 2 b
    ok 3 c # SKIP no device
not ok 1 s
SMBD-VM-EXIT 0
'''


class Judge(unittest.TestCase):
    def test_counts_leaves(self):
        rc, out, counts = judge(SUITE, OK_CONSOLE)
        self.assertEqual(rc, 1)
        self.assertEqual(counts, (2, 1, 1))
        self.assertIn('FAILED: p1', out)

    def test_clean_run(self):
        rc, _, counts = judge('ok 1 x\nok 2 y\nSMBD-VM-EXIT 0\n', OK_CONSOLE)
        self.assertEqual((rc, counts), (0, (2, 0, 0)))

    def test_failed_parent_without_failed_leaf(self):
        rc, out, counts = judge('    ok 1 a\nnot ok 1 s\nSMBD-VM-EXIT 0\n',
                                OK_CONSOLE)
        self.assertEqual((rc, counts), (1, (1, 1, 0)))
        self.assertIn('s (no failing subtest)', out)

    def test_unfinished_run(self):
        rc, out, _ = judge('ok 1 x\n', OK_CONSOLE)
        self.assertEqual(rc, 1)
        self.assertIn('did not finish', out)

    def test_console_report_fails_and_is_shown_whole(self):
        con = (OK_CONSOLE +
               '[ 1.0] WARNING: possible irq lock inversion dependency detected\n'
               '[ 1.1] (&cm_id_priv->lock){..-.}-{2:2}, at: ib_cm_notify\n'
               '[ 1.2] Call Trace:\n')
        rc, out, counts = judge('ok 1 x\nSMBD-VM-EXIT 0\n', con)
        self.assertEqual((rc, counts), (1, (1, 1, 0)))
        self.assertIn('first report in full', out)
        self.assertIn('cm_id_priv->lock', out)

    def test_summary_is_last(self):
        log = ('    # a: EXPECTATION FAILED at x.c:1\n'
               '    Expected bad == 0, but\n'
               '    # random write: 12 of 12 bytes differ\n'
               '    not ok 1 a\nnot ok 1 m\nSMBD-VM-EXIT 0\n')
        con = OK_CONSOLE + '[ 2.0] BUG: KASAN: use-after-free in f\n' + 'x\n' * 200
        with tempfile.TemporaryDirectory() as d:
            s = os.path.join(d, 'summary')
            rc, out, _ = judge(log, con, '--summary', s)
            with open(s) as f:
                short = f.read()
        self.assertEqual(rc, 1)
        tail = '\n'.join(out.splitlines()[-5:])
        self.assertIn('failed: a: random write: 12 of 12 bytes differ', tail)
        self.assertIn('BUG: KASAN: use-after-free in f', tail)
        self.assertIn('failed: a', short)
        self.assertIn('KASAN', short)

    def test_summary_names_a_shell_tests_fail_line(self):
        # A shell test prints its reason, then the kernel log's tail: the
        # summary (all CI shows of a run) must name the reason.
        log = ('# # siw0: our cifs, our ksmbd\n'
               '# FAIL: tagged 8192-byte reads at 80.1 IOPS, not 85..115\n'
               '# --- kernel log (cifs, ksmbd, sqos)\n'
               '# [  567.4] CIFS: VFS: RDMA transport established\n'
               '# took 175 s\n'
               'not ok 1 shell:sqos_smb\nSMBD-VM-EXIT 0\n')
        rc, out, _ = judge(log, OK_CONSOLE)
        self.assertEqual(rc, 1)
        self.assertIn('failed: shell:sqos_smb: FAIL: tagged 8192-byte reads '
                      'at 80.1 IOPS', out.splitlines()[-2] + out.splitlines()[-1])

    def test_summary_names_test_rip_and_frames(self):
        con = (OK_CONSOLE +
               '[ 5.0] smbd-vm: test shell:one\n'
               '[ 6.0] smbd-vm: test shell:two\n'
               '[ 7.0] BUG: kernel NULL pointer dereference, address: 0528\n'
               '[ 7.1] Oops: Oops: 0000 [#1] PREEMPT SMP NOPTI\n'
               '[ 7.2] RIP: 0010:victim+0x1c/0x80 [cifs]\n'
               '[ 7.3] Call Trace:\n'
               '[ 7.4]  <TASK>\n'
               '[ 7.5]  ? guessed+0x1/0x2\n'
               '[ 7.6]  caller_a+0x10/0x20 [cifs]\n'
               '[ 7.7]  caller_b+0x10/0x20\n'
               '[ 7.8]  smbdx_x+0x10/0x20 [smbdirect]\n'
               '[ 8.0] BUG: workqueue lockup - pool cpus=0\n'
               '[ 8.1]  later_frame+0x1/0x2\n'
               '[ 9.0] smbd-vm: test shell:three\n'
               '[ 9.5] the end\n')
        with tempfile.TemporaryDirectory() as d:
            s = os.path.join(d, 'summary')
            rc, _, _ = judge('ok 1 x\n', con, '--summary', s)
            with open(s) as f:
                short = f.read()
        self.assertEqual(rc, 1)
        self.assertIn('while running: shell:two', short)
        self.assertNotIn('shell:three', short)
        self.assertIn('RIP: 0010:victim+0x1c/0x80 [cifs]', short)
        self.assertIn('caller_a+0x10/0x20 [cifs]', short)
        self.assertIn('caller_b+0x10/0x20', short)
        self.assertNotIn('guessed', short)
        self.assertNotIn('later_frame', short)
        self.assertIn('first frame of ours: [ 7.8]  smbdx_x', short)

    def test_boot_only_report(self):
        con = '[ 0.1] WARNING: at boot\n' + OK_CONSOLE
        rc, out, _ = judge('ok 1 x\nSMBD-VM-EXIT 0\n', con)
        self.assertEqual(rc, 3)
        self.assertIn('during boot', out)

    def test_expect_fail(self):
        rc, out, _ = judge('not ok 1 inject_case\nSMBD-VM-EXIT 0\n', OK_CONSOLE,
                           '--expect-fail', 'inject')
        self.assertEqual(rc, 0)
        self.assertIn('failed as intended', out)
        rc, _, _ = judge('ok 1 x\nSMBD-VM-EXIT 0\n', OK_CONSOLE,
                         '--expect-fail', 'inject')
        self.assertEqual(rc, 1)

    def test_scan_console_patterns(self):
        with tempfile.NamedTemporaryFile('w', suffix='.log') as f:
            f.write(OK_CONSOLE + 'BUG: KASAN: slab-use-after-free\nall fine\n')
            f.flush()
            self.assertEqual(len(ktap.scan_console(f.name)), 1)


    STOCK_DRAIN = """[  660.619314] ------------[ cut here ]------------
[  660.620894] failed to drain recv queue: -12
[  660.622602] WARNING: CPU: 1 PID: 4189 at drivers/infiniband/core/verbs.c:2906 __ib_drain_rq+0x328/0x370
[  660.623354] Modules linked in: cifs ksmbd(O) sqos(O) smbdirect(O)
[  660.635552] Call Trace:
[  660.637991]  ib_drain_qp+0x13c/0x190
[  660.638151]  smbd_destroy+0x1a4/0x12a0 [cifs]
[  660.642092]  clean_demultiplex_info+0x9eb/0xcc0 [cifs]
[  660.650000] ---[ end trace 0000000000000000 ]---
"""

    def test_known_upstream_report_is_listed_not_counted(self):
        rc, out, counts = judge('ok 1 x\nSMBD-VM-EXIT 0\n',
                                OK_CONSOLE + self.STOCK_DRAIN)
        self.assertEqual(rc, 0)
        self.assertEqual(counts, (1, 0, 0))
        self.assertIn('known upstream report', out)

    def test_known_upstream_needs_the_stock_module(self):
        # Our cifs build (tainted O) with the same report: ours to fix.
        ours = self.STOCK_DRAIN.replace('linked in: cifs ksmbd(O)',
                                        'linked in: cifs(O) ksmbd(O)')
        rc, out, _ = judge('ok 1 x\nSMBD-VM-EXIT 0\n', OK_CONSOLE + ours)
        self.assertEqual(rc, 1)
        self.assertNotIn('known upstream report', out)
        # Another warning in the same run still fails it.
        rc, _, _ = judge('ok 1 x\nSMBD-VM-EXIT 0\n', OK_CONSOLE + self.STOCK_DRAIN +
                         '[  700.0] WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2\n')
        self.assertEqual(rc, 1)

    RXE_DESTROY = """\
[  634.347205] ------------[ cut here ]------------
[  634.348989] WARNING: CPU: 0 PID: 2100 at ../../src/linux-source-6.12-6.12.117-1~deb12u1/drivers/infiniband/sw/rxe/rxe_task.c:267 rxe_sched_task+0x67/0x70
[  634.351951] Modules linked in: smbd_rdma_bench(O) sqos(O) smbdirect(O) configfs(O)
[  634.356875] Workqueue: rxe_wq do_work
[  634.363927] RIP: 0010:rxe_sched_task+0x67/0x70
[  634.370850] Call Trace:
[  634.371841]  rxe_xmit_packet+0x162/0x320
[  634.372146]  rxe_requester+0x5ee/0xff0
[  634.373010]  do_task+0x63/0x1f0
[  634.375975] ---[ end trace 0000000000000000 ]---
"""

    def test_known_rxe_destroy_race_is_listed(self):
        rc, out, counts = judge('ok 1 x\nSMBD-VM-EXIT 0\n',
                                OK_CONSOLE + self.RXE_DESTROY)
        self.assertEqual(rc, 0)
        self.assertEqual(counts, (1, 0, 0))
        self.assertIn('rxe_destroy_qp', out)
        # The same warning reached from anything but rxe's requester
        # (one of our calls, say) is not that race: it fails the run.
        ours = self.RXE_DESTROY.replace('rxe_requester+0x5ee/0xff0',
                                        'smbdx_post_send+0x10/0x80 [smbdirect]')
        rc, _, _ = judge('ok 1 x\nSMBD-VM-EXIT 0\n', OK_CONSOLE + ours)
        self.assertEqual(rc, 1)


if __name__ == '__main__':
    unittest.main()
