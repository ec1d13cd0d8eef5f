package dev.fleetprof.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.format.ProfileFormat;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.format.ProfileRecordReader;
import dev.fleetprof.format.dcpi.DcpiFormat;
import dev.fleetprof.format.dcpi.DcpiHeader;
import dev.fleetprof.format.dcpi.DcpiProfileReader;
import dev.fleetprof.format.gperftools.CpuProfileHeader;
import dev.fleetprof.format.gperftools.CpuProfileLayout;
import dev.fleetprof.format.gperftools.CpuProfileReader;
import dev.fleetprof.format.gperftools.GperftoolsFormat;
import dev.fleetprof.format.gprof.GmonFile;
import dev.fleetprof.format.gprof.GmonLayout;
import dev.fleetprof.format.gprof.GmonOptions;
import dev.fleetprof.format.gprof.GmonReader;
import dev.fleetprof.format.gprof.GprofFormat;
import dev.fleetprof.format.pprof.PprofFormat;
import dev.fleetprof.format.pprof.PprofReader;
import dev.fleetprof.format.pprof.PprofTables;
import dev.fleetprof.testing.DecodedRecord;
import dev.fleetprof.testing.TestSources;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs the decoders the way the Spark layer does and holds them to the contract it relies on:
 * complete records or a {@link ProfileFormatException} naming the file and an offset inside it;
 * nothing else thrown, no allocation beyond a small bound plus a multiple of the input's size, and
 * records whose offsets move strictly forward. The fuzz tests, the truncation and corruption tests
 * share it.
 */
final class Decode {
  /** Buffers, readers and one-time class initialisation: the bound's fixed part. */
  static final long ALLOCATION_SLACK = 16L << 20;

  /** Copied-out records and the maps text cost a few times the input; 64 leaves room. */
  static final long ALLOCATION_PER_BYTE = 64;

  private static final ThreadLocal<byte[]> SLOT_BUFFER =
      ThreadLocal.withInitial(() -> new byte[1 << 18]);
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private Decode() {}

  /** A decoder under test: what it made of {@code src}, errors included. */
  interface Decoder {
    Decoded decode(ByteSource src) throws IOException;
  }

  /**
   * Decodes {@code src} (whose bytes number {@code dataLength}) and checks the contract; any other
   * exception, an allocation over the bound or a broken invariant is an AssertionError (a finding).
   */
  static Decoded checked(Decoder decoder, ByteSource src, int dataLength) {
    long bound = ALLOCATION_SLACK + ALLOCATION_PER_BYTE * dataLength;
    long[] used = new long[1];
    Decoded d = run(decoder, src, used);
    if (used[0] > bound) {
      // The first run of a code path loads (and, under Jazzer, instruments) classes in this thread;
      // an allocation driven by the input happens again.
      d = run(decoder, src, used);
      assertTrue(
          used[0] <= bound,
          src.name()
              + ": decoding "
              + dataLength
              + " bytes allocated "
              + used[0]
              + " bytes, over the bound of "
              + bound);
    }
    long last = -1;
    for (DecodedRecord r : d.records()) {
      if (r.offset() <= last || r.offset() >= dataLength) {
        fail(
            src.name()
                + ": record offset "
                + r.offset()
                + " after "
                + last
                + " in "
                + dataLength
                + " bytes");
      }
      last = r.offset();
    }
    if (d.error() != null) {
      ProfileFormatException e = d.error();
      assertEquals(src.name(), e.file(), "the error names the file");
      assertTrue(
          e.offset() >= 0 && e.offset() <= dataLength,
          "error offset "
              + e.offset()
              + " outside the "
              + dataLength
              + "-byte input: "
              + e.getMessage());
      assertTrue(
          e.getMessage().startsWith(src.name() + ": at byte offset " + e.offset() + ": "),
          e.getMessage());
    }
    return d;
  }

  private static Decoded run(Decoder decoder, ByteSource src, long[] allocated) {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    try {
      return decoder.decode(src);
    } catch (IOException | RuntimeException | Error e) {
      // The sources are in memory and never fail: every exception here came from a decoder.
      throw new AssertionError(src.name() + ": the decoder threw " + e, e);
    } finally {
      allocated[0] = THREADS.getCurrentThreadAllocatedBytes() - before;
    }
  }

  /**
   * Decodes the same bytes from a known-length source and from a trickling unknown-length one (a
   * .gz file): both must agree on whether the input is valid and give the same records.
   */
  static Decoded both(Decoder decoder, String name, byte[] data, int len) {
    return both(decoder, name, data, len, true);
  }

  /**
   * As {@link #both(Decoder, String, byte[], int)}; with {@code exact} false, on bad input the two
   * may stop at different records — a known length lets the DCPI decoder refuse a chunk that cannot
   * fit before reading it, a stream is read until it ends — but the records of one must be the
   * first records of the other.
   */
  static Decoded both(Decoder decoder, String name, byte[] data, int len, boolean exact) {
    Decoded known = checked(decoder, TestSources.bytes(name, data, len), len);
    Decoded unknown = checked(decoder, TestSources.unknownLength(name, data, len, true), len);
    assertEquals(
        known.clean(),
        unknown.clean(),
        name + ": known length " + known.outcome() + ", unknown length " + unknown.outcome());
    List<DecodedRecord> a = known.records();
    List<DecodedRecord> b = unknown.records();
    if (exact || known.clean()) {
      assertEquals(a, b, name + ": the records differ with an unknown length");
    } else {
      List<DecodedRecord> shorter = a.size() <= b.size() ? a : b;
      List<DecodedRecord> longer = a.size() <= b.size() ? b : a;
      assertEquals(
          shorter,
          longer.subList(0, shorter.size()),
          name + ": the records differ with an unknown length");
    }
    return known;
  }

  /**
   * {@link #auto} on a known-length and an unknown-length source, as {@link #both}, but for old-BSD
   * gmon files: they have no magic, only their length identifies them, so a stream of unknown
   * length is refused ("not a profile") where the same bytes in a plain file are read.
   */
  static Decoded autoBoth(String name, byte[] data, int len) {
    int n = Math.min(len, ProfileFormats.HEAD_BYTES);
    String format = formatName(data, n, len);
    if (GprofFormat.NAME.equals(format) && GmonFile.sniff(data, n, -1) == null) {
      Decoded unknown =
          checked(Decode::auto, TestSources.unknownLength(name, data, len, true), len);
      assertTrue(
          unknown.error() != null && unknown.error().problem().startsWith("not a profile"),
          name + ": " + unknown.outcome());
      return checked(Decode::auto, TestSources.bytes(name, data, len), len);
    }
    return both(Decode::auto, name, data, len, !DcpiFormat.NAME.equals(format));
  }

  /** The name of the format {@link ProfileFormats#detect} finds, or null. */
  static String formatName(byte[] head, int len, long fileLength) {
    ProfileFormat f = ProfileFormats.detect(head, len, fileLength);
    return f == null ? null : f.name();
  }

  // ------------------------------------------------------------------ the decoders, as Spark runs
  // them

  /**
   * Detection then decoding, as the {@code profile} source reads a file with {@code format=auto}.
   */
  static Decoded auto(ByteSource src) throws IOException {
    byte[] head = new byte[ProfileFormats.HEAD_BYTES];
    int n = readHead(src, head);
    if (n == 0) {
      return new Decoded(List.of(), null, Decoded.COMPLETE, List.of()); // 0-byte files: no rows
    }
    String format;
    try {
      format = ProfileFormats.require(src.name(), head, n, src.length()).name();
    } catch (ProfileFormatException e) {
      return new Decoded(List.of(), e, null, List.of());
    }
    switch (format) {
      case GperftoolsFormat.NAME:
        return gperftools(src);
      case GprofFormat.NAME:
        return gprof(src);
      case DcpiFormat.NAME:
        return dcpi(src);
      case PprofFormat.NAME:
        return pprof(src);
      default:
        // A format registered from outside (META-INF/services) has no checks of its own here:
        // its records as the source would read them.
        return generic(ProfileFormats.byName(format), src);
    }
  }

  /**
   * Every record of {@code src} through the format's own reader only ({@link ProfileFormat#open}),
   * as the source reads any format: what the per-format decoders above check beyond that, they
   * check of the built-in formats' internals.
   */
  static Decoded generic(ProfileFormat format, ByteSource src) throws IOException {
    List<DecodedRecord> recs = new ArrayList<>();
    try (ProfileRecordReader r = format.open(src, DecodeOptions.ALL)) {
      while (r.next()) {
        long[] pcs = new long[r.depth()];
        for (int i = 0; i < pcs.length; i++) {
          pcs[i] = r.pc(i);
        }
        recs.add(new DecodedRecord(r.recordOffset(), r.kind(), r.count(), pcs, ""));
      }
      return new Decoded(
          recs, null, r.truncated() ? Decoded.TRUNCATED : Decoded.COMPLETE, mappings(r.mappings()));
    } catch (ProfileFormatException e) {
      return new Decoded(recs, e, null, List.of());
    }
  }

  /**
   * Header, layout (head and tail, or a walk when the length is unknown) and every record, decoded
   * with call chains and again skipping them (the {@code sum(count)} path): both must agree.
   */
  static Decoded gperftools(ByteSource src) throws IOException {
    return gperftools(src, true);
  }

  /**
   * As {@link #gperftools(ByteSource)}; without {@code skipTwice}, only as Spark reads all columns.
   */
  static Decoded gperftools(ByteSource src, boolean skipTwice) throws IOException {
    String name = src.name();
    long len = src.length();
    byte[] head = new byte[ProfileFormats.HEAD_BYTES];
    int n = readHead(src, head);
    List<DecodedRecord> recs = new ArrayList<>();
    CpuProfileHeader h;
    CpuProfileLayout layout;
    String end;
    try {
      h = CpuProfileHeader.parse(name, head, n, len);
      layout = CpuProfileLayout.read(src);
      int w = h.slotWidth();
      if (layout.hasTrailer()) {
        long t = layout.trailerOffset();
        assertTrue(
            t >= h.recordsStart()
                && (t - h.recordsStart()) % w == 0
                && (len < 0 || t + 3L * w <= len),
            name + ": trailer offset " + t);
      }
      try (InputStream in = src.open(0)) {
        CpuProfileReader r = CpuProfileReader.wholeFile(name, h, in, len, true, SLOT_BUFFER.get());
        long at = h.recordsStart();
        while (r.next()) {
          // Records are contiguous, and the reader consumed exactly each one.
          long next = at + (2L + r.depth()) * w;
          if (r.recordOffset() != at
              || r.depth() < 0
              || r.depth() > CpuProfileReader.MAX_DEPTH
              || r.position() != next) {
            fail(
                name
                    + ": record at "
                    + r.recordOffset()
                    + " of depth "
                    + r.depth()
                    + ", expected at "
                    + at
                    + ", read up to "
                    + r.position());
          }
          recs.add(new DecodedRecord(at, r.count(), Arrays.copyOf(r.pcs(), r.depth())));
          at = next;
        }
        end = r.end().name();
        assertEquals(at, r.stopOffset(), name + ": stops where the last record ended");
      }
    } catch (ProfileFormatException e) {
      return new Decoded(recs, e, null, List.of());
    }
    if (!skipTwice) {
      return new Decoded(recs, null, end, mappings(layout.mappings()));
    }
    try (InputStream in = src.open(0)) {
      CpuProfileReader r = CpuProfileReader.wholeFile(name, h, in, len, false, SLOT_BUFFER.get());
      int i = 0;
      while (r.next()) {
        DecodedRecord e = recs.get(i++);
        if (e.offset() != r.recordOffset()
            || e.count() != r.count()
            || e.pcs().length != r.depth()) {
          fail(name + ": skipping chains read " + r.recordOffset());
        }
      }
      assertEquals(recs.size(), i, name + ": skipping chains found another number of records");
      assertEquals(end, r.end().name(), name + ": skipping chains ended otherwise");
    } catch (ProfileFormatException e) {
      throw new AssertionError(name + ": skipping chains failed where decoding them did not", e);
    }
    return new Decoded(recs, null, end, mappings(layout.mappings()));
  }

  static Decoded gprof(ByteSource src) throws IOException {
    return gprof(src, null);
  }

  /** Every row, the layout detected ({@code layout == null}) or given. */
  static Decoded gprof(ByteSource src, GmonLayout layout) throws IOException {
    List<DecodedRecord> recs = new ArrayList<>();
    try (GmonReader r =
        layout == null ? GmonFile.open(src, GmonOptions.auto()) : GmonFile.open(src, layout)) {
      while (r.next()) {
        String kind = r.kind();
        boolean arc = GmonReader.KIND_ARC.equals(kind);
        boolean bin = GmonReader.KIND_HISTOGRAM.equals(kind);
        if (r.depth() != (arc ? 2 : 1) || (bin && (r.count() <= 0 || r.count() > 0xffff))) {
          fail(src.name() + ": " + kind + " of depth " + r.depth() + ", count " + r.count());
        }
        long[] pcs = arc ? new long[] {r.pc(0), r.pc(1)} : new long[] {r.pc(0)};
        String extra =
            bin
                ? "end=0x"
                    + Long.toHexString(r.binEnd())
                    + " rate="
                    + r.profRate()
                    + " dim="
                    + r.dimension()
                    + "/"
                    + r.dimensionAbbrev()
                    + " bin="
                    + r.binIndex()
                    + "/"
                    + r.histogramBins()
                : "";
        recs.add(new DecodedRecord(r.recordOffset(), kind, r.count(), pcs, extra));
      }
      return new Decoded(recs, null, Decoded.COMPLETE, List.of());
    } catch (ProfileFormatException e) {
      return new Decoded(recs, e, null, List.of());
    }
  }

  /** Header and every sample; a reader that returns false has checked the footer. */
  static Decoded dcpi(ByteSource src) throws IOException {
    List<DecodedRecord> recs = new ArrayList<>();
    try (DcpiProfileReader r = DcpiProfileReader.open(src)) {
      DcpiHeader h = r.header();
      while (r.next()) {
        long a = r.address();
        if (r.count() <= 0
            || r.count() > 0xffffffffL
            || Long.compareUnsigned(a, h.tstart()) < 0
            || Long.compareUnsigned(a, h.textLimit()) >= 0) {
          fail(
              src.name()
                  + ": count "
                  + r.count()
                  + " at 0x"
                  + Long.toHexString(a)
                  + ", outside"
                  + " the text or not a non-zero u32");
        }
        recs.add(new DecodedRecord(r.recordOffset(), r.count(), new long[] {a}));
      }
      assertTrue(r.finished(), src.name() + ": next() returned false before the footer matched");
      return new Decoded(
          recs,
          null,
          Decoded.COMPLETE,
          List.of(new Mapping(h.tstart(), h.textLimit(), 0, h.pathOrImage(), true)));
    } catch (ProfileFormatException e) {
      return new Decoded(recs, e, null, List.of());
    }
  }

  /**
   * Tables then samples, as the {@code profile} source reads a pprof file: every sample's
   * locations, values and labels resolved (the {@code pprof} column's work).
   */
  static Decoded pprof(ByteSource src) throws IOException {
    List<DecodedRecord> recs = new ArrayList<>();
    try (PprofReader r = new PprofFormat().open(src, DecodeOptions.ALL)) {
      PprofTables t = r.tables();
      while (r.next()) {
        long[] pcs = new long[r.depth()];
        for (int i = 0; i < pcs.length; i++) {
          pcs[i] = r.pc(i);
          for (int j = 0; j < t.lineCount(r.location(i)); j++) {
            assertNotNull(t.lineFunction(r.location(i), j));
            assertNotNull(t.lineFile(r.location(i), j));
          }
        }
        for (int i = 0; i < r.labels(); i++) {
          assertNotNull(r.labelKey(i));
        }
        recs.add(new DecodedRecord(r.recordOffset(), r.count(), pcs));
      }
      return new Decoded(recs, null, Decoded.COMPLETE, mappings(r.mappings()));
    } catch (ProfileFormatException e) {
      return new Decoded(recs, e, null, List.of());
    }
  }

  private static List<Mapping> mappings(MappingIndex index) {
    List<Mapping> out = new ArrayList<>(index.size());
    for (int i = 0; i < index.size(); i++) {
      out.add(index.get(i));
    }
    return out;
  }

  static int readHead(ByteSource src, byte[] head) throws IOException {
    try (InputStream in = src.open(0)) {
      return in.readNBytes(head, 0, head.length);
    }
  }
}
