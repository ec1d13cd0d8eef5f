package dev.fleetprof.format.gperftools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.MappingIndex;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every shape of maps text listed in shared/notes/formats.md. */
class ProcMapsParserTest {

  @Test
  void procSelfMapsLinesAsTheKernelWritesThem() {
    List<Mapping> m =
        ProcMapsParser.parse(
            "40000000-40015000 r-xp 00000000 03:01 12845071 /lib/ld-2.3.2.so\n"
                + "55d0c0a00000-55d0c0a01000 r--p 00001000 00:00 0          /usr/bin/app\n");
    assertEquals(2, m.size());
    assertEquals(new Mapping(0x40000000L, 0x40015000L, 0, "/lib/ld-2.3.2.so", true), m.get(0));
    assertFalse(m.get(1).executable());
    assertEquals(0x1000, m.get(1).offset());
  }

  @Test
  void gperftools215NoSpaceBetweenInodeAndPath() {
    List<Mapping> m =
        ProcMapsParser.parse(
            "7f0000000000-7f0000010000 r-xp 00002000 00:00 1234567/usr/lib/libfoo.so\n");
    assertEquals("/usr/lib/libfoo.so", m.get(0).path());
    assertEquals(0x2000, m.get(0).offset());
  }

  @Test
  void anonymousMappingsWithAndWithoutTrailingSpace() {
    List<Mapping> m =
        ProcMapsParser.parse(
            "7f0000000000-7f0000010000 rwxp 00000000 00:00 0 \n"
                + "7f0000020000-7f0000030000 r-xp 00000000 00:00 0\n");
    assertEquals(2, m.size());
    assertEquals("", m.get(0).path());
    assertEquals("", m.get(1).path());
    assertTrue(m.get(0).executable());
  }

  @Test
  void specialAndDeletedPathsAreKeptWhole() {
    List<Mapping> m =
        ProcMapsParser.parse(
            "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  [vsyscall]\n"
                + "7f0000000000-7f0000010000 r-xp 00000000 00:00 42 /opt/my app/lib.so (deleted)\n");
    assertEquals("[vsyscall]", m.get(0).path());
    assertTrue(m.get(0).contains(0xffffffffff600000L), "unsigned comparison above 2^63");
    assertEquals("/opt/my app/lib.so (deleted)", m.get(1).path());
  }

  @Test
  void briefLinesAndBuildVariables() {
    List<Mapping> m =
        ProcMapsParser.parse(
            "build=/home/build/out\n"
                + "00400000-00500000: $build/bin/server\n"
                + "00600000-00700000: /lib/libc.so @ 1000\n"
                + "garbage that matches nothing\n");
    assertEquals(2, m.size());
    assertEquals("/home/build/out/bin/server", m.get(0).path());
    assertEquals(0, m.get(0).offset());
    assertEquals(0x1000, m.get(1).offset());
    assertTrue(m.get(1).executable());
  }

  @Test
  void indexFindsOnlyExecutableMappings() {
    MappingIndex idx =
        new MappingIndex(
            ProcMapsParser.parse(
                "1000-2000 r--p 00000000 00:00 0 /a\n"
                    + "2000-3000 r-xp 00001000 00:00 0 /a\n"
                    + "5000-6000 r-xp 00000000 00:00 0 /b\n"));
    assertEquals(2, idx.size());
    assertEquals(-1, idx.find(0x1800));
    assertEquals("/a", idx.get(idx.find(0x2000)).path());
    assertEquals(-1, idx.find(0x3000));
    assertEquals("/b", idx.get(idx.find(0x5fff)).path());
    assertEquals(0x1800, idx.get(idx.find(0x2800)).fileOffset(0x2800));
  }
}
