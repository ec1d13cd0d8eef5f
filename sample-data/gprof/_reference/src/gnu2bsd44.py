#!/usr/bin/env python3
"""Seed converter used by ../regenerate.sh: GNU gmon.out (64-bit, little-endian) -> 4.4BSD gmon file.

gprof's -O/--file-format option selects the format of the files it READS as well as the one it
writes, so `gprof -s -O bsd prog gmon.out` rejects a GNU-format gmon.out. regenerate.sh therefore
converts the real GNU file into a 4.4BSD seed with this script, then lets gprof read the seed and
write the sample files (`gprof -s -O 4` and `gprof -s -O b`). The seed itself is not kept.

Accepts exactly one histogram record plus call-arc records (what glibc writes); BSD files hold one
histogram and no basic-block counts.
"""
import struct
import sys

P = 8
E = '<'


def main(src, dst):
    d = open(src, 'rb').read()
    if d[:4] != b'gmon' or struct.unpack_from(E + 'I', d, 4)[0] != 1:
        sys.exit('%s: not a little-endian version-1 gmon file' % src)
    off = 20
    hist = None
    arcs = []
    while off < len(d):
        tag = d[off]
        off += 1
        if tag == 0:
            if hist is not None:
                sys.exit('more than one histogram record')
            lo, hi, n, rate = struct.unpack_from(E + 'QQII', d, off)
            off += 2 * P + 8 + 16
            hist = (lo, hi, n, rate, d[off:off + 2 * n])
            off += 2 * n
        elif tag == 1:
            frm, slf, cnt = struct.unpack_from(E + 'QQI', d, off)
            off += 2 * P + 4
            arcs.append((frm, slf, cnt))
        else:
            sys.exit('unsupported record tag %d at offset %d' % (tag, off - 1))
    if hist is None:
        sys.exit('no histogram record')
    lo, hi, n, rate, bins = hist
    header = 2 * P + 4 + 4 + 4 + 12
    out = struct.pack(E + 'QQIII', lo, hi, header + 2 * n, 0x00051879, rate) + b'\0' * 12 + bins
    for frm, slf, cnt in arcs:
        out += struct.pack(E + 'QQQ', frm, slf, cnt)
    open(dst, 'wb').write(out)


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: gnu2bsd44.py GMON_OUT SEED_OUT')
    main(sys.argv[1], sys.argv[2])
