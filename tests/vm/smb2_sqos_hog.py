#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hostile SMB2 client for tests/vm/sqos_smb.sh, built on impacket.

An authenticated user with an open file tags it with a logical flow of its
own limited to 1 normalized IOPS (SET_POLICY with Limit = 1, MS-SQOS
2.2.2.2) and then sends READs on it over TCP without waiting for any
answer: a server that delays each READ in a worker of its own holds one
worker per READ (the N-th one for about N seconds), which is what this
client is for: the test measures another client's I/O meanwhile.

Two connections, each with its own session, open and flow: connection A
sends COUNT READs and, at the end, simply goes away (no CLOSE, no
LOGOFF); connection B sends COUNT2 READs and, at the end, first sends a
LOGOFF, which ksmbd answers only once the connection's other requests are
done, so a server that holds READs back must let them go at once.

The READs are one byte each (a normalized I/O, as anything up to 8 KiB
is), so that answering the READs the server does not hold back costs it
next to nothing. The answers are read (and counted) by a thread per
connection, so that the server never blocks on a full socket: what is
measured is the Storage QoS delay, not a client that does not read.
impacket seals every request once the server offers encryption (our ksmbd
does to a client that asks for it), so the READs normally go encrypted
(SMB2 TRANSFORM_HEADER, AES-128-CCM): the server must decrypt a request
before it can see it is a READ to hold back. They are built here from one
template (impacket takes tens of milliseconds for each under TCG).

usage: smb2_sqos_hog.py HOST SHARE USER PASSWORD FILE FLOW COUNT FLOW2 COUNT2 UNTIL
Prints "tagged ..." per connection, then "sent COUNT COUNT2" once every
READ is on the wire, then "answered N N2" every second. Once the file
UNTIL exists: B's LOGOFF, then "logoff answered=N of M in S s" when every
request of B has been answered (or after 15 s), then both connections end.
Exits non-zero on any failure before the READs are sent.
"""
import os
import socket
import struct
import sys
import threading
import time
import uuid

from Cryptodome.Cipher import AES
from impacket import smb3
from impacket import smb3structs as s

FSCTL_STORAGE_QOS_CONTROL = 0x00090350
# SET_LOGICAL_FLOW_ID | SET_POLICY | GET_STATUS
QOS_OPTIONS = 0x1 | 0x2 | 0x8
QOS_RESPONSE = struct.Struct('<HHI16s16s16sIIQQII')
READ_SIZE = 1
T0 = time.monotonic()


def say(msg):
    """One line of output, with the seconds since the start."""
    print('%s t=%.1f' % (msg, time.monotonic() - T0), flush=True)


def qos_request(flow, limit):
    """STORAGE_QOS_CONTROL_REQUEST, 112 bytes: NULL PolicyID, Limit."""
    return struct.pack('<HHI16s16s16sQQHHHHQQQQ', 0x0100, 0, QOS_OPTIONS,
                       uuid.UUID(flow).bytes_le, b'\0' * 16,
                       uuid.uuid4().bytes_le, limit, 0, 0, 0, 0, 0,
                       0, 0, 0, 0)


def seal(key, sid, plain):
    """The request in an SMB2 TRANSFORM_HEADER, AES-128-CCM (MS-SMB2 3.1.4.3)."""
    nonce = os.urandom(11)
    aad = struct.pack('<16sIHHQ', nonce + bytes(5), len(plain), 0, 1, sid)
    cipher = AES.new(key, AES.MODE_CCM, nonce)
    cipher.update(aad)
    body = cipher.encrypt(bytes(plain))
    return b'\xfdSMB' + cipher.digest() + aad + body


def read_exact(sock, n):
    buf = b''
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


class Hog:
    """One connection: a session, a tagged open, READs in flight."""

    def __init__(self, host, share, user, password, name, flow, count):
        self.count = count
        self.answered = 0
        self.lock = threading.Lock()
        conn = smb3.SMB3(host, host, preferredDialect=s.SMB2_DIALECT_302)
        conn.login(user, password)
        tid = conn.connectTree(share)
        fid = conn.create(tid, name, s.FILE_READ_DATA, s.FILE_SHARE_READ,
                          s.FILE_NON_DIRECTORY_FILE, s.FILE_OPEN, 0)
        out = conn.ioctl(tid, fid, FSCTL_STORAGE_QOS_CONTROL,
                         s.SMB2_0_IOCTL_IS_FSCTL, qos_request(flow, 1),
                         maxInputResponse=0, maxOutputResponse=88)
        if out is None or len(out) != QOS_RESPONSE.size:
            sys.exit('a %s-byte answer to the FSCTL, want 88'
                     % (None if out is None else len(out)))
        f = QOS_RESPONSE.unpack(out)
        say('tagged flow=%s status=%d max_rate=%d'
            % (uuid.UUID(bytes_le=f[3]), f[7], f[8]))
        if f[8] != 1:
            sys.exit('MaximumIoRate %d, want 1' % f[8])
        # Credits for COUNT READs in flight: every answer grants up to
        # the 127 that impacket asks for.
        for _ in range(count // 120 + 2):
            if not conn.echo():
                sys.exit('ECHO failed')
        self.conn = conn
        self.tid = tid
        self.fid = fid
        self.sock = conn._NetBIOSSession.get_socket()
        self.sealed = bool(conn._Session['SessionFlags'] &
                           s.SMB2_SESSION_FLAG_ENCRYPT_DATA)
        self.signed = conn._Session['SigningActivated'] and not self.sealed
        self.mid = conn._Connection['SequenceWindow']
        self.sid = conn._Session['SessionID']

    def reader(self):
        """Count the NetBIOS session messages (SMB2 answers) until EOF."""
        try:
            while True:
                hdr = read_exact(self.sock, 4)
                read_exact(self.sock, struct.unpack('>I', hdr)[0] & 0xffffff)
                with self.lock:
                    self.answered += 1
        except (EOFError, OSError):
            return

    def get(self):
        with self.lock:
            return self.answered

    def frame(self, packet):
        """@packet as sent on the wire, with the next MessageId."""
        packet['MessageID'] = self.mid
        packet['SessionID'] = self.sid
        packet['CreditCharge'] = 1
        packet['CreditRequestResponse'] = 127
        self.mid += 1
        msg = packet.getData()
        if self.sealed:
            msg = seal(self.conn._Session['EncryptionKey'], self.sid, msg)
        return struct.pack('>I', len(msg)) + msg

    def send_reads(self):
        threading.Thread(target=self.reader, daemon=True).start()
        packet = self.conn.SMB_PACKET()
        packet['Command'] = s.SMB2_READ
        packet['TreeID'] = self.tid
        rd = s.SMB2Read()
        rd['Padding'] = 0x50
        rd['FileID'] = self.fid
        rd['Length'] = READ_SIZE
        rd['Offset'] = 0
        packet['Data'] = rd
        if self.signed:
            # Signed only: impacket builds and signs every request.
            for _ in range(self.count):
                self.conn.sendSMB(packet)
            return
        # One template; only the MessageId (header offset 24) changes.
        packet['MessageID'] = self.mid
        packet['SessionID'] = self.sid
        packet['CreditCharge'] = 1
        packet['CreditRequestResponse'] = 127
        tmpl = bytearray(packet.getData())
        frames = bytearray()
        for i in range(self.count):
            struct.pack_into('<Q', tmpl, 24, self.mid + i)
            msg = seal(self.conn._Session['EncryptionKey'], self.sid, tmpl) \
                if self.sealed else tmpl
            frames += struct.pack('>I', len(msg)) + msg
        self.mid += self.count
        self.sock.sendall(frames)

    def logoff(self):
        """LOGOFF; the seconds until every request had its answer."""
        packet = self.conn.SMB_PACKET()
        packet['Command'] = s.SMB2_LOGOFF
        packet['Data'] = s.SMB2Logoff()
        if self.signed:
            self.conn.sendSMB(packet)
        else:
            self.sock.sendall(self.frame(packet))
        t0 = time.monotonic()
        while self.get() < self.count + 1 and time.monotonic() - t0 < 15:
            time.sleep(0.1)
        return time.monotonic() - t0

    def drop(self):
        """The connection ends as a lost one does: no CLOSE, no LOGOFF."""
        self.sock.shutdown(socket.SHUT_RDWR)


def main(argv):
    if len(argv) != 11:
        sys.exit(__doc__)
    host, share, user, password, name = argv[1:6]
    flow, count, flow2, count2, until = argv[6:11]
    a = Hog(host, share, user, password, name, flow, int(count))
    b = Hog(host, share, user, password, name, flow2, int(count2))
    a.send_reads()
    b.send_reads()
    say('sent %d %d%s' % (a.count, b.count, ' sealed' if a.sealed else ''))
    while not os.path.exists(until):
        time.sleep(1)
        say('answered %d %d' % (a.get(), b.get()))
    secs = b.logoff()
    say('logoff answered=%d of %d in %.1f s' % (b.get(), b.count + 1, secs))
    b.drop()
    a.drop()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
