package org.loaderx;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Many stores of one kind and type read as one, read-only ({@code loaderx::StoreSet}): a
 * manifest file (docs/store-set-format.md) names its member stores relative to itself, with each
 * one's record count and fingerprint; records are indexed in manifest order. Opening checks every
 * member and refuses one changed since the set was written, naming it. Every member is opened
 * read-only, so any number of processes and hosts read one set at once.
 *
 * <pre>{@code
 * try (Vfs vfs = Vfs.posix();
 *     StoreSet set = StoreSet.create(vfs, "/data/train.lxset", List.of("/data/a", "/data/b"))) {
 *   ByteBuffer out = ByteBuffer.allocateDirect(3 * (int) set.recordBytes());
 *   set.gather(new long[] {0, 123_456, 7}, out);
 * }
 * }</pre>
 *
 * <p>Reads resolve each index to its member in a constant number of steps, whatever the member
 * count, and the members' gathers run in parallel on the shared {@link ThreadPool}, each writing
 * straight to its records' places in the caller's buffer. Errors are {@link TypedStore}'s, a
 * member's naming the member. Every method may be called from many threads at once; {@link
 * #close} waits for calls in flight, and later calls throw {@link IllegalStateException}.
 */
public final class StoreSet implements AutoCloseable {
  final NativeHandle<org.loaderx.internal.SetHandle> handle;

  private StoreSet(Vfs vfs, String manifest) {
    org.loaderx.internal.SetHandle set =
        vfs.withNative(v -> new org.loaderx.internal.SetHandle(v, manifest));
    this.handle =
        new NativeHandle<>(
            "StoreSet",
            set,
            h -> {
              h.close();
              h.delete();
            });
  }

  /**
   * Writes a manifest at {@code manifest} for the stores at {@code members} (in that order, all
   * of the first one's kind and type; both the manifest's path and the members' absolute, or all
   * relative) and opens the set. Each member's path is stored relative to the manifest's
   * directory, along with its record count and fingerprint. The manifest is written under a
   * temporary name, synced and renamed into place, so a crash leaves no partial manifest.
   *
   * @param vfs the filesystem the manifest and the stores are on
   * @param manifest the path of the manifest to write; nothing may be there yet
   * @param members the member stores' directories, in set order (at least one)
   * @return the set, open as by {@link #open}
   * @throws IllegalArgumentException naming a member of another type, or for no members
   * @throws java.io.UncheckedIOException if the manifest exists, a member cannot be opened, or
   *     for an I/O error
   */
  public static StoreSet create(Vfs vfs, String manifest, List<String> members) {
    org.loaderx.internal.StringVector paths = new org.loaderx.internal.StringVector();
    try {
      for (String member : members) paths.add(member);
      vfs.withNative(
          v -> {
            org.loaderx.internal.LoaderxNative.createStoreSet(v, manifest, paths);
            return null;
          });
    } finally {
      paths.delete();
    }
    return open(vfs, manifest);
  }

  /**
   * Opens the set described by {@code manifest}: the manifest, then every member read-only (a
   * shared lock, so a member open for writing elsewhere is {@link StoreBusyException}).
   *
   * @param vfs the filesystem the manifest and the stores are on
   * @param manifest the manifest's path
   * @return the open set, holding its members' shared locks until closed
   * @throws java.io.UncheckedIOException for a damaged manifest or a member changed since the
   *     set was written (naming the member), or an I/O error
   */
  public static StoreSet open(Vfs vfs, String manifest) {
    return new StoreSet(vfs, manifest);
  }

  /** {@return the records of all members} */
  public long size() {
    return handle.call(h -> h.size());
  }

  /** {@return the members' kind} */
  public String kind() {
    return handle.call(h -> h.kind());
  }

  /** {@return whether every record has the same size, {@link #recordBytes()}} */
  public boolean fixedWidth() {
    return handle.call(h -> h.fixedWidth());
  }

  /** {@return bytes per item of the members' dtype} */
  public long itemSize() {
    return handle.call(h -> h.itemSize());
  }

  /** {@return bytes per record of a fixed-width set} */
  public long recordBytes() {
    return handle.call(h -> h.recordBytes());
  }

  /** {@return how many member stores the set has} */
  public int numMembers() {
    return handle.call(h -> h.numMembers());
  }

  /**
   * {@return member {@code member}'s path, as opened: the manifest's directory joined with the
   * path the manifest records}
   *
   * @param member the member's position in the set, from 0 to {@link #numMembers()} - 1
   * @throws IndexOutOfBoundsException if there is no such member
   */
  public String memberPath(int member) {
    return handle.call(h -> h.memberPath(member));
  }

  /**
   * {@return the set position of member {@code member}'s first record} Member {@code m}'s
   * records are the set positions from this to {@code memberStart(m + 1)} (or {@link #size()}).
   *
   * @param member the member's position in the set, from 0 to {@link #numMembers()} - 1
   * @throws IndexOutOfBoundsException if there is no such member
   */
  public long memberStart(int member) {
    return handle.call(h -> h.memberStart(member));
  }

  /**
   * Reads the records at {@code indices} (set positions) of a fixed-width set into {@code out}
   * at its position, back to back, and advances the position past them; as {@link
   * DenseStore#gather(long[], ByteBuffer)}, the members read in parallel.
   *
   * @param indices the records to read, set positions each in {@code [0, size())}
   * @param out a direct, writable buffer with {@code indices.length * recordBytes()} bytes
   *     remaining
   * @throws IllegalArgumentException if the set is not fixed-width, or {@code out} is a heap or
   *     read-only buffer or has too little room
   * @throws IndexOutOfBoundsException naming the first index past {@link #size()} (or a negative
   *     one)
   * @throws java.io.UncheckedIOException for an I/O error or a damaged record, naming the member
   */
  public void gather(long[] indices, ByteBuffer out) {
    long need = indices.length * recordBytes();
    int bytes = (int) Math.min(need, out.remaining());
    ByteBuffer view = out.slice(out.position(), bytes);
    handle.run(h -> h.gatherInto(indices, view));
    out.position(out.position() + bytes);
  }

  /** {@return the members' statistics, summed} */
  public StoreStats stats() {
    return handle.call(h -> StoreStats.fromNative(h.stats()));
  }

  /** {@return every member verified: damaged records as set positions, problems naming members} */
  public VerifyReport verify() {
    return handle.call(h -> VerifyReport.fromNative(h.verify()));
  }

  /** Releases the members and their shared locks. Idempotent. */
  @Override
  public void close() {
    handle.close();
  }
}
