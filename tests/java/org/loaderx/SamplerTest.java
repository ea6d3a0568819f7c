package org.loaderx;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.Test;

/**
 * The sampler through the Java binding: loaderx 1.7.7's sequences (the golden file recorded from
 * it), 64-bit values carried in {@code long}s, and errors.
 */
public class SamplerTest {
  // Bazel runs the test from the runfiles tree, where the data file sits at its source path.
  private static final Path GOLDEN = Paths.get("tests/data/sampler_golden.txt");

  private static long u64(String decimal) {
    return Long.parseUnsignedLong(decimal);
  }

  private static long[] numbers(String[] words) {
    long[] values = new long[words.length - 1];
    for (int i = 1; i < words.length; i++) values[i - 1] = u64(words[i]);
    return values;
  }

  @Test
  public void reproducesTheReferenceGoldenSequences() throws IOException {
    List<String> lines = Files.readAllLines(GOLDEN);
    IndexSampler sampler = null;
    String description = "";
    int cases = 0;
    int batches = 0;
    for (int n = 0; n < lines.size(); n++) {
      String line = lines.get(n);
      if (line.isEmpty() || line.startsWith("#")) continue;
      String[] words = line.split(" ");
      long[] values = numbers(words);
      String where = GOLDEN + ":" + (n + 1) + " (" + description + ")";
      switch (words[0]) {
        case "sampler":
          sampler = new IndexSampler(values[1], values[2], (int) values[0], values[3]);
          description = line;
          cases++;
          break;
        case "seek":
          sampler.seek(values[0]);
          break;
        case "next":
          assertArrayEquals(where, values, sampler.next());
          batches++;
          break;
        default:
          fail("unknown line " + where + ": " + line);
      }
    }
    assertTrue(cases > 200);
    assertTrue(batches > 1500);
  }

  @Test
  public void referenceSampleValues() {
    IndexSampler cyclic = new IndexSampler(10, 4, IndexSampler.CYCLIC, 42);
    assertArrayEquals(new long[] {4, 9, 2, 3}, cyclic.next());
    assertArrayEquals(new long[] {0, 7, 8, 5}, cyclic.next());
    assertArrayEquals(new long[] {6, 7, 3, 4}, cyclic.next());
    assertEquals(3, cyclic.step());
    IndexSampler iid = new IndexSampler(1000, 8, IndexSampler.IID, 42);
    assertArrayEquals(new long[] {520, 433, 412, 601, 163, 713, 142, 216}, iid.next());
  }

  @Test
  public void sixtyFourBitValuesKeepEveryBit() {
    long top = u64("18446744073709551615"); // 2^64 - 1, read as -1.
    IndexSampler sampler = new IndexSampler(top, 3, IndexSampler.SEQUENTIAL, top);
    assertEquals(top, sampler.length());
    assertEquals("18446744073709551615", Long.toUnsignedString(sampler.seed()));
    long step = Long.divideUnsigned(top - 1, 3);
    sampler.seek(step);
    assertEquals(step, sampler.step());
    assertArrayEquals(new long[] {top - 3, top - 2, top - 1}, sampler.next());
    assertArrayEquals(new long[] {0, 1, 2}, sampler.next());
    // A length above 2^32 is not truncated: IID draws reach past it.
    long big = (1L << 40) + 3;
    IndexSampler iid = new IndexSampler(big, 64, IndexSampler.IID, 1);
    boolean above32Bits = false;
    for (long index : iid.next()) {
      assertTrue(Long.compareUnsigned(index, big) < 0);
      above32Bits |= index >= (1L << 32);
    }
    assertTrue(above32Bits);
  }

  @Test
  public void batchIsSeekThenNextWithoutMoving() {
    for (int mode :
        new int[] {
          IndexSampler.SEQUENTIAL, IndexSampler.IID, IndexSampler.CYCLIC, IndexSampler.IID_KEYED
        }) {
      IndexSampler a = new IndexSampler(1000, 16, mode, 7);
      long[] first = a.next();
      long[] second = a.next();
      IndexSampler b = new IndexSampler(1000, 16, mode, 7);
      assertArrayEquals(second, b.batch(1));
      assertArrayEquals(first, b.batch(0));
      assertEquals(0, b.step());
      b.seek(1);
      assertArrayEquals(second, b.next());
      IndexSampler other = new IndexSampler(1000, 16, mode, 8);
      if (mode != IndexSampler.SEQUENTIAL) assertFalse(Arrays.equals(first, other.batch(0)));
    }
  }

  @Test
  public void cyclicRepeatsNothingWithinACycleAndShortBatchesBelowOne() {
    IndexSampler sampler = new IndexSampler(100, 10, IndexSampler.CYCLIC, 3);
    assertEquals(10, sampler.batchesPerCycle());
    Set<Long> seen = new HashSet<>();
    for (int b = 0; b < 10; b++) {
      for (long index : sampler.next()) {
        assertTrue("repeated " + index, seen.add(index));
      }
    }
    assertEquals(100, seen.size());
    IndexSampler small = new IndexSampler(3, 8, IndexSampler.CYCLIC, 42);
    assertEquals(3, small.batchLength());
    long[] batch = small.next();
    Arrays.sort(batch);
    assertArrayEquals(new long[] {0, 1, 2}, batch);
  }

  @Test
  public void whatTheReferenceCrashesOnIsAnIllegalArgument() {
    assertThrows(IllegalArgumentException.class, () -> new IndexSampler(0, 4, IndexSampler.IID, 1));
    assertThrows(
        IllegalArgumentException.class, () -> new IndexSampler(10, 0, IndexSampler.CYCLIC, 1));
    assertThrows(IllegalArgumentException.class, () -> new IndexSampler(10, 2, 7, 1));
    assertThrows(IllegalArgumentException.class, () -> new IndexSampler(10, 2, -1, 1));
  }
}
