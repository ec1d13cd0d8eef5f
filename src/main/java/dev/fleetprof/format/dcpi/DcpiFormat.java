package dev.fleetprof.format.dcpi;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.CountMeasure;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.FrameAddresses;
import dev.fleetprof.format.ProfileFormat;
import java.io.IOException;
import java.util.List;

/** DCPI profiles: an ASCII header starting with its {@code version} line, then binary chunks. */
public final class DcpiFormat implements ProfileFormat {
  public static final String NAME = "dcpi";

  /** How chunk offsets count: {@code bytes} (default) or {@code instructions}. */
  public static final String OFFSET_UNIT = "dcpi.offsetUnit";

  private static final byte[] SIGNATURE = {'v', 'e', 'r', 's', 'i', 'o', 'n'};

  @Override
  public String name() {
    return NAME;
  }

  /** The {@code version} keyword followed by a space or tab. */
  @Override
  public boolean hasSignature(byte[] head, int len) {
    if (len < SIGNATURE.length + 1) {
      return false;
    }
    for (int i = 0; i < SIGNATURE.length; i++) {
      if (head[i] != SIGNATURE[i]) {
        return false;
      }
    }
    return head[SIGNATURE.length] == ' ' || head[SIGNATURE.length] == '\t';
  }

  @Override
  public List<String> optionNames() {
    return List.of(OFFSET_UNIT);
  }

  @Override
  public void validate(DecodeOptions options) {
    DcpiOffsetUnit.parse(options.option(OFFSET_UNIT, "bytes"));
  }

  /** A sample counts {@code period} occurrences of the profile's event (its period unit). */
  @Override
  public List<CountMeasure> measures() {
    return List.of(new CountMeasure(null, CountMeasure.Meaning.PERIOD_EVENTS, "events"));
  }

  /** DCPI images are Alpha/Tru64 binaries: nothing here reads them. */
  @Override
  public FrameAddresses frameAddresses() {
    return FrameAddresses.NOT_SYMBOLIZED;
  }

  @Override
  public String whyNotSymbolized() {
    return "DCPI images are not symbolized";
  }

  /** {@code dcpi}: the file's header. */
  @Override
  public List<String> columns() {
    return List.of(COLUMN);
  }

  /** The source's column only DCPI fills. */
  public static final String COLUMN = "dcpi";

  @Override
  public DcpiProfileReader open(ByteSource file, DecodeOptions options) throws IOException {
    return DcpiProfileReader.open(file, DcpiOffsetUnit.parse(options.option(OFFSET_UNIT, "bytes")));
  }
}
