package org.loaderx;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.Test;

/** The sampler through the Java binding: batches as long[], purity, errors. */
public class SamplerTest {
  @Test
  public void sequentialSlidesAroundTheCircle() {
    IndexSampler sampler = new IndexSampler(10, 4, "sequential", 0);
    assertArrayEquals(new long[] {0, 1, 2, 3}, sampler.next());
    assertArrayEquals(new long[] {4, 5, 6, 7}, sampler.next());
    assertArrayEquals(new long[] {8, 9, 0, 1}, sampler.next());
    assertEquals(3, sampler.step());
  }

  @Test
  public void batchesArePureInSeedAndStep() {
    IndexSampler a = new IndexSampler(1000, 16, "iid", 7);
    IndexSampler b = new IndexSampler(1000, 16, "iid", 7);
    long[] first = a.next();
    long[] second = a.next();
    assertArrayEquals(second, b.batch(1));
    assertArrayEquals(first, b.batch(0));
    assertEquals(0, b.step());
    b.seek(1);
    assertArrayEquals(second, b.next());
    for (long index : first) {
      assertTrue(index >= 0 && index < 1000);
    }
    IndexSampler other = new IndexSampler(1000, 16, "iid", 8);
    assertFalse(Arrays.equals(first, other.batch(0)));
  }

  @Test
  public void cyclicRepeatsNothingWithinACycle() {
    IndexSampler sampler = new IndexSampler(100, 10, "cyclic", 3);
    assertEquals(10, sampler.batchesPerCycle());
    Set<Long> seen = new HashSet<>();
    for (int b = 0; b < 10; b++) {
      for (long index : sampler.next()) {
        assertTrue("repeated " + index, seen.add(index));
      }
    }
    assertEquals(100, seen.size());
  }

  @Test
  public void impossibleConfigurationsAreIllegalArguments() {
    assertThrows(IllegalArgumentException.class, () -> new IndexSampler(0, 4, "iid", 1));
    assertThrows(IllegalArgumentException.class, () -> new IndexSampler(10, 11, "cyclic", 1));
    assertThrows(IllegalArgumentException.class, () -> new IndexSampler(10, 2, "shuffle", 1));
    IndexSampler sampler = new IndexSampler(10, 2, "iid", 1);
    assertThrows(IllegalArgumentException.class, () -> sampler.seek(-1));
  }
}
