package org.loaderx;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.Test;

/**
 * The Java binding over the real native build: plugins found by name, files
 * round-tripped through each filesystem, and native errors arriving as the
 * idiomatic Java exceptions.
 */
public class VfsTest {
  private static String root(Vfs fs) throws Exception {
    String root;
    if (fs.name().equals("posix")) {
      String tmp = System.getenv("TEST_TMPDIR");
      Path base = tmp != null ? Path.of(tmp) : Path.of(System.getProperty("java.io.tmpdir"));
      root = Files.createTempDirectory(base, "java").resolve("root").toString();
    } else {
      root = "/root";
    }
    fs.createDirectory(root);
    return root;
  }

  private static final String[] FILESYSTEMS = {"posix", "memory", "fault"};

  @Test
  public void listsregisteredPlugins() {
    List<String> vfs = Vfs.registeredPlugins("vfs");
    assertTrue(vfs.contains("posix"));
    assertTrue(vfs.contains("memory"));
    assertTrue(vfs.contains("fault"));
    assertTrue(Vfs.registeredPlugins("codec").contains("raw"));
  }

  @Test
  public void unknownKindOrNameIsIllegalArgument() {
    IllegalArgumentException kind = assertThrows(IllegalArgumentException.class,
        () -> Vfs.registeredPlugins("scheduler"));
    assertTrue(kind.getMessage().contains("unknown plugin kind"));
    IllegalArgumentException name =
        assertThrows(IllegalArgumentException.class, () -> Vfs.open("nfs"));
    assertTrue(name.getMessage().contains("posix"));
  }

  @Test
  public void bytesRoundTrip() throws Exception {
    for (String name : FILESYSTEMS) {
      Vfs fs = Vfs.open(name);
      String root = root(fs);
      byte[] payload = new byte[1000];
      for (int i = 0; i < payload.length; i++) {
        payload[i] = (byte) (i * 7);
      }
      fs.writeFile(root + "/a", payload);
      assertArrayEquals(name, payload, fs.readFile(root + "/a"));
      fs.writeFile(root + "/b", new byte[0], true);
      assertEquals(name, 0, fs.readFile(root + "/b").length);
      assertEquals(name, List.of("a", "b"), fs.list(root));
    }
  }

  @Test
  public void missingFileIsFileNotFound() throws Exception {
    for (String name : FILESYSTEMS) {
      Vfs fs = Vfs.open(name);
      String root = root(fs);
      UncheckedIOException e =
          assertThrows(UncheckedIOException.class, () -> fs.readFile(root + "/missing"));
      assertTrue(name, e.getCause() instanceof FileNotFoundException);
      assertTrue(name, e.getMessage().contains("missing"));
    }
  }

  @Test
  public void existingDirectoryIsFileAlreadyExists() throws Exception {
    Vfs fs = Vfs.memory();
    String root = root(fs);
    UncheckedIOException e =
        assertThrows(UncheckedIOException.class, () -> fs.createDirectory(root));
    assertTrue(e.getCause() instanceof FileAlreadyExistsException);
  }

  @Test
  public void nonEmptyDirectoryRemovalIsIllegalState() throws Exception {
    Vfs fs = Vfs.memory();
    String root = root(fs);
    fs.writeFile(root + "/f", new byte[] {1});
    assertThrows(IllegalStateException.class, () -> fs.removeDirectory(root));
    assertTrue(fs.exists(root + "/f"));
  }

  @Test
  public void secondLockIsBusyUntilClosed() throws Exception {
    for (String name : FILESYSTEMS) {
      Vfs fs = Vfs.open(name);
      String lockPath = root(fs) + "/store.lock";
      try (FileLock held = fs.lock(lockPath)) {
        assertTrue(held.held());
        StoreBusyException busy = assertThrows(StoreBusyException.class, () -> fs.lock(lockPath));
        assertTrue(busy.getMessage().contains("busy"));
      }
      try (FileLock again = fs.lock(lockPath)) {
        assertTrue(again.held());
      }
    }
  }

  @Test
  public void aClosedVfsIsIllegalStateAndItsStoresLiveOn() throws Exception {
    Vfs fs = Vfs.memory();
    DenseStore store =
        DenseStore.open(fs, "/s", new StoreRequest().dtype("|u1").itemShape(2).codec("raw"));
    fs.close();
    fs.close(); // idempotent
    assertThrows(IllegalStateException.class, () -> fs.exists("/s"));
    assertEquals(0, store.append(new byte[] {1, 2}));
    assertArrayEquals(new byte[] {1, 2}, store.gather(0));
    store.close();
  }

  @Test
  public void aClosedLockIsNotHeld() throws Exception {
    try (Vfs fs = Vfs.memory()) {
      FileLock lock = fs.lock("/l");
      lock.close();
      assertFalse(lock.held());
      lock.close();
    }
  }

  @Test
  public void nullBytesAreRejected() throws Exception {
    Vfs fs = Vfs.memory();
    String root = root(fs);
    assertThrows(NullPointerException.class, () -> fs.writeFile(root + "/n", null));
    assertFalse(fs.exists(root + "/n"));
  }

  /**
   * A NUL would end the name in the C APIs ("a\0b" would be "a"), and JNI's modified UTF-8 would
   * turn it into the bytes C0 80, another valid name: it reaches the engine as a NUL and is
   * refused, on every filesystem, and nothing is made.
   */
  @Test
  public void aNulInAPathIsIllegalArgumentAndMakesNothing() throws Exception {
    for (String name : FILESYSTEMS) {
      try (Vfs fs = Vfs.open(name)) {
        String root = root(fs);
        String withNul = root + "/a\0b";
        assertThrows(name, IllegalArgumentException.class, () -> fs.createDirectory(withNul));
        assertThrows(
            name, IllegalArgumentException.class, () -> fs.writeFile(withNul, new byte[] {1}));
        assertThrows(name, IllegalArgumentException.class, () -> fs.exists(withNul));
        assertThrows(name, IllegalArgumentException.class, () -> fs.list(withNul));
        // An unpaired surrogate names no UTF-8 string.
        assertThrows(name, IllegalArgumentException.class, () -> fs.createDirectory(root + "/\uD800"));
        assertEquals(name, List.of(), fs.list(root));
      }
    }
  }
}
