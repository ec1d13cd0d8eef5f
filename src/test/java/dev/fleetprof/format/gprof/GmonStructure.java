package dev.fleetprof.format.gprof;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A deliberately simple, independent walk over a gmon file whose flavor, pointer size and byte
 * order the test already knows (from how the sample was made). It lists the records and every
 * multi-byte numeric field, so tests can compute expected error offsets and convert files between
 * byte orders without relying on the decoder under test.
 */
final class GmonStructure {
  /** A record: 'H' histogram, 'A' arc, 'B' basic-block record, 'h' BSD header+bins, 'a' BSD arc. */
  record Rec(char type, int offset, int end, int countField) {}

  /** A numeric field to byte-swap. */
  record Field(int offset, int size) {}

  final List<Rec> records = new ArrayList<>();
  final List<Field> fields = new ArrayList<>();

  GmonStructure(byte[] d, GmonFlavor flavor, int p, ByteOrder order, int bbCountWidth) {
    ByteBuffer b = ByteBuffer.wrap(d).order(order);
    if (flavor.isGnu()) {
      fields.add(new Field(4, 4));
      int off = 20;
      while (off < d.length) {
        int tag = d[off] & 0xff;
        int start = off;
        off++;
        switch (tag) {
          case 0:
            {
              fields.add(new Field(off, p));
              fields.add(new Field(off + p, p));
              int countField = off + 2 * p;
              fields.add(new Field(countField, 4));
              fields.add(new Field(countField + 4, 4));
              int n = b.getInt(countField);
              off = countField + 8 + 16;
              for (int i = 0; i < n; i++) {
                fields.add(new Field(off + 2 * i, 2));
              }
              off += 2 * n;
              records.add(new Rec('H', start, off, countField));
              break;
            }
          case 1:
            fields.add(new Field(off, p));
            fields.add(new Field(off + p, p));
            fields.add(new Field(off + 2 * p, 4));
            off += 2 * p + 4;
            records.add(new Rec('A', start, off, -1));
            break;
          case 2:
            {
              int countField = off;
              fields.add(new Field(off, bbCountWidth));
              long n = bbCountWidth == 8 ? b.getLong(off) : b.getInt(off);
              off += bbCountWidth;
              for (long i = 0; i < n; i++) {
                fields.add(new Field(off, p));
                fields.add(new Field(off + p, p));
                off += 2 * p;
              }
              records.add(new Rec('B', start, off, countField));
              break;
            }
          default:
            throw new IllegalArgumentException("tag " + tag + " at " + start);
        }
      }
      if (off != d.length) {
        throw new IllegalArgumentException("records end at " + off + ", file at " + d.length);
      }
    } else {
      boolean bsd44 = flavor == GmonFlavor.BSD_44;
      int hdr = bsd44 ? 2 * p + 24 : 2 * p + 4;
      fields.add(new Field(0, p));
      fields.add(new Field(p, p));
      fields.add(new Field(2 * p, 4));
      if (bsd44) {
        fields.add(new Field(2 * p + 4, 4));
        fields.add(new Field(2 * p + 8, 4));
      }
      int ncnt = b.getInt(2 * p);
      for (int off = hdr; off < ncnt; off += 2) {
        fields.add(new Field(off, 2));
      }
      records.add(new Rec('h', 0, ncnt, 2 * p));
      int off = ncnt;
      while (off + 3 * p <= d.length) {
        fields.add(new Field(off, p));
        fields.add(new Field(off + p, p));
        fields.add(new Field(off + 2 * p, p));
        records.add(new Rec('a', off, off + 3 * p, -1));
        off += 3 * p;
      }
      if (off != d.length) {
        throw new IllegalArgumentException("arcs end at " + off + ", file at " + d.length);
      }
    }
  }

  List<Rec> of(char type) {
    List<Rec> l = new ArrayList<>();
    for (Rec r : records) {
      if (r.type() == type) {
        l.add(r);
      }
    }
    return l;
  }

  /**
   * A copy of {@code d} with every numeric field's bytes reversed (little- to big-endian or back).
   */
  byte[] swapped(byte[] d) {
    byte[] out = d.clone();
    for (Field f : fields) {
      for (int i = 0; i < f.size(); i++) {
        out[f.offset() + i] = d[f.offset() + f.size() - 1 - i];
      }
    }
    return out;
  }
}
