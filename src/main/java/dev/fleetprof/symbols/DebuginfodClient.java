package dev.fleetprof.symbols;

import dev.fleetprof.symbols.elf.ElfFile;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/**
 * Fetches debug files and binaries by GNU build ID from debuginfod servers, as elfutils' {@code
 * debuginfod-find}, gdb and llvm-symbolizer do: {@code GET URL/buildid/<hex id>/debuginfo} (or
 * {@code /executable}), servers asked in order until one answers 200.
 *
 * <p>What arrives is kept in the client cache folder elfutils uses ({@code <cache>/<id>/debuginfo},
 * {@code <cache>/<id>/executable}), so that a file fetched by any of these tools serves the others.
 * A body is streamed to a temporary file in that folder, never held in memory; it is refused (and
 * deleted) when it exceeds the size limit, takes longer than the time limit, is not an ELF file or
 * carries another build ID, and only a complete, checked file is renamed into place, atomically, so
 * that readers never see a partial one.
 *
 * <p>Each (build ID, artifact) is asked for once per client, whatever its answer: concurrent
 * callers wait for the one download, and a 404 or a failure is remembered as well as a file. A
 * server that could not be connected to is not asked again for {@link #UNREACHABLE_BACKOFF}, so
 * that a dead server costs one connect timeout, not one per build ID. {@link #shared} keeps one
 * client per settings per JVM, for the tasks of a Spark executor.
 *
 * <p>No failure is thrown: {@link #fetch} returns the file or a problem naming each server asked
 * and what went wrong there.
 */
public final class DebuginfodClient {
  /** What a server is asked for. */
  public enum Artifact {
    DEBUGINFO("debuginfo"),
    EXECUTABLE("executable");

    /** The last path segment of the request, and the file's name in the cache. */
    public final String path;

    Artifact(String path) {
      this.path = path;
    }
  }

  /**
   * How to reach the servers.
   *
   * @param servers base URLs (http or https), asked in order
   * @param cache the cache folder ({@code <cache>/<build id>/<artifact>})
   * @param firstByteTimeout to connect, and again to receive the response's headers
   * @param maxTime for a whole download, body included
   * @param maxBytes the largest body accepted
   */
  public record Settings(
      List<URI> servers, Path cache, Duration firstByteTimeout, Duration maxTime, long maxBytes) {
    public Settings {
      servers = List.copyOf(servers);
      if (maxBytes <= 0
          || firstByteTimeout.isNegative()
          || firstByteTimeout.isZero()
          || maxTime.isNegative()
          || maxTime.isZero()) {
        throw new IllegalArgumentException(
            "debuginfod limits must be positive: "
                + firstByteTimeout
                + ", "
                + maxTime
                + ", "
                + maxBytes
                + " bytes");
      }
    }
  }

  /** The outcome of a fetch: a local file, or null and the problem. */
  public record Fetched(Path file, String problem) {
    public boolean ok() {
      return file != null;
    }
  }

  /** Counts, per client: downloads completed, files taken from the cache, fetches that failed. */
  public record Stats(long downloads, long downloadedBytes, long cacheHits, long failures) {}

  /** Default of {@code DEBUGINFOD_TIMEOUT}: the wait to connect and for the first response. */
  public static final Duration DEFAULT_FIRST_BYTE_TIMEOUT = Duration.ofSeconds(30);

  /** Default of {@code DEBUGINFOD_MAXTIME}: a whole download. */
  public static final Duration DEFAULT_MAX_TIME = Duration.ofMinutes(10);

  /** Default of {@code DEBUGINFOD_MAXSIZE}: 4 GiB, above the debug files of large C++ services. */
  public static final long DEFAULT_MAX_BYTES = 4L << 30;

  /** How long a server that refused or dropped the connection is not asked again. */
  public static final Duration UNREACHABLE_BACKOFF = Duration.ofMinutes(5);

  private static final Pattern BUILD_ID = Pattern.compile("[0-9a-f]{2,128}");

  private static final Map<Settings, DebuginfodClient> SHARED = new ConcurrentHashMap<>();

  private final Settings settings;
  private final HttpClient http;
  private final Map<String, CompletableFuture<Fetched>> outcomes = new ConcurrentHashMap<>();
  private final Map<URI, Long> unreachableUntil = new ConcurrentHashMap<>();
  private final AtomicLong downloads = new AtomicLong();
  private final AtomicLong downloadedBytes = new AtomicLong();
  private final AtomicLong cacheHits = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();

  public DebuginfodClient(Settings settings) {
    this.settings = settings;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(settings.firstByteTimeout())
            .followRedirects(HttpClient.Redirect.NORMAL)
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  /** The client for {@code settings} in this JVM, made on first use. */
  public static DebuginfodClient shared(Settings settings) {
    return SHARED.computeIfAbsent(settings, DebuginfodClient::new);
  }

  public Settings settings() {
    return settings;
  }

  public Stats stats() {
    return new Stats(downloads.get(), downloadedBytes.get(), cacheHits.get(), failures.get());
  }

  /**
   * The server list: each of {@code given} (checked: an IllegalArgumentException names a bad one),
   * then each http(s) URL of {@code debuginfodUrls} (the {@code DEBUGINFOD_URLS} variable,
   * space-separated; other entries are ignored, as a job must not fail on its environment), without
   * repeats or trailing slashes.
   */
  public static List<String> servers(List<String> given, String debuginfodUrls) {
    Set<String> out = new LinkedHashSet<>();
    for (String g : given) {
      out.add(serverUri(g).toString());
    }
    if (debuginfodUrls != null) {
      for (String u : debuginfodUrls.trim().split("\\s+")) {
        try {
          if (!u.isEmpty()) {
            out.add(serverUri(u).toString());
          }
        } catch (IllegalArgumentException e) {
          // Not a server this client can ask (elfutils also takes file:// and "ima:" policies).
        }
      }
    }
    return List.copyOf(out);
  }

  /** A server's base URL, checked: http or https, with a host; without a trailing slash. */
  public static URI serverUri(String url) {
    String u = url.strip();
    while (u.endsWith("/")) {
      u = u.substring(0, u.length() - 1);
    }
    try {
      URI uri = new URI(u);
      String scheme =
          uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
      if ((!scheme.equals("http") && !scheme.equals("https")) || uri.getHost() == null) {
        throw new IllegalArgumentException(
            "'" + url + "' is not a debuginfod server URL (http://HOST[:PORT][/PATH] or https://)");
      }
      if (uri.getQuery() != null || uri.getFragment() != null) {
        throw new IllegalArgumentException(
            "'" + url + "': a debuginfod server URL has no query or fragment");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "'" + url + "' is not a debuginfod server URL: " + e.getMessage(), e);
    }
  }

  /**
   * Settings from the environment, as elfutils reads it: the cache folder is {@code cache} when
   * given, else {@code $DEBUGINFOD_CACHE_PATH}, else {@code $XDG_CACHE_HOME/debuginfod_client},
   * else {@code ~/.cache/debuginfod_client}; {@code DEBUGINFOD_TIMEOUT} (seconds), {@code
   * DEBUGINFOD_MAXTIME} (seconds) and {@code DEBUGINFOD_MAXSIZE} (bytes) replace the defaults when
   * they are positive numbers.
   */
  public static Settings settings(List<String> servers, String cache, Map<String, String> env) {
    Path folder;
    if (cache != null && !cache.isBlank()) {
      folder = Path.of(cache);
    } else if (!env.getOrDefault("DEBUGINFOD_CACHE_PATH", "").isBlank()) {
      folder = Path.of(env.get("DEBUGINFOD_CACHE_PATH"));
    } else if (!env.getOrDefault("XDG_CACHE_HOME", "").isBlank()) {
      folder = Path.of(env.get("XDG_CACHE_HOME"), "debuginfod_client");
    } else {
      folder = Path.of(System.getProperty("user.home"), ".cache", "debuginfod_client");
    }
    List<URI> uris = servers.stream().map(DebuginfodClient::serverUri).toList();
    return new Settings(
        uris,
        folder.toAbsolutePath(),
        Duration.ofSeconds(
            positive(env.get("DEBUGINFOD_TIMEOUT"), DEFAULT_FIRST_BYTE_TIMEOUT.toSeconds())),
        Duration.ofSeconds(positive(env.get("DEBUGINFOD_MAXTIME"), DEFAULT_MAX_TIME.toSeconds())),
        positive(env.get("DEBUGINFOD_MAXSIZE"), DEFAULT_MAX_BYTES));
  }

  private static long positive(String value, long otherwise) {
    try {
      long v = value == null ? 0 : Long.parseLong(value.strip());
      return v > 0 ? v : otherwise;
    } catch (NumberFormatException e) {
      return otherwise;
    }
  }

  /**
   * The file of {@code buildId}'s {@code artifact}: from the cache folder, else from the first
   * server that has it. Never throws for what a server or the disk does; the problem says.
   *
   * @param buildId the GNU build ID in hex (any case)
   */
  public Fetched fetch(String buildId, Artifact artifact) {
    String id = buildId == null ? "" : buildId.toLowerCase(java.util.Locale.ROOT);
    if (!BUILD_ID.matcher(id).matches()) {
      // Also what keeps a hostile ID from naming a path outside the cache or another URL.
      return new Fetched(null, "debuginfod: '" + buildId + "' is not a build ID");
    }
    if (settings.servers().isEmpty()) {
      return new Fetched(null, "debuginfod: no servers");
    }
    String key = id + "/" + artifact.path;
    for (int attempt = 0; ; attempt++) {
      CompletableFuture<Fetched> mine = new CompletableFuture<>();
      CompletableFuture<Fetched> earlier = outcomes.putIfAbsent(key, mine);
      if (earlier == null) {
        Fetched f = null;
        try {
          f = fetchNow(id, artifact);
        } catch (RuntimeException e) {
          f = new Fetched(null, "debuginfod: " + e);
        } finally {
          if (f == null) { // an Error on its way up: release the waiters, remember nothing
            outcomes.remove(key, mine);
            mine.complete(new Fetched(null, "debuginfod: the download of " + key + " failed"));
          }
        }
        if (!f.ok()) {
          failures.incrementAndGet();
        }
        mine.complete(f);
        if (Thread.currentThread().isInterrupted()) {
          outcomes.remove(key, mine); // cut short by the caller: the next one may try again
        }
        return f;
      }
      Fetched f = await(earlier, id, artifact);
      // A file removed from the cache since (by a cache cleaner) is fetched again, once.
      if (f.ok() && !Files.isRegularFile(f.file()) && attempt == 0) {
        outcomes.remove(key, earlier);
        continue;
      }
      return f;
    }
  }

  private Fetched await(CompletableFuture<Fetched> download, String id, Artifact artifact) {
    // The downloader's every step is bounded; this bound is theirs summed, plus slack.
    long limit =
        settings.servers().size()
                * (2 * settings.firstByteTimeout().toMillis() + settings.maxTime().toMillis())
            + 10_000;
    try {
      return download.get(limit, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Fetched(null, "debuginfod: interrupted waiting for " + id + "/" + artifact.path);
    } catch (ExecutionException | TimeoutException e) {
      return new Fetched(
          null, "debuginfod: gave up waiting for another thread's download of " + id);
    }
  }

  private Fetched fetchNow(String id, Artifact artifact) {
    Path dir = settings.cache().resolve(id);
    Path target = dir.resolve(artifact.path);
    try {
      if (Files.isRegularFile(target) && Files.size(target) > 0 && wrongFile(target, id) == null) {
        cacheHits.incrementAndGet();
        return new Fetched(target, null);
      }
    } catch (IOException e) {
      // Unreadable cache entry: fetch it again, replacing it.
    }
    List<String> reasons = new ArrayList<>();
    for (URI server : settings.servers()) {
      URI uri = URI.create(server + "/buildid/" + id + "/" + artifact.path);
      Long until = unreachableUntil.get(server);
      if (until != null && System.nanoTime() - until < 0) {
        reasons.add(uri + ": not asked, the server was unreachable moments ago");
        continue;
      }
      String why;
      try {
        why = download(uri, server, id, dir, target);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        reasons.add(uri + ": interrupted");
        break;
      }
      if (why == null) {
        return new Fetched(target, null);
      }
      reasons.add(uri + ": " + why);
    }
    return new Fetched(null, "debuginfod " + String.join("; ", reasons));
  }

  /** Downloads into the cache; null when done, else why not. */
  private String download(URI uri, URI server, String id, Path dir, Path target)
      throws InterruptedException {
    Path tmp;
    try {
      Files.createDirectories(dir);
      tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
    } catch (IOException e) {
      return "cannot write the cache folder " + dir + ": " + e;
    }
    try {
      AtomicReference<CappedFile> body = new AtomicReference<>();
      HttpRequest request =
          HttpRequest.newBuilder(uri)
              .timeout(settings.firstByteTimeout())
              .header("User-Agent", "fleetprof")
              .GET()
              .build();
      CompletableFuture<HttpResponse<Long>> response =
          http.sendAsync(
              request,
              info -> {
                CappedFile f =
                    new CappedFile(
                        info.statusCode() == 200 ? tmp : null,
                        settings.maxBytes(),
                        info.headers().firstValueAsLong("content-length").orElse(-1));
                body.set(f);
                return f;
              });
      HttpResponse<Long> r;
      try {
        r = response.get(settings.maxTime().toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        response.cancel(true);
        CappedFile f = body.get();
        if (f != null) {
          f.abort();
        }
        return "no complete answer within " + settings.maxTime().toSeconds() + " s";
      } catch (InterruptedException e) {
        response.cancel(true);
        CappedFile f = body.get();
        if (f != null) {
          f.abort();
        }
        throw e;
      } catch (ExecutionException e) {
        return failure(e.getCause(), server);
      }
      if (r.statusCode() != 200) {
        return "HTTP " + r.statusCode();
      }
      String wrong = wrongFile(tmp, id);
      if (wrong != null) {
        return wrong;
      }
      try {
        Files.move(
            tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        return "the cache folder " + dir + " cannot rename atomically: " + e.getMessage();
      }
      downloads.incrementAndGet();
      downloadedBytes.addAndGet(r.body());
      return null;
    } catch (IOException e) {
      return "cannot write the cache: " + e;
    } finally {
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException e) {
        // Left for a cache cleaner: the name starts with a dot and ends in .tmp.
      }
    }
  }

  /** What went wrong, from the exception a download ended with. */
  private String failure(Throwable cause, URI server) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof TooLarge) {
        return t.getMessage();
      }
      if (t instanceof HttpConnectTimeoutException || t instanceof ConnectException) {
        unreachableUntil.put(server, System.nanoTime() + UNREACHABLE_BACKOFF.toNanos());
        return "cannot connect ("
            + (t instanceof HttpConnectTimeoutException
                ? "no connection within " + settings.firstByteTimeout().toSeconds() + " s"
                : t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage())
            + ")";
      }
      if (t instanceof HttpTimeoutException) {
        return "no answer within " + settings.firstByteTimeout().toSeconds() + " s";
      }
    }
    return String.valueOf(cause);
  }

  /** Null when {@code file} is an ELF file with build ID {@code id}, else what is wrong with it. */
  private static String wrongFile(Path file, String id) {
    try (ElfFile elf = ElfFile.open(file)) {
      Optional<String> got = elf.buildId();
      if (got.isEmpty()) {
        return "the file sent has no build ID";
      }
      if (!got.get().equalsIgnoreCase(id)) {
        return "the file sent has build ID " + got.get();
      }
      return null;
    } catch (IOException e) {
      return "the file sent is not a readable ELF file (" + e.getMessage() + ")";
    }
  }

  /** A body larger than the limit. */
  private static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge(String message) {
      super(message);
    }
  }

  /**
   * A response body written to a file up to a size limit (or, without a file, not read at all).
   * Completes with the number of bytes written.
   */
  private static final class CappedFile implements BodySubscriber<Long> {
    private final Path file;
    private final long limit;
    private final long declared;
    private final CompletableFuture<Long> result = new CompletableFuture<>();
    private volatile Flow.Subscription subscription;
    private FileChannel out;
    private long written;

    CappedFile(Path file, long limit, long declared) {
      this.file = file;
      this.limit = limit;
      this.declared = declared;
    }

    @Override
    public java.util.concurrent.CompletionStage<Long> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      if (file == null) {
        // An error page: its body says nothing the status does not.
        s.cancel();
        result.complete(-1L);
        return;
      }
      if (declared > limit) {
        fail(new TooLarge("the answer is " + declared + " bytes, over the limit of " + limit));
        return;
      }
      try {
        out =
            FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
      } catch (IOException e) {
        fail(e);
        return;
      }
      s.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
      if (result.isDone()) {
        return;
      }
      try {
        for (ByteBuffer b : buffers) {
          written += b.remaining();
          if (written > limit) {
            throw new TooLarge("the answer is over the limit of " + limit + " bytes");
          }
          while (b.hasRemaining()) {
            out.write(b);
          }
        }
      } catch (IOException e) {
        fail(e);
        return;
      }
      subscription.request(1);
    }

    @Override
    public void onError(Throwable t) {
      close();
      result.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
      close();
      result.complete(written);
    }

    /** Stops reading, from any thread. */
    void abort() {
      fail(new IOException("aborted"));
    }

    private void fail(IOException e) {
      Flow.Subscription s = subscription;
      if (s != null) {
        s.cancel();
      }
      close();
      result.completeExceptionally(e);
    }

    private synchronized void close() {
      if (out != null) {
        try {
          out.close();
        } catch (IOException e) {
          // The download fails or was complete either way.
        }
      }
    }
  }
}
