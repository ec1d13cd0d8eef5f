package dev.fleetprof.format.dcpi;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Writes the DCPI sample files of {@code sample-data/dcpi/} from the dcpiformat(4) page: valid
 * files (several sizes, an unaligned header, a {@code pdb-0.06} file, counts near 2^32 with a
 * wrapping total, optional and unknown header keys, no chunks, instruction-unit offsets) and
 * malformed variants. For every file it also writes {@code <file>.expected}: for a valid file the
 * totals and addresses it computed from the chunks it wrote; for a malformed file the stage (header
 * or records), the byte offset and a fragment of the error the decoder must report. Deterministic:
 * fixed seeds, no clock, no environment. It shares no code with the decoder.
 *
 * <p>Layout. The {@code profile} Spark source reads every file under a directory as a profile,
 * skipping only names that start with {@code _} or {@code .}, and the project's main job reads all
 * of {@code sample-data/} with the default options (offset unit {@link DcpiOffsetUnit#BYTES}). So
 * directly in the given folder this writes only the valid profiles that read cleanly with those
 * defaults; everything else goes into its {@value #REFERENCE} subfolder: the README, every {@code
 * .expected} file, the instruction-unit variant and the malformed {@code bad-*} variants (flat, no
 * further subfolder). A file this writes into one of the two folders is removed from the other if
 * present there, so regenerating over an older layout leaves no stale copy behind.
 *
 * <p>Run from the project root: {@code java -cp target/test-classes
 * dev.fleetprof.format.dcpi.DcpiSampleGenerator sample-data/dcpi} (after {@code mvn test-compile}).
 */
public final class DcpiSampleGenerator {
  static final String README_COMMAND =
      "mvn -q test-compile && java -cp target/test-classes"
          + " dev.fleetprof.format.dcpi.DcpiSampleGenerator sample-data/dcpi";

  /**
   * Subfolder (skipped by the profile source) for everything that is not a default-readable
   * profile.
   */
  static final String REFERENCE = "_reference";

  private final Path dir;
  private final Path ref;

  private DcpiSampleGenerator(Path dir) {
    this.dir = dir;
    this.ref = dir.resolve(REFERENCE);
  }

  public static void main(String[] args) throws IOException {
    Path dir = Paths.get(args.length > 0 ? args[0] : "sample-data/dcpi");
    generate(dir);
    System.out.println("wrote DCPI samples to " + dir.toAbsolutePath());
  }

  /**
   * Writes the default-readable profiles into {@code dir}, and the README, the expected-values
   * files, the instruction-unit and the malformed variants into {@code dir/_reference}.
   */
  public static void generate(Path dir) throws IOException {
    Files.createDirectories(dir.resolve(REFERENCE));
    new DcpiSampleGenerator(dir).all();
  }

  // ---------------------------------------------------------------- model

  /** One chunk: offset in the file's unit, then one count per address. */
  static final class Chunk {
    final long offset;
    final long[] counts;

    Chunk(long offset, long[] counts) {
      this.offset = offset;
      this.counts = counts;
    }
  }

  /** A file to write: header lines (raw text, without newline), samples padding, chunks. */
  static final class Profile {
    final List<String> lines = new ArrayList<>();
    String samplesLine = "samples";
    boolean alignBinary = true;
    boolean instructionUnits;
    long tstart;
    long tsize;
    List<Chunk> chunks = new ArrayList<>();

    Profile line(String text) {
      lines.add(text);
      return this;
    }

    byte[] header() {
      StringBuilder sb = new StringBuilder();
      for (String l : lines) {
        sb.append(l).append('\n');
      }
      String samples = samplesLine;
      int len = sb.toString().getBytes(StandardCharsets.UTF_8).length + samples.length() + 1;
      if (alignBinary) {
        // The page's advice: pad the last line with whitespace so the binary part is 4-byte
        // aligned.
        while (len % 4 != 0) {
          samples += " ";
          len++;
        }
      }
      sb.append(samples).append('\n');
      return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    long nonZero() {
      long n = 0;
      for (Chunk c : chunks) {
        for (long v : c.counts) {
          if (v != 0) {
            n++;
          }
        }
      }
      return n;
    }

    long sum() {
      long s = 0;
      for (Chunk c : chunks) {
        for (long v : c.counts) {
          s += v;
        }
      }
      return s;
    }

    long address(Chunk c, int i) {
      return instructionUnits ? tstart + 4 * (c.offset + i) : tstart + c.offset + 4L * i;
    }

    /** Header + chunks + footer (the footer computed from the chunks). */
    byte[] bytes() {
      return bytes(nonZero() & 0xffffffffL, sum() & 0xffffffffL);
    }

    byte[] bytes(long footerOffsets, long footerSamples) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.writeBytes(header());
      for (Chunk c : chunks) {
        u32(out, c.offset);
        u32(out, c.counts.length);
        for (long v : c.counts) {
          u32(out, v);
        }
      }
      u32(out, footerOffsets);
      u32(out, footerSamples);
      return out.toByteArray();
    }

    /** File offset where chunk {@code k} starts. */
    long chunkAt(int k) {
      long at = header().length;
      for (int i = 0; i < k; i++) {
        at += 8 + 4L * chunks.get(i).counts.length;
      }
      return at;
    }
  }

  static void u32(ByteArrayOutputStream out, long v) {
    out.write((int) v);
    out.write((int) (v >>> 8));
    out.write((int) (v >>> 16));
    out.write((int) (v >>> 24));
  }

  static Profile standardHeader(Profile p, String version, String epoch) {
    p.line("version pdb-" + version)
        .line("image 3a5f0c1e9b7d2468")
        .line("epoch " + epoch)
        .line("platform alpha-osf1-v4.0")
        .line("event cycles")
        .line("period 62464")
        .line("tstart " + Long.toHexString(p.tstart))
        .line("tsize " + p.tsize)
        .line("cpuspeed 500");
    return p;
  }

  /**
   * Chunks shaped like a profile of real code: hot "functions" separated by cold gaps; inside a
   * function most instructions have a small count, a few a large one (heavy tail), some none. Runs
   * of non-zero counts become chunks; short runs of zeros (up to {@code bridge}) are kept inside a
   * chunk. Offsets in bytes (multiples of 4) or in instructions. Sets {@code tsize} to cover the
   * chunks.
   */
  static void fillChunks(Profile p, Random rnd, int targetCounts, int bridge) {
    List<long[]> addrCounts = new ArrayList<>(); // {instructionIndex, count}
    long index = rnd.nextInt(64);
    while (addrCounts.size() < targetCounts) {
      index += 1 + (long) (rnd.nextDouble() * rnd.nextDouble() * 4000);
      int fn = 4 + rnd.nextInt(200);
      double density = 0.3 + 0.7 * rnd.nextDouble();
      for (int i = 0; i < fn && addrCounts.size() < targetCounts; i++, index++) {
        if (rnd.nextDouble() < density) {
          addrCounts.add(new long[] {index, sampleCount(rnd)});
        }
      }
    }
    List<Chunk> chunks = new ArrayList<>();
    int i = 0;
    while (i < addrCounts.size()) {
      int j = i;
      while (j + 1 < addrCounts.size()
          && addrCounts.get(j + 1)[0] - addrCounts.get(j)[0] <= bridge + 1) {
        j++;
      }
      long first = addrCounts.get(i)[0];
      long[] counts = new long[(int) (addrCounts.get(j)[0] - first + 1)];
      for (int k = i; k <= j; k++) {
        counts[(int) (addrCounts.get(k)[0] - first)] = addrCounts.get(k)[1];
      }
      chunks.add(new Chunk(p.instructionUnits ? first : 4 * first, counts));
      i = j + 1;
    }
    p.chunks = chunks;
    long lastIndex = addrCounts.isEmpty() ? 0 : addrCounts.get(addrCounts.size() - 1)[0];
    p.tsize = 4 * (lastIndex + 1 + rnd.nextInt(2048));
  }

  static long sampleCount(Random rnd) {
    double r = rnd.nextDouble();
    if (r < 0.80) {
      long c = 1;
      while (rnd.nextDouble() < 0.6) {
        c++;
      }
      return c;
    }
    if (r < 0.97) {
      return 10 + (long) Math.exp(rnd.nextDouble() * Math.log(2000));
    }
    return 1000 + (long) Math.exp(rnd.nextDouble() * Math.log(5_000_000));
  }

  // ---------------------------------------------------------------- writing

  private final Map<String, String> readme = new LinkedHashMap<>();

  /**
   * Writes {@code bytes} as {@code name} into the top folder, or into {@code _reference/} if {@code
   * reference}, and removes a same-named file from the other folder (left by an older layout).
   */
  private void put(String name, byte[] bytes, boolean reference) throws IOException {
    Files.write((reference ? ref : dir).resolve(name), bytes);
    Files.deleteIfExists((reference ? dir : ref).resolve(name));
  }

  private void write(String name, byte[] bytes, boolean reference, String description)
      throws IOException {
    put(name, bytes, reference);
    readme.put(reference ? REFERENCE + "/" + name : name, description);
  }

  private void writeExpected(String name, List<String> kv) throws IOException {
    List<String> out = new ArrayList<>();
    out.add("# written by DcpiSampleGenerator from the data it wrote into " + name);
    out.addAll(kv);
    put(
        name + ".expected",
        String.join("\n", out).concat("\n").getBytes(StandardCharsets.UTF_8),
        true);
  }

  private void valid(String name, Profile p, String description) throws IOException {
    byte[] bytes = p.bytes();
    // only the profiles the default offset unit (bytes) reads cleanly stay in the top folder
    write(name, bytes, p.instructionUnits, description);
    List<String> kv = new ArrayList<>();
    kv.add("offset_unit=" + (p.instructionUnits ? "instructions" : "bytes"));
    kv.add("length=" + bytes.length);
    kv.add("binary_start=" + p.header().length);
    kv.add("chunks=" + p.chunks.size());
    kv.add("nonzero_addresses=" + p.nonZero());
    kv.add("sum_counts=" + p.sum());
    kv.add("sum_counts_mod_2_32=" + (p.sum() & 0xffffffffL));
    String first = "none";
    String last = "none";
    for (Chunk c : p.chunks) {
      for (int i = 0; i < c.counts.length; i++) {
        if (c.counts[i] != 0) {
          String a = "0x" + Long.toHexString(p.address(c, i));
          if (first.equals("none")) {
            first = a;
          }
          last = a;
        }
      }
    }
    kv.add("first_address=" + first);
    kv.add("last_address=" + last);
    writeExpected(name, kv);
  }

  private void malformed(
      String name, byte[] bytes, String stage, long offset, String error, String description)
      throws IOException {
    write(name, bytes, true, description);
    writeExpected(name, List.of("stage=" + stage, "offset=" + offset, "error=" + error));
  }

  private static long lineOffset(byte[] header, String linePrefix) {
    String h = new String(header, StandardCharsets.UTF_8);
    int i = h.startsWith(linePrefix) ? 0 : h.indexOf("\n" + linePrefix) + 1;
    if (i <= 0 && !h.startsWith(linePrefix)) {
      throw new IllegalStateException("no line " + linePrefix);
    }
    return h.substring(0, i).getBytes(StandardCharsets.UTF_8).length;
  }

  private void all() throws IOException {
    // ---- valid files
    Profile small = new Profile();
    small.tstart = 0x120000000L;
    fillChunks(small, new Random(1), 24, 2);
    standardHeader(small, "0.07", "9707151200");
    valid("valid-small.prof", small, "small valid file (aligned binary part, 10-digit epoch)");

    Profile medium = new Profile();
    medium.tstart = 0x120010000L;
    fillChunks(medium, new Random(2), 8_000, 3);
    // chunks may hold zero counts: one with zeros at both ends, and one of zeros only
    long afterLast =
        medium.chunks.get(medium.chunks.size() - 1).offset
            + 4L * medium.chunks.get(medium.chunks.size() - 1).counts.length;
    medium.chunks.add(new Chunk(afterLast + 64, new long[] {0, 0, 7, 0, 3, 0}));
    medium.chunks.add(new Chunk(afterLast + 256, new long[] {0, 0, 0}));
    medium.tsize = Math.max(medium.tsize, afterLast + 256 + 12 + 4096);
    standardHeader(medium, "0.07", "199803011230");
    valid(
        "valid-medium.prof",
        medium,
        "medium valid file (12-digit epoch, zero counts inside chunks, an all-zero chunk)");

    Profile large = new Profile();
    large.tstart = 0xfffffc0000310000L;
    fillChunks(large, new Random(3), 50_000, 4);
    standardHeader(large, "0.07", "9912312359");
    valid(
        "valid-large.prof",
        large,
        "large valid file, a few hundred KB (kernel-like tstart near 2^64)");

    Profile unaligned = new Profile();
    unaligned.tstart = 0x3ff80000000L;
    unaligned.alignBinary = false;
    fillChunks(unaligned, new Random(4), 300, 1);
    standardHeader(unaligned, "0.07", "0001020304");
    unaligned.line("path /usr/shlib/libc.so");
    if (unaligned.header().length % 4 == 0) {
      unaligned.samplesLine = "samples ";
    }
    valid(
        "valid-unaligned.prof",
        unaligned,
        "binary part at a file offset that is not a multiple of 4 (no padding)");

    Profile v006 = new Profile();
    v006.tstart = 0x120000000L;
    fillChunks(v006, new Random(5), 200, 2);
    standardHeader(v006, "0.06", "9612250800");
    valid("valid-v006.prof", v006, "version pdb-0.06");

    Profile big = new Profile();
    big.tstart = 0x120000000L;
    big.tsize = 4096;
    big.chunks.add(new Chunk(0, new long[] {0xffffffffL, 0xfffffffeL, 0, 0x80000000L}));
    big.chunks.add(new Chunk(64, new long[] {0xfffff000L, 1, 0xffffffffL}));
    big.chunks.add(new Chunk(400, new long[] {0x7fffffffL, 0xfffffff0L}));
    standardHeader(big, "0.07", "9707151200");
    valid(
        "valid-bigcounts.prof",
        big,
        "counts near 2^32; the footer's total_samples wraps modulo 2^32");

    Profile opt = new Profile();
    opt.tstart = 0x140000000L;
    fillChunks(opt, new Random(6), 120, 2);
    opt.line("version\tpdb-0.07")
        .line("image    9B7D2468ABCDEF01")
        .line("epoch 19990704123059")
        .line("hostname alpha7.example.com")
        .line("platform \t alpha-osf1-v4.0 (DEC 3000/500)")
        .line("event dmiss")
        .line("period 4096")
        .line("tstart 0x" + Long.toHexString(opt.tstart))
        .line("tsize " + opt.tsize)
        .line("cpuspeed 333")
        .line("cpuamask 0000000f")
        .line("cpuimplv 2")
        .line("cpucount 4")
        .line("path /vmunix with spaces  ")
        .line("note first")
        .line("x-custom-key value with\ttab")
        .line("note second");
    opt.samplesLine = "samples\t ";
    valid(
        "valid-optional-unknown.prof",
        opt,
        "optional keys, unknown keys (one repeated), tabs, 0x tstart, 14-digit epoch, uppercase hex image");

    Profile noPeriod = new Profile();
    noPeriod.tstart = 0x120000000L;
    fillChunks(noPeriod, new Random(7), 40, 2);
    noPeriod
        .line("version pdb-0.07")
        .line("image 1")
        .line("epoch 9707151200")
        .line("platform alpha")
        .line("event cycles")
        .line("tstart " + Long.toHexString(noPeriod.tstart))
        .line("tsize " + noPeriod.tsize)
        .line("cpuspeed 500");
    valid(
        "valid-no-period.prof", noPeriod, "no period line (the page lists period as optional too)");

    Profile empty = new Profile();
    empty.tstart = 0x120000000L;
    empty.tsize = 8192;
    standardHeader(empty, "0.07", "9707151200");
    valid("valid-empty.prof", empty, "no chunks: footer 0, 0");

    Profile insn = new Profile();
    insn.tstart = 0x120000000L;
    insn.instructionUnits = true;
    fillChunks(insn, new Random(8), 500, 2);
    standardHeader(insn, "0.07", "9707151200");
    valid(
        "valid-instructions.prof",
        insn,
        "offsets in instruction units: read with offset unit INSTRUCTIONS (BYTES rejects it)");

    // ---- malformed files (built from a small valid profile)
    Profile base = new Profile();
    base.tstart = 0x120000000L;
    fillChunks(base, new Random(11), 60, 2);
    standardHeader(base, "0.07", "9707151200");
    byte[] baseBytes = base.bytes();
    byte[] baseHeader = base.header();
    if (base.chunks.size() < 4) {
      throw new IllegalStateException("base profile needs at least 4 chunks");
    }

    long cutHeader = lineOffset(baseHeader, "tstart") + 3;
    malformed(
        "bad-truncated-header.prof",
        Arrays.copyOf(baseBytes, (int) cutHeader),
        "header",
        cutHeader,
        "truncated header",
        "the file ends inside the header, before the samples line");

    {
      // cut inside the largest chunk, far enough that its counts cannot fit before the last 8 bytes
      int k = 0;
      for (int i = 1; i < base.chunks.size() - 1; i++) {
        if (base.chunks.get(i).counts.length > base.chunks.get(k).counts.length) {
          k = i;
        }
      }
      long at = base.chunkAt(k);
      int n = base.chunks.get(k).counts.length;
      long cut = at + 8 + 4L * (n / 2) + 2;
      long room = (cut - 8) - (at + 8);
      if (4L * n <= room) {
        throw new IllegalStateException("truncation does not cut the chunk");
      }
      malformed(
          "bad-truncated-body.prof",
          Arrays.copyOf(baseBytes, (int) cut),
          "records",
          at,
          "remain before the footer",
          "the file ends in the middle of chunk " + k);
    }

    {
      byte[] b = base.bytes(base.nonZero(), (base.sum() + 1) & 0xffffffffL);
      malformed(
          "bad-footer-samples.prof",
          b,
          "records",
          b.length - 4,
          "total_samples",
          "footer total_samples is one more than the sum of the counts");
      byte[] c = base.bytes(base.nonZero() - 1, base.sum() & 0xffffffffL);
      malformed(
          "bad-footer-offsets.prof",
          c,
          "records",
          c.length - 8,
          "total_offsets",
          "footer total_offsets is one less than the addresses with samples");
    }

    {
      Profile p = copy(base);
      int k = 1;
      while (p.chunks.get(k - 1).counts.length < 2) {
        k++;
      }
      Chunk prev = p.chunks.get(k - 1);
      long prevEnd = prev.offset + 4L * prev.counts.length;
      p.chunks.set(k, new Chunk(prevEnd - 4, p.chunks.get(k).counts));
      malformed(
          "bad-overlapping-chunks.prof",
          p.bytes(),
          "records",
          p.chunkAt(k),
          "overlapping chunks",
          "chunk " + k + " starts on the last address of chunk " + (k - 1));
    }

    {
      Profile p = copy(base);
      Chunk c1 = p.chunks.get(1);
      Chunk c2 = p.chunks.get(2);
      p.chunks.set(1, c2);
      p.chunks.set(2, c1);
      malformed(
          "bad-unordered-chunks.prof",
          p.bytes(),
          "records",
          p.chunkAt(2),
          "out of order",
          "chunks 1 and 2 swapped: offsets decrease, ranges do not overlap");
    }

    {
      Profile p = copy(base);
      p.lines.removeIf(l -> l.startsWith("tsize "));
      byte[] h = p.header();
      malformed(
          "bad-missing-required.prof",
          p.bytes(),
          "header",
          lineOffset(h, "samples"),
          "missing required header line tsize",
          "no tsize line");
    }

    {
      Profile p = copy(base);
      p.lines.add(6, "event dmiss");
      byte[] h = p.header();
      malformed(
          "bad-duplicate-required.prof",
          p.bytes(),
          "header",
          lineOffset(h, "event dmiss"),
          "duplicated header line 'event'",
          "two event lines");
    }

    {
      Profile p = copy(base);
      p.lines.set(0, "version pdb-1.01");
      // major version 1 has an undocumented binary part: write bytes that are not version 0 chunks
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.writeBytes(p.header());
      Random r = new Random(12);
      for (int i = 0; i < 64; i++) {
        out.write(r.nextInt(256));
      }
      malformed(
          "bad-version-major1.prof",
          out.toByteArray(),
          "records",
          p.header().length,
          "unsupported DCPI binary version pdb-1.01",
          "version pdb-1.01: the header parses, the binary part is refused");
    }

    {
      Profile p = copy(base);
      p.lines.set(0, "version pdb-0.07b");
      malformed(
          "bad-version-syntax.prof",
          p.bytes(),
          "header",
          "version ".length(),
          "bad 'version' value",
          "version pdb-0.07b");
    }

    {
      Profile p = copy(base);
      Chunk last = p.chunks.get(p.chunks.size() - 1);
      p.tsize = last.offset + 4L * last.counts.length - 4;
      p.lines.replaceAll(l -> l.startsWith("tsize ") ? "tsize " + p.tsize : l);
      malformed(
          "bad-beyond-tsize.prof",
          p.bytes(),
          "records",
          p.chunkAt(p.chunks.size() - 1),
          "beyond tsize",
          "the last chunk's range ends 4 bytes past tsize");
    }

    {
      Profile p = copy(base);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.writeBytes(p.header());
      Chunk c0 = p.chunks.get(0);
      u32(out, c0.offset);
      u32(out, 0xfffffff0L);
      for (long v : c0.counts) {
        u32(out, v);
      }
      u32(out, 0);
      u32(out, 0);
      malformed(
          "bad-huge-number.prof",
          out.toByteArray(),
          "records",
          p.header().length,
          "needs 17179869120 bytes",
          "first chunk declares 0xfffffff0 counts (rejected before reading them)");
    }

    {
      Profile p = copy(base);
      Chunk c1 = p.chunks.get(1);
      p.chunks.set(1, new Chunk(c1.offset, new long[0]));
      malformed(
          "bad-zero-number.prof",
          p.bytes(),
          "records",
          p.chunkAt(1),
          "number 0",
          "chunk 1 declares number 0");
    }

    {
      Profile p = copy(base);
      Chunk c1 = p.chunks.get(1);
      p.chunks.set(1, new Chunk(c1.offset + 2, c1.counts));
      malformed(
          "bad-unaligned-offset.prof",
          p.bytes(),
          "records",
          p.chunkAt(1),
          "not a multiple of 4",
          "chunk 1's byte offset is not a multiple of 4");
    }

    {
      byte[] b = Arrays.copyOf(baseBytes, baseBytes.length + 4);
      malformed(
          "bad-trailing-bytes.prof",
          b,
          "records",
          baseBytes.length - 8,
          "trailing bytes",
          "4 extra bytes after the footer");
    }

    {
      byte[] b = Arrays.copyOf(baseBytes, baseHeader.length + 5);
      malformed(
          "bad-short-binary.prof",
          b,
          "records",
          baseHeader.length,
          "fewer than the 8-byte footer",
          "5 bytes after the header");
    }

    {
      Profile p = copy(base);
      p.lines.set(2, "epoch 9713151200");
      malformed(
          "bad-epoch.prof",
          p.bytes(),
          "header",
          lineOffset(p.header(), "epoch") + 6,
          "bad 'epoch' value",
          "epoch with month 13");
    }

    {
      Profile p = copy(base);
      StringBuilder sb = new StringBuilder();
      for (String l : p.lines) {
        sb.append(l).append("\r\n");
      }
      sb.append("samples\r\n");
      byte[] h = sb.toString().getBytes(StandardCharsets.UTF_8);
      malformed(
          "bad-crlf.prof",
          h,
          "header",
          "version ".length(),
          "carriage return",
          "DOS line endings in the header");
    }

    {
      StringBuilder sb = new StringBuilder();
      int i = 0;
      while (sb.length() < 70_000) {
        sb.append("comment").append(i++).append(" no samples line follows in this file\n");
      }
      malformed(
          "bad-header-too-long.prof",
          sb.toString().getBytes(StandardCharsets.UTF_8),
          "header",
          65536,
          "header too long",
          "about 70 KB of header lines and no samples line");
    }

    writeReadme();
  }

  static Profile copy(Profile base) {
    Profile p = new Profile();
    p.lines.addAll(base.lines);
    p.samplesLine = base.samplesLine;
    p.alignBinary = base.alignBinary;
    p.instructionUnits = base.instructionUnits;
    p.tstart = base.tstart;
    p.tsize = base.tsize;
    p.chunks = new ArrayList<>(base.chunks);
    return p;
  }

  private void writeReadme() throws IOException {
    StringBuilder sb = new StringBuilder();
    sb.append("# DCPI sample profiles\n\n");
    sb.append(
        "This `_reference/` folder is skipped by the `profile` source, like every name starting with `_`;\n");
    sb.append(
        "it holds the expected values (`*.expected`), the malformed variants (`bad-*.prof`) and the\n");
    sb.append(
        "instruction-unit variant (`valid-instructions.prof`, which needs the offset unit INSTRUCTIONS).\n");
    sb.append(
        "The profiles that read cleanly with the default options (offset unit BYTES) are directly in\n");
    sb.append(
        "`sample-data/dcpi/`, so reading all of `sample-data/` with default options sees only those.\n\n");
    sb.append(
        "Written by `src/test/java/dev/fleetprof/format/dcpi/DcpiSampleGenerator.java` from the\n");
    sb.append(
        "dcpiformat(4) page (no DCPI tool runs on Linux). Deterministic; do not edit by hand.\n");
    sb.append("Regenerate `sample-data/dcpi/` and this folder from the project root with:\n\n");
    sb.append("    ").append(README_COMMAND).append("\n\n");
    sb.append("`DcpiSamplesTest` checks that the committed files equal a fresh generation.\n\n");
    sb.append(
        "Each `X.prof` has an `_reference/X.prof.expected`: for `valid-*` the totals and first/last\n");
    sb.append(
        "address the generator computed from the chunks it wrote; for `bad-*` the stage that must fail\n");
    sb.append(
        "(`header` = opening, `records` = reading), the byte offset and a fragment of the message.\n\n");
    sb.append("Paths in the table are relative to `sample-data/dcpi/`.\n\n");
    sb.append("| file | what it is |\n|---|---|\n");
    for (Map.Entry<String, String> e : readme.entrySet()) {
      sb.append("| `").append(e.getKey()).append("` | ").append(e.getValue()).append(" |\n");
    }
    put("README.md", sb.toString().getBytes(StandardCharsets.UTF_8), true);
  }
}
