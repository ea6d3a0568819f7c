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
    Sampler sampler = null;
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
          sampler = new Sampler(values[1], values[2], SamplerMode.of((int) values[0]), values[3]);
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
    Sampler cyclic = new Sampler(10, 4, SamplerMode.CYCLIC, 42);
    assertArrayEquals(new long[] {4, 9, 2, 3}, cyclic.next());
    assertArrayEquals(new long[] {0, 7, 8, 5}, cyclic.next());
    assertArrayEquals(new long[] {6, 7, 3, 4}, cyclic.next());
    assertEquals(3, cyclic.step());
    Sampler iid = new Sampler(1000, 8, SamplerMode.IID, 42);
    assertArrayEquals(new long[] {520, 433, 412, 601, 163, 713, 142, 216}, iid.next());
  }

  @Test
  public void sixtyFourBitValuesKeepEveryBit() {
    long top = u64("18446744073709551615"); // 2^64 - 1, read as -1.
    Sampler sampler = new Sampler(top, 3, SamplerMode.SEQUENTIAL, top);
    assertEquals(top, sampler.length());
    assertEquals("18446744073709551615", Long.toUnsignedString(sampler.seed()));
    long step = Long.divideUnsigned(top - 1, 3);
    sampler.seek(step);
    assertEquals(step, sampler.step());
    assertArrayEquals(new long[] {top - 3, top - 2, top - 1}, sampler.next());
    assertArrayEquals(new long[] {0, 1, 2}, sampler.next());
    // A length above 2^32 is not truncated: IID draws reach past it.
    long big = (1L << 40) + 3;
    Sampler iid = new Sampler(big, 64, SamplerMode.IID, 1);
    boolean above32Bits = false;
    for (long index : iid.next()) {
      assertTrue(Long.compareUnsigned(index, big) < 0);
      above32Bits |= index >= (1L << 32);
    }
    assertTrue(above32Bits);
  }

  @Test
  public void batchIsSeekThenNextWithoutMoving() {
    for (SamplerMode mode :
        new SamplerMode[] {
          SamplerMode.SEQUENTIAL, SamplerMode.IID, SamplerMode.CYCLIC, SamplerMode.IID_KEYED
        }) {
      Sampler a = new Sampler(1000, 16, mode, 7);
      long[] first = a.next();
      long[] second = a.next();
      Sampler b = new Sampler(1000, 16, mode, 7);
      assertArrayEquals(second, b.batch(1));
      assertArrayEquals(first, b.batch(0));
      assertEquals(0, b.step());
      b.seek(1);
      assertArrayEquals(second, b.next());
      Sampler other = new Sampler(1000, 16, mode, 8);
      if (mode != SamplerMode.SEQUENTIAL) assertFalse(Arrays.equals(first, other.batch(0)));
    }
  }

  @Test
  public void cyclicRepeatsNothingWithinACycleAndShortBatchesBelowOne() {
    Sampler sampler = new Sampler(100, 10, SamplerMode.CYCLIC, 3);
    assertEquals(10, sampler.batchesPerCycle());
    Set<Long> seen = new HashSet<>();
    for (int b = 0; b < 10; b++) {
      for (long index : sampler.next()) {
        assertTrue("repeated " + index, seen.add(index));
      }
    }
    assertEquals(100, seen.size());
    Sampler small = new Sampler(3, 8, SamplerMode.CYCLIC, 42);
    assertEquals(3, small.batchLength());
    long[] batch = small.next();
    Arrays.sort(batch);
    assertArrayEquals(new long[] {0, 1, 2}, batch);
  }

  @Test
  public void lengthsAndSeedsAbove2To31AreWhatCppAndPythonReport() throws IOException {
    // Every golden case with a length or seed of 2^31 or more (recorded from the C++ sampler and
    // checked by the Python suite against loaderx 1.7.7) reads back through longs, none narrowed.
    List<String> lines = Files.readAllLines(GOLDEN);
    int large = 0;
    for (String line : lines) {
      if (!line.startsWith("sampler ")) continue;
      long[] values = numbers(line.split(" "));
      boolean big =
          Long.compareUnsigned(values[1], 1L << 31) >= 0
              || Long.compareUnsigned(values[3], 1L << 31) >= 0;
      if (!big) continue;
      try (Sampler sampler =
          new Sampler(values[1], values[2], SamplerMode.of((int) values[0]), values[3])) {
        assertEquals(line, values[1], sampler.length());
        assertEquals(line, values[3], sampler.seed());
        large++;
      }
    }
    assertTrue("golden cases above 2^31: " + large, large > 0);
    // A length of 3 * 2^32, stepped past 2^32 batches: the sequential indices are the step's.
    long length = 3L << 32;
    try (Sampler sampler = new Sampler(length, 2, SamplerMode.SEQUENTIAL, 5_000_000_000L)) {
      assertEquals(5_000_000_000L, sampler.seed());
      assertEquals(length / 2, sampler.batchesPerCycle());
      long step = (1L << 32) + 7;
      sampler.seek(step);
      assertEquals(step, sampler.step());
      assertArrayEquals(new long[] {2 * step, 2 * step + 1}, sampler.next());
      assertEquals(step + 1, sampler.step());
    }
  }

  @Test
  public void nextIntoFillsADirectBufferAndAClosedSamplerIsIllegalState() {
    Sampler sampler = new Sampler(100, 4, SamplerMode.CYCLIC, 42);
    long[] expected = new Sampler(100, 4, SamplerMode.CYCLIC, 42).next();
    java.nio.ByteBuffer out =
        java.nio.ByteBuffer.allocateDirect(8 * 4).order(java.nio.ByteOrder.nativeOrder());
    assertEquals(4, sampler.nextInto(out));
    assertEquals(32, out.position());
    long[] got = new long[4];
    out.flip().asLongBuffer().get(got);
    assertArrayEquals(expected, got);
    assertThrows(
        IllegalArgumentException.class, () -> sampler.nextInto(java.nio.ByteBuffer.allocate(32)));
    assertThrows(
        IllegalArgumentException.class,
        () -> sampler.nextInto(java.nio.ByteBuffer.allocateDirect(8)));
    sampler.close();
    assertThrows(IllegalStateException.class, sampler::next);
    assertThrows(IllegalStateException.class, sampler::step);
    sampler.close();
  }

  @Test
  public void whatTheReferenceCrashesOnIsAnIllegalArgument() {
    assertThrows(IllegalArgumentException.class, () -> new Sampler(0, 4, SamplerMode.IID, 1));
    assertThrows(
        IllegalArgumentException.class, () -> new Sampler(10, 0, SamplerMode.CYCLIC, 1));
    assertThrows(IllegalArgumentException.class, () -> new Sampler(10, 2, SamplerMode.of(7), 1));
    assertThrows(IllegalArgumentException.class, () -> new Sampler(10, 2, SamplerMode.of(-1), 1));
  }
}
