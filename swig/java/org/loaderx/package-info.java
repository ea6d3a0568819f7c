/**
 * loaderx for Java: record stores and the step-based data loader of the C++ engine, through JNI
 * (the native library ships inside the jar and loads itself).
 *
 * <p>Where to start: a {@link org.loaderx.Vfs} (usually {@link org.loaderx.Vfs#posix()}), stores
 * on it ({@link org.loaderx.DenseStore} for fixed-shape records, {@link org.loaderx.RaggedStore}
 * for records of their own shapes, both {@link org.loaderx.TypedStore}s, opened or created with a
 * {@link org.loaderx.StoreRequest}), and a {@link org.loaderx.DataLoader} over them, whose {@link
 * org.loaderx.Batch}es hand out the records without copying. {@link org.loaderx.Sampler} draws
 * the loader's indices on its own, bit-exact with loaderx 1.7.7.
 *
 * <p>Rules every class follows:
 *
 * <ul>
 *   <li>Every class over a native object is {@link java.lang.AutoCloseable}: use
 *       try-with-resources. After {@code close()} its methods throw {@link
 *       java.lang.IllegalStateException}, also when a call races the close (the close waits for
 *       calls in flight; native memory is never used after it is freed). {@code close()} is
 *       idempotent.
 *   <li>Every size, count, index, step and seed is a {@code long} with all 64 bits; the sampler's
 *       unsigned values of 2^63 and above read as negative ({@link
 *       java.lang.Long#toUnsignedString(long)}).
 *   <li>Records go in and out through <b>direct</b> {@link java.nio.ByteBuffer}s, read or filled
 *       in place from their position; a heap buffer, or a read-only one where one is written, is
 *       {@link java.lang.IllegalArgumentException}. The {@code byte[]} forms copy once more.
 *   <li>Errors are unchecked exceptions chosen by one table ({@link org.loaderx.Errors#of}):
 *       {@link java.lang.IllegalArgumentException} for a malformed request, {@link
 *       java.lang.IndexOutOfBoundsException} naming an index, {@link
 *       java.lang.IllegalStateException} for a closed object or a call the object cannot serve,
 *       {@link org.loaderx.StoreBusyException} for a store open elsewhere, and {@link
 *       java.io.UncheckedIOException} (wrapping {@link java.io.FileNotFoundException} and the
 *       other {@code java.io} and {@code java.nio.file} exceptions) for I/O and damaged data. A
 *       failed call changes no store.
 * </ul>
 *
 * <p>The package {@code org.loaderx.internal} holds the generated JNI layer underneath; it is not
 * part of the API.
 */
package org.loaderx;
