package dev.fleetprof.symbols.dwarf;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The decoded line tables of one binary, shared by units that name the same table the same way (so
 * a file whose units all point at one big table decodes it once), with a bound on the bytes decoded
 * in all: overlapping tables in a hostile file cannot make lookups decode without end.
 */
final class LineTables {
  private final DwarfSections sections;
  private final Map<String, Object> cache = new ConcurrentHashMap<>();
  private final AtomicLong budget;

  LineTables(DwarfSections sections) {
    this.sections = sections;
    long size = sections.line == null ? 0 : sections.line.limit();
    this.budget = new AtomicLong(4 * size + (1 << 20));
  }

  /** The unit's table; throws when it is malformed (every time it is asked for). */
  LineTable get(Unit u) throws DwarfFormatException {
    String key = u.stmtList + "|" + u.addrSize + "|" + u.strOffsetsBase + "|" + u.compDir;
    Object v = cache.get(key);
    if (v == null) {
      try {
        v = LineTable.decode(sections, u, budget);
      } catch (DwarfFormatException e) {
        v = e;
      } catch (RuntimeException e) {
        v =
            new DwarfFormatException(
                ".debug_line", u.stmtList, "line program could not be decoded: " + e);
      }
      Object raced = cache.putIfAbsent(key, v);
      v = raced != null ? raced : v;
    }
    if (v instanceof DwarfFormatException e) {
      throw e;
    }
    return (LineTable) v;
  }
}
