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
 *
 * <p>Each setter returns this request, for chaining; {@code DenseStore.open} and {@code
 * RaggedStore.open} read it when called and keep no reference, so one request may open many
 * stores. Not for concurrent use: a request is a plain mutable object.
 */
public final class StoreRequest {
  private String dtype;
  private long[] itemShape;
  private String codec;
  private byte[] dictionary;
  private int level;
  private boolean readOnly;

  /**
   * A request with nothing set: opens the store at a path, whatever its dtype, shape and codec,
   * read-write at the codec's default level, and cannot create one.
   */
  public StoreRequest() {}

  /**
   * The records' dtype, as numpy's {@code dtype.str} of a simple dtype: byte order ({@code <}
   * little, {@code >} big, {@code |} not applicable), kind and item size, e.g. {@code "<f4"},
   * {@code "|u1"}, {@code "<i8"}. Required to create a store; checked against an existing one. An
   * unknown dtype is {@link IllegalArgumentException} when the store is opened.
   *
   * @param dtype the dtype string, or {@code null} to leave it unset
   * @return this request
   */
  public StoreRequest dtype(String dtype) {
    this.dtype = dtype;
    return this;
  }

  /**
   * A dense store's record shape, in items (none: every record is one scalar). Required to create
   * a dense store; checked against an existing one; a ragged store refuses it ({@link
   * IllegalArgumentException} when opened, as for a negative dimension). The array is copied.
   *
   * @param itemShape the dimensions of every record
   * @return this request
   * @throws NullPointerException if {@code itemShape} is {@code null}
   */
  public StoreRequest itemShape(long... itemShape) {
    this.itemShape = itemShape.clone();
    return this;
  }

  /**
   * The store's codec, fixed when the store is created: "raw", "zstd" (the default), "zstd_dict"
   * (which needs a {@link #dictionary}) or a registered plugin's name ({@link
   * Vfs#registeredPlugins Vfs.registeredPlugins("codec")}). Checked against an existing store; an
   * unknown name is {@link IllegalArgumentException} when the store is opened.
   *
   * @param codec the codec's name, or {@code null} to leave it unset
   * @return this request
   */
  public StoreRequest codec(String codec) {
    this.codec = codec;
    return this;
  }

  /**
   * The trained dictionary of a "zstd_dict" store ({@link ZstdDictionary#train}), taken only when
   * the store is created: a dictionary for an existing store or another codec is {@link
   * IllegalArgumentException} when opened. The array is copied.
   *
   * @param dictionary the dictionary's bytes
   * @return this request
   * @throws NullPointerException if {@code dictionary} is {@code null}
   */
  public StoreRequest dictionary(byte[] dictionary) {
    this.dictionary = dictionary.clone();
    return this;
  }

  /**
   * The compression level of appends through the store handle this request opens; 0 (the
   * default) is the codec's own (zstd 3, zstd_dict 19). Not stored: records written at any level
   * read back alike. Codecs without levels ignore it; a level the codec does not have is {@link
   * IllegalArgumentException} when the store is opened.
   *
   * @param level the codec's compression level, or 0
   * @return this request
   */
  public StoreRequest level(int level) {
    this.level = level;
    return this;
  }

  /**
   * Opens without writing anything (a shared lock that other read-only handles may hold too, so
   * it works on read-only files); never creates a store. Appends, deletes and compaction then
   * fail with {@link IllegalStateException}, and {@link TypedStore#sync()} does nothing. A
   * read-only request at a path holding no store is {@link java.io.UncheckedIOException} wrapping
   * a {@link java.io.FileNotFoundException}. Any number of read-only handles may share a store,
   * and they exclude a writer ({@link StoreBusyException}).
   *
   * @param readOnly whether to open read-only (default {@code false})
   * @return this request
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
