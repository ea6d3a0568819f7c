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
 * <p>Errors: {@link java.io.UncheckedIOException} wrapping the {@code java.nio.file} exception
 * for a missing ({@code FileNotFoundException}), existing or forbidden path, {@link
 * IllegalArgumentException} for an unknown name. May be used from many threads.
 */
public final class Vfs implements AutoCloseable {
  private final NativeHandle<org.loaderx.internal.Vfs> handle;
  private final String name;

  private Vfs(String name) {
    this.name = name;
    org.loaderx.internal.Vfs vfs = new org.loaderx.internal.Vfs(name);
    this.handle = new NativeHandle<>("Vfs", vfs, org.loaderx.internal.Vfs::delete);
  }

  /** The registered filesystem called {@code name}. */
  public static Vfs open(String name) {
    return new Vfs(name);
  }

  /** The operating system's files. */
  public static Vfs posix() {
    return open("posix");
  }

  /** A private filesystem in memory. */
  public static Vfs memory() {
    return open("memory");
  }

  /** The registered plugins of {@code kind}: "vfs", "codec" or "typed_owner". */
  public static List<String> registeredPlugins(String kind) {
    return List.copyOf(org.loaderx.internal.LoaderxNative.registeredPlugins(kind));
  }

  public String name() {
    return name;
  }

  public boolean exists(String path) {
    return handle.call(h -> h.exists(path));
  }

  public List<String> list(String path) {
    return handle.call(h -> List.copyOf(h.list(path)));
  }

  public void createDirectory(String path) {
    handle.run(h -> h.createDirectory(path));
  }

  public void removeDirectory(String path) {
    handle.run(h -> h.removeDirectory(path));
  }

  public void remove(String path) {
    handle.run(h -> h.remove(path));
  }

  public void rename(String from, String to) {
    handle.run(h -> h.rename(from, to));
  }

  /** The whole file's contents. */
  public byte[] readFile(String path) {
    return handle.call(h -> h.readFile(path));
  }

  /** Creates or replaces the file, without syncing it. */
  public void writeFile(String path, byte[] data) {
    writeFile(path, data, false);
  }

  /** Creates or replaces the file; {@code sync} makes it durable before returning. */
  public void writeFile(String path, byte[] data, boolean sync) {
    handle.run(h -> h.writeFile(path, data, sync));
  }

  /**
   * Takes the file's exclusive lock without blocking, creating the file if needed; {@link
   * StoreBusyException} if another handle or process holds it.
   */
  public FileLock lock(String path) {
    return new FileLock(handle.call(h -> h.lock(path)));
  }


  <R> R withNative(java.util.function.Function<org.loaderx.internal.Vfs, R> body) {
    return handle.call(body);
  }

  /** Releases this handle; stores opened on it keep working. */
  @Override
  public void close() {
    handle.close();
  }
}
