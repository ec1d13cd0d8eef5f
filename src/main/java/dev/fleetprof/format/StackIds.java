package dev.fleetprof.format;

import java.nio.charset.StandardCharsets;

/**
 * The {@code stack_id} of a call chain: a 64-bit fingerprint of its normalized frames, leaf first,
 * each the module (the mapped file's path) and the pc's offset in it, or, for a pc no mapping
 * holds, the raw pc. It depends on nothing else (not on load addresses, the host or the run), so
 * two processes of the same binaries give their equal stacks equal ids, and the ids can be stored
 * and compared across days.
 *
 * <p>The algorithm, fixed (changing it changes every stored id):
 *
 * <pre>
 * fmix(x)       = MurmurHash3's 64-bit finalizer
 * module(path)  = fmix(FNV-1a 64 of the path's UTF-8 bytes)     (NO_MODULE for an unmapped pc)
 * step(h, v)    = (rotl(h, 27) ^ fmix(v + 0x9E3779B97F4A7C15)) * 0xFF51AFD7ED558CCD
 * h             = SEED; for each frame: h = step(step(h, module), offset or pc)
 * stack_id      = fmix(step(h, depth))
 * </pre>
 *
 * <p>Not cryptographic: a hostile profile could make two stacks collide. Among n distinct stacks
 * hashed uniformly at random, the chance that any two share an id is at most n^2 / 2^65 (the
 * birthday bound): 3 in 10^10 for a million stacks, 3 in 10^6 for a hundred million.
 */
public final class StackIds {
  public static final long SEED = 0x666C656574707266L;

  /**
   * The seed of a second, independent fingerprint of the same frames, which readers compare to tell
   * two chains that share a {@code stack_id} apart (never stored).
   */
  public static final long CHECK_SEED = 0x636865636B737461L;

  /** What stands for the module of a pc that no mapping holds. */
  public static final long NO_MODULE = 0x6E6F206D6F64756CL;

  private static final long FNV_OFFSET = 0xCBF29CE484222325L;
  private static final long FNV_PRIME = 0x100000001B3L;

  private StackIds() {}

  /** The hash of a module path (computed once per mapping). */
  public static long module(String path) {
    long h = FNV_OFFSET;
    for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xFF;
      h *= FNV_PRIME;
    }
    return fmix(h);
  }

  /** The state after one more frame: {@code module} from {@link #module} or {@link #NO_MODULE}. */
  public static long frame(long h, long module, long offset) {
    return step(step(h, module), offset);
  }

  /** The id of the chain of {@code depth} frames that left state {@code h}. */
  public static long finish(long h, int depth) {
    return fmix(step(h, depth));
  }

  /** The id of a chain with no frames (what error rows carry, as their {@code frames} is empty). */
  public static long empty() {
    return finish(SEED, 0);
  }

  private static long step(long h, long v) {
    return (Long.rotateLeft(h, 27) ^ fmix(v + 0x9E3779B97F4A7C15L)) * 0xFF51AFD7ED558CCDL;
  }

  private static long fmix(long k) {
    k ^= k >>> 33;
    k *= 0xFF51AFD7ED558CCDL;
    k ^= k >>> 33;
    k *= 0xC4CEB9FE1A85EC53L;
    k ^= k >>> 33;
    return k;
  }
}
