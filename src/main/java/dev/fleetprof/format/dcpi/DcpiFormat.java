package dev.fleetprof.format.dcpi;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.DecodeOptions;
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

  @Override
  public DcpiProfileReader open(ByteSource file, DecodeOptions options) throws IOException {
    return DcpiProfileReader.open(file, DcpiOffsetUnit.parse(options.option(OFFSET_UNIT, "bytes")));
  }
}
