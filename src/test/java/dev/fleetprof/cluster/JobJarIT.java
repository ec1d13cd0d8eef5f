package dev.fleetprof.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The job jar carries its protobuf runtime and the pprof classes generated from profile.proto only
 * under dev.fleetprof's own packages, so that a cluster with another copy of either (Spark's and
 * Hadoop's protobuf, another library's pprof protos) can never load ours instead of its own, or the
 * other way round.
 */
class JobJarIT {
  private static final String RELOCATED_PROFILE = "dev.fleetprof.shaded.pprof.ProfileProto$Profile";

  @Test
  void everyClassIsUnderFleetprofsOwnPackages() throws Exception {
    try (JarFile jar = new JarFile(Jvms.jobJar().toFile())) {
      List<String> foreign =
          jar.stream()
              .map(JarEntry::getName)
              .filter(n -> n.endsWith(".class") && !n.startsWith("dev/fleetprof/"))
              .toList();
      assertEquals(List.of(), foreign, "classes outside dev/fleetprof/ in " + jar.getName());
      List<String> unrelocated =
          jar.stream()
              .map(JarEntry::getName)
              .filter(
                  n ->
                      n.startsWith("com/google/perftools/") || n.startsWith("com/google/protobuf/"))
              .toList();
      assertEquals(List.of(), unrelocated, "unrelocated entries in " + jar.getName());
      assertNotNull(
          jar.getEntry(RELOCATED_PROFILE.replace('.', '/') + ".class"),
          "the relocated pprof classes are missing from " + jar.getName());
    }
  }

  /**
   * The relocated pprof classes work on the jar alone (no protobuf-java beside it): a profile of
   * two strings serializes to the bytes the protobuf encoding prescribes for field 6 (string_table)
   * of profile.proto, and parses back.
   */
  @Test
  void relocatedPprofClassesWorkOnTheJarAlone() throws Exception {
    URL[] jarOnly = {Jvms.jobJar().toUri().toURL()};
    try (URLClassLoader loader =
        new URLClassLoader(jarOnly, ClassLoader.getPlatformClassLoader())) {
      assertThrows(
          ClassNotFoundException.class,
          () -> loader.loadClass("com.google.protobuf.Message"),
          "the jar-only class loader must not see the test classpath's protobuf");
      Class<?> profile = loader.loadClass(RELOCATED_PROFILE);
      Object builder = profile.getMethod("newBuilder").invoke(null);
      builder.getClass().getMethod("addStringTable", String.class).invoke(builder, "");
      builder.getClass().getMethod("addStringTable", String.class).invoke(builder, "samples");
      Object built = builder.getClass().getMethod("build").invoke(builder);
      byte[] bytes = (byte[]) built.getClass().getMethod("toByteArray").invoke(built);

      // Each string: tag (6 << 3 | wire type 2, length-delimited) = 0x32, length, UTF-8 bytes.
      byte[] samples = "samples".getBytes(StandardCharsets.UTF_8);
      byte[] expected = new byte[2 + 2 + samples.length];
      expected[0] = 0x32;
      expected[1] = 0;
      expected[2] = 0x32;
      expected[3] = (byte) samples.length;
      System.arraycopy(samples, 0, expected, 4, samples.length);
      assertArrayEquals(expected, bytes);

      Object parsed = profile.getMethod("parseFrom", byte[].class).invoke(null, (Object) bytes);
      assertEquals(built, parsed);
    }
  }
}
