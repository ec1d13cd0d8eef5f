package dev.fleetprof.format.gprof;

import dev.fleetprof.format.ByteSource;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** A decoded row copied out of the reader, for comparisons in tests. */
record Row(
    String kind,
    long count,
    long pc0,
    long pc1,
    long binEnd,
    long rate,
    String dimension,
    char abbrev,
    long offset,
    long container) {

  static Row of(GmonReader r) {
    return new Row(
        r.kind(),
        r.count(),
        r.pc(0),
        r.depth() > 1 ? r.pc(1) : -1,
        r.binEnd(),
        r.profRate(),
        r.dimension(),
        r.dimensionAbbrev(),
        r.recordOffset(),
        r.containerOffset());
  }

  static List<Row> readAll(ByteSource source, GmonOptions options) throws IOException {
    try (GmonReader r = GmonFile.open(source, options)) {
      return drain(r);
    }
  }

  static List<Row> drain(GmonReader r) throws IOException {
    List<Row> rows = new ArrayList<>();
    while (r.next()) {
      rows.add(of(r));
    }
    return rows;
  }

  /** Same row apart from byte offsets. */
  boolean sameContent(Row o) {
    return kind.equals(o.kind)
        && count == o.count
        && pc0 == o.pc0
        && pc1 == o.pc1
        && binEnd == o.binEnd
        && rate == o.rate
        && java.util.Objects.equals(dimension, o.dimension)
        && abbrev == o.abbrev;
  }
}
