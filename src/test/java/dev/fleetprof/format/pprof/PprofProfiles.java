package dev.fleetprof.format.pprof;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.output.Frame;
import dev.fleetprof.output.ValueMeaning;
import dev.fleetprof.output.WeightedStack;
import dev.fleetprof.output.pprof.PprofWriter;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.testing.SampleData;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * The pprof files the decoder is tested on: the Go samples of {@code sample-data/pprof} (CPU with
 * labels, heap, mutex, an uncompressed heap profile), each gperftools sample converted by {@code go
 * tool pprof -proto}, and one written by our own {@link PprofWriter}.
 */
public final class PprofProfiles {
  private PprofProfiles() {}

  /** The Go samples in sample-data/pprof. */
  public static List<Path> goSamples() {
    try (var s = Files.list(SampleData.PPROF)) {
      return s.filter(Files::isRegularFile).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every gperftools sample as {@code go tool pprof -proto} writes it, in {@code dir}. */
  public static List<Path> convertedGperftools(Path dir) throws IOException, InterruptedException {
    ExternalTool.require("go", "golang-go");
    List<Path> out = new ArrayList<>();
    for (Path prof : SampleData.gperftoolsProfiles()) {
      Path to = dir.resolve(prof.getFileName() + ".pb.gz");
      ExternalTool.Result r =
          ExternalTool.run(
              List.of("go", "tool", "pprof", "-proto", "-output=" + to, prof.toString()),
              dir.resolve("home"),
              Map.of(),
              120);
      if (r.exit() != 0) {
        throw new IOException("go tool pprof -proto " + prof + " failed: " + r.stderr());
      }
      out.add(to);
    }
    return out;
  }

  /** A profile written by {@link PprofWriter}: symbolized, inlined, unmapped and plain frames. */
  public static Path writtenByPprofWriter(Path dir) throws IOException {
    SourceLine inner = new SourceLine("mix", "_Z3mixm", "work.c", 8);
    SourceLine outer = new SourceLine("work", "_Z4workv", "work.c", 16);
    Frame inlined = new Frame("/opt/app/bin/server", 0x1105, List.of(inner, outer));
    Frame main =
        new Frame("/opt/app/bin/server", 0x2000, List.of(new SourceLine("main", null, "m.c", 3)));
    Frame lib = new Frame("/lib/libc.so.6", 0x29d90);
    Frame unmapped = new Frame(null, 0x7fff0010);
    List<WeightedStack> stacks =
        List.of(
            new WeightedStack(List.of(inlined, main, lib), 7),
            new WeightedStack(List.of(main, lib), 3),
            new WeightedStack(List.of(unmapped, inlined, main, lib), 2),
            new WeightedStack(List.of(lib), 1));
    Path to = dir.resolve("pprof-writer.pb.gz");
    PprofWriter.write(to, ValueMeaning.forKind("sample", 1000L, "microseconds"), stacks);
    return to;
  }

  /** A file's bytes, inflated when it is gzip data (as pprof reads any file). */
  public static byte[] protobuf(Path file) throws IOException {
    byte[] data = Files.readAllBytes(file);
    if (data.length > 2 && (data[0] & 0xff) == 0x1f && (data[1] & 0xff) == 0x8b) {
      try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(data))) {
        return in.readAllBytes();
      }
    }
    return data;
  }

  public static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (var gz = new java.util.zip.GZIPOutputStream(out)) {
      gz.write(data);
    }
    return out.toByteArray();
  }
}
