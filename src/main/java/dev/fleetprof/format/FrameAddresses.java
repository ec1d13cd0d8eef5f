package dev.fleetprof.format;

/**
 * What the offsets of a format's frames are, for a job that names frames from binaries ({@link
 * ProfileFormat#frameAddresses()}): how to look them up, or that nothing here can.
 */
public enum FrameAddresses {
  /**
   * A frame's offset is a file offset in its module, the file mapped where the pc was (or the pc
   * itself when no mapping held it): looked up in that file's symbols as a file offset.
   */
  FILE_OFFSETS,
  /**
   * Link-time addresses of the profiled program, which the file does not name (gmon.out): frames
   * have no module until the job completes them with the program's name, and are looked up as
   * addresses.
   */
  PROGRAM_ADDRESSES,
  /**
   * Addresses in binaries nothing here reads (DCPI's Alpha/Tru64 images): the frames stay unnamed,
   * for the reason {@link ProfileFormat#whyNotSymbolized()} gives.
   */
  NOT_SYMBOLIZED
}
