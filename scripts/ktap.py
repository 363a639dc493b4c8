#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge one VM run: parse the KTAP the VM printed and scan the kernel console.

Counts leaf tests (a KUnit parameter, a KUnit case without parameters, a
pipeline check), prints every failure with the diagnostics that preceded it,
and flags the run as failed on any of:
  - a "not ok" anywhere (a suite or module failing with no failing leaf
    counts as one failure of its own);
  - a kernel oops, BUG, WARN, KASAN, UBSAN, lockdep, hung-task or RCU-stall
    report on the console;
  - a run that did not reach its end (crash, panic or timeout).

Writes "<passed> <failed> <skipped>" to --counts so callers can add up runs,
and exits 0 only for a clean run.
"""

import argparse
import re
import sys

RESULT = re.compile(r'^(\s*)(ok|not ok) (\d+)\s*(?:- )?(.*?)(?:\s+#\s*(SKIP|TODO)\b(.*))?$')

# Console lines that mean the kernel saw something wrong. The kmemleak
# summary line is left to the in-VM check, which filters on our modules.
CONSOLE_BAD = [
    re.compile(p) for p in (
        r'\bBUG: ',
        r'\bWARNING: ',
        r'\bOops\b',
        r'Kernel panic',
        r'general protection fault',
        r'\bKASAN\b',
        r'\bUBSAN\b',
        r'possible circular locking',
        r'possible recursive locking',
        r'inconsistent lock state',
        r'INFO: task .* blocked for more than',
        r'rcu: INFO: .*detected stall',
        r'Call Trace:',
        r'list_(add|del) corruption',
    )
]


class Level:
    """Results seen at one indentation since the last shallower result."""

    def __init__(self, indent):
        self.indent = indent
        self.results = 0
        self.failed = 0


def parse(lines):
    passed = failed = skipped = 0
    failures = []
    timings = []  # (seconds, name) of top-level tests that report "took N s"
    diag = []
    stack = []  # open Levels, shallowest first
    saw_exit = None
    for raw in lines:
        line = raw.rstrip('\r\n').replace('\r', '')
        m = re.match(r'^SMBD-VM-EXIT (\d+)', line)
        if m:
            saw_exit = int(m.group(1))
            continue
        if re.match(r'^\s*KTAP version', line):
            continue
        r = RESULT.match(line)
        if not r:
            if line.strip().startswith('#'):
                diag.append(line.strip())
                diag = diag[-30:]
            continue
        indent = len(r.group(1).expandtabs())
        ok = r.group(2) == 'ok'
        name = r.group(4)
        directive = r.group(5)
        # This result's subtests are the results printed at deeper
        # indentation since the previous result at this depth or shallower.
        kids = [lv for lv in stack if lv.indent > indent]
        stack = [lv for lv in stack if lv.indent <= indent]
        kid_results = sum(lv.results for lv in kids)
        kid_failed = sum(lv.failed for lv in kids)
        if not stack or stack[-1].indent != indent:
            stack.append(Level(indent))
        level = stack[-1]
        level.results += 1
        if indent == 0 and diag:
            t = re.match(r'^# took (\d+) s$', diag[-1])
            if t:
                timings.append((int(t.group(1)), name))
        if kid_results == 0:
            if directive == 'SKIP':
                skipped += 1
            elif ok:
                passed += 1
            else:
                failed += 1
                level.failed += 1
                failures.append((name, diag))
        elif not ok:
            level.failed += 1
            if kid_failed == 0:
                failed += 1
                failures.append((name + ' (no failing subtest)', diag))
        diag = []
    return passed, failed, skipped, failures, saw_exit, timings


def console_tail(path, n):
    try:
        with open(path, errors='replace') as f:
            return [t.rstrip('\r\n') for t in f.readlines()[-n:]]
    except FileNotFoundError:
        return []


# The VM's userland writes this to the kernel log first thing: reports
# before it come from the kernel's own boot, before any module of ours.
BOOT_DONE = 'smbd-vm: userland started'


# Reports of the kernel's own modules that the interop tests provoke and
# that we cannot fix: a report (from "cut here" to "end trace") whose text
# matches every pattern of an entry is listed but does not fail the run.
# Each entry names its reason; Documentation/interop.rst has the details.
KNOWN_UPSTREAM = [
    ('stock cifs: smbd_destroy() drains a receive queue that has no room '
     'for the drain request (fs/smb/client/smbdirect.c sizes it without one)',
     [re.compile(r'failed to drain recv queue: -12'),
      re.compile(r'\bsmbd_destroy\+\S+ \[cifs\]$'),
      # Linux's own cifs: not tainted out-of-tree, so not our build.
      re.compile(r'Modules linked in: (?:.* )?cifs(?! ?\(O)')]),
    ('rxe (6.12): rxe_destroy_qp() drops the QP\'s last reference before '
     'rxe_qp_do_cleanup() stops its tasks, so a send task still running '
     'finds the count at zero; seen once while `rdma link delete` removed '
     'rxe under live connections (smbd_removal_rw), a QP in RTS destroyed '
     'with a packet going out (ours are moved to error and drained first)',
     [re.compile(r'WARNING: .* at \S*drivers/infiniband/sw/rxe/rxe_task\.c:\d+ '
                 r'(?:rxe_sched_task|__reserve_if_idle)\+'),
      re.compile(r'Workqueue: rxe_wq '),
      re.compile(r'\brxe_xmit_packet\+'),
      re.compile(r'\brxe_requester\+')]),
]
REPORT_START = re.compile(r'-{5,}\[ cut here \]-{5,}')
REPORT_END = re.compile(r'-{3}\[ end trace [0-9a-f]+ \]-{3}')


def known_upstream(lines):
    """Indices of @lines inside reports that KNOWN_UPSTREAM explains, and
    the reasons of the entries that matched."""
    skip, reasons = set(), []
    start = None
    for i, line in enumerate(lines):
        if REPORT_START.search(line):
            start = i
        elif start is not None and REPORT_END.search(line):
            block = lines[start:i + 1]
            for reason, pats in KNOWN_UPSTREAM:
                if all(any(p.search(t) for t in block) for p in pats):
                    skip.update(range(start, i + 1))
                    reasons.append(reason)
                    break
            start = None
    return skip, reasons


def scan_console(path, boot=None, known=None):
    """Console lines reporting a problem; if @boot is a list, the ones
    logged before the userland marker are also appended to it; if @known is
    a list, the reasons of reports KNOWN_UPSTREAM explains (and leaves out)
    are appended to it."""
    bad = []
    early = []
    booting = True
    try:
        with open(path, errors='replace') as f:
            lines = [t.rstrip('\r\n') for t in f]
        skip, reasons = known_upstream(lines)
        if known is not None:
            known.extend(reasons)
        for i, line in enumerate(lines):
            if BOOT_DONE in line:
                booting = False
            if i in skip:
                continue
            if any(p.search(line) for p in CONSOLE_BAD):
                bad.append(line)
                if booting:
                    early.append(line)
    except FileNotFoundError:
        bad.append('no console log at %s' % path)
    # Without the marker nothing can be told apart: nothing counts as boot.
    if boot is not None and not booting:
        boot.extend(early)
    return bad


def report_context(path, first, n):
    """The console from the line @first on, at most @n lines."""
    out = []
    try:
        with open(path, errors='replace') as f:
            for line in f:
                line = line.rstrip('\r\n')
                if out or line == first:
                    out.append(line)
                    if len(out) >= n:
                        break
    except FileNotFoundError:
        pass
    return out


def last_words(diag):
    """The most telling diagnostic line of a failed case.

    A shell test says why it failed in a line starting with "FAIL:" and
    then prints what helps to read it (the kernel log's tail, say): that
    line is the reason, not the last one. Otherwise the last line that is
    not a timing or a KUnit header.
    """
    for d in diag:
        t = d.lstrip('#').strip()
        if t.startswith('FAIL:'):
            return t
    for d in reversed(diag):
        t = d.lstrip('#').strip()
        if t and not t.startswith(('took ', 'Subtest:')) and 'EXPECTATION FAILED' not in t:
            return t
    return ''


def summary(failures, bad, boot_only, saw_exit, console):
    """At most a dozen lines: why the run failed."""
    out = []
    for name, diag in failures[:5]:
        w = last_words(diag)
        out.append('failed: %s%s' % (name, ': ' + w[:160] if w else ''))
    if len(failures) > 5:
        out.append('failed: ... and %d more cases' % (len(failures) - 5))
    if saw_exit is None:
        tail = console_tail(console, 1)
        out.append('did not finish; console ended with: %s' % (tail[0][:160] if tail else '(nothing)'))
    if bad:
        out.append('console report%s (%d lines):' %
                   (' during boot only' if boot_only else '', len(bad)))
        seen = []
        for b in bad:
            k = re.sub(r'^\[[ 0-9.]*\] ', '', b)
            if k not in seen:
                seen.append(k)
                out.append('    ' + b[:200])
            if len(seen) >= 4:
                break
        ctx = report_context(console, bad[0], 150)
        test = test_at(console, bad[0])
        if test:
            out.append('    while running: ' + test)
        # Where the first report happened: its RIP and first frames.
        for t in trace_lines(ctx, 4):
            out.append('    ' + t[:160])
        # The first frame of ours in the first report, if there is one.
        ours = [t for t in ctx
                if re.search(r'\[(smbdirect|sqos|smbdx_\w+|smbd_\w+|sqos_\w+)\]', t)]
        if ours:
            out.append('    first frame of ours: ' + ours[0].strip()[:160])
    return out[:18]


# The first line of a report (the lines after it, "Oops:", "Call Trace:",
# also match CONSOLE_BAD): where the report that trace_lines() reads ends.
NEXT_REPORT = re.compile(r'\bBUG: |\bWARNING: |general protection fault|Kernel panic')

# The VM's test runner writes this to the kernel log as each test starts.
TEST_MARK = re.compile(r'smbd-vm: test (\S+)')
FRAME = re.compile(r'^\[[ 0-9.]*\]\s+(RIP: \S+(?: \[\w+\])?|[A-Za-z_][\w.]*\+0x[0-9a-f]+/0x[0-9a-f]+.*)$')


def test_at(path, line):
    """The test that had started last when the console printed @line."""
    test = None
    try:
        with open(path, errors='replace') as f:
            for t in f:
                t = t.rstrip('\r\n')
                if t == line:
                    return test
                m = TEST_MARK.search(t)
                if m:
                    test = m.group(1)
    except FileNotFoundError:
        pass
    return None


def trace_lines(ctx, n):
    """The RIP line and the first @n reliable frames of the report that
    starts @ctx (frames marked "?" are guesses and left out)."""
    out, frames = [], 0
    for t in ctx[1:]:
        if NEXT_REPORT.search(t) or REPORT_START.search(t):
            break   # the next report
        m = FRAME.match(t)
        if not m:
            continue
        if m.group(1).startswith('RIP'):
            if not out:
                out.append(m.group(1))
            continue
        out.append('  ' + m.group(1))
        frames += 1
        if frames >= n:
            break
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--results', help="the VM's KTAP output")
    ap.add_argument('--console-only', action='store_true',
                    help='only scan the console log (demo and --exec runs)')
    ap.add_argument('--console', required=True, help='the kernel console log')
    ap.add_argument('--label', default='vm', help='name of this run in messages')
    ap.add_argument('--counts', help='write "passed failed skipped" here')
    ap.add_argument('--summary', help='write the few lines that say why the run '
                                      'failed here')
    ap.add_argument('--expect-fail', metavar='REGEX',
                    help='self-test: succeed only if the run is judged failed '
                         'and REGEX matches a failed test or a console report')
    a = ap.parse_args()

    if a.console_only:
        bad = scan_console(a.console)
        for b in bad[:40]:
            print('[%s] kernel: %s' % (a.label, b))
        return 1 if bad else 0

    try:
        with open(a.results or '', errors='replace') as f:
            lines = f.readlines()
    except FileNotFoundError:
        lines = []
    passed, failed, skipped, failures, saw_exit, timings = parse(lines)
    slow = sorted(timings, reverse=True)[:5]
    if slow:
        print('[%s] slowest: %s' % (a.label, ', '.join('%s %ds' % (n, t) for t, n in slow)))
    problems = []
    if saw_exit is None:
        problems.append('the VM did not finish its run (crash, panic or timeout); '
                        'last lines of the console:')
        problems.extend('    ' + t for t in console_tail(a.console, 25))
        if lines:
            problems.append('last lines the run printed:')
            problems.extend('    ' + t.rstrip('\r\n') for t in lines[-10:])
    elif saw_exit != 0 and not failed:
        problems.append('the VM run exited with status %d' % saw_exit)
    if passed + failed == 0:
        problems.append('no test ran')
    boot = []
    known = []
    bad = scan_console(a.console, boot, known)
    for k in known:
        print('[%s] known upstream report, not ours (listed, not counted): %s' %
              (a.label, k))
    # Only a report from the kernel's own boot, every test passed: say so
    # with exit status 3, so that the caller may boot once more.
    boot_only = (bad and len(boot) == len(bad) and not failures and
                 not [p for p in problems])
    if bad:
        problems.append('the kernel reported problems on the console%s:' %
                        (' during boot, before any module of ours was loaded'
                         if boot_only else ''))
        problems.extend('    ' + b for b in bad[:40])
        if len(bad) > 40:
            problems.append('    ... %d more lines' % (len(bad) - 40))
        # The first report whole: a CI log may be all there is to go on.
        first = report_context(a.console, bad[0], 150)
        if first:
            problems.append('the first report in full:')
            problems.extend('    ' + t for t in first)

    for name, diag in failures:
        print('[%s] FAILED: %s' % (a.label, name))
        for d in diag[-12:]:
            print('    ' + d)
    for p in problems:
        print('[%s] %s' % (a.label, p))
    if problems:
        failed += 1
    # A CI log may be cut to its last lines: say once more, briefly, why.
    short = summary(failures, bad, boot_only, saw_exit, a.console)
    for t in short:
        print('[%s] %s' % (a.label, t))
    print('[%s] %d passed, %d failed, %d skipped' % (a.label, passed, failed, skipped))
    if a.summary:
        with open(a.summary, 'w') as f:
            f.writelines('[%s] %s\n' % (a.label, t) for t in short)
    if a.counts:
        with open(a.counts, 'w') as f:
            f.write('%d %d %d\n' % (passed, failed, skipped))
    bad_run = failed > 0
    if a.expect_fail:
        want = re.compile(a.expect_fail)
        seen = [n for n, _ in failures] + bad
        if bad_run and any(want.search(x) for x in seen):
            print('[%s] failed as intended' % a.label)
            return 0
        print('[%s] was meant to fail on /%s/ and did not' % (a.label, a.expect_fail))
        return 1
    if bad_run and boot_only:
        return 3
    return 1 if bad_run else 0


if __name__ == '__main__':
    sys.exit(main())
