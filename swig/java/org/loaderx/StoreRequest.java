package org.loaderx;

/**
 * What a store is opened or created with ({@code loaderx::StoreRequest}, the reference's
 * open-or-create arguments): at a path holding a store every field given is checked against it;
 * anywhere else the store is created from them ({@code dtype}, and {@code itemShape} for a dense
 * store, required; the codec defaults to "zstd"). Fields not set are the reference's None.
 *
 * <pre>{@code
 * StoreRequest request = new StoreRequest().dtype("<f4").itemShape(3, 32, 32).codec("raw");
 * }</pre>
 */
public final class StoreRequest {
  private String dtype;
  private long[] itemShape;
  private String codec;
  private byte[] dictionary;
  private int level;
  private boolean readOnly;

  /** numpy's {@code dtype.str}: {@code "<f4"}, {@code "|u1"}, ... */
  public StoreRequest dtype(String dtype) {
    this.dtype = dtype;
    return this;
  }

  /** A dense store's record shape (empty for scalars). */
  public StoreRequest itemShape(long... itemShape) {
    this.itemShape = itemShape.clone();
    return this;
  }

  /** "raw", "zstd", "zstd_dict" or a registered plugin's name. */
  public StoreRequest codec(String codec) {
    this.codec = codec;
    return this;
  }

  /** The trained dictionary of a zstd_dict store ({@link ZstdDictionary#train}). */
  public StoreRequest dictionary(byte[] dictionary) {
    this.dictionary = dictionary.clone();
    return this;
  }

  /** The compression level of this handle's appends; 0 is the codec's default. */
  public StoreRequest level(int level) {
    this.level = level;
    return this;
  }

  /**
   * Opens without writing anything (a shared lock that other read-only handles may hold too, so
   * it works on read-only files); never creates a store. Appends, deletes and compaction then
   * fail with {@link IllegalStateException}.
   */
  public StoreRequest readOnly(boolean readOnly) {
    this.readOnly = readOnly;
    return this;
  }

  org.loaderx.internal.OpenRequest toNative() {
    org.loaderx.internal.OpenRequest request = new org.loaderx.internal.OpenRequest();
    if (dtype != null) request.setDtype(dtype);
    if (itemShape != null) request.setItemShape(itemShape);
    if (codec != null) request.setCodec(codec);
    if (dictionary != null) request.setDictionary(dictionary);
    request.setLevel(level);
    request.setReadOnly(readOnly);
    return request;
  }
}
