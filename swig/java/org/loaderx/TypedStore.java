package org.loaderx;

import java.util.List;
import java.util.Objects;

/**
 * What every store has ({@code loaderx::TypedStore}): a directory on a {@link Vfs} holding
 * records of one numpy dtype, and the directory's lock for as long as the store is open (a second
 * open, here or in another process, is {@link StoreBusyException}). {@link DenseStore} and {@link
 * RaggedStore} are the two kinds.
 *
 * <p>Every size, count and index is a {@code long} with all 64 bits. After {@link #close} every
 * method is {@link IllegalStateException}. Reads may run from many threads, also while one thread
 * appends; {@code delete} and {@code compact} need the store to themselves.
 *
 * <p>Errors ({@link Errors} has the table): {@link IllegalArgumentException} for a malformed
 * request (wrong dtype, shape or byte count, an empty append), {@link IndexOutOfBoundsException}
 * naming an index, {@link IllegalStateException} for a call the store's kind has no meaning for,
 * {@link java.io.UncheckedIOException} for I/O and damaged stores. A failed call changes nothing.
 */
public abstract class TypedStore implements AutoCloseable {
  final NativeHandle<org.loaderx.internal.TypedStore> handle;

  TypedStore(Vfs vfs, String path, String kind, StoreRequest request) {
    org.loaderx.internal.TypedStore store =
        vfs.withNative(v -> new org.loaderx.internal.TypedStore(v, path, kind, request.toNative()));
    this.handle =
        new NativeHandle<>(
            getClass().getSimpleName(), store, org.loaderx.internal.TypedStore::delete);
  }

  /** The store's kind: "dense", "ragged", or a plugin owner's. */
  public String kind() {
    return handle.call(h -> h.kind());
  }

  /** numpy's {@code dtype.str} of the records. */
  public String dtype() {
    return handle.call(h -> h.dtype());
  }

  /** Bytes per element of the dtype. */
  public long itemSize() {
    return handle.call(h -> h.itemSize());
  }

  /** Records in the store. */
  public long size() {
    return handle.call(h -> h.size());
  }

  public String codec() {
    return handle.call(h -> h.codec());
  }

  /** Whether the codec compresses against a trained dictionary. */
  public boolean hasDictionary() {
    return handle.call(h -> h.hasDict());
  }

  /**
   * Deletes the records at {@code indices} by moving the last records into their places
   * (duplicates are deleted once).
   */
  public void delete(long... indices) {
    handle.run(h -> h.deleteRecords(indices));
  }

  /** Reclaims the bytes deleted records left behind. */
  public void compact() {
    handle.run(h -> h.compact());
  }

  public StoreStats stats() {
    return handle.call(
        h -> {
          org.loaderx.internal.StoreStats s = h.stats();
          try {
            return new StoreStats(
                s.getRecords(), s.getLive_bytes(), s.getChunk_bytes(), s.getReclaimable());
          } finally {
            s.delete();
          }
        });
  }

  /**
   * Reads every record once and checks it against the checksum written with it, reporting every
   * damaged record instead of stopping at the first. May run alongside reads and appends.
   */
  public VerifyReport verify() {
    return verifyReporting(null);
  }

  /**
   * {@link #verify()}, telling {@code progress} how far it has got as it goes (see {@link
   * VerifyProgress}: calls from the engine's threads, never two at once). An exception {@code
   * progress} throws stops its calls; the verification still runs to its end, and then this
   * method throws that exception.
   */
  public VerifyReport verify(VerifyProgress progress) {
    return verifyReporting(Objects.requireNonNull(progress, "progress"));
  }

  private VerifyReport verifyReporting(VerifyProgress progress) {
    return handle.call(
        h -> {
          org.loaderx.internal.VerifyResult r = h.verify(progress);
          try {
            return new VerifyReport(
                r.records(),
                r.verified(),
                r.unverified(),
                r.damaged(),
                List.copyOf(r.problems()),
                r.metadataVerified());
          } finally {
            r.delete();
          }
        });
  }

  /** Whether the store was opened read-only ({@link StoreRequest#readOnly}). */
  public boolean readOnly() {
    return handle.call(h -> h.readOnly());
  }

  /** Makes everything appended so far durable. */
  public void sync() {
    handle.run(h -> h.sync());
  }

  /** Appends the records of one array of shape {@code shape} whose first axis counts them. */
  final long appendArray(long[] shape, java.nio.ByteBuffer data) {
    return handle.call(h -> h.appendArray("", shape, data)); // the store's dtype
  }

  /** Releases the store and its lock; later calls are {@link IllegalStateException}. */
  @Override
  public void close() {
    handle.close();
  }
}
