package org.loaderx;

import java.util.List;

/**
 * A registered filesystem ({@code loaderx::Vfs}), created by name: "posix", "memory", or a
 * plugin's. Stores open on a {@code Vfs} and keep its native half alive, so closing it while
 * stores are open is safe; an in-memory filesystem's files last as long as it or a store on it.
 *
 * <pre>{@code
 * try (Vfs vfs = Vfs.open("memory")) {
 *   vfs.writeFile("/a.bin", new byte[] {1, 2, 3}, false);
 * }
 * }</pre>
 *
 * <p>Paths are plain strings handed to the filesystem unchanged, with {@code /} as the
 * separator.
 *
 * <p>Errors: {@link java.io.UncheckedIOException} wrapping the {@code java.nio.file} exception
 * for a missing ({@code FileNotFoundException}), existing ({@code FileAlreadyExistsException}) or
 * forbidden ({@code AccessDeniedException}) path, and a plain {@code IOException} for any other
 * I/O failure; {@link IllegalStateException} for the wrong kind of object (a directory used as a
 * file or the other way round, a non-empty directory removed) and after {@link #close}; {@link
 * IllegalArgumentException} for an unknown name. Every method may be called from many threads at
 * once.
 */
public final class Vfs implements AutoCloseable {
  private final NativeHandle<org.loaderx.internal.Vfs> handle;
  private final String name;

  private Vfs(String name) {
    this.name = name;
    org.loaderx.internal.Vfs vfs = new org.loaderx.internal.Vfs(name);
    this.handle = new NativeHandle<>("Vfs", vfs, org.loaderx.internal.Vfs::delete);
  }

  /**
   * A new handle on the registered filesystem called {@code name}: for "memory" a new, empty
   * filesystem; for "posix" the operating system's files.
   *
   * @param name a name in {@link #registeredPlugins registeredPlugins("vfs")}
   * @return the filesystem, to be closed when no longer needed
   * @throws IllegalArgumentException if no filesystem is registered as {@code name} (the message
   *     lists those that are)
   */
  public static Vfs open(String name) {
    return new Vfs(name);
  }

  /**
   * The operating system's files: {@code open("posix")}.
   *
   * @return a handle on the operating system's filesystem
   */
  public static Vfs posix() {
    return open("posix");
  }

  /**
   * A new, empty filesystem in memory, private to this handle and the stores opened on it:
   * {@code open("memory")}. Its files are gone once the handle and those stores are closed.
   *
   * @return the in-memory filesystem
   */
  public static Vfs memory() {
    return open("memory");
  }

  /**
   * The plugins registered in the native library, sorted by name.
   *
   * @param kind "vfs" (filesystems), "codec" or "typed_owner" (store kinds)
   * @return the names of the registered plugins of {@code kind}, an unmodifiable list
   * @throws IllegalArgumentException if {@code kind} is none of those
   */
  public static List<String> registeredPlugins(String kind) {
    return List.copyOf(org.loaderx.internal.LoaderxNative.registeredPlugins(kind));
  }

  /** {@return the name this filesystem was opened with} Works after {@link #close} too. */
  public String name() {
    return name;
  }

  /**
   * Whether a file or directory exists at {@code path}.
   *
   * @param path the path to look at
   * @return {@code true} if something is there
   * @throws java.io.UncheckedIOException if the answer is unknown (e.g. {@code
   *     AccessDeniedException} on a parent directory): an error never means "absent"
   * @throws IllegalStateException if this handle is closed
   */
  public boolean exists(String path) {
    return handle.call(h -> h.exists(path));
  }

  /**
   * The entries of directory {@code path}.
   *
   * @param path the directory
   * @return the names (not paths) of its files and directories, sorted, without "." and "..", an
   *     unmodifiable list
   * @throws java.io.UncheckedIOException wrapping a {@code FileNotFoundException} if there is no
   *     such directory
   * @throws IllegalStateException if {@code path} is a file, or this handle is closed
   */
  public List<String> list(String path) {
    return handle.call(h -> List.copyOf(h.list(path)));
  }

  /**
   * Creates one directory, whose parent must exist.
   *
   * @param path the new directory
   * @throws java.io.UncheckedIOException wrapping a {@code FileAlreadyExistsException} if a file
   *     or directory is at {@code path}, or a {@code FileNotFoundException} if the parent is
   *     missing
   * @throws IllegalStateException if this handle is closed
   */
  public void createDirectory(String path) {
    handle.run(h -> h.createDirectory(path));
  }

  /**
   * Removes an empty directory.
   *
   * @param path the directory
   * @throws java.io.UncheckedIOException wrapping a {@code FileNotFoundException} if there is no
   *     such directory
   * @throws IllegalStateException if the directory has entries, {@code path} is a file, or this
   *     handle is closed
   */
  public void removeDirectory(String path) {
    handle.run(h -> h.removeDirectory(path));
  }

  /**
   * Removes a file. Handles already open on it (a store's, a {@link FileLock}) keep working until
   * closed.
   *
   * @param path the file
   * @throws java.io.UncheckedIOException wrapping a {@code FileNotFoundException} if there is no
   *     such file
   * @throws IllegalStateException if {@code path} is a directory, or this handle is closed
   */
  public void remove(String path) {
    handle.run(h -> h.remove(path));
  }

  /**
   * Atomically renames a file, replacing {@code to} if it is an existing file.
   *
   * @param from the file's path
   * @param to its new path
   * @throws java.io.UncheckedIOException wrapping a {@code FileNotFoundException} if {@code from}
   *     does not exist
   * @throws IllegalStateException if {@code from} or {@code to} is a directory, or this handle is
   *     closed
   */
  public void rename(String from, String to) {
    handle.run(h -> h.rename(from, to));
  }

  /**
   * The whole file's contents.
   *
   * @param path the file
   * @return a new array of its bytes
   * @throws java.io.UncheckedIOException wrapping a {@code FileNotFoundException} if there is no
   *     such file
   * @throws IllegalArgumentException if the file is larger than one {@code byte[]} can hold
   * @throws IllegalStateException if {@code path} is a directory, or this handle is closed
   */
  public byte[] readFile(String path) {
    return handle.call(h -> h.readFile(path));
  }

  /**
   * Creates or replaces the file, without syncing it: {@code writeFile(path, data, false)}.
   *
   * @param path the file; its directory must exist
   * @param data its new contents
   * @throws java.io.UncheckedIOException wrapping a {@code FileNotFoundException} if the
   *     directory is missing, or an {@code IOException} for an I/O error
   * @throws IllegalStateException if {@code path} is a directory, or this handle is closed
   */
  public void writeFile(String path, byte[] data) {
    writeFile(path, data, false);
  }

  /**
   * Creates or replaces the file with {@code data}.
   *
   * @param path the file; its directory must exist
   * @param data its new contents
   * @param sync whether to make the contents durable before returning (not the directory entry)
   * @throws java.io.UncheckedIOException wrapping a {@code FileNotFoundException} if the
   *     directory is missing, or an {@code IOException} for an I/O error
   * @throws IllegalStateException if {@code path} is a directory, or this handle is closed
   */
  public void writeFile(String path, byte[] data, boolean sync) {
    handle.run(h -> h.writeFile(path, data, sync));
  }

  /**
   * Takes the file's exclusive advisory lock without blocking, creating the file (empty) if
   * needed. The lock excludes every other lock on the file, through any handle in this process or
   * another, stores' locks included, until the returned lock is closed.
   *
   * @param path the file; its directory must exist
   * @return the lock, held until {@link FileLock#close}
   * @throws StoreBusyException if another handle or process holds a lock on the file
   * @throws java.io.UncheckedIOException wrapping a {@code FileNotFoundException} if the
   *     directory is missing
   * @throws IllegalStateException if {@code path} is a directory, or this handle is closed
   */
  public FileLock lock(String path) {
    return new FileLock(handle.call(h -> h.lock(path)));
  }


  <R> R withNative(java.util.function.Function<org.loaderx.internal.Vfs, R> body) {
    return handle.call(body);
  }

  /**
   * Releases this handle; stores and locks opened on it keep working, and keep the filesystem
   * (an in-memory one's files included) until they close. Later calls on this handle throw
   * {@link IllegalStateException}, except {@link #name()}. Idempotent; waits for calls in flight.
   */
  @Override
  public void close() {
    handle.close();
  }
}
