package dev.fleetprof.symbols;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.net.httpserver.HttpServer;
import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.DebuginfodClient.Artifact;
import dev.fleetprof.symbols.DebuginfodClient.Fetched;
import dev.fleetprof.symbols.testing.DebuginfodServer;
import dev.fleetprof.symbols.testing.Toolchain;
import dev.fleetprof.testing.Addr2line;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DebuginfodClient} and {@link BinaryLocator}'s use of it against a real elfutils {@code
 * debuginfod} serving split debug files of gcc-built programs: the chains found through it equal
 * {@code addr2line -f -i -C} on the unstripped program; the cache serves a second lookup with the
 * server gone; the server's own request counts show one download per build ID however many threads
 * ask, and a 404 asked once. Hostile answers (refused connection, oversized, endless, stalled, not
 * ELF, another build) come from a small HTTP server in the test, all on 127.0.0.1: each leaves the
 * frames unnamed with a problem naming the URL and the reason, nothing in the cache, and no
 * exception.
 */
class DebuginfodClientTest {
  private static final String SOURCE =
      """
      #include <stdio.h>
      #ifndef VARIANT
      #define VARIANT 0
      #endif
      static inline unsigned mix(unsigned x) {
        x ^= x >> 13;
        x *= 0x5bd1e995u + VARIANT;
        return x ^ (x >> 15);
      }
      static inline unsigned step(unsigned h, int i) { return mix(h + i) * 3u + VARIANT; }
      __attribute__((noinline)) unsigned work(int n) {
        unsigned h = VARIANT + 1u;
        for (int i = 0; i < n; i++) h = step(h, i);
        return h;
      }
      __attribute__((noinline)) unsigned long total(const unsigned *v, int n) {
        unsigned long s = 0;
        for (int i = 0; i < n; i++) s += mix(v[i]) * (unsigned long)i;
        return s;
      }
      int main(int argc, char **argv) {
        unsigned v[4] = {work(argc * 1000), work(argc), 3, 4};
        printf("%u %lu\\n", v[0], total(v, 4));
        return 0;
      }
      """;

  @TempDir static Path tmp;
  private static Path home;

  /** A program built with -g: its unstripped file, and its build ID as readelf prints it. */
  private record Build(Path full, String id) {}

  /** Found without DWARF in the binaries folder (strip --strip-debug); its debug file is served. */
  private static Build withDebugServed;

  /** Not in the binaries folder: its stripped executable and its debug file are served. */
  private static Build served;

  /** Its stripped binary is in the binaries folder; the server has nothing of it. */
  private static Build unknown;

  private static Path binaries;
  private static Path servedDir;
  private static Path debugOfWithDebugServed;
  private static DebuginfodServer server;

  private static final String MODULE = "/opt/fleet/bin/server";

  @BeforeAll
  static void buildAndServe() throws Exception {
    Toolchain.requireBinutils();
    DebuginfodServer.require();
    home = tmp.resolve("home");
    binaries = Files.createDirectories(tmp.resolve("binaries"));
    servedDir = Files.createDirectories(tmp.resolve("served"));
    withDebugServed = build("a", 1);
    served = build("b", 2);
    unknown = build("c", 3);
    assertEquals(
        3, Stream.of(withDebugServed, served, unknown).map(Build::id).distinct().count(), "IDs");

    debugOfWithDebugServed = servedDir.resolve("a.debug");
    run("objcopy", "--only-keep-debug", withDebugServed.full(), debugOfWithDebugServed);
    run("strip", "--strip-debug", "-o", binaries.resolve("server"), withDebugServed.full());
    run("objcopy", "--only-keep-debug", served.full(), servedDir.resolve("b.debug"));
    run("strip", "-o", servedDir.resolve("b"), served.full());
    Path unknownBinaries = Files.createDirectories(tmp.resolve("unknown-binaries"));
    run("strip", "--strip-debug", "-o", unknownBinaries.resolve("server"), unknown.full());
    server =
        DebuginfodServer.start(
            servedDir,
            tmp.resolve("debuginfod"),
            List.of(
                "/buildid/" + withDebugServed.id() + "/debuginfo",
                "/buildid/" + served.id() + "/debuginfo",
                "/buildid/" + served.id() + "/executable"));
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private static Build build(String name, int variant) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("build").resolve(name));
    Path full =
        Toolchain.gcc(dir, "server", SOURCE, "-g", "-O2", "-Wl,--build-id", "-DVARIANT=" + variant);
    String id = Toolchain.buildId(dir, full);
    assertNotEquals(null, id, "gcc -Wl,--build-id wrote a build ID");
    return new Build(full, id);
  }

  private static void run(Object... cmd) throws Exception {
    Toolchain.run(home, Arrays.stream(cmd).map(String::valueOf).toList());
  }

  /** A new cache folder (never the real home's). */
  private static Path cache(String name) throws IOException {
    return Files.createDirectories(tmp.resolve("caches").resolve(name));
  }

  private static DebuginfodClient client(Path cache, URI... servers) {
    return client(cache, Duration.ofSeconds(10), Duration.ofSeconds(30), 1L << 30, servers);
  }

  private static DebuginfodClient client(
      Path cache, Duration firstByte, Duration maxTime, long maxBytes, URI... servers) {
    return new DebuginfodClient(
        new DebuginfodClient.Settings(List.of(servers), cache, firstByte, maxTime, maxBytes));
  }

  /** Every file under {@code dir}, relative, sorted. */
  private static List<String> filesUnder(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile)
          .map(p -> dir.relativize(p).toString())
          .sorted()
          .toList();
    }
  }

  /**
   * addr2line's chains (-f -i -C, on the unstripped program) at each instruction of {@code build}
   * and the byte before it, by file offset in the program (strip keeps the load segments).
   */
  private static Map<Long, List<SourceLine>> reference(Build build) throws Exception {
    List<Long> addresses = Toolchain.instructionAddresses(home, build.full(), 0);
    List<Addr2line.Load> loads = Addr2line.loads(build.full(), home);
    Map<Long, List<SourceLine>> byVaddr = Addr2line.chains(build.full(), addresses, home);
    Map<Long, List<SourceLine>> byOffset = new TreeMap<>();
    for (long a : addresses) {
      Long off = Addr2line.fileOffset(loads, a);
      if (off != null) {
        byOffset.put(off, byVaddr.get(a));
      }
    }
    assertTrue(byOffset.size() > 50, "objdump found " + byOffset.size() + " instructions");
    return byOffset;
  }

  /**
   * The found binary's chain at every reference offset equals addr2line's (function, file, line).
   */
  private static void assertChainsAsAddr2line(Build build, BinaryLocator.Found found)
      throws Exception {
    Map<Long, List<SourceLine>> ref = reference(build);
    int withLines = 0;
    int inlined = 0;
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<Long, List<SourceLine>> e : ref.entrySet()) {
      SymbolizedAddress answer = found.symbols().lookupFileOffset(e.getKey());
      List<SourceLine> got = answer.lines();
      // Where the symbolizer's rules and addr2line's differ on purpose (docs/symbolization.md):
      // code no symbol names (the PLT) gets a call-frame boundary name, which addr2line lacks;
      // bytes past a symbol's end (padding) get none, where addr2line names the symbol.
      if (e.getValue().isEmpty() && answer.source() == NameSource.CFI) {
        continue;
      }
      if (answer.source() == NameSource.NONE
          && e.getValue().stream().allMatch(l -> l.file() == null && l.line() == 0)) {
        continue;
      }
      if (!strip(got).equals(strip(e.getValue()))) {
        if (wrong.size() < 10) {
          wrong.add("offset 0x" + Long.toHexString(e.getKey()) + ": " + e.getValue() + " / " + got);
        }
        continue;
      }
      withLines += got.stream().anyMatch(l -> l.line() > 0) ? 1 : 0;
      inlined += got.size() > 1 ? 1 : 0;
    }
    if (!wrong.isEmpty()) {
      fail(wrong.size() + "+ chains differ from addr2line (addr2line / found):\n" + wrong);
    }
    assertTrue(withLines > 20, withLines + " chains with lines: the DWARF was used");
    assertTrue(inlined > 0, "the program has inlined frames to compare");
  }

  /** What addr2line prints of a chain: function, file (where it knows a line), line. */
  private static List<List<Object>> strip(List<SourceLine> chain) {
    return chain.stream()
        .map(l -> Arrays.<Object>asList(l.function(), l.line() == 0 ? null : l.file(), l.line()))
        .toList();
  }

  private static BinaryLocator locator(Path dir, DebuginfodClient client) {
    return new BinaryLocator(
        new BinaryLocatorTest.NioBinaryFiles(), List.of(dir.toString()), false, client);
  }

  // ---- a real server ----

  @Test
  void aStrippedBinarysDebugInfoComesFromTheServerThenFromTheCache() throws Exception {
    Path cache = cache("debuginfo");
    DebuginfodClient client = client(cache, server.url);
    long asked = server.requests("debuginfo");
    BinaryLocator.Found found = locator(binaries, client).find(MODULE, null);
    assertTrue(found.ok(), found.problem());
    Path cached = cache.resolve(withDebugServed.id()).resolve("debuginfo");
    try (BinarySymbols s = found.symbols()) {
      assertNull(found.problem());
      assertEquals(binaries.resolve("server").toString(), found.binary());
      assertEquals("file:" + cached, found.debugFile());
      assertEquals(-1L, Files.mismatch(cached, debugOfWithDebugServed), "the served file");
      assertChainsAsAddr2line(withDebugServed, found);
    }
    assertEquals(asked + 1, server.requests("debuginfo"), "one request reached the server");
    assertEquals(List.of(withDebugServed.id() + "/debuginfo"), filesUnder(cache));

    // A new client (a new executor JVM) with every server gone: the cache answers.
    DebuginfodClient offline = client(cache, URI.create("http://127.0.0.1:" + deadPort()));
    BinaryLocator.Found again = locator(binaries, offline).find(MODULE, null);
    try (BinarySymbols s = again.symbols()) {
      assertEquals("file:" + cached, again.debugFile());
      assertChainsAsAddr2line(withDebugServed, again);
    }
    assertEquals(new DebuginfodClient.Stats(0, 0, 1, 0), offline.stats());
  }

  /**
   * The cache is elfutils' own: what {@code debuginfod-find} fetched serves the client with no
   * server up, and what the client fetched {@code debuginfod-find} finds without asking any.
   */
  @Test
  void theCacheIsSharedWithDebuginfodFind() throws Exception {
    Path byTool = cache("by-debuginfod-find");
    String printed =
        debuginfodFind(byTool, server.url.toString(), "debuginfo", withDebugServed.id());
    Path expected = byTool.resolve(withDebugServed.id()).resolve("debuginfo");
    assertEquals(expected.toString(), printed);
    DebuginfodClient offline = client(byTool, URI.create("http://127.0.0.1:" + deadPort()));
    Fetched f = offline.fetch(withDebugServed.id(), Artifact.DEBUGINFO);
    assertEquals(expected, f.file(), f.problem());
    assertEquals(1, offline.stats().cacheHits());

    Path byClient = cache("by-client");
    Fetched g = client(byClient, server.url).fetch(served.id(), Artifact.EXECUTABLE);
    assertTrue(g.ok(), g.problem());
    // With no server at all debuginfod-find does not look (ENOSYS); with a dead one it does.
    assertEquals(
        g.file().toString(),
        debuginfodFind(byClient, "http://127.0.0.1:" + deadPort(), "executable", served.id()));
  }

  /** {@code debuginfod-find KIND ID} with the given servers and cache; the path it prints. */
  private static String debuginfodFind(Path cache, String urls, String kind, String id)
      throws Exception {
    ExternalTool.Result r =
        ExternalTool.run(
            List.of("debuginfod-find", kind, id),
            home,
            Map.of("DEBUGINFOD_URLS", urls, "DEBUGINFOD_CACHE_PATH", cache.toString()),
            60);
    assertEquals(0, r.exit(), "debuginfod-find " + kind + " " + id + ": " + r.stderr());
    return r.stdout().strip();
  }

  @Test
  void aMissingBinaryAndItsDebugInfoAreFetchedByTheProfilesBuildId() throws Exception {
    Path cache = cache("executable");
    DebuginfodClient client = client(cache, server.url);
    Path empty = Files.createDirectories(tmp.resolve("no-binaries"));
    BinaryLocator.Found found = locator(empty, client).find(MODULE, served.id());
    assertTrue(found.ok(), found.problem());
    try (BinarySymbols s = found.symbols()) {
      assertEquals("file:" + cache.resolve(served.id()).resolve("executable"), found.binary());
      assertEquals("file:" + cache.resolve(served.id()).resolve("debuginfo"), found.debugFile());
      assertEquals(-1L, Files.mismatch(servedDir.resolve("b"), s.runtime().path()));
      assertChainsAsAddr2line(served, found);
    }
    // Without the build ID nothing can be asked for.
    BinaryLocator.Found byName = locator(empty, client).find(MODULE, null);
    assertFalse(byName.ok());
    assertFalse(byName.problem().contains("debuginfod"), byName.problem());
  }

  @Test
  void concurrentLookupsOfOneBuildIdDownloadItOnce() throws Exception {
    DebuginfodClient client = client(cache("concurrent"), server.url);
    long asked = server.requests("executable");
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Fetched>> all = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        all.add(
            pool.submit(
                () -> {
                  start.await();
                  return client.fetch(served.id(), Artifact.EXECUTABLE);
                }));
      }
      start.countDown();
      for (Future<Fetched> f : all) {
        Fetched got = f.get(60, TimeUnit.SECONDS);
        assertTrue(got.ok(), got.problem());
        assertEquals(-1L, Files.mismatch(servedDir.resolve("b"), got.file()));
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(asked + 1, server.requests("executable"), "requests the server answered");
  }

  @Test
  void aBuildIdTheServerLacksIsA404AskedOnceAndTheSymbolTableStillNames() throws Exception {
    Path cache = cache("404");
    DebuginfodClient client = client(cache, server.url);
    long asked = server.requests("debuginfo");
    BinaryLocator locator = locator(tmp.resolve("unknown-binaries"), client);
    String url = server.url + "/buildid/" + unknown.id() + "/debuginfo";
    for (int i = 0; i < 3; i++) {
      BinaryLocator.Found found = locator.find(MODULE, null);
      assertTrue(found.ok(), found.problem());
      try (BinarySymbols s = found.symbols()) {
        assertNull(found.debugFile());
        assertEquals(
            "no debug info for "
                + tmp.resolve("unknown-binaries/server")
                + ": debuginfod "
                + url
                + ": HTTP 404",
            found.problem());
      }
    }
    assertEquals(asked + 1, server.requests("debuginfo"), "asked once");
    assertEquals(List.of(), filesUnder(cache));
  }

  // ---- hostile or absent servers ----

  private static int deadPort() throws IOException {
    return DebuginfodServer.freePort();
  }

  @Test
  void aDeadPortIsAProblemNamingTheServer() throws Exception {
    Path cache = cache("dead");
    URI dead = URI.create("http://127.0.0.1:" + deadPort());
    DebuginfodClient client = client(cache, dead);
    BinaryLocator.Found found =
        locator(Files.createDirectories(tmp.resolve("no-binaries")), client)
            .find(MODULE, served.id());
    assertFalse(found.ok());
    assertTrue(
        found.problem().contains(dead + "/buildid/" + served.id() + "/executable: cannot connect"),
        found.problem());
    // The next build ID does not wait for the dead server again.
    Fetched next = client.fetch(unknown.id(), Artifact.DEBUGINFO);
    assertTrue(next.problem().contains("not asked, the server was unreachable"), next.problem());
    assertEquals(List.of(), filesUnder(cache));
  }

  /** What the test's own HTTP server answers for any request. */
  private interface Answer {
    void send(com.sun.net.httpserver.HttpExchange exchange) throws IOException;
  }

  /** Runs {@code body} against an HTTP server on 127.0.0.1 that answers every request so. */
  private static void withServer(Answer answer, ServerTest body) throws Exception {
    HttpServer http =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    http.setExecutor(Executors.newCachedThreadPool());
    http.createContext(
        "/",
        exchange -> {
          try {
            answer.send(exchange);
          } catch (IOException e) {
            // the client hung up, as it should on a bad answer
          } finally {
            exchange.close();
          }
        });
    http.start();
    try {
      body.run(URI.create("http://127.0.0.1:" + http.getAddress().getPort()));
    } finally {
      http.stop(0);
      ((ExecutorService) http.getExecutor()).shutdownNow();
    }
  }

  private interface ServerTest {
    void run(URI url) throws Exception;
  }

  /** Fetching the served program's debuginfo from {@code url} fails within a bounded time. */
  private static String failure(DebuginfodClient client, Path cache) throws Exception {
    long started = System.nanoTime();
    BinaryLocator.Found found = locator(binaries, client).find(MODULE, null);
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
    assertTrue(seconds < 20, "took " + seconds + " s");
    assertTrue(found.ok(), "the binary's own symbols remain: " + found.problem());
    try (BinarySymbols s = found.symbols()) {
      assertNull(found.debugFile());
      assertNull(s.debug());
    }
    assertEquals(List.of(), filesUnder(cache), "nothing kept, no temporary file left");
    return found.problem();
  }

  @Test
  void anOversizedAnswerIsRefusedWhetherDeclaredOrNot() throws Exception {
    long limit = 64 * 1024;
    for (boolean declared : new boolean[] {true, false}) {
      Path cache = cache("oversized-" + declared);
      withServer(
          exchange -> {
            // Declared: a Content-Length over the limit; else chunked, and endless.
            exchange.sendResponseHeaders(200, declared ? limit + 1 : 0);
            byte[] chunk = new byte[8192];
            try (OutputStream out = exchange.getResponseBody()) {
              for (long sent = 0; sent <= 1000 * limit; sent += chunk.length) {
                out.write(chunk);
              }
            }
          },
          url -> {
            String p =
                failure(
                    client(cache, Duration.ofSeconds(5), Duration.ofSeconds(10), limit, url),
                    cache);
            assertTrue(
                p.contains(url + "/buildid/" + withDebugServed.id() + "/debuginfo: the answer is")
                    && p.contains("over the limit of " + limit),
                p);
          });
    }
  }

  @Test
  void aStalledAnswerEndsAtTheTimeLimits() throws Exception {
    Path cache = cache("stalled");
    CountDownLatch release = new CountDownLatch(1);
    try {
      withServer(
          exchange -> {
            if (exchange.getRequestURI().getPath().endsWith("/debuginfo")) {
              // Headers, a few bytes, then nothing.
              exchange.sendResponseHeaders(200, 1 << 20);
              exchange.getResponseBody().write(new byte[] {0x7f, 'E', 'L', 'F'});
              exchange.getResponseBody().flush();
            }
            try {
              release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          },
          url -> {
            String p =
                failure(
                    client(cache, Duration.ofSeconds(1), Duration.ofSeconds(2), 1L << 30, url),
                    cache);
            assertTrue(p.endsWith("/debuginfo: no complete answer within 2 s"), p);
            // No headers at all: the first-byte timeout.
            Fetched f =
                client(cache, Duration.ofSeconds(1), Duration.ofSeconds(5), 1L << 30, url)
                    .fetch(served.id(), Artifact.EXECUTABLE);
            assertTrue(f.problem().endsWith("/executable: no answer within 1 s"), f.problem());
          });
    } finally {
      release.countDown();
    }
  }

  @Test
  void anAnswerThatIsNotTheBuildsElfFileIsNotKept() throws Exception {
    Map<String, byte[]> bodies =
        Map.of(
            "not ELF",
                "<html>rate limited</html>".getBytes(java.nio.charset.StandardCharsets.UTF_8),
            "another build", Files.readAllBytes(servedDir.resolve("b.debug")));
    for (Map.Entry<String, byte[]> e : bodies.entrySet()) {
      Path cache = cache("wrong-" + e.getKey().replace(' ', '-'));
      withServer(
          exchange -> {
            exchange.sendResponseHeaders(200, e.getValue().length);
            exchange.getResponseBody().write(e.getValue());
          },
          url -> {
            String p = failure(client(cache, url), cache);
            String want =
                e.getKey().equals("not ELF")
                    ? "the file sent is not a readable ELF file"
                    : "the file sent has build ID " + served.id();
            assertTrue(p.contains("/debuginfo: " + want), e.getKey() + ": " + p);
          });
    }
  }

  @Test
  void serversAreAskedInOrderUntilOneHasTheFile() throws Exception {
    Path cache = cache("order");
    AtomicInteger asked = new AtomicInteger();
    withServer(
        exchange -> {
          asked.incrementAndGet();
          exchange.sendResponseHeaders(404, -1);
        },
        first -> {
          DebuginfodClient client = client(cache, first, server.url);
          Fetched f = client.fetch(withDebugServed.id(), Artifact.DEBUGINFO);
          assertTrue(f.ok(), f.problem());
          assertEquals(1, asked.get());
          assertEquals(-1L, Files.mismatch(debugOfWithDebugServed, f.file()));
        });
  }

  // ---- settings ----

  @Test
  void settingsFollowElfutilsEnvironment() {
    Map<String, String> env =
        Map.of(
            "DEBUGINFOD_CACHE_PATH", "/c/dbg",
            "XDG_CACHE_HOME", "/xdg",
            "DEBUGINFOD_TIMEOUT", "7",
            "DEBUGINFOD_MAXSIZE", "1000");
    DebuginfodClient.Settings s = DebuginfodClient.settings(List.of("http://a:1/"), null, env);
    assertEquals(List.of(URI.create("http://a:1")), s.servers());
    assertEquals(Path.of("/c/dbg"), s.cache());
    assertEquals(Duration.ofSeconds(7), s.firstByteTimeout());
    assertEquals(DebuginfodClient.DEFAULT_MAX_TIME, s.maxTime());
    assertEquals(1000, s.maxBytes());
    assertEquals(
        Path.of("/xdg/debuginfod_client"),
        DebuginfodClient.settings(List.of(), null, Map.of("XDG_CACHE_HOME", "/xdg")).cache());
    assertEquals(
        Path.of(System.getProperty("user.home"), ".cache", "debuginfod_client"),
        DebuginfodClient.settings(List.of(), null, Map.of()).cache());
    assertEquals(Path.of("/given"), DebuginfodClient.settings(List.of(), "/given", env).cache());

    assertEquals(
        List.of("http://given:8002", "https://a.example", "http://b.example:8002/x"),
        DebuginfodClient.servers(
            List.of("http://given:8002/"),
            "  https://a.example  ima:enforcing http://b.example:8002/x/ file:///srv http://given:8002"));
    IllegalArgumentException bad =
        assertThrows(
            IllegalArgumentException.class,
            () -> DebuginfodClient.servers(List.of("ftp://x"), null));
    assertTrue(bad.getMessage().contains("'ftp://x' is not a debuginfod server URL"));
  }

  @Test
  void aBuildIdThatIsNotHexIsNeverAskedFor() {
    DebuginfodClient client = client(tmp.resolve("never"), URI.create("http://127.0.0.1:1"));
    for (String id : new String[] {"../../etc", "ab/../cd", "", "x"}) {
      Fetched f = client.fetch(id, Artifact.DEBUGINFO);
      assertFalse(f.ok());
      assertTrue(f.problem().contains("is not a build ID"), f.problem());
    }
    assertFalse(Files.exists(tmp.resolve("never")));
  }
}
