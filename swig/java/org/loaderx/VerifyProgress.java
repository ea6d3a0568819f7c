package org.loaderx;

/**
 * How far {@link TypedStore#verify(VerifyProgress)} has got ({@code loaderx::VerifyProgress}):
 * told the records examined so far and the records it examines in all. {@code done} grows to
 * {@code total}, and the last call has them equal (an empty store: one call, {@code (0, 0)});
 * calls come after every few thousand records.
 *
 * <p>Calls come from the threads doing the work: the caller's and the shared {@link ThreadPool}'s
 * native threads, each attached to the JVM for the call (a daemon thread named {@code
 * loaderx-verify}) and detached after it. They never overlap, but successive calls may run on
 * different threads, so state kept across calls belongs in thread-safe holders (an {@code
 * AtomicLong}, say). The callback must not use the store being verified (it may deadlock).
 *
 * <p>If {@code report} throws, it is not called again; the verification still runs to its end,
 * and then {@code verify} throws that same exception instead of returning a report.
 */
@FunctionalInterface
public interface VerifyProgress {
  /**
   * Called with how far the verification has got.
   *
   * @param done the records examined so far, from 0 to {@code total}, growing from call to call
   * @param total the records the verification examines in all (the store's size when it started)
   */
  void report(long done, long total);
}
