package dev.fleetprof.format;

import dev.fleetprof.format.dcpi.DcpiFormat;
import dev.fleetprof.format.gperftools.GperftoolsFormat;
import dev.fleetprof.format.gprof.GprofFormat;
import dev.fleetprof.format.pprof.PprofFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The formats this project reads, in the order they are tried on a file's first bytes. To add a
 * format: write its package (a {@link ProfileFormat} and its {@link ProfileRecordReader}) and add
 * it to {@link #ALL}, or, for a format kept outside this project (or a test's), name its class in a
 * {@code META-INF/services/dev.fleetprof.format.ProfileFormat} file on the class path.
 */
public final class ProfileFormats {
  /**
   * Every format: the built-in ones, then those found through {@link ServiceLoader} (with this
   * class's loader, which on an executor is the one that loaded the job's jar); signatures are
   * tried in this order, then the structure-only recognisers.
   */
  public static final List<ProfileFormat> ALL = load();

  private static List<ProfileFormat> load() {
    List<ProfileFormat> all =
        new ArrayList<>(
            List.of(
                new GperftoolsFormat(), new GprofFormat(), new DcpiFormat(), new PprofFormat()));
    for (ProfileFormat f :
        ServiceLoader.load(ProfileFormat.class, ProfileFormats.class.getClassLoader())) {
      for (ProfileFormat known : all) {
        // A name is what the format option, the format column and the measures key on.
        if (known.name().equalsIgnoreCase(f.name())) {
          throw new IllegalStateException(
              "profile format "
                  + f.getClass().getName()
                  + " is named "
                  + f.name()
                  + ", as "
                  + known.getClass().getName()
                  + " is");
        }
      }
      all.add(f);
    }
    return List.copyOf(all);
  }

  /** Bytes of a file's start that {@link #detect} wants (fewer is fine for short files). */
  public static final int HEAD_BYTES = 64;

  private ProfileFormats() {}

  /** The format called {@code name} (any case), or null. */
  public static ProfileFormat byName(String name) {
    for (ProfileFormat f : ALL) {
      if (f.name().equalsIgnoreCase(name)) {
        return f;
      }
    }
    return null;
  }

  /** The {@code format} option's value that detects each file's format from its bytes. */
  public static final String AUTO = "auto";

  /** The formats' names, in registration order. */
  public static List<String> names() {
    List<String> out = new ArrayList<>();
    for (ProfileFormat f : ALL) {
      out.add(f.name());
    }
    return out;
  }

  /** Every format's option names. */
  public static List<String> optionNames() {
    List<String> out = new ArrayList<>();
    for (ProfileFormat f : ALL) {
      out.addAll(f.optionNames());
    }
    return out;
  }

  /**
   * The format of a file starting with {@code head}, or null when it is none: signatures first;
   * then, for bytes that are no known foreign file and no text, the formats recognised by
   * structure.
   *
   * @param fileLength the file's length, or -1 when unknown (compressed)
   */
  public static ProfileFormat detect(byte[] head, int len, long fileLength) {
    for (ProfileFormat f : ALL) {
      if (f.hasSignature(head, len)) {
        return f;
      }
    }
    if (ForeignFiles.isForeignOrText(head, len)) {
      return null;
    }
    for (ProfileFormat f : ALL) {
      if (f.matchesWithoutSignature(head, len, fileLength)) {
        return f;
      }
    }
    return null;
  }

  /**
   * As {@link #detect}, failing for a file of no known format.
   *
   * @throws ProfileFormatException "not a profile file of any known format (...): it looks like
   *     ..." (at offset 0) when it is none
   */
  public static ProfileFormat require(String file, byte[] head, int len, long fileLength)
      throws ProfileFormatException {
    ProfileFormat format = detect(head, len, fileLength);
    if (format == null) {
      throw new ProfileFormatException(
          file,
          0,
          "not a profile file of any known format ("
              + String.join(", ", names())
              + "): it looks like "
              + ForeignFiles.describe(head, len));
    }
    return format;
  }
}
