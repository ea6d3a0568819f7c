package org.loaderx;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/**
 * Store sets through the Java API: three dense members (one empty) read as their concatenation,
 * stats and verify across members, and a member changed after the set was written refused.
 */
public class StoreSetTest {
  @Test
  public void readsMembersAsOneAndRefusesAChangedMember() {
    try (Vfs fs = Vfs.memory()) {
      List<String> paths = new ArrayList<>();
      long next = 0;
      for (int m = 0; m < 3; m++) {
        String path = "/m" + m;
        try (DenseStore store =
            DenseStore.open(fs, path, new StoreRequest().dtype("<i8").itemShape(1))) {
          int count = m == 1 ? 0 : 5 + m;
          if (count > 0) {
            ByteBuffer ids = ByteBuffer.allocateDirect(8 * count).order(ByteOrder.nativeOrder());
            for (int i = 0; i < count; i++) ids.putLong(next++);
            store.append(ids.flip());
          }
        }
        paths.add(path);
      }
      try (StoreSet set = StoreSet.create(fs, "/all.lxset", paths)) {
        assertEquals(next, set.size());
        assertEquals(3, set.numMembers());
        assertEquals(5, set.memberStart(2));
        long[] indices = {11, 0, 5, 4, 6};
        ByteBuffer out = ByteBuffer.allocateDirect(8 * indices.length).order(ByteOrder.nativeOrder());
        set.gather(indices, out);
        for (int i = 0; i < indices.length; i++) assertEquals(indices[i], out.getLong(8 * i));
        assertEquals(next, set.stats().records());
        assertTrue(set.verify().ok());
        // Two ranks of a loader over the set: their slices make the sampler's batch.
        try (Sampler single = new Sampler(next, 4, SamplerMode.CYCLIC, 9);
            DataLoader rank0 = DataLoader.overSet("ids", set, 4, SamplerMode.CYCLIC, 9, 2, 0, 2);
            DataLoader rank1 = DataLoader.overSet("ids", set, 4, SamplerMode.CYCLIC, 9, 2, 1, 2)) {
          for (int step = 0; step < 10; step++) {
            long[] expected = single.next();
            try (Batch a = rank0.next();
                Batch b = rank1.next()) {
              ByteBuffer x = a.stream("ids");
              ByteBuffer y = b.stream("ids");
              assertEquals(expected[0], x.getLong(0));
              assertEquals(expected[1], x.getLong(8));
              assertEquals(expected[2], y.getLong(0));
              assertEquals(expected[3], y.getLong(8));
            }
          }
        }
      }
      try (DenseStore store = DenseStore.open(fs, "/m2")) {
        ByteBuffer one = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        store.append(one.putLong(99).flip());
      }
      RuntimeException error =
          assertThrows(RuntimeException.class, () -> StoreSet.open(fs, "/all.lxset"));
      assertTrue(error.getMessage(), error.getMessage().contains("member 2 (/m2)"));
    }
  }
}
