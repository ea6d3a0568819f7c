package org.loaderx;

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
 *
 * <p>Durability: appends are durable once a later {@link #sync()} returns; {@code delete} and
 * {@code compact} are durable when they return. A crash never loses what was durable, nor leaves
 * a store that does not open.
 *
 * <p>Subclassed only in this package: {@link DenseStore#open} and {@link RaggedStore#open} make
 * stores.
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

  /**
   * {@return the store's kind: "dense", "ragged", or a plugin owner's name}
   *
   * @throws IllegalStateException if the store is closed
   */
  public String kind() {
    return handle.call(h -> h.kind());
  }

  /**
   * {@return numpy's {@code dtype.str} of the records' items, e.g. {@code "<f4"}}
   *
   * @throws IllegalStateException if the store is closed
   */
  public String dtype() {
    return handle.call(h -> h.dtype());
  }

  /**
   * {@return the bytes per item of the dtype (numpy's {@code itemsize}): 4 for {@code "<f4"}}
   *
   * @throws IllegalStateException if the store is closed
   */
  public long itemSize() {
    return handle.call(h -> h.itemSize());
  }

  /**
   * {@return the records in the store; indices run from 0 to this minus 1} It grows with every
   * append and shrinks with every delete, from any thread.
   *
   * @throws IllegalStateException if the store is closed
   */
  public long size() {
    return handle.call(h -> h.size());
  }

  /**
   * {@return the name of the store's codec, fixed when it was created: "raw", "zstd", "zstd_dict"
   * or a plugin's}
   *
   * @throws IllegalStateException if the store is closed
   */
  public String codec() {
    return handle.call(h -> h.codec());
  }

  /**
   * {@return whether the codec compresses against a trained dictionary (the store holds one)}
   *
   * @throws IllegalStateException if the store is closed
   */
  public boolean hasDictionary() {
    return handle.call(h -> h.hasDict());
  }

  /**
   * Deletes the records at {@code indices} by moving the last records into their places
   * (duplicates are deleted once), so the records after them change index; all or nothing, and
   * durable when it returns. Waits for the calls in flight on other threads and holds new ones
   * off until it finishes; a loader reading the store then meets indices past the new end as
   * {@link IndexOutOfBoundsException}. No indices: nothing is deleted.
   *
   * @param indices the records to delete, each in {@code [0, size())}
   * @throws IndexOutOfBoundsException naming an index that is negative or not less than {@link
   *     #size()} (nothing is deleted)
   * @throws IllegalStateException if the store is closed or was opened read-only
   * @throws java.io.UncheckedIOException for an I/O error (nothing is deleted)
   */
  public void delete(long... indices) {
    handle.run(h -> h.deleteRecords(indices));
  }

  /**
   * Reclaims the bytes deleted records left behind ({@link StoreStats#reclaimable()} bounds them),
   * moving live records; indices do not change. Durable when it returns, and a crash at any
   * point loses no record. Waits for the calls in flight on other threads and holds new ones off
   * until it finishes.
   *
   * @throws IllegalStateException if the store is closed or was opened read-only
   * @throws java.io.UncheckedIOException for an I/O error or a damaged store
   */
  public void compact() {
    handle.run(h -> h.compact());
  }

  /**
   * {@return what {@link #compact()} would do now and the space it needs} {@code compact}
   * refuses when the free space is known and smaller than {@link
   * CompactionEstimate#neededBytes()}.
   *
   * @throws IllegalStateException if the store is closed
   * @throws java.io.UncheckedIOException for an I/O error or a damaged store
   */
  public CompactionEstimate estimateCompaction() {
    return handle.call(
        h -> {
          org.loaderx.internal.CompactionEstimateFields e = h.estimateCompaction();
          try {
            return new CompactionEstimate(
                e.getMoves(),
                e.getBatches(),
                e.getReclaimed_bytes(),
                e.getNeeded_bytes(),
                e.getAvailable_bytes() < 0
                    ? java.util.OptionalLong.empty()
                    : java.util.OptionalLong.of(e.getAvailable_bytes()));
          } finally {
            e.delete();
          }
        });
  }

  /**
   * Accepts what {@link #verify()} lists as metadata problems (records another writer removed past
   * the length, or that reappeared): the store as it is becomes what checksums.lx records, and
   * later reports are clean. Durable on return.
   *
   * @throws IllegalStateException if the store is closed or was opened read-only
   * @throws java.io.UncheckedIOException for an I/O error
   */
  public void acceptMetadataProblems() {
    handle.run(h -> h.acceptMetadataProblems());
  }

  /**
   * {@return the store's fingerprint: a 64-bit digest of its committed state (kind, type, write
   * frontier, last record), as a store set's manifest records for each member
   * (docs/store-set-format.md)} Any append, delete or compaction changes it; two opens of an
   * unchanged store agree. Costs two small reads.
   *
   * @throws IllegalStateException if the store is closed
   * @throws java.io.UncheckedIOException for an I/O error
   */
  public long fingerprint() {
    return handle.call(h -> h.fingerprint());
  }

  /**
   * {@return the store's statistics, a snapshot} May run alongside reads and appends.
   *
   * @throws IllegalStateException if the store is closed
   * @throws java.io.UncheckedIOException for an I/O error
   */
  public StoreStats stats() {
    return handle.call(h -> StoreStats.fromNative(h.stats()));
  }

  /**
   * Reads every record once and checks it against the checksum written with it, reporting every
   * damaged record instead of stopping at the first. May run alongside reads and appends, and
   * covers the records present when it starts. Records without a checksum (written by loaderx
   * 1.7.7) are checked only for decoding. Damage is reported, not thrown.
   *
   * @return what was found ({@link VerifyReport#ok()} says whether all is well)
   * @throws IllegalStateException if the store is closed
   * @throws java.io.UncheckedIOException if the verification itself fails (an I/O error)
   */
  public VerifyReport verify() {
    return verifyReporting(null);
  }

  /**
   * {@link #verify()}, telling {@code progress} how far it has got as it goes (see {@link
   * VerifyProgress}: calls from the engine's threads, never two at once). An exception {@code
   * progress} throws stops its calls; the verification still runs to its end, and then this
   * method throws that exception.
   *
   * @param progress told {@code (done, total)} every few thousand records and once at the end
   * @return what was found ({@link VerifyReport#ok()} says whether all is well)
   * @throws NullPointerException if {@code progress} is {@code null}
   * @throws IllegalStateException if the store is closed
   * @throws java.io.UncheckedIOException if the verification itself fails (an I/O error)
   */
  public VerifyReport verify(VerifyProgress progress) {
    return verifyReporting(Objects.requireNonNull(progress, "progress"));
  }

  private VerifyReport verifyReporting(VerifyProgress progress) {
    return handle.call(h -> VerifyReport.fromNative(h.verify(progress)));
  }

  /**
   * {@return whether the store was opened read-only ({@link StoreRequest#readOnly})}
   *
   * @throws IllegalStateException if the store is closed
   */
  public boolean readOnly() {
    return handle.call(h -> h.readOnly());
  }

  /**
   * Makes everything appended so far durable. Does nothing on a read-only store.
   *
   * @throws IllegalStateException if the store is closed
   * @throws java.io.UncheckedIOException for an I/O error (the appends may not be durable)
   */
  public void sync() {
    handle.run(h -> h.sync());
  }

  /** Appends the records of one array of shape {@code shape} whose first axis counts them. */
  final long appendArray(long[] shape, java.nio.ByteBuffer data) {
    return handle.call(h -> h.appendArray("", shape, data)); // the store's dtype
  }

  /**
   * Releases the store and its lock, after waiting for the calls in flight on other threads;
   * later calls are {@link IllegalStateException}. A {@link DataLoader} reading the store keeps it
   * open, and locked, until the loader closes. Idempotent.
   */
  @Override
  public void close() {
    handle.close();
  }
}
